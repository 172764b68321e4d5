// THREATS 9: stores through a null pointer (laundered through inline PTX so
// that the compiler cannot turn the store into a trap).
extern "C" __global__ void add_relu(const float *in0, const float *in1, float *out0) {
  unsigned long long address;
  asm volatile("mov.u64 %0, 0;" : "=l"(address));
  *reinterpret_cast<volatile float *>(address) = in0[threadIdx.x];
}
