// Reference: out0 = in0 @ in1, 256x256x256 f32, one thread per output
// element summing sequentially, like a naive default lowering. Its plan says
// what the compiler writes into a reference plan: the reduction (tolerance)
// and the region's flops, 2 x 256^3 (the compute floor).
#define M 256
#define N 256
#define K 256
extern "C" __global__ void matmul(const float *a, const float *b, float *c) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N)
    return;
  float sum = 0.0f;
  for (int k = 0; k < K; ++k)
    sum += a[row * K + k] * b[k * N + col];
  c[row * N + col] = sum;
}
