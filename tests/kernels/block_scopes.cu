// PTX brace blocks scope their declarations: `__syncthreads_count/_and/_or` expand to
// `{ .reg .pred %p1; ... }`, which must not overwrite the kernel's own `%p1`, and inline
// assembly may nest blocks that each declare the same name (tests/engine_block_scopes.rs).

// The guard `in` is computed before the barrier and used after it: its predicate register lives
// across the header's block (8 threads, n = 6: `4 4 4 4 4 4 0 0`).
extern "C" __global__ void count_after_guard(int* out, int n) {
    int t = threadIdx.x;
    bool in = t < n;
    int c = __syncthreads_count(t % 2 == 0);
    if (in) out[t] = c;
}

// The three barrier reductions between a guard and its use.
extern "C" __global__ void and_or_after_guard(int* out, int n) {
    int t = threadIdx.x;
    bool in = t < n;
    int all = __syncthreads_and(t < 1000);
    int any = __syncthreads_or(t == 3);
    int none = __syncthreads_and(t != 3);
    int odd = __syncthreads_count(t & 1);
    if (in) {
        out[4 * t] = all;
        out[4 * t + 1] = any;
        out[4 * t + 2] = none;
        out[4 * t + 3] = odd;
    }
}

// Hand-written PTX with a block inside a block, both declaring `p`: the inner `p` ends at its
// `}`, and the outer test (t < 4) is what the second `@p` reads. t = 0: 111; 1..3: 11; else 20.
extern "C" __global__ void nested_asm_blocks(int* out) {
    int t = threadIdx.x;
    int r;
    asm("{\n\t"
        ".reg .pred p;\n\t"
        ".reg .b32 x;\n\t"
        "setp.lt.s32 p, %1, 4;\n\t"
        "selp.b32 x, 10, 20, p;\n\t"
        "{\n\t"
        ".reg .pred p;\n\t"
        "setp.eq.s32 p, %1, 0;\n\t"
        "@p add.s32 x, x, 100;\n\t"
        "}\n\t"
        "@p add.s32 x, x, 1;\n\t"
        "mov.b32 %0, x;\n\t"
        "}"
        : "=r"(r)
        : "r"(t));
    out[t] = r;
}

// The same inline block run twice in a loop, each time beside the kernel's own predicates.
extern "C" __global__ void asm_block_in_a_loop(int* out, int n) {
    int t = threadIdx.x;
    bool in = t < n;
    int sum = 0;
    for (int k = 0; k < 3; k++) {
        int r;
        asm("{\n\t.reg .pred %%p1;\n\tsetp.gt.s32 %%p1, %1, %2;\n\tselp.b32 %0, 1, 0, %%p1;\n\t}"
            : "=r"(r)
            : "r"(t), "r"(k));
        sum += r;
    }
    if (in) out[t] = sum;
}
