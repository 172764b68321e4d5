// THREATS 8: loops forever (__nanosleep keeps the loop from being removed).
extern "C" __global__ void add_relu(const float *in0, const float *in1, float *out0) {
  for (;;)
    __nanosleep(1000);
}
