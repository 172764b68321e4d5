// C = A @ B for row-major A [M x K] and B [K x N], 64x64 tiles through
// shared memory, 16x16 threads computing 4x4 outputs each (strided by 16,
// so loads and stores stay coalesced), with the region's epilogue fused.
#define M 256
#define N 2048
#define K 512
#define TILE 64
#define STEP 16

extern "C" __global__ void matmul_epilogue(const float *in0, const float *in1, const float *in2, float *out0) {
  __shared__ float a[STEP][TILE + 1];
  __shared__ float b[STEP][TILE];
  int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
  float acc[4][4] = {};
  for (int k0 = 0; k0 < K; k0 += STEP) {
    // 64x16 of A and 16x64 of B: four elements per thread each.
    for (int i = threadIdx.x; i < TILE * STEP; i += 256) {
      int r = i / STEP, c = i % STEP;
      a[c][r] = in0[(row0 + r) * K + k0 + c];
      int br = i / TILE, bc = i % TILE;
      b[br][bc] = in1[(k0 + br) * N + col0 + bc];
    }
    __syncthreads();
    for (int k = 0; k < STEP; ++k) {
      float av[4], bv[4];
      for (int i = 0; i < 4; ++i) {
        av[i] = a[k][ty + 16 * i];
        bv[i] = b[k][tx + 16 * i];
      }
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j)
          acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
    }
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      int r = row0 + ty + 16 * i, c = col0 + tx + 16 * j;
      float v = acc[i][j];
      // Bias, then tanh-gelu as the region writes it.
      float s = v + in2[c];
      float t = tanhf((s + s * s * s * 0.044715f) * 0.7978845608f);
      out0[r * N + c] = (t + 1.0f) * 0.5f * s;
    }
}
