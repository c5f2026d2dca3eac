/* gpuzzle stand-in for a host header: NVRTC declares the device functions
   (malloc, free, abs) itself; nothing else here runs on the GPU. */
