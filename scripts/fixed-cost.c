// Where a CUDA process's fixed cost goes on this machine: each driver call of a context's life
// timed, with the module the mcml program loads. Built and run by `PARTS=fixedcost
// scripts/gpu-all.sh` (nvcc -o fixed-cost fixed-cost.c -lcuda).
//
// usage: fixed-cost IMAGE KERNEL RELEASE
//   IMAGE    a cubin or PTX file (mcml.ptx, or its cubin from ptxas)
//   KERNEL   an entry point of it (mcml_fast_grid)
//   RELEASE  1: unload and release the context before exiting (what mcml does); 0: leave them
//            to the process's exit (the kernel driver tears the context down then)
// Prints one line: seconds in cuInit, the primary context, the module, the function, the first
// stream-ordered allocation (`cuMemAllocAsync`, what cudarc uses where the device has memory
// pools) of MCML's skin tally (32 copies, 28.7 MB) zeroed, the same allocation by `cuMemAlloc`,
// and the release.
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

#define CHECK(call)                                                                             \
    do {                                                                                        \
        CUresult r = (call);                                                                    \
        if (r != CUDA_SUCCESS) {                                                                \
            const char *name = "?";                                                             \
            cuGetErrorName(r, &name);                                                           \
            fprintf(stderr, "%s: %s\n", #call, name);                                           \
            return 1;                                                                           \
        }                                                                                       \
    } while (0)

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s IMAGE KERNEL RELEASE(0|1)\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *image = malloc(n + 1);
    if (!image || fread(image, 1, n, f) != (size_t)n) {
        fprintf(stderr, "%s: cannot read\n", argv[1]);
        return 1;
    }
    image[n] = 0;  // PTX is loaded as a C string
    fclose(f);
    int release = atoi(argv[3]);

    double t0 = now();
    CHECK(cuInit(0));
    double t1 = now();
    CUdevice device;
    CUcontext context;
    CHECK(cuDeviceGet(&device, 0));
    CHECK(cuDevicePrimaryCtxRetain(&context, device));
    CHECK(cuCtxSetCurrent(context));
    double t2 = now();
    CUmodule module;
    CHECK(cuModuleLoadData(&module, image));
    double t3 = now();
    CUfunction function;
    CHECK(cuModuleGetFunction(&function, module, argv[2]));
    double t4 = now();
    const size_t tally = (size_t)32 * 112002 * 8;
    CUstream stream;
    CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    CUdeviceptr pooled, buffer;
    CHECK(cuMemAllocAsync(&pooled, tally, stream));
    CHECK(cuMemsetD8Async(pooled, 0, tally, stream));
    CHECK(cuStreamSynchronize(stream));
    double t5 = now();
    CHECK(cuMemAlloc(&buffer, tally));
    CHECK(cuMemsetD8Async(buffer, 0, tally, stream));
    CHECK(cuStreamSynchronize(stream));
    double t6 = now(), t7 = t6;
    if (release) {
        CHECK(cuMemFreeAsync(pooled, stream));
        CHECK(cuStreamSynchronize(stream));
        CHECK(cuMemFree(buffer));
        CHECK(cuModuleUnload(module));
        CHECK(cuDevicePrimaryCtxRelease(device));
        t7 = now();
    }
    printf("init %.3f context %.3f module %.3f function %.3f pooled %.4f alloc %.4f release %.3f\n",
           t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t6 - t5, t7 - t6);
    return 0;
}
