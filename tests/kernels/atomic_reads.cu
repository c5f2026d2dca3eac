// Plain reads of words other threads update atomically (tests/engine_diagnostics.rs).

// Every thread adds 1, then reads the total with no barrier: the read races the other
// threads' atomics (it may see any count in between).
extern "C" __global__ void atomic_then_read(int* total, int* seen) {
    atomicAdd(&total[0], 1);
    seen[threadIdx.x] = total[0]; // @atomic-read
}

// The same, with a barrier between the updates and the reads: no race.
extern "C" __global__ void atomic_sync_read(int* total, int* seen) {
    atomicAdd(&total[0], 1);
    __syncthreads();
    seen[threadIdx.x] = total[0];
}
