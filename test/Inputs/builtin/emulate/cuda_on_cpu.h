// Runs a builtin-agent CUDA kernel on the CPU for emulate_matmul.py: each
// CUDA thread of a block is a std::thread, __syncthreads a std::barrier
// (which a thread leaves when it returns), the blocks one after the other,
// or, with CA_RESIDENT_BLOCKS defined (kernels whose blocks wait for each
// other: the rows-exchange ones), that many at a time, each block a forked
// process over buffers in shared memory (ca_host_vector) with atomics on
// them,
// __shared__ arrays statics (one block runs at a time), f16/bf16 clang's
// _Float16/__bf16, and a warp's mma.sync m16n8k16 (f16, bf16) or m16n8k8
// (tf32) an exchange of the lanes' fragments through memory laid out as the
// PTX ISA specifies; cp.async copies at once (its waits are no-ops; a
// misaligned 16-byte copy makes the run wrong). emulate_matmul.py replaces
// the kernels' PTX helpers (ca_cp_async*, ca_mma_tf32) by these; their TF32
// rounding (ca_tf32, ca_tf32_split) is plain C++ and runs as written.
#include <atomic>
#include <barrier>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cstring>
#include <algorithm>
#include <thread>
#include <vector>

struct Dim3 { int x = 0, y = 0, z = 0; };
thread_local Dim3 threadIdx, blockIdx;
Dim3 blockDim, gridDim;
std::barrier<> *blockBarrier;
using std::min;
using std::max;
inline void __syncthreads() { blockBarrier->arrive_and_wait(); }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline float __int_as_float(int i) { float f; std::memcpy(&f, &i, 4); return f; }
inline int __float_as_int(float f) { int i; std::memcpy(&i, &f, 4); return i; }
inline float __uint_as_float(unsigned i) { float f; std::memcpy(&f, &i, 4); return f; }
inline unsigned __float_as_uint(float f) { unsigned i; std::memcpy(&i, &f, 4); return i; }
inline double __longlong_as_double(long long i) { double f; std::memcpy(&f, &i, 8); return f; }
struct __attribute__((aligned(16))) float4 { float x, y, z, w; };
struct __attribute__((aligned(8))) uint2 { unsigned x, y; };
struct __attribute__((aligned(16))) uint4 { unsigned x, y, z, w; };
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
struct __attribute__((aligned(8))) int2 { int x, y; };
inline int2 make_int2(int x, int y) { return {x, y}; }
struct __attribute__((aligned(16))) longlong2 { long long x, y; };
inline longlong2 make_longlong2(long long x, long long y) { return {x, y}; }
struct __half { _Float16 x; };
struct __nv_bfloat16 { unsigned short bits; };
inline float __half2float(__half h) { return (float)h.x; }
inline __half __float2half_rn(float f) { return {(_Float16)f}; }
inline float __bfloat162float(__nv_bfloat16 h) {
  unsigned u = unsigned(h.bits) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline __nv_bfloat16 __float2bfloat16_rn(float f) { // finite values
  unsigned u;
  std::memcpy(&u, &f, 4);
  return {(unsigned short)((u + 0x7fff + ((u >> 16) & 1)) >> 16)};
}
inline float toFloat(__half h) { return __half2float(h); }
inline float toFloat(__nv_bfloat16 h) { return __bfloat162float(h); }
#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)
#define __restrict__
#define asm(...) (void)0

static unsigned fragA[64][32][4], fragB[64][32][2];
template <class T> float lane(unsigned reg, int high) {
  unsigned short bits = high ? reg >> 16 : reg & 0xffff;
  T value;
  std::memcpy(&value, &bits, 2);
  return toFloat(value);
}
/// D = A * B + C for one warp: A 16x16 row-major, B 16x8 column-major.
template <class T> void mma_m16n8k16(float *c, const unsigned *a, const unsigned *b) {
  int w = threadIdx.x / 32, l = threadIdx.x % 32;
  for (int q = 0; q < 4; ++q) fragA[w][l][q] = a[q];
  for (int q = 0; q < 2; ++q) fragB[w][l][q] = b[q];
  __syncthreads();
  auto A = [&](int row, int k) {
    return lane<T>(fragA[w][(row % 8) * 4 + (k % 8) / 2][(row >= 8) + 2 * (k >= 8)], k % 2);
  };
  auto B = [&](int k, int n) { return lane<T>(fragB[w][n * 4 + (k % 8) / 2][k >= 8], k % 2); };
  int g = l / 4, tig = l % 4;
  for (int q = 0; q < 4; ++q) {
    int row = g + (q / 2) * 8, col = 2 * tig + q % 2;
    float s = c[q];
    for (int k = 0; k < 16; ++k)
      s += A(row, k) * B(k, col);
    c[q] = s;
  }
  __syncthreads();
}

/// Warp shuffles for kernels whose threads all shuffle together (a
/// reduction's tail, outside divergent code): each thread's value through an
/// exchange slot per thread (per value type) between two block barriers; a
/// thread gets the value of thread `from(t)`, its own where that is -1.
/// Whole warps that returned before are not waited for; a warp that
/// shuffles reads only its own lanes' slots.
template <class T, class From> T exchangeLanes(T v, From from) {
  static T slots[1024];
  int t = threadIdx.x;
  slots[t] = v;
  __syncthreads();
  int source = from(t);
  T other = source < 0 ? v : slots[source];
  __syncthreads();
  return other;
}
/// __shfl_xor_sync(mask, v, lane): lane l gets lane l ^ laneMask's value.
template <class T> T __shfl_xor_sync(unsigned, T v, int laneMask) {
  return exchangeLanes(v, [&](int t) { return (t & ~31) | ((t % 32) ^ laneMask); });
}
/// __shfl_up_sync(mask, v, delta): lane l gets lane l - delta's value, its
/// own where l < delta.
template <class T> T __shfl_up_sync(unsigned, T v, int delta) {
  return exchangeLanes(v, [&](int t) { return t % 32 >= delta ? t - delta : -1; });
}
/// __shfl_sync(mask, v, src): every lane gets lane src's value.
template <class T> T __shfl_sync(unsigned, T v, int srcLane) {
  return exchangeLanes(v, [&](int t) { return (t & ~31) | (srcLane & 31); });
}

/// A copy the device would refuse (a source or destination not aligned to
/// the copy, a size past it): the harness reports the run as wrong.
inline bool badCopy = false;
inline void ca_cp_async16(float *dst, const float *src, bool full) {
  if (reinterpret_cast<unsigned long long>(dst) % 16 != 0 ||
      reinterpret_cast<unsigned long long>(src) % 16 != 0)
    badCopy = true;
  for (int i = 0; i < 4; ++i) dst[i] = full ? src[i] : 0.0f;
}
inline void ca_cp_async8(float *dst, const float *src, bool full) {
  for (int i = 0; i < 2; ++i) dst[i] = full ? src[i] : 0.0f;
}
inline void ca_cp_async4(float *dst, const float *src, bool full) { dst[0] = full ? src[0] : 0.0f; }
inline void ca_cp_async16z(float *dst, const float *src, int bytes) {
  if (reinterpret_cast<unsigned long long>(src) % 16 != 0 || bytes < 0 || bytes > 16 || bytes % 4 != 0)
    badCopy = true;
  for (int i = 0; i < 4; ++i) dst[i] = 4 * i < bytes ? src[i] : 0.0f;
}
inline void ca_cp_async_commit() {}
template <int N> void ca_cp_async_wait() {}
/// D += A * B for one warp: A 16x8 row-major, B 8x8 column-major, TF32 in
/// (only the top 19 bits of each register count), f32 out.
inline void ca_mma_tf32(float *d, const unsigned *a, const unsigned *b) {
  int w = threadIdx.x / 32, l = threadIdx.x % 32;
  for (int q = 0; q < 4; ++q) fragA[w][l][q] = a[q];
  for (int q = 0; q < 2; ++q) fragB[w][l][q] = b[q];
  __syncthreads();
  auto value = [](unsigned reg) { return __uint_as_float(reg & 0xffffe000u); };
  auto A = [&](int row, int k) { return value(fragA[w][(row % 8) * 4 + k % 4][(row >= 8) + 2 * (k >= 4)]); };
  auto B = [&](int k, int n) { return value(fragB[w][n * 4 + k % 4][k >= 4]); };
  int g = l / 4, tig = l % 4;
  for (int q = 0; q < 4; ++q) {
    int row = g + (q / 2) * 8, col = 2 * tig + q % 2;
    float s = d[q];
    for (int k = 0; k < 8; ++k)
      s += A(row, k) * B(k, col);
    d[q] = s;
  }
  __syncthreads();
}

/// Memory every block's process sees (MAP_SHARED), for the harness's
/// buffers: a vector of it is a ca_host_vector.
template <class T> struct SharedAllocator {
  using value_type = T;
  SharedAllocator() = default;
  template <class U> SharedAllocator(const SharedAllocator<U> &) {}
  T *allocate(size_t n) {
    void *p = mmap(nullptr, n * sizeof(T) + 1, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
      std::abort();
    return static_cast<T *>(p);
  }
  void deallocate(T *p, size_t n) { munmap(p, n * sizeof(T) + 1); }
  template <class U> bool operator==(const SharedAllocator<U> &) const { return true; }
};
template <class T> using ca_host_vector = std::vector<T, SharedAllocator<T>>;

/// Device-scope atomics and fences over shared buffers.
inline unsigned atomicAdd(unsigned *p, unsigned v) {
  return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
/// The rows-exchange helpers (their PTX replaced): an arrival, a wait that
/// aborts after a minute, a staged copy (a misaligned one fails the
/// block) and its wait, a load of a published value.
inline void ca_exchange_arrive(unsigned *counter) {
  __threadfence();
  atomicAdd(counter, 1u);
}
inline void ca_exchange_wait(const unsigned *counter, unsigned target) {
  auto start = std::chrono::steady_clock::now();
  while (__atomic_load_n(counter, __ATOMIC_ACQUIRE) < target) {
    if (std::chrono::steady_clock::now() - start > std::chrono::seconds(60)) {
      std::fprintf(stderr, "ca_exchange_wait: no progress in 60 s\n");
      std::abort();
    }
    std::this_thread::yield();
  }
}
inline void ca_exchange_stage16(void *dst, const void *src) {
  if (reinterpret_cast<unsigned long long>(dst) % 16 != 0 ||
      reinterpret_cast<unsigned long long>(src) % 16 != 0) {
    std::fprintf(stderr, "ca_exchange_stage16: misaligned copy\n");
    std::abort();
  }
  std::memcpy(dst, src, 16);
}
inline void ca_exchange_stage_wait() {}
template <class T> T ca_exchange_load(const T *p) {
  T v;
  __atomic_load(p, &v, __ATOMIC_ACQUIRE);
  return v;
}

/// Runs one block of `kernel`, a std::thread per thread.
template <class Kernel> void runBlock(int bx, int by, int bz, int threadCount, Kernel &kernel) {
  std::barrier<> barrier(threadCount);
  blockBarrier = &barrier;
  std::vector<std::thread> threads;
  for (int t = 0; t < threadCount; ++t)
    threads.emplace_back([&, t] {
      threadIdx = {t, 0, 0};
      blockIdx = {bx, by, bz};
      kernel();
      // An exited thread no longer holds the others at a barrier (as
      // on the device: a row kernel's threads past the last row
      // return before the shuffles the others reach).
      barrier.arrive_and_drop();
    });
  for (auto &t : threads)
    t.join();
}

/// Runs `kernel` over a grid, a block at a time, a std::thread per thread;
/// with CA_RESIDENT_BLOCKS, up to that many blocks at once, each in a forked
/// process (its shared arrays its own), a block starting whenever one
/// finishes, as on a GPU that holds that many; the launch fails when a block
/// does.
template <class Kernel> void launch(int gx, int gy, int gz, int threadCount, Kernel kernel) {
  blockDim = {threadCount, 1, 1};
  gridDim = {gx, gy, gz};
#ifdef CA_RESIDENT_BLOCKS
  std::fflush(nullptr);
  int running = 0;
  bool failed = false;
  auto reap = [&] {
    int status = 0;
    wait(&status);
    failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    --running;
  };
  for (int bz = 0; bz < gz; ++bz)
    for (int by = 0; by < gy; ++by)
      for (int bx = 0; bx < gx; ++bx) {
        if (running == CA_RESIDENT_BLOCKS)
          reap();
        pid_t pid = fork();
        if (pid < 0)
          std::abort();
        if (pid == 0) {
          runBlock(bx, by, bz, threadCount, kernel);
          std::fflush(nullptr);
          _exit(0);
        }
        ++running;
      }
  while (running)
    reap();
  if (failed) {
    std::fprintf(stderr, "a block failed\n");
    std::exit(1);
  }
#else
  for (int bz = 0; bz < gz; ++bz)
    for (int by = 0; by < gy; ++by)
      for (int bx = 0; bx < gx; ++bx)
        runBlock(bx, by, bz, threadCount, kernel);
#endif
}
