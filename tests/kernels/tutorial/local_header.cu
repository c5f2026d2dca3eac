// A kernel split over its own headers: a quoted include beside the file and
// an angle include from a folder given with -I.
#include "tutorial_util.h"
#include <saxpy_params.h>

__global__ void saxpy(const float* x, float* y, int n) {
    int i = global_index();
    if (i < n) {
        y[i] = SAXPY_A * x[i] + y[i];
    }
}
