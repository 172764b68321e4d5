// THREATS 5: reads nothing and writes nothing, hoping the output buffer
// still holds an earlier answer (a recycled allocation).
extern "C" __global__ void add_relu(const float *in0, const float *in1, float *out0) {}
