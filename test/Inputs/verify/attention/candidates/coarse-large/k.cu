// Less precise at large magnitudes only: scores above 1e3 lose 4 bits.
#define REAL float
#define REVERSED 0
#define COARSE_LARGE 1
#define SENSE_LARGE 0
#include "../../attention.cuh"
