/* gpuzzle stand-in for a host header: NVRTC declares device memcpy/memset itself. */
