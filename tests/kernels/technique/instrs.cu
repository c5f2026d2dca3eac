// Global load and store instructions, counted whatever their width (issue 34): lanes of a warp
// that take different branches load with different widths, so the lockstep run's per-lane
// counts (some lanes skip a load) must match one thread at a time.

// Even lanes: one float4 load and one float4 store (1 + 1); odd lanes: four scalar loads and
// four scalar stores (4 + 4) of the same four floats.
extern "C" __global__ void split_widths(float* out, const float* a) {
    int t = threadIdx.x;
    if (t % 2 == 0) {
        float4 v = reinterpret_cast<const float4*>(a)[t];
        reinterpret_cast<float4*>(out)[t] = make_float4(v.x + 1.0f, v.y + 1.0f, v.z + 1.0f, v.w + 1.0f);
    } else {
        for (int k = 0; k < 4; k++) out[4 * t + k] = a[4 * t + k] + 1.0f;
    }
}

// The same sums, every lane with float4 and no branch: 1 load and 1 store per thread; the
// same words as `split_widths`.
extern "C" __global__ void all_wide(float* result, const float* x) {
    int lane = threadIdx.x;
    float4 q = reinterpret_cast<const float4*>(x)[lane];
    reinterpret_cast<float4*>(result)[lane] = make_float4(q.x + 1.0f, q.y + 1.0f, q.z + 1.0f, q.w + 1.0f);
}

// Atomics are neither: one global atomic per thread, no load or store instruction.
extern "C" __global__ void atomic_only(float* out, const float* a) {
    atomicAdd(&out[0], 1.0f);
}
