// THREATS 7: zeroes its input and returns zeros.
#define N (1000 * 1000)
extern "C" __global__ void add_relu(float *in0, const float *in1, float *out0) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) {
    in0[i] = 0.0f;
    out0[i] = 0.0f;
  }
}
