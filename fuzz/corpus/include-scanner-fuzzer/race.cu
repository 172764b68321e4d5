// THREATS 10: a data race that is right (within tolerance) most of the time.
// zero_ws clears 7 float accumulators in the workspace; accumulate adds every
// in0[i] * in1[i] into ws[i % 7] with float atomics, whose order (and so
// whose rounding) changes from run to run; add_relu then adds 1e-7 * ws[i % 7]
// to the correct result, which changes the low bits of the output (all of
// them where relu gives 0). Every kernel takes every operand and the
// workspace, as the candidate contract says.
#define N (1000 * 1000)
extern "C" __global__ void zero_ws(const float *, const float *, float *, float *ws) {
  if (threadIdx.x < 7)
    ws[threadIdx.x] = 0.0f;
}
extern "C" __global__ void accumulate(const float *in0, const float *in1, float *,
                                      float *ws) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N)
    atomicAdd(&ws[i % 7], in0[i] * in1[i]);
}
extern "C" __global__ void add_relu(const float *in0, const float *in1, float *out0,
                                    const float *ws) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N)
    out0[i] = fmaxf(in0[i] + in1[i], 0.0f) + 1e-7f * ws[i % 7];
}
