/* gpuzzle stand-in for a host header: clock() and time() are host functions;
   device code times itself with clock64() or %globaltimer, which NVRTC has. */
