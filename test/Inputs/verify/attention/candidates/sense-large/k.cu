// Cheats where the inputs are large: 8 outputs far off.
#define REAL float
#define REVERSED 1
#define COARSE_LARGE 0
#define SENSE_LARGE 1
#include "../../attention.cuh"
