// THREATS 13: a correct kernel whose plan launches a grid of zero blocks; the
// launch would do nothing and leave stale output behind.
constexpr int kNumElements = 1024 * 1024;

extern "C" __global__ void add_relu(const float *a, const float *b,
                                    float *out) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < kNumElements;
       i += gridDim.x * blockDim.x)
    out[i] = fmaxf(a[i] + b[i], 0.0f);
}
