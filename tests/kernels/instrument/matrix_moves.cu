// For the instrumenter: the transpose of an 8x8 matrix by ldmatrix .trans, movmatrix and
// stmatrix .trans (t1, t2, t3), so both ldmatrix and stmatrix rows are checked and counted.
extern "C" __global__ void matrix_moves(unsigned short* t1, unsigned short* t2, unsigned short* t3, const unsigned short* m) {
    __shared__ __align__(16) unsigned short s[8][8];
    __shared__ __align__(16) unsigned short o[8][8];
    int lane = threadIdx.x;
    for (int e = lane; e < 64; e += 32) s[e / 8][e % 8] = m[e];
    __syncwarp();
    unsigned addr = (unsigned)__cvta_generic_to_shared(&s[lane % 8][0]);
    unsigned x, y, z;
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(x) : "r"(addr));
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(y) : "r"(addr));
    asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(z) : "r"(x));
    int r = lane / 4, c0 = 2 * (lane % 4);
    t1[r * 8 + c0] = y & 0xffff;
    t1[r * 8 + c0 + 1] = y >> 16;
    t2[r * 8 + c0] = z & 0xffff;
    t2[r * 8 + c0 + 1] = z >> 16;
    unsigned oaddr = (unsigned)__cvta_generic_to_shared(&o[lane % 8][0]);
    asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" :: "r"(oaddr), "r"(x) : "memory");
    __syncwarp();
    for (int e = lane; e < 64; e += 32) t3[e] = o[e / 8][e % 8];
}
