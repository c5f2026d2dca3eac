// A malloc'd block freed twice, and one freed through a pointer moved into it.
extern "C" __global__ void heap_double_free(float* out, const float* a, int size) {
    int i = threadIdx.x;
    float* tmp = (float*)malloc(sizeof(float));
    tmp[0] = a[i];
    out[i] = tmp[0];
    free(tmp);
    free(tmp);
}

extern "C" __global__ void heap_bad_free(float* out, const float* a, int size) {
    int i = threadIdx.x;
    float* tmp = (float*)malloc(2 * sizeof(float));
    tmp[1] = a[i];
    out[i] = tmp[1];
    free(tmp + 1);
}
