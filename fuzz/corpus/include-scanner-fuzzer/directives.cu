#include <cuda_fp16.h>
%:include "cuda/std/cstdint"
#if __has_include(<escape.h>)
#endif
#inc\
lude </etc/passwd>
/* #include <stdio.h> */ const char *s = R"(#include <x>)";
