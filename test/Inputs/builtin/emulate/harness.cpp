// One contraction case of emulate_matmul.py: random inputs, a double
// reference from the case's macros, the kernel run block by block (and
// the finish kernel after it, over a workspace, for a split-K plan).
#include "cuda_on_cpu.h"
#include KERNEL
#include <cstdio>
#include <random>

// Where the product's element (bt, m, n) is in the output: row-major [bt][m][n]
// unless the case writes the product transposed.
#ifndef OUT_AT
#define OUT_AT(bt, m, n) (((bt) * M + (m)) * N + (n))
#endif

inline float value(float x) { return x; }
inline float value(__half x) { return __half2float(x); }
inline float value(__nv_bfloat16 x) { return __bfloat162float(x); }
template <class T> T make(float x);
template <> float make<float>(float x) { return x; }
template <> __half make<__half>(float x) { return __float2half_rn(x); }
template <> __nv_bfloat16 make<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }

int main() {
  const long long M = CASE_M, N = CASE_N, K = CASE_K, BATCH = CASE_BATCH;
  std::vector<TA> A(BATCH * M * K);
  std::vector<TB> B(BATCH * K * N);
  std::vector<float> bias(N), out(BATCH * M * N, -1.0f), ref(BATCH * M * N);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (auto &x : A) x = make<TA>(dist(rng));
  for (auto &x : B) x = make<TB>(dist(rng));
  for (auto &x : bias) x = dist(rng);
  for (long long bt = 0; bt < BATCH; ++bt)
    for (long long m = 0; m < M; ++m)
      for (long long n = 0; n < N; ++n) {
        double s = 0;
        for (long long k = 0; k < K; ++k)
          s += (double)value(A_AT(bt, m, k)) * (double)value(B_AT(bt, k, n));
        ref[OUT_AT(bt, m, n)] = EPILOGUE;
      }
#ifdef FINISH_GRID_X
  // Split-K: the parts' workspace (NaN until written) and the finish kernel.
  std::vector<float> workspace(WORKSPACE_BYTES / 4, std::nanf(""));
#define WS , reinterpret_cast<unsigned char *>(workspace.data())
#else
#define WS
#endif
  launch(GRID_X, GRID_Y, GRID_Z, THREADS, [&] { matmul(ARGS WS); });
#ifdef FINISH_GRID_X
  launch(FINISH_GRID_X, 1, 1, FINISH_THREADS, [&] { finish(ARGS WS); });
#endif
  double err = 0;
  for (size_t i = 0; i < out.size(); ++i)
  {
    double d = std::fabs((double)out[i] - ref[i]);
    if (!(d <= err)) // a NaN (an unwritten or poisoned sum) too
      err = d;
  }
  if (badCopy || std::isnan(err))
    err = 1e30;
  std::printf("%g\n", err);
  return 0;
}
