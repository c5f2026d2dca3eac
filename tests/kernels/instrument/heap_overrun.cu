// One element past a malloc'd block of four floats (k <= 4 where k < 4 was meant).
extern "C" __global__ void heap_overrun(float* out, const float* a, int size) {
    int i = threadIdx.x;
    float* tmp = (float*)malloc(4 * sizeof(float));
    for (int k = 0; k <= 4; k++) tmp[k] = a[i] + k;
    out[i] = tmp[0] + tmp[3];
    free(tmp);
}
