// THREATS 12: does the f32 math in f16 (inputs and sum rounded to half).
#include <cuda_fp16.h>
#define N (1000 * 1000)
extern "C" __global__ void add_relu(const float *in0, const float *in1, float *out0) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) {
    __half sum = __hadd(__float2half(in0[i]), __float2half(in1[i]));
    out0[i] = fmaxf(__half2float(sum), 0.0f);
  }
}
