// Output sensing for a matmul, a variation: a block whose first output row
// segment holds one fixed bit pattern (whatever it is) was poisoned and
// computes honestly; otherwise it trusts its outputs and only reads its
// inputs. Random per-element poison before every timed run defeats it.
#define M 256
#define N 256
#define K 256
extern "C" __global__ void matmul(const float *a, const float *b, float *c) {
  __shared__ bool poisoned;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    const float *first = c + row * N + col;
    poisoned = true;
    for (int k = 1; k < 8; ++k)
      poisoned &= __float_as_uint(first[k]) == __float_as_uint(first[0]);
  }
  __syncthreads();
  int i = row * N + col;
  if (poisoned) {
    float sum = 0.0f;
    for (int k = 0; k < K; ++k)
      sum += a[row * K + k] * b[k * N + col];
    c[i] = sum;
  } else if (a[row * K + col] == 1234.5f && b[row * N + col] == -1234.5f) {
    c[i] = 0.0f; // never: keeps one load of each input per element
  }
}
