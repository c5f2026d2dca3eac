// An indirect branch through a jump table (PTX `brx.idx` with a `.branchtargets` list), written
// as inline assembly: `pick` returns 10, 20 or 30 for an index of 0, 1 or 2, and an index past
// the table is an error at the asm's line.
__device__ int pick(unsigned int k) {
    int r;
    asm volatile(
        "{\n\t"
        "$Ltable: .branchtargets $Lzero, $Lone, $Ltwo;\n\t"
        "brx.idx %1, $Ltable;\n"
        "$Lzero:\n\t"
        "mov.s32 %0, 10;\n\t"
        "bra.uni $Ldone;\n"
        "$Lone:\n\t"
        "mov.s32 %0, 20;\n\t"
        "bra.uni $Ldone;\n"
        "$Ltwo:\n\t"
        "mov.s32 %0, 30;\n"
        "$Ldone:\n\t"
        "}"
        : "=r"(r)
        : "r"(k)); // @asm
    return r;
}

extern "C" __global__ void brx_pick(int* out, const int* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < size) out[i] = pick(a[i] % 3);
}

// Index a[i], 0 to size - 1: past the table from 3 on.
extern "C" __global__ void brx_past(int* out, const int* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < size) out[i] = pick(a[i]);
}
