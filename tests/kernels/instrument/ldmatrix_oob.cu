// ldmatrix rows past the end of an 8 x 8 tile: every lane that gives an address (0-7) points
// one tile further on, so every row is out of bounds, reported at the ldmatrix's line.
extern "C" __global__ void ldmatrix_oob(unsigned* out, const unsigned short* a) {
    __shared__ __align__(16) unsigned short tile[8][8];
    int lane = threadIdx.x;
    for (int e = lane; e < 64; e += 32) tile[e / 8][e % 8] = a[e];
    __syncwarp();
    unsigned addr = (unsigned)__cvta_generic_to_shared(&tile[lane % 8 + 8][0]);
    unsigned x;
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(x) : "r"(addr));
    out[lane] = x;
}
