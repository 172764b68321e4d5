// Softmax over 256 rows of 256 f32 (region 3 of transformer_mlp_block): one
// warp per row, eight elements per lane in registers, max and sum by warp
// shuffles.
#define ROWS 256
#define COLS 256
#define PER_LANE (COLS / 32)

extern "C" __global__ void softmax(const float *in0, float *out0) {
  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  int lane = threadIdx.x % 32;
  if (row >= ROWS)
    return;
  const float *x = in0 + row * COLS;
  float v[PER_LANE];
  float m = -__int_as_float(0x7f800000);
  for (int i = 0; i < PER_LANE; ++i) {
    v[i] = x[lane + 32 * i];
    m = fmaxf(m, v[i]);
  }
  for (int offset = 16; offset > 0; offset /= 2)
    m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, offset));
  float sum = 0.0f;
  for (int i = 0; i < PER_LANE; ++i) {
    v[i] = expf(v[i] - m);
    sum += v[i];
  }
  for (int offset = 16; offset > 0; offset /= 2)
    sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  for (int i = 0; i < PER_LANE; ++i)
    out0[row * COLS + lane + 32 * i] = v[i] / sum;
}
