// The f64 oracle: the reference's ops in double.
#define REAL double
#define REVERSED 0
#define COARSE_LARGE 0
#define SENSE_LARGE 0
#include "../../attention.cuh"
