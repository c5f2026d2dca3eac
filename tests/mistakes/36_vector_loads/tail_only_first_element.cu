// expect: fail
// kind: wrong-output
// help-has: k < size | every element | each of | remaining | loop
// why: the thread whose group of four runs past the end handles only its first element (`i`);
// why: with size % 4 == 2 or 3 the last one or two elements are never written. The tail needs a
// why: loop from i to size.
// Puzzle 36 · Vectorized loads: out[i] = a[i] + b[i], four elements per thread with float4.
extern "C" __global__ void add4(float* out, const float* a, const float* b, int size) {
    int q = blockIdx.x * blockDim.x + threadIdx.x;
    int first = q * 4;
    if (first + 3 < size) {
        float4 va = reinterpret_cast<const float4*>(a)[q];
        float4 vb = reinterpret_cast<const float4*>(b)[q];
        float4 r;
        r.x = va.x + vb.x;
        r.y = va.y + vb.y;
        r.z = va.z + vb.z;
        r.w = va.w + vb.w;
        reinterpret_cast<float4*>(out)[q] = r;
    } else if (first < size) {
        out[first] = a[first] + b[first];  // @bug
    }
}
