// THREATS 1: includes a host C header. Rejected before NVRTC runs: only CUDA
// toolkit headers may be included.
#include <stdio.h>

extern "C" __global__ void add_relu(const float *a, const float *b,
                                    float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0)
    printf("hello from the candidate\n");
  out[i] = fmaxf(a[i] + b[i], 0.0f);
}
