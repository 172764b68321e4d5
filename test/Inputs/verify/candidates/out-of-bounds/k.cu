// THREATS 6: correct, but also writes one element past the end of out0.
#define N (1000 * 1000)
extern "C" __global__ void add_relu(const float *in0, const float *in1, float *out0) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N)
    out0[i] = fmaxf(in0[i] + in1[i], 0.0f);
  if (i == N)
    out0[N] = 0.0f;
}
