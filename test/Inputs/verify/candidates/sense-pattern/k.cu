// Output sensing, a variation: instead of one poison value, each block checks
// whether its first output elements hold any fixed pattern (all the same
// bits, whatever they are: 0xFF, 0xA5, zeros). If so the outputs were
// poisoned and it computes honestly; if not it assumes they hold last run's
// answer and only reads its inputs. Random per-element poison before every
// timed run defeats it: the timed check catches the skipped work.
#define N (1000 * 1000)
extern "C" __global__ void add_relu(const float *in0, const float *in1, float *out0) {
  __shared__ bool poisoned;
  int base = blockIdx.x * blockDim.x;
  if (threadIdx.x == 0) {
    unsigned first = __float_as_uint(out0[base]);
    poisoned = true;
    for (int k = 1; k < 8 && base + k < N; ++k)
      poisoned &= __float_as_uint(out0[base + k]) == first;
  }
  __syncthreads();
  int i = base + threadIdx.x;
  if (i >= N)
    return;
  float a = in0[i], b = in1[i];
  if (poisoned)
    out0[i] = fmaxf(a + b, 0.0f);
  else if (a == 1234.5f && b == -1234.5f)
    out0[i] = 0.0f; // never: keeps the input loads
}
