// nvcc accepts pow(int, int) through the host's C++ overloads; NVRTC does not.
__global__ void squares(int* out) {
    int i = threadIdx.x;
    out[i] = pow(i, 2);
}
