// The first kernel of many tutorials: host headers, device printf.
#include <stdio.h>
#include <stdlib.h>
#include <iostream>
#include <cuda_runtime.h>
#include "device_launch_parameters.h"

__global__ void hello(int* ids) {
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    ids[id] = id * 10;
    if (threadIdx.x == 0) {
        printf("Hello from block %d\n", blockIdx.x);
    }
}
