// State across launches, a variation: the fingerprint is taken from other
// elements (the last ones of both inputs), and the memory is an initialized
// variable in a namespace (mangled name, .nv.global.init). Rejected for its
// module-scope variables before it is loaded.
#define N (1000 * 1000)
namespace memo {
__device__ unsigned int tail_key[N / 4] = {0u};
__device__ float4 tail_value[N / 4] = {};
} // namespace memo

extern "C" __global__ void add_relu(const float *in0, const float *in1, float *out0) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N)
    return;
  unsigned int key = 2166136261u;
  for (int k = N - 8; k < N; ++k)
    key = ((key ^ __float_as_uint(in0[k])) * 16777619u) ^ __float_as_uint(in1[k]);
  key |= 1;
  int slot = i / 4;
  float *remembered = reinterpret_cast<float *>(&memo::tail_value[slot]);
  if (memo::tail_key[slot] == key) {
    out0[i] = remembered[i % 4];
    return;
  }
  float value = fmaxf(in0[i] + in1[i], 0.0f);
  out0[i] = value;
  remembered[i % 4] = value;
  if (i % 4 == 0)
    memo::tail_key[slot] = key;
}
