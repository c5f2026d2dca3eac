/* gpuzzle stand-in for a host header: NVRTC declares device printf itself,
   so a kernel that includes this out of habit compiles as it would with nvcc. */
