// Hand-written twin of reconverge's thread-data remapping (Zhang, Jiang, Guo, Tian and Shen,
// "On-the-Fly Elimination of Dynamic Irregularities for GPU Computing", G-Streamline, ASPLOS
// 2011), on the class-chains loop (`reconverge_workloads::synthetic::ClassChains`): the kernels
// a CUDA programmer writes from the paper, with no reconverge code, to measure reconverge's
// strategy against.
//
//   plain         one item per thread: each iteration runs the float chain (class 0) or the
//                 integer chain (class 1); with the classes interleaved both run in every warp;
//   remap2        two kernels, as reconverge runs it: `permute` (warp 0 of each block sorts the
//                 block's items by class, a stable counting sort with one ballot per class and
//                 window of 32, into a global permutation), then `remapped` (thread t of the
//                 block runs item perm[block * 256 + t], its output at the item's own index);
//   remap_shared  one kernel: the block sorts its items by class in shared memory (the same
//                 stable counting sort, then __syncthreads), then each thread runs its slot's
//                 item: the fused form a programmer writes when the remapping stays in a block.
//
// Every kernel computes the Rust workload's outputs bit for bit (integer arithmetic and exact
// float steps: v < 2^20, so v * 2 + 1 and (v * 2 + 1) * 0.5 - 0.5 are exact, fused or not); the
// host checks each against its own scalar loop (the Rust `reference(item)`, line for line).
// Built with -fmad=false, as every twin: the Rust loop multiplies, then adds, and nvcc's default
// FFMA contraction would run half the float chain's instructions (measured on an H200 before
// the flag: the twin's loop pass 161 M warp instructions against the Rust loop's 183 M).
//
// Usage:  thread_data_remapping_cuda [items] [iterations] [rounds] [layout]
//         layout 0: interleaved (favourable), 1: grouped in runs of 32, 2: unpredictable
// Prints one TSV line per kernel: kernel layout median_ms identical.
// Build: nvcc -O3 -fmad=false -arch=sm_90 -o target/thread_data_remapping_cuda \
//            references/cuda/thread_data_remapping.cu

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>

struct Params {
    uint32_t iterations, rounds, layout;
};

const uint32_t GROUPED = 1, UNPREDICTABLE = 2, THREADS = 256;

__host__ __device__ inline uint32_t rotl(uint32_t x, int k) { return (x << k) | (x >> (32 - k)); }

// `integer_rounds` of itdelay_distinct.rs.
__host__ __device__ inline uint32_t integer_rounds(uint32_t x, uint32_t n) {
    for (uint32_t i = 0; i < n; ++i) x = (rotl(x, 5) ^ 0x6A09E667u) * 0x9E3779B1u + 0x7F4A7C15u;
    return x;
}

__host__ __device__ inline uint32_t mix(uint32_t item) {
    uint32_t x = item * 0x9E3779B9u ^ 0x85EBCA6Bu;
    return (x ^ (x >> 15)) * 0x2C1B3C6Du;
}

