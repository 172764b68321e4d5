// Correct but slow on purpose: one thread computes every row in turn. It
// verifies and must not be spliced, because the default lowering is faster.
#define ROWS 256
#define COLS 256

extern "C" __global__ void softmax_serial(const float *in0, float *out0) {
  for (int r = 0; r < ROWS; ++r) {
    const float *x = in0 + r * COLS;
    float m = -__int_as_float(0x7f800000);
    for (int c = 0; c < COLS; ++c)
      m = fmaxf(m, x[c]);
    float sum = 0.0f;
    for (int c = 0; c < COLS; ++c)
      sum += expf(x[c] - m);
    for (int c = 0; c < COLS; ++c)
      out0[r * COLS + c] = expf(x[c] - m) / sum;
  }
}
