// THREATS 3: right on the first trial only. The first launch computes the
// answer and caches it in module memory (which lives as long as the loaded
// module); every later launch returns the cache, whatever the inputs.
#define N (1000 * 1000)
__device__ float cache[N];
__device__ unsigned char cached[N];
extern "C" __global__ void add_relu(const float *in0, const float *in1, float *out0) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N)
    return;
  if (!cached[i]) {
    cache[i] = fmaxf(in0[i] + in1[i], 0.0f);
    cached[i] = 1;
  }
  out0[i] = cache[i];
}
