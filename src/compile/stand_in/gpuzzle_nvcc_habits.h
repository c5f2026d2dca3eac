/* gpuzzle: pre-included in every kernel. nvcc hands device code the macros
   the host compiler (gcc) predefines; NVRTC has no host compiler, so kernels
   written for nvcc that use them would not compile. The spellings are exactly
   libcu++'s own (cuda/std/climits), so including it later is no redefinition. */
#ifndef GPUZZLE_NVCC_HABITS_H
#define GPUZZLE_NVCC_HABITS_H
#define __CHAR_BIT__ 8
#define __SCHAR_MAX__ 0x7f
#define __SHRT_MAX__ 0x7fff
#define __INT_MAX__ 0x7fffffff
#define __LONG_MAX__ 0x7fffffffffffffffL
#define __LONG_LONG_MAX__ 0x7fffffffffffffffLL
#define __WCHAR_MAX__ 0x7fffffff
#define __INTMAX_MAX__ 0x7fffffffffffffffL
#define __UINTMAX_MAX__ 0xffffffffffffffffUL
#define __SIZE_MAX__ 0xffffffffffffffffUL
#define __PTRDIFF_MAX__ 0x7fffffffffffffffL
#define __INTPTR_MAX__ 0x7fffffffffffffffL
#define __UINTPTR_MAX__ 0xffffffffffffffffUL
#define __INT8_MAX__ 0x7f
#define __INT16_MAX__ 0x7fff
#define __INT32_MAX__ 0x7fffffff
#define __INT64_MAX__ 0x7fffffffffffffffL
#define __UINT8_MAX__ 0xff
#define __UINT16_MAX__ 0xffff
#define __UINT32_MAX__ 0xffffffffU
#define __UINT64_MAX__ 0xffffffffffffffffUL
#define __SIZEOF_SHORT__ 2
#define __SIZEOF_INT__ 4
#define __SIZEOF_LONG__ 8
#define __SIZEOF_LONG_LONG__ 8
#define __SIZEOF_POINTER__ 8
#define __SIZEOF_FLOAT__ 4
#define __SIZEOF_DOUBLE__ 8
#define __SIZEOF_SIZE_T__ 8
#define __BYTE_ORDER__ 1234
#define __ORDER_LITTLE_ENDIAN__ 1234
#define __ORDER_BIG_ENDIAN__ 4321
#define __FLT_RADIX__      2
#define __FLT_MANT_DIG__   24
#define __FLT_DIG__        6
#define __FLT_MIN__        1.17549435082228750796873653722224568e-38F
#define __FLT_MAX__        3.40282346638528859811704183484516925e+38F
#define __FLT_EPSILON__    1.19209289550781250000000000000000000e-7F
#define __FLT_MIN_EXP__    (-125)
#define __FLT_MIN_10_EXP__ (-37)
#define __FLT_MAX_EXP__    128
#define __FLT_MAX_10_EXP__ 38
#define __FLT_DENORM_MIN__ 1.40129846432481707092372958328991613e-45F
#define __DBL_MANT_DIG__   53
#define __DBL_DIG__        15
#define __DBL_MIN__        2.22507385850720138309023271733240406e-308
#define __DBL_MAX__        1.79769313486231570814527423731704357e+308
#define __DBL_EPSILON__    2.22044604925031308084726333618164062e-16
#define __DBL_MIN_EXP__    (-1021)
#define __DBL_MIN_10_EXP__ (-307)
#define __DBL_MAX_EXP__    1024
#define __DBL_MAX_10_EXP__ 308
#define __DBL_DENORM_MIN__ 4.94065645841246544176568792868221372e-324
#endif
