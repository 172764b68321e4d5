// State across launches for a matmul: each output element remembers, in
// module-scope memory, its value and a fingerprint of a few input values; a
// launch whose inputs have the remembered fingerprint copies the value
// instead of running the K loop (orders of magnitude faster for a large K).
// Rejected for its module-scope variables before it is loaded.
#define M 256
#define N 256
#define K 256
__device__ unsigned long long mm_memo_key[M * N];
__device__ float mm_memo_value[M * N];

extern "C" __global__ void matmul(const float *a, const float *b, float *c) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int i = row * N + col;
  unsigned long long key = 1469598103934665603ull;
  for (int k : {0, 1, M * K / 2, M * K - 1})
    key = (key ^ __float_as_uint(a[k]) ^ (unsigned long long)__float_as_uint(b[k]) << 32) *
          1099511628211ull;
  key |= 1;
  if (mm_memo_key[i] == key) {
    c[i] = mm_memo_value[i];
    return;
  }
  float sum = 0.0f;
  for (int k = 0; k < K; ++k)
    sum += a[row * K + k] * b[k * N + col];
  c[i] = sum;
  mm_memo_value[i] = sum;
  mm_memo_key[i] = key;
}
