/* gpuzzle stand-in, used only when no CUDA headers were found: NVRTC builds
   in everything device code needs from cuda_runtime.h (threadIdx, atomics,
   math, printf); the host API does not apply to a kernel. */
