// Correct and faster: one float4 per thread over the whole array (buffers are
// 256-byte aligned by the runner), the scalar tail handled by the last thread.
#define N (1000 * 1000)
extern "C" __global__ void add_relu(const float *in0, const float *in1, float *out0) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N / 4) {
    float4 a = reinterpret_cast<const float4 *>(in0)[i];
    float4 b = reinterpret_cast<const float4 *>(in1)[i];
    float4 r = make_float4(fmaxf(a.x + b.x, 0.0f), fmaxf(a.y + b.y, 0.0f),
                           fmaxf(a.z + b.z, 0.0f), fmaxf(a.w + b.w, 0.0f));
    reinterpret_cast<float4 *>(out0)[i] = r;
  }
  if (i == N / 4)
    for (int j = (N / 4) * 4; j < N; ++j)
      out0[j] = fmaxf(in0[j] + in1[j], 0.0f);
}
