// Hand-written twin of reconverge's speculative reconvergence (Damani et al., "Speculative
// Reconvergence for Improved SIMT Efficiency", CGO 2020), on the periodic-block loop
// (`reconverge_workloads::synthetic::PeriodicBlockLoop`): the kernels a CUDA programmer writes
// from the paper, with no reconverge code, to measure reconverge's strategy against.
//
//   plain      one item per thread, `if (block due) block else step`: as written, the block is
//              issued in every iteration some lane's phase picks, with about 32 / period lanes;
//   spec t w   a lane whose block is due waits (keeps its pending block) while the others run
//              their cheap step; the block runs for every waiting lane once t of them wait
//              (`__popc(__ballot_sync(...)) >= t`), once the oldest has waited w iterations,
//              or when no live lane is left to step. The same schedule as
//              transforms/src/strategies/speculative_reconvergence.rs (`speculative_paths`).
//
// Every kernel computes the Rust workload's outputs bit for bit (integer arithmetic only); the
// host checks both against its own scalar loop (the Rust `reference(item)`, line for line).
//
// Usage:  speculative_reconvergence_cuda [items] [iterations] [period] [block_rounds] [phased]
// Prints one TSV line per kernel: kernel threshold max_wait median_ms identical.
// Build: nvcc -O3 -fmad=false -arch=sm_90 -o target/speculative_reconvergence_cuda \
//            references/cuda/speculative_reconvergence.cu

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>

struct Params {
    uint32_t iterations, period, block_rounds, phased;
};

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

struct State {
    uint32_t i, phase, x;
};

__host__ __device__ inline State start(const Params &p, uint32_t item) {
    uint32_t h = mix(item), period = p.period ? p.period : 1;
    return State{0, p.phased ? (h >> 8) % period : 0, h};
}
__host__ __device__ inline bool due(const Params &p, const State &s) {
    uint32_t period = p.period ? p.period : 1;
    return (s.i + s.phase) % period == period - 1;
}
__host__ __device__ inline void block(const Params &p, State &s) {
    s.x = integer_rounds(s.x ^ s.i, p.block_rounds);
}
__host__ __device__ inline void step(State &s) { s.x = (rotl(s.x, 3) + s.i) ^ 0x27D4EB2Fu; }

__global__ void plain(const Params p, uint32_t *out, uint32_t n) {
    uint32_t item = blockIdx.x * blockDim.x + threadIdx.x;
    if (item >= n) return;
    State s = start(p, item);
    for (; s.i < p.iterations; ++s.i) {
        if (due(p, s)) block(p, s); else step(s);
    }
    out[item] = s.x;
}

// Speculative reconvergence: the convergence point before the block, released by a vote.
__global__ void spec(const Params p, uint32_t *out, uint32_t n, uint32_t threshold,
                     uint32_t max_wait) {
    uint32_t item = blockIdx.x * blockDim.x + threadIdx.x;
    bool has = item < n;
    State s = start(p, has ? item : 0);
    uint32_t waited = 0;  // the same in every lane
    for (;;) {
        bool live = has && s.i < p.iterations;
        bool want = live && due(p, s);
        uint32_t live_mask = __ballot_sync(0xffffffffu, live);
        if (live_mask == 0) break;
        uint32_t want_mask = __ballot_sync(0xffffffffu, want);
        uint32_t others = live_mask & ~want_mask;
        bool release = want_mask != 0 &&
                       (others == 0 || (uint32_t)__popc(want_mask) >= threshold || waited >= max_wait);
        if (release) waited = 0; else if (want_mask != 0) ++waited; else waited = 0;
        if (want && release) { block(p, s); ++s.i; }
        else if (live && !want) { step(s); ++s.i; }
    }
    if (has) out[item] = s.x;
}

static uint32_t reference(const Params &p, uint32_t item) {
    State s = start(p, item);
    for (; s.i < p.iterations; ++s.i) {
        if (due(p, s)) block(p, s); else step(s);
    }
    return s.x;
}

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); exit(2); } } while (0)

int main(int argc, char **argv) {
    uint32_t n = argc > 1 ? atoi(argv[1]) : (1u << 20);
    Params p{argc > 2 ? (uint32_t)atoi(argv[2]) : 256u, argc > 3 ? (uint32_t)atoi(argv[3]) : 8u,
             argc > 4 ? (uint32_t)atoi(argv[4]) : 64u, argc > 5 ? (uint32_t)atoi(argv[5]) : 1u};
    std::vector<uint32_t> want(n), got(n);
    for (uint32_t i = 0; i < n; ++i) want[i] = reference(p, i);
    uint32_t *out;
    CHECK(cudaMalloc(&out, n * sizeof(uint32_t)));
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    const uint32_t threads = 256, blocks = (n + threads - 1) / threads;
    int bad = 0;
    struct K { const char *name; uint32_t t, w; };
    K ks[] = {{"plain", 0, 0}, {"spec", 8, 8}, {"spec", 16, 8}, {"spec", 24, 8}};
    for (const K &k : ks) {
        std::vector<float> ms;
        for (int r = 0; r < 7; ++r) {
            CHECK(cudaMemset(out, 0, n * sizeof(uint32_t)));
            cudaEventRecord(a);
            if (k.t == 0) plain<<<blocks, threads>>>(p, out, n);
            else spec<<<blocks, threads>>>(p, out, n, k.t, k.w);
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
        printf("%s\t%u\t%u\t%.4f\t%s\n", k.name, k.t, k.w, ms[ms.size() / 2], same ? "yes" : "NO");
    }
    return bad;
}
