// Valid CUDA that once made gpuzzle say "please report": each kernel runs, or is refused by
// name at the line marked `// @NAME` (tests/engine_valid_cuda.rs). Kept out of the engine
// corpus (tests/kernels/*.cu): the GPU instrumentation knows no device heap.

// --- the device heap: malloc/free, new/delete ---

extern "C" __global__ void heap_each(int* out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int* p = (int*)malloc(4 * sizeof(int));
    for (int i = 0; i < 4; i++) p[i] = t + i;
    out[t] = p[0] + p[1] + p[2] + p[3];
    free(p);
}

struct Pair {
    int a, b;
    __device__ Pair(int a, int b) : a(a), b(b) {}
};

extern "C" __global__ void heap_new_delete(int* out) {
    int t = threadIdx.x;
    int* xs = new int[3];
    xs[0] = t;
    xs[1] = 10 * t;
    xs[2] = 100 * t;
    Pair* q = new Pair(xs[1], xs[2]);
    out[t] = xs[0] + q->a + q->b;
    delete q;
    delete[] xs;
}

// Nine 1 MiB blocks from an 8 MiB heap: the ninth is NULL, as on a GPU.
extern "C" __global__ void heap_exhaust(int* out) {
    for (int k = 0; k < 9; k++) {
        char* p = (char*)malloc(1 << 20);
        out[k] = p != nullptr;
    }
}

extern "C" __global__ void heap_double_free(int* out) {
    int* p = (int*)malloc(16);
    p[0] = 1;
    out[threadIdx.x] = p[0];
    free(p);
    free(p); // @double_free
}

// --- indirect calls: function pointers, virtual functions ---

__device__ int twice(int x) { return 2 * x; }
__device__ int thrice(int x) { return 3 * x; }

extern "C" __global__ void function_pointers(int* out) {
    int t = threadIdx.x;
    int (*f)(int) = t % 2 ? twice : thrice;
    out[t] = f(t);
}

// Module variables initialised with addresses: of a variable, of functions.
__device__ int cells[4] = {1, 2, 3, 4};
__device__ int* third = &cells[2];
__device__ int (*ops[2])(int) = {twice, thrice};

extern "C" __global__ void pointer_initialisers(int* out) {
    int t = threadIdx.x;
    out[t] = *third + ops[t % 2](t);
}

extern "C" __global__ void null_function_pointer(int* out, const unsigned long long* table) {
    int t = threadIdx.x;
    int (*f)(int) = (int (*)(int))table[t];
    out[t] = f(t); // @null_call
}

struct Shape {
    __device__ virtual float area() const = 0;
    __device__ virtual ~Shape() {}
};
struct Square : Shape {
    float s;
    __device__ Square(float s) : s(s) {}
    __device__ float area() const override { return s * s; }
};
struct Triangle : Shape {
    float b, h;
    __device__ Triangle(float b, float h) : b(b), h(h) {}
    __device__ float area() const override { return 0.5f * b * h; }
};

extern "C" __global__ void virtual_functions(float* out) {
    int t = threadIdx.x;
    Shape* s;
    if (t % 2) s = new Square(t);
    else s = new Triangle(t, 4.0f);
    out[t] = s->area();
    delete s;
}

// --- special registers and bit instructions ---

extern "C" __global__ void special_registers(unsigned* out) {
    __shared__ int scratch[16];
    scratch[threadIdx.x] = 1;
    unsigned v;
    unsigned long long w;
    asm volatile("mov.u32 %0, %%nsmid;" : "=r"(v));
    out[0] = v;
    asm volatile("mov.u64 %0, %%gridid;" : "=l"(w));
    out[1] = (unsigned)w;
    asm volatile("mov.u32 %0, %%clock_hi;" : "=r"(v));
    out[2] = v;
    asm volatile("mov.u32 %0, %%pm0;" : "=r"(v));
    out[3] = v;
    asm volatile("mov.u64 %0, %%pm7_64;" : "=l"(w));
    out[4] = (unsigned)w;
    asm volatile("mov.u32 %0, %%envreg31;" : "=r"(v));
    out[5] = v;
    asm volatile("mov.u32 %0, %%globaltimer_lo;" : "=r"(v));
    out[6] = v;
    asm volatile("mov.u32 %0, %%globaltimer_hi;" : "=r"(v));
    out[7] = v;
    asm volatile("mov.u32 %0, %%total_smem_size;" : "=r"(v));
    out[8] = v + scratch[0] - 1;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(v));
    out[9] = v;
}

// A timing loop: each read of the clock is a fixed step later, so it ends.
extern "C" __global__ void busy_wait(long long* out) {
    long long start = clock64();
    long long now = start;
    while (now - start < 100000) now = clock64();
    out[threadIdx.x] = now - start;
}

extern "C" __global__ void find_nth_set(unsigned* out) {
    int t = threadIdx.x;
    out[t] = __fns(0xF0F0u, 0, t + 1);
    out[8 + t] = __fns(0xF0F0u, 15, -(t + 1));
}

// SIMD video intrinsics (CUDA writes some with `lop3`); blockDim.x is 1, so nothing folds.
extern "C" __global__ void simd_video(unsigned* out) {
    unsigned one = blockDim.x;
    out[0] = __vsetgtu4(0x05030201u * one, 0x02030402u * one);
    out[1] = __vmaxs2(0x0001FFFFu * one, 0x00020001u * one);
}

// Lanes 4..31 of the second warp skip a shuffle their mask names (a learner's bug, reported
// naming each lane with its thread).
extern "C" __global__ void lane_skips_shuffle(int* out) {
    int t = threadIdx.x;
    int v = t;
    if (t < 36) {
        v = __shfl_down_sync(0xffffffff, v, 1); // @lane_skips_shuffle
    }
    out[t] = v;
}

// A named barrier every thread reaches (it runs).
extern "C" __global__ void named_barrier(int* out) {
    out[threadIdx.x] = 1;
    asm volatile("bar.sync 1, 64;"); // @named_barrier
    out[threadIdx.x] = 2;
}

// --- refused by name where they execute ---

extern "C" __global__ void invented_asm(int* out) {
    int v = 0;
    asm volatile("foo.bar %0;" : "+r"(v)); // @invented_asm
    out[threadIdx.x] = v;
}
