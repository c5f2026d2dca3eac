/* gpuzzle stand-in for a host header: NVRTC defines device assert() itself. */
