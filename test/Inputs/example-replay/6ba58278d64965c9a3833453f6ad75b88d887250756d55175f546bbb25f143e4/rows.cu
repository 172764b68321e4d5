// Layernorm over 256 rows of 512 f32 (region 0 of transformer_mlp_block):
// out0 = (in0 - mean) * rsqrt(var + 1e-5) * in1 + in2, one 128-thread block
// per row, four elements per thread kept in registers, mean and variance
// (two passes, as the region computes them) by warp shuffles and a block
// reduction.
#define COLS 512
#define THREADS 128
#define PER_THREAD (COLS / THREADS)

__device__ float blockSum(float v, float *shared) {
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  __syncthreads();
  if (lane == 0)
    shared[warp] = v;
  __syncthreads();
  float total = 0.0f;
  for (int w = 0; w < THREADS / 32; ++w)
    total += shared[w];
  return total;
}

extern "C" __global__ void layernorm(const float *in0, const float *in1,
                                     const float *in2, float *out0) {
  __shared__ float partial[THREADS / 32];
  const float *row = in0 + blockIdx.x * COLS;
  float x[PER_THREAD];
  float sum = 0.0f;
  for (int i = 0; i < PER_THREAD; ++i) {
    x[i] = row[threadIdx.x + i * THREADS];
    sum += x[i];
  }
  float mean = blockSum(sum, partial) / COLS;
  float sq = 0.0f;
  for (int i = 0; i < PER_THREAD; ++i) {
    float d = x[i] - mean;
    sq += d * d;
  }
  float rstd = rsqrtf(blockSum(sq, partial) / COLS + 1e-5f);
  for (int i = 0; i < PER_THREAD; ++i) {
    int c = threadIdx.x + i * THREADS;
    out0[blockIdx.x * COLS + c] = (x[i] - mean) * rstd * in1[c] + in2[c];
  }
}
