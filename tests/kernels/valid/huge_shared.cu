// A shared array past any GPU's limit: refused as a limit, not as a gpuzzle bug.

extern "C" __global__ void huge_shared(int* out) {
    __shared__ char big[5000000000ull];
    big[threadIdx.x] = 1;
    out[threadIdx.x] = big[0];
}
