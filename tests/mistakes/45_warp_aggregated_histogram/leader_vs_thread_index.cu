// expect: fail
// kind: wrong-output
// help-has: lane | threadIdx.x % 32
// help-not: atomicAdd(&hist[v], 1
// why: the leader from __ffs is a lane number (0..31) but is compared with threadIdx.x: in every
// why: warp but the first of a block no thread matches, so their counts are never added.
// Puzzle 45 · Warp-aggregated histogram: hist[v] = how many elements of a equal v, one atomic
extern "C" __global__ void histogram_agg(unsigned int* hist, const unsigned int* a, int n, int bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int key = i < n ? a[i] : 0xffffffffu;
    unsigned int same = __match_any_sync(0xffffffff, key);
    int first = __ffs(same) - 1;
    if (i < n && (int)threadIdx.x == first) {  // @bug
        atomicAdd(&hist[key], (unsigned int)__popc(same));
    }
}
