// State across launches in the workspace instead of a global: each thread
// remembers in the workspace the fingerprint of the inputs it last computed
// and, when a launch brings the same fingerprint, returns at once, trusting
// the output buffer to still hold its last answer. The verifier zeroes the
// workspace before every run, checked and timed alike, so the memory never
// matches: this kernel always takes its honest path, which is slow on
// purpose (8 blocks, grid-stride). Expected: pass, "slower". Were the
// workspace kept between timed runs, it would return at once and be
// "faster" by far (and its re-poisoned output would fail the timed check).
#define N (1000 * 1000)
extern "C" __global__ void add_relu(const float *in0, const float *in1, float *out0,
                                    unsigned long long *ws) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long key = 1469598103934665603ull;
  for (int k : {0, 7, N / 3, N - 1})
    key = (key ^ __float_as_uint(in0[k]) ^ (unsigned long long)__float_as_uint(in1[k]) << 32) *
          1099511628211ull;
  key |= 1;
  if (ws[t] == key)
    return;
  for (int i = t; i < N; i += gridDim.x * blockDim.x)
    out0[i] = fmaxf(in0[i] + in1[i], 0.0f);
  ws[t] = key;
}
