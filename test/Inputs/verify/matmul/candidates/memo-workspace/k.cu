// State across launches in the workspace, for a matmul: each thread keeps the
// fingerprint of the inputs it last computed in the workspace and, on a
// launch with the same fingerprint, returns at once (its outputs, it hopes,
// still hold last run's answer). The workspace is zeroed before every run,
// so it always takes its honest path, slow on purpose (4 blocks, 64 outputs
// per thread). Expected: pass, "slower".
#define M 256
#define N 256
#define K 256
extern "C" __global__ void matmul(const float *a, const float *b, float *c,
                                  unsigned long long *ws) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long key = 1469598103934665603ull;
  for (int k : {0, 3, M * K / 3, M * K - 2})
    key = (key ^ __float_as_uint(a[k]) ^ (unsigned long long)__float_as_uint(b[k]) << 32) *
          1099511628211ull;
  key |= 1;
  if (ws[t] == key)
    return;
  for (int i = t; i < M * N; i += gridDim.x * blockDim.x) {
    int row = i / N, col = i % N;
    float sum = 0.0f;
    for (int k = 0; k < K; ++k)
      sum += a[row * K + k] * b[k * N + col];
    c[i] = sum;
  }
  ws[t] = key;
}
