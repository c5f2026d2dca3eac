// Races between accesses of different widths, checked byte by byte: a 1-byte write into a
// word another thread writes whole is a race, in either order and in either space; threads
// writing disjoint bytes of one word are not.
extern "C" __global__ void global_byte_then_word(float* out) {
    if (threadIdx.x == 0) ((char*)out)[1] = 1;
    if (threadIdx.x == 1) out[0] = 2.0f;
}
extern "C" __global__ void global_word_then_byte(float* out) {
    if (threadIdx.x == 0) out[0] = 2.0f;
    if (threadIdx.x == 1) ((char*)out)[1] = 1;
}
extern "C" __global__ void global_short_then_word(float* out) {
    if (threadIdx.x == 0) ((short*)out)[1] = 1;
    if (threadIdx.x == 1) out[0] = 2.0f;
}
extern "C" __global__ void global_bytes_disjoint(char* c) {
    c[threadIdx.x] = (char)threadIdx.x;
}
extern "C" __global__ void global_bytes_disjoint_blocks(char* c) {
    c[blockIdx.x * blockDim.x + threadIdx.x] = (char)threadIdx.x;
}
extern "C" __global__ void global_byte_across_blocks(float* out) {
    if (blockIdx.x == 0 && threadIdx.x == 0) ((char*)out)[2] = 1;
    if (blockIdx.x == 1 && threadIdx.x == 0) out[0] = 2.0f;
}
extern "C" __global__ void shared_byte_then_word(float* out) {
    __shared__ float s[32];
    if (threadIdx.x == 0) ((char*)s)[1] = 1;
    if (threadIdx.x == 1) s[0] = 2.0f;
    __syncthreads();
    if (threadIdx.x == 0) out[0] = s[0];
}
extern "C" __global__ void shared_word_then_byte(float* out) {
    __shared__ float s[32];
    if (threadIdx.x == 0) s[0] = 2.0f;
    if (threadIdx.x == 1) ((char*)s)[1] = 1;
    __syncthreads();
    if (threadIdx.x == 0) out[0] = s[0];
}
extern "C" __global__ void shared_bytes_disjoint(char* c) {
    __shared__ char s[64];
    s[threadIdx.x] = (char)threadIdx.x;
    __syncthreads();
    c[threadIdx.x] = s[threadIdx.x];
}
