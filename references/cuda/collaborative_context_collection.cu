// Hand-written twin of collaborative context collection (Khorasani, Gupta & Bhuyan, "Efficient
// warp execution in presence of divergence with collaborative context collection", MICRO 2015),
// with no reconverge code: the kernel a CUDA programmer writes from the paper, to measure
// reconverge's schedule (transforms/src/strategies/collaborative_context_collection.rs) against.
//
// The workload is `reconverge_workloads::synthetic::RareCostlyBody` at seed 1 (its FAVOURABLE and
// EVERY_ITERATION): item i runs 8 + i % 7 iterations; an iteration takes the costly body (64
// rounds of an integer hash) when a hash of (item, iteration, seed) falls under `rate` / 2^32,
// else a cheap add. The same outputs as reconverge's `rare_*` entry points. Integer only: every kernel's outputs
// are the CPU's bit for bit (the host computes them too and compares).
//
//   plain   one item per thread, `if (cond) body else cheap`: a warp issues the body for the
//           few lanes that want it (about 1.6 lanes per issue at rate 1/32);
//   ccc     per warp, one shared-memory array of 64 contexts (item, iteration, iterations, acc)
//           holding two stacks: the waiting stack (contexts whose condition chose the body, from
//           slot 0 up) and the resumed stack (contexts that ran the body, from the top down).
//           A lane that wants the body pushes its context and takes other work (a resumed
//           context, else its warp's next item); once 32 wait (or nothing else is left), 32 are
//           popped, one per lane, and run the body with the whole warp. 2 * 32 - 1 contexts at
//           most are in flight (the Rust module's docs prove it), so 64 slots never overflow.
//
// Usage:  ccc_cuda [ITEMS] [REPEATS]   prints one TSV line per (rate, kernel):
//   rate_q32 kernel threads_per_block blocks shared_bytes median_ms identical
// Exit status 0 only if every output is identical to the CPU's.
//
// Build: nvcc -O3 -fmad=false -arch=sm_90 -o target/ccc_cuda references/cuda/collaborative_context_collection.cu

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CHECK(x)                                                                          \
    do {                                                                                  \
        cudaError_t e_ = (x);                                                             \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));    \
            exit(2);                                                                      \
        }                                                                                 \
    } while (0)

constexpr unsigned FULL = 0xffffffffu;
constexpr int STACK = 64;  // contexts per warp: 2 * 32 - 1 in flight at most, rounded up

struct Ctx {
    uint32_t item, iteration, iterations, acc;
};

__host__ __device__ inline uint32_t mix(uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    return x ^ (x >> 16);
}

__host__ __device__ inline Ctx start(uint32_t item) { return Ctx{item, 0, 8 + item % 7, item}; }
__host__ __device__ inline bool running(const Ctx& c) { return c.iteration < c.iterations; }
// Seed 1 of `RareCostlyBody` (FAVOURABLE and EVERY_ITERATION): 1 * 0x9e3779b9 in the key.
constexpr uint32_t SEED_KEY = 0x9e3779b9u;
__host__ __device__ inline bool condition(const Ctx& c, uint64_t rate) {
    return (uint64_t)mix((c.item * 1000u) ^ c.iteration ^ SEED_KEY) < rate;
}
__host__ __device__ inline void body(Ctx& c) {
    for (uint32_t r = 0; r < 64; ++r) c.acc = mix(c.acc ^ r);
}
__host__ __device__ inline void cheap(Ctx& c) { c.acc += c.iteration; }
__host__ __device__ inline void after_branch(Ctx& c) { c.iteration += 1; }

__host__ __device__ inline uint32_t run_item(uint32_t item, uint64_t rate) {
    Ctx c = start(item);
    while (running(c)) {
        if (condition(c, rate)) body(c); else cheap(c);
        after_branch(c);
    }
    return c.acc;
}

__device__ inline uint64_t min64(uint64_t x, uint64_t y) { return x < y ? x : y; }

__global__ void plain(uint32_t* out, uint32_t n, uint64_t rate) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = run_item(i, rate);
}

