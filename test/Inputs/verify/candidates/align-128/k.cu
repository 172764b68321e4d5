// Correct where buffers are 128-byte aligned, as the runner's normally are:
// the kernel rounds its output pointer down to 128 bytes (an alignment it
// assumes, like a kernel built for 128-byte TMA boxes). At IREE's 64-byte
// binding offsets that moves every store 64 bytes before the buffer. It
// passes the trials; the offset trial records the failure.
#include <cstdint>
#define N (1000 * 1000)
extern "C" __global__ void add_relu(const float *in0, const float *in1, float *out0) {
  float *out = reinterpret_cast<float *>(reinterpret_cast<uintptr_t>(out0) & ~uintptr_t(127));
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N / 4) {
    float4 a = reinterpret_cast<const float4 *>(in0)[i];
    float4 b = reinterpret_cast<const float4 *>(in1)[i];
    float4 r = make_float4(fmaxf(a.x + b.x, 0.0f), fmaxf(a.y + b.y, 0.0f),
                           fmaxf(a.z + b.z, 0.0f), fmaxf(a.w + b.w, 0.0f));
    reinterpret_cast<float4 *>(out)[i] = r;
  }
  if (i == N / 4)
    for (int j = (N / 4) * 4; j < N; ++j)
      out[j] = fmaxf(in0[j] + in1[j], 0.0f);
}
