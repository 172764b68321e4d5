// One convolution case of emulate_conv.py: random input, filter and extra
// operand (bias or residual), a double reference summed over the implicit
// GEMM's reduced index from the case's macros (CASE header), the kernel run
// block by block. A padded input's case says where the im2col element is
// inside the unpadded input (A_IN) and the pad value outside (PAD_VALUE).
// A plan with a workspace runs its launches (LAUNCHES) in order over it.
#include "cuda_on_cpu.h"
#include KERNEL
#include CASE
#include <cstdio>
#include <random>

#ifndef A_IN
#define A_IN(m, k) true
#define PAD_VALUE 0.0
#endif
// A case whose region reduces each row's epilogue values over the columns
// (the output channels) says how (ROW_REDUCE(a, b)) and stores the row's
// at OUT_AT(m, 0), OUT_SIZE of them.
#ifndef OUT_SIZE
#define OUT_SIZE (M * N)
#endif

inline float value(float x) { return x; }
inline float value(__half x) { return __half2float(x); }
inline float value(__nv_bfloat16 x) { return __bfloat162float(x); }
template <class T> T make(float x);
template <> float make<float>(float x) { return x; }
template <> __half make<__half>(float x) { return __float2half_rn(x); }
template <> __nv_bfloat16 make<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }

int main() {
  const long long M = CASE_M, N = CASE_N, K = CASE_K;
  std::vector<TA> A(A_SIZE);
  std::vector<TB> B(B_SIZE);
  std::vector<float> E(E_SIZE), out(OUT_SIZE, -1.0f), ref(OUT_SIZE);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (auto &x : A) x = make<TA>(dist(rng));
  for (auto &x : B) x = make<TB>(dist(rng));
  for (auto &x : E) x = dist(rng);
  for (long long m = 0; m < M; ++m)
    for (long long n = 0; n < N; ++n) {
      double s = 0;
      for (long long k = 0; k < K; ++k)
        s += (A_IN(m, k) ? (double)value(A[A_AT(m, k)]) : (double)PAD_VALUE) *
             (double)value(B[B_AT(k, n)]);
#ifdef ROW_REDUCE
      ref[OUT_AT(m, 0)] = n == 0 ? EPILOGUE : ROW_REDUCE(ref[OUT_AT(m, 0)], EPILOGUE);
#else
      ref[OUT_AT(m, n)] = EPILOGUE;
#endif
    }
#ifdef WORKSPACE_BYTES
  std::vector<float> workspace(WORKSPACE_BYTES / 4, std::nanf(""));
  unsigned char *ws = reinterpret_cast<unsigned char *>(workspace.data());
  LAUNCHES
#else
  launch(GRID_X, GRID_Y, GRID_Z, THREADS, [&] { conv(ARGS); });
#endif
  double err = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    double d = std::fabs((double)out[i] - ref[i]);
    if (!(d <= err)) // a NaN (an unwritten or poisoned sum) too
      err = d;
  }
  if (badCopy || std::isnan(err))
    err = 1e30;
  std::printf("%g\n", err);
  return 0;
}