__host__ __device__ inline uint32_t float_bits(float v) {
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

__host__ __device__ inline uint32_t klass(const Params &p, uint32_t item) {
    return p.layout == GROUPED ? (item >> 5) & 1 : (mix(item) >> 16) & 1;
}

__host__ __device__ inline uint32_t run_item(const Params &p, uint32_t item) {
    uint32_t h = mix(item), c = klass(p, item), x = h;
    float v = (float)(h >> 12);
    for (uint32_t i = 0; i < p.iterations; ++i) {
        bool taken = p.layout == UNPREDICTABLE ? ((mix(item ^ (i * 0x632BE5ABu)) >> 16) & 1) == 0
                                               : c == 0;
        if (taken) {
            for (uint32_t r = 0; r < p.rounds; ++r) {
                v = v * 2.0f + 1.0f;
                v = v * 0.5f - 0.5f;
            }
            x = rotl(x, 1) ^ i;
        } else {
            x = integer_rounds(x ^ i, p.rounds);
        }
    }
    return x ^ float_bits(v);
}

__global__ void plain(const Params p, uint32_t *out, uint32_t n) {
    uint32_t item = blockIdx.x * blockDim.x + threadIdx.x;
    if (item < n) out[item] = run_item(p, item);
}

// The block's chunk [first, end) sorted by class by one warp: a count, then a placement, each a
// scan in windows of 32 with one ballot per class; stable (a window's lanes in lane order).
__device__ inline void sort_chunk(const Params &p, uint32_t first, uint32_t end, uint32_t *perm,
                                  uint32_t perm_base) {
    uint32_t lane = threadIdx.x & 31, below = (1u << lane) - 1;
    uint32_t count0 = 0;
    for (uint32_t w = first; w < end; w += 32) {
        uint32_t item = w + lane;
        bool zero = item < end && klass(p, item) == 0;
        count0 += __popc(__ballot_sync(0xffffffffu, zero));
    }
    uint32_t at0 = 0, at1 = count0;
    for (uint32_t w = first; w < end; w += 32) {
        uint32_t item = w + lane;
        bool live = item < end;
        uint32_t c = live ? klass(p, item) : 1;
        uint32_t m0 = __ballot_sync(0xffffffffu, live && c == 0);
        uint32_t m1 = __ballot_sync(0xffffffffu, live && c == 1);
        if (live) perm[perm_base + (c == 0 ? at0 + __popc(m0 & below) : at1 + __popc(m1 & below))] = item;
        at0 += __popc(m0);
        at1 += __popc(m1);
    }
}

__global__ void permute(const Params p, uint32_t *perm, uint32_t n) {
    uint32_t first = blockIdx.x * blockDim.x, end = min(first + blockDim.x, n);
    if (threadIdx.x < 32 && first < n) sort_chunk(p, first, end, perm, first);
}

__global__ void remapped(const Params p, const uint32_t *perm, uint32_t *out, uint32_t n) {
    uint32_t slot = blockIdx.x * blockDim.x + threadIdx.x;
    if (slot >= n) return;
    uint32_t item = perm[slot];
    out[item] = run_item(p, item);
}

__global__ void remap_shared(const Params p, uint32_t *out, uint32_t n) {
    __shared__ uint32_t perm[THREADS];
    uint32_t first = blockIdx.x * blockDim.x, end = min(first + blockDim.x, n);
    if (threadIdx.x < 32 && first < n) sort_chunk(p, first, end, perm, 0);
    __syncthreads();
    uint32_t slot = first + threadIdx.x;
    if (slot >= n) return;
    uint32_t item = perm[threadIdx.x];
    out[item] = run_item(p, item);
}

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); exit(2); } } while (0)

int main(int argc, char **argv) {
    uint32_t n = argc > 1 ? atoi(argv[1]) : (1u << 20);
    Params p{argc > 2 ? (uint32_t)atoi(argv[2]) : 64u, argc > 3 ? (uint32_t)atoi(argv[3]) : 16u,
             argc > 4 ? (uint32_t)atoi(argv[4]) : 0u};
    std::vector<uint32_t> want(n), got(n);
    for (uint32_t i = 0; i < n; ++i) want[i] = run_item(p, i);
    uint32_t *out, *perm;
    CHECK(cudaMalloc(&out, n * sizeof(uint32_t)));
    CHECK(cudaMalloc(&perm, n * sizeof(uint32_t)));
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    const uint32_t blocks = (n + THREADS - 1) / THREADS;
    int bad = 0;
    const char *names[] = {"plain", "remap2", "remap_shared"};
    for (int k = 0; k < 3; ++k) {
        std::vector<float> ms;
        for (int r = 0; r < 7; ++r) {
            CHECK(cudaMemset(out, 0, n * sizeof(uint32_t)));
            cudaEventRecord(a);
            if (k == 0) plain<<<blocks, THREADS>>>(p, out, n);
            else if (k == 1) {
                permute<<<blocks, THREADS>>>(p, perm, n);
                remapped<<<blocks, THREADS>>>(p, perm, out, n);
            } else remap_shared<<<blocks, THREADS>>>(p, out, n);
            cudaEventRecord(b);
            CHECK(cudaEventSynchronize(b));
            float t;
            cudaEventElapsedTime(&t, a, b);
            ms.push_back(t);
        }
        std::sort(ms.begin(), ms.end());
        CHECK(cudaMemcpy(got.data(), out, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
        bool same = got == want;
        bad |= !same;
        printf("%s\t%u\t%.4f\t%s\n", names[k], p.layout, ms[ms.size() / 2], same ? "yes" : "NO");
    }
    return bad;
}
