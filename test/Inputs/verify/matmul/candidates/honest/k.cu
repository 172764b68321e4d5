// Correct: a 16x16 shared-memory tiled matmul. Passes the checks; with an
// absurdly low --peak-flops it is faster than the compute floor allows.
#define M 256
#define N 256
#define K 256
#define T 16
extern "C" __global__ void matmul(const float *a, const float *b, float *c) {
  __shared__ float as[T][T], bs[T][T];
  int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
  float sum = 0.0f;
  for (int k0 = 0; k0 < K; k0 += T) {
    as[threadIdx.y][threadIdx.x] = a[row * K + k0 + threadIdx.x];
    bs[threadIdx.y][threadIdx.x] = b[(k0 + threadIdx.y) * N + col];
    __syncthreads();
    for (int k = 0; k < T; ++k)
      sum += as[threadIdx.y][k] * bs[k][threadIdx.x];
    __syncthreads();
  }
  c[row * N + col] = sum;
}
