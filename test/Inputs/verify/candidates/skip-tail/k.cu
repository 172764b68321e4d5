// THREATS 4: no bounds check and a grid rounded down, so the last
// 1000000 % 256 = 64 elements are never written.
extern "C" __global__ void add_relu(const float *in0, const float *in1, float *out0) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out0[i] = fmaxf(in0[i] + in1[i], 0.0f);
}
