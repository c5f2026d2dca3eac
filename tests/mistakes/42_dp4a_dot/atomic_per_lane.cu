// expect: fail
// kind: over-budget
// counter: block_budget:global_atomics
// why: every thread adds its own __dp4a result to out with its own atomicAdd.
// help-has: __reduce_add_sync | shuffle | one atomic per warp | warp's sum
// help-not: guard the access
// Puzzle 42 · int8 dot product: out[0] = a[0] * b[0] + ... + a[n-1] * b[n-1], four values at a
// time with __dp4a. Check with `gpuzzle run 42`; stuck? `gpuzzle hint 42`.
extern "C" __global__ void dot_i8(int* out, const signed char* a, const signed char* b, int n) {
    int word = blockIdx.x * blockDim.x + threadIdx.x;
    int at = 4 * word;
    int mine = 0;
    if (at + 3 < n) {
        int pa = reinterpret_cast<const int*>(a)[word];
        int pb = reinterpret_cast<const int*>(b)[word];
        mine = __dp4a(pa, pb, 0);
    } else {
        for (int q = at; q < n; q++) {
            mine += a[q] * b[q];
        }
    }
    if (mine != 0) {
        atomicAdd(out, mine);
    }
}
