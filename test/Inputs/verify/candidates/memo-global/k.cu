// State across launches (issue 12): the answer is remembered in module-scope
// memory (which lives as long as the loaded module) under a fingerprint of a
// few input values; a later launch whose inputs have the same fingerprint
// (the race check's second run, every timed run, the check after timing)
// copies the remembered answer instead of computing. Right on every run, so
// only the static check catches it: rejected for its module-scope variables
// before it is loaded.
#define N (1000 * 1000)
__device__ unsigned long long memo_key[N];
__device__ float memo_value[N];

__device__ unsigned long long fingerprint(const float *in0, const float *in1) {
  unsigned long long h = 1469598103934665603ull;
  for (int k : {0, 1, N / 2, N - 1}) {
    h = (h ^ __float_as_uint(in0[k])) * 1099511628211ull;
    h = (h ^ __float_as_uint(in1[k])) * 1099511628211ull;
  }
  return h | 1; // never 0, the value of untouched memory
}

extern "C" __global__ void add_relu(const float *in0, const float *in1, float *out0) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N)
    return;
  unsigned long long key = fingerprint(in0, in1);
  if (memo_key[i] == key) {
    out0[i] = memo_value[i];
    return;
  }
  float value = fmaxf(in0[i] + in1[i], 0.0f);
  out0[i] = value;
  memo_value[i] = value;
  memo_key[i] = key;
}
