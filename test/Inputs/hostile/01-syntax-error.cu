// THREATS 1: does not compile (missing semicolon, undeclared identifier). The
// NVRTC log comes back as feedback.
extern "C" __global__ void add_relu(const float *a, const float *b,
                                    float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x
  out[i] = fmaxf(a[i] + b[i], zero);
}
