// The reference: f32 sums in order.
#define REAL float
#define REVERSED 0
#define COARSE_LARGE 0
#define SENSE_LARGE 0
#include "../attention.cuh"