// Each warp runs the items [first, end) of its chunk. Every branch on `waiting`, `resumed` and
// the ballots is warp-uniform, so the whole warp reaches every __syncwarp and ballot.
__global__ void ccc(uint32_t* out, uint32_t n, uint64_t rate, uint32_t chunk) {
    extern __shared__ Ctx smem[];
    const uint32_t lane = threadIdx.x & 31;
    const uint32_t below = (1u << lane) - 1;
    Ctx* slots = smem + (threadIdx.x / 32) * STACK;
    const uint32_t warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    uint64_t first64 = (uint64_t)warp * chunk;
    uint32_t cursor = (uint32_t)min64(first64, n);
    const uint32_t end = (uint32_t)min64(first64 + chunk, n);
    int waiting = 0, resumed = 0;
    bool has = false;
    Ctx c{};
    for (;;) {
        // 1. Refill: finished items store their output; free lanes take a resumed context,
        //    else the warp's next item; repeated while a lane got a finished context.
        for (;;) {
            if (has && !running(c)) {
                out[c.item] = c.acc;
                has = false;
            }
            const unsigned need = __ballot_sync(FULL, !has);
            const int supply = resumed + (int)(end - cursor);
            if (need == 0 || supply == 0) break;
            const int rank = __popc(need & below);
            const int from_r = min(__popc(need), resumed);
            const int fresh = min(__popc(need) - from_r, (int)(end - cursor));
            __syncwarp();
            if (!has && rank < from_r) {
                c = slots[STACK - resumed + rank];
                has = true;
            } else if (!has && rank - from_r < fresh) {
                c = start(cursor + (uint32_t)(rank - from_r));
                has = true;
            }
            resumed -= from_r;
            cursor += (uint32_t)fresh;
            if (!__any_sync(FULL, has && !running(c))) break;
        }
        // 2. Lanes that want the body save their context; the others run the cheap path.
        const bool want = has && condition(c, rate);
        const unsigned wm = __ballot_sync(FULL, want);
        const unsigned hm = __ballot_sync(FULL, has);
        if (hm == 0 && waiting == 0 && resumed == 0) return;
        __syncwarp();
        if (want) {
            slots[waiting + __popc(wm & below)] = c;
            has = false;
        }
        waiting += __popc(wm);
        if (has) {
            cheap(c);
            after_branch(c);
        }
        // 3. A warp's worth waiting, or nothing else to run: the body with popped lanes.
        const bool cheap_ran = (hm & ~wm) != 0;
        if (waiting >= 32 || (!cheap_ran && resumed == 0 && waiting > 0)) {
            const int k = min(32, waiting);
            __syncwarp();
            Ctx d{};
            if ((int)lane < k) {
                d = slots[waiting - 1 - (int)lane];
                body(d);
                after_branch(d);
            }
            waiting -= k;
            __syncwarp();
            if ((int)lane < k) slots[STACK - resumed - 1 - (int)lane] = d;
            resumed += k;
        }
    }
}

static float median(std::vector<float> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int main(int argc, char** argv) {
    const uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], nullptr, 10) : (1u << 20);
    const int repeats = argc > 2 ? atoi(argv[2]) : 20;
    const int tpb = 256, warps_per_block = tpb / 32;
    uint32_t* d_out;
    CHECK(cudaMalloc(&d_out, (size_t)n * 4));
    std::vector<uint32_t> host(n), expected(n);
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    int device, sms;
    CHECK(cudaGetDevice(&device));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    bool all_identical = true;
    // Favourable (rate 1/32: about one lane per iteration wants the body) and unfavourable
    // (every iteration takes it: the warp already agrees).
    const uint64_t rates[] = {1ull << 27, 1ull << 32};
    printf("rate_q32\tkernel\tthreads_per_block\tblocks\tshared_bytes\tmedian_ms\tidentical\n");
    for (uint64_t rate : rates) {
        for (uint32_t i = 0; i < n; ++i) expected[i] = run_item(i, rate);
        for (int k = 0; k < 2; ++k) {
            int blocks;
            size_t shared = 0;
            uint32_t chunk = 0;
            if (k == 0) {
                blocks = (int)((n + tpb - 1) / tpb);
            } else {
                shared = (size_t)warps_per_block * STACK * sizeof(Ctx);
                int per_sm = 0;
                CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, ccc, tpb, shared));
                blocks = std::max(1, per_sm * sms);  // one resident wave, chunks per warp
                const uint64_t warps = (uint64_t)blocks * warps_per_block;
                chunk = (uint32_t)((n + warps - 1) / warps);
            }
            std::vector<float> times;
            for (int r = 0; r < repeats; ++r) {
                CHECK(cudaMemset(d_out, 0, (size_t)n * 4));
                CHECK(cudaEventRecord(a));
                if (k == 0) plain<<<blocks, tpb>>>(d_out, n, rate);
                else ccc<<<blocks, tpb, shared>>>(d_out, n, rate, chunk);
                CHECK(cudaEventRecord(b));
                CHECK(cudaEventSynchronize(b));
                CHECK(cudaGetLastError());
                float ms;
                CHECK(cudaEventElapsedTime(&ms, a, b));
                times.push_back(ms);
            }
            CHECK(cudaMemcpy(host.data(), d_out, (size_t)n * 4, cudaMemcpyDeviceToHost));
            const bool identical = host == expected;
            all_identical = all_identical && identical;
            printf("%llu\t%s\t%d\t%d\t%zu\t%.4f\t%s\n", (unsigned long long)rate,
                   k == 0 ? "plain" : "ccc", tpb, blocks, shared, median(times),
                   identical ? "yes" : "NO");
        }
    }
    return all_identical ? 0 : 1;
}
