// A block of the device heap read after it was freed.
extern "C" __global__ void heap_after_free(float* out, const float* a, int size) {
    int i = threadIdx.x;
    float* tmp = (float*)malloc(sizeof(float));
    tmp[0] = a[i];
    free(tmp);
    out[i] = tmp[0];
}
