// Honest: f32 sums in the opposite order, as precise as the reference.
#define REAL float
#define REVERSED 1
#define COARSE_LARGE 0
#define SENSE_LARGE 0
#include "../../attention.cuh"
