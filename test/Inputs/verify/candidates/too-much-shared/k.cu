// THREATS 11: a correct kernel whose plan asks for 300000 bytes of dynamic
// shared memory, more than a block may have (227 KiB on sm_90): the launch
// cannot happen and the poisoned output must expose it.
#define N (1000 * 1000)
extern "C" __global__ void add_relu(const float *in0, const float *in1, float *out0) {
  extern __shared__ float scratch[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) {
    scratch[threadIdx.x] = fmaxf(in0[i] + in1[i], 0.0f);
    out0[i] = scratch[threadIdx.x];
  }
}
