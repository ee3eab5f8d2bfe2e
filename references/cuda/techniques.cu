// Hand-written twins of reconverge's warp-level techniques, on SYN-ITDELAY with paths of
// distinct shape (`reconverge_workloads::synthetic::SynItDelayDistinct`): the kernels a CUDA
// programmer writes from seed 002 (Han & Abdelrahman, fig. 5), with no reconverge code, to
// measure reconverge's strategies against (DESIGN.md, "The plain kernel is the baseline").
//
// Every kernel computes the Rust workload's outputs bit for bit; each is checked against the
// CPU backend's outputs. One item per thread, 256 threads per block, parameters by value.
//
//   plain one-per-item   the item's loop, `if (cond) taken else not_taken`: the hardware
//                        diverges (the taken path is a float chain, the other an integer chain,
//                        which the compiler cannot merge into one);
//   plain grid-stride, plain persistent   the same loop in plain.cu's other two schedules;
//   majority vote t      fig. 5a: `__popc(__ballot_sync(live, cond)) >= t` picks the path of
//                        the iteration, lanes of the other path keep their pending condition;
//                        with the stop rule, delaying ends once a lane has finished (all lanes
//                        then run their own path);
//   round robin z:o      fig. 5b: z not-taken iterations, then o taken ones; with idle removal
//                        a direction no lane wants is flipped (`cond ? __any : __all`);
//   cost-balanced        the not-taken path runs every iteration; the taken path waits until
//                        its waiting lanes have idled as many lane-iterations as one issue of
//                        it costs (B, computed on the host as reconverge computes it).
//
// Usage:  techniques_cuda DIR   (TECHNIQUES_REPEATS=1: one timed launch per kernel, for ncu)
//   DIR/settings.tsv: one line per setting: name taken_q16 n_pairs iterations seed items
//   DIR/<name>.out:   the Rust CPU backend's outputs of that setting (raw little endian).
// Prints one TSV line per (setting, kernel): setting language code threads_per_block blocks
// median_ms identical registers. Exit status 0 only if every output is identical.
//
// Build: nvcc -O3 -fmad=false -arch=sm_90 -o target/techniques_cuda references/cuda/techniques.cu

#define PLAIN_CU_NO_MAIN
#include "plain.cu"

#include <fstream>
#include <sstream>

// ---- SYN-ITDELAY with paths of distinct shape (workloads/src/synthetic/itdelay_distinct.rs)

struct ItState {
    uint64_t rng;
    float val;
    uint32_t remaining, taken, trace;
};

__host__ __device__ __forceinline__ ItState it_start(const ItDelayParams &p, uint32_t item) {
    uint64_t h = item_hash(p.seed, item);
    uint32_t x = (uint32_t)h | 1u;
    uint32_t carry = (uint32_t)(h >> 32) % (MWC64X_MULTIPLIER - 1u);
    ItState s;
    s.rng = ((uint64_t)carry << 32) | x;
    s.val = (float)(mwc_next(s.rng) >> 12);
    s.remaining = p.iterations;
    s.taken = 0;
    s.trace = 0;
    return s;
}

__host__ __device__ __forceinline__ bool it_condition(const ItDelayParams &p, ItState &s) {
    uint32_t bits = mwc_next(s.rng) >> 16;
    return p.taken_q16 >= 65536u || bits < p.taken_q16;
}

// The taken path: SYN-ITDELAY's float chain; the not-taken path: `integer_rounds`.
__host__ __device__ __forceinline__ void it_path(const ItDelayParams &p, ItState &s, bool cond) {
    if (cond) {
        s.val = fma_pairs(s.val, p.n_pairs, 2.0f, 1.0f, 0.5f, -0.5f);
        s.taken += 1;
        s.trace = s.trace * 0x9E3779B1u + 0x68E31DA4u;
    } else {
        uint32_t x = s.trace * 0x9E3779B1u + 0x1B56C4E9u;
        for (uint32_t k = 0; k < p.n_pairs; ++k)
            x = (rotl32(x, 5) ^ 0x6A09E667u) * 0x9E3779B1u + 0x7F4A7C15u;
        s.trace = x;
    }
    s.remaining -= 1;
}

__host__ __device__ __forceinline__ ItDelayOut it_finish(const ItState &s) {
    ItDelayOut o;
    o.val = s.val;
    o.taken = s.taken;
    o.trace = s.trace;
    return o;
}

struct DistinctW : ItemFunction<ItDelayParams, ItDelayOut> {
    static const char *name() { return "syn-itdelay-distinct"; }
    static __host__ __device__ ItDelayOut item(const ItDelayParams &p, uint32_t item) {
        ItState s = it_start(p, item);
        while (s.remaining > 0) it_path(p, s, it_condition(p, s));
        return it_finish(s);
    }
};

#ifdef __CUDACC__

static const unsigned FULL = 0xffffffffu;

enum Decision { MV_STOP, MV, RR, RR_IDLE, BALANCED };

// Iteration delaying, one item per thread. `a`, `b`: threshold (majority vote), num_zeros and
// num_ones (round robin), B (cost-balanced).
template <Decision D>
__global__ void delaying(const ItDelayParams p, ItDelayOut *out, uint32_t n, uint32_t a,
                         uint32_t b) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    bool has = i < n;
    ItState s = it_start(p, has ? i : 0);
    bool pending = false, cond = false;
    const unsigned started = __ballot_sync(FULL, has);
    bool delaying = true;
    uint32_t last = a + b - 1, left = last, waited = 0;
    for (;;) {
        if (has && s.remaining == 0) {
            out[i] = it_finish(s);
            has = false;
        }
        unsigned live = __ballot_sync(FULL, has);
        if (live == 0) break;
        if (has && !pending) {
            cond = it_condition(p, s);
            pending = true;
        }
        unsigned want = __ballot_sync(FULL, has && cond);
        bool run;
        if (D == MV_STOP || D == MV) {
            if (D == MV_STOP && live != started) delaying = false;
            bool dir = __popc(want) >= a;
            unsigned runs = dir ? want : live & ~want;
            if (runs == 0) dir = !dir;
            run = !delaying || cond == dir;
        } else if (D == RR || D == RR_IDLE) {
            bool dir = left < b;
            left = left == 0 ? last : left - 1;
            if (D == RR_IDLE) dir = dir ? want != 0 : want == live;
            run = cond == dir;
        } else {
            unsigned others = live & ~want;
            uint32_t w = waited + __popc(want);
            bool fire = want != 0 && (others == 0 || w >= a);
            waited = fire ? 0 : w;
            run = !cond || fire;
        }
        if (has && run) {
            it_path(p, s, cond);
            pending = false;
        }
    }
}

// One kernel of a setting's table: a plain schedule of plain.cu (`decision` < 0), or a twin
// with its numbers `a`, `b` (threshold; num_zeros and num_ones; B).
struct Code {
    const char *name;
    int decision;
    int schedule;
    uint32_t a, b;
};

static const void *twin_kernel(int decision) {
    switch (decision) {
    case MV_STOP: return (const void *)delaying<MV_STOP>;
    case MV: return (const void *)delaying<MV>;
    case RR: return (const void *)delaying<RR>;
    case RR_IDLE: return (const void *)delaying<RR_IDLE>;
    default: return (const void *)delaying<BALANCED>;
    }
}

static void twin_enqueue(const Code &c, int blocks, const ItDelayParams &p, ItDelayOut *d_out,
                         uint32_t n) {
    switch (c.decision) {
    case MV_STOP: delaying<MV_STOP><<<blocks, THREADS>>>(p, d_out, n, c.a, c.b); break;
    case MV: delaying<MV><<<blocks, THREADS>>>(p, d_out, n, c.a, c.b); break;
    case RR: delaying<RR><<<blocks, THREADS>>>(p, d_out, n, c.a, c.b); break;
    case RR_IDLE: delaying<RR_IDLE><<<blocks, THREADS>>>(p, d_out, n, c.a, c.b); break;
    default: delaying<BALANCED><<<blocks, THREADS>>>(p, d_out, n, c.a, c.b); break;
    }
}

static bool bench_setting(const std::string &dir, const std::string &setting,
                          const ItDelayParams &p, uint32_t items, int sms, int repeats) {
    std::vector<ItDelayOut> want;
    if (!read_expected(dir, setting.c_str(), want)) return false;
    if (want.size() != items) {
        fprintf(stderr, "%s: %zu outputs, %u items\n", setting.c_str(), want.size(), items);
        return false;
    }
    uint32_t n = items;
    // Cost-balanced delaying's B: the taken path (2N) in lane-iterations over the rest of an
    // iteration (generator 19, not-taken path 2N, loop 1), rounded up, at least 1
    // (iteration_delaying.rs, taken_cost_in_lane_iterations).
    uint64_t path = 2ull * p.n_pairs, rest = 19 + path + 1;
    uint32_t cost = (uint32_t)((32 * path + rest - 1) / rest);
    if (cost < 1) cost = 1;
    const Code codes[] = {
        {"plain one-per-item", -1, ONE_PER_ITEM, 0, 0},
        {"plain grid-stride", -1, GRID_STRIDE, 0, 0},
        {"plain persistent", -1, PERSISTENT, 0, 0},
        {"twin majority vote 4, stop", MV_STOP, 0, 4, 0},
        {"twin majority vote 8, stop", MV_STOP, 0, 8, 0},
        {"twin majority vote 16, stop", MV_STOP, 0, 16, 0},
        {"twin majority vote 24, stop", MV_STOP, 0, 24, 0},
        {"twin majority vote 16", MV, 0, 16, 0},
        {"twin round robin 1:1", RR, 0, 1, 1},
        {"twin round robin 3:1", RR, 0, 3, 1},
        {"twin round robin 1:1, idle removal", RR_IDLE, 0, 1, 1},
        {"twin round robin 3:1, idle removal", RR_IDLE, 0, 3, 1},
        {"twin cost-balanced", BALANCED, 0, cost, 0},
    };
    size_t bytes = want.size() * sizeof(ItDelayOut);
    ItDelayOut *d_out = nullptr;
    unsigned int *d_next = nullptr;
    CK(cudaMalloc(&d_out, bytes));
    CK(cudaMalloc(&d_next, sizeof(unsigned int)));
    std::vector<ItDelayOut> got(want.size());
    bool all = true;
    for (const Code &c : codes) {
        bool plain = c.decision < 0;
        cudaFuncAttributes attr;
        CK(cudaFuncGetAttributes(
            &attr, plain ? plain_kernel<DistinctW>(c.schedule) : twin_kernel(c.decision)));
        // The twins run one item per thread.
        int blocks = plain_blocks<DistinctW>(plain ? c.schedule : ONE_PER_ITEM, n, sms);
        // One untimed launch, then the median of `repeats`.
        Timing t = time_and_check(
            d_out, bytes, 0, repeats,
            [&]() {
                if (plain && c.schedule == PERSISTENT)
                    CK(cudaMemsetAsync(d_next, 0, sizeof(unsigned int)));
            },
            [&]() {
                if (plain) plain_enqueue<DistinctW>(c.schedule, blocks, p, d_out, n, d_next);
                else twin_enqueue(c, blocks, p, d_out, n);
            },
            [&]() {
                CK(cudaMemcpy(got.data(), d_out, bytes, cudaMemcpyDeviceToHost));
                std::string what = setting + " " + c.name;
                return count_differences(what.c_str(), got, want) == 0;
            });
        printf("%s\tcuda\t%s\t%d\t%d\t%.4f\t%s\t%d\n", setting.c_str(), c.name, THREADS, blocks,
               t.median_ms, t.identical ? "yes" : "no", attr.numRegs);
        fflush(stdout);
        all = all && t.identical;
    }
    CK(cudaFree(d_next));
    CK(cudaFree(d_out));
    return all;
}

#endif  // __CUDACC__

int main(int argc, char **argv) {
    std::string dir;
    std::ifstream settings;
    if (!open_settings(argc, argv, "settings.tsv", dir, settings)) return 2;
    bool ok = true;
    // TECHNIQUES_REPEATS: timed launches per kernel after the warm-up (1 under a profiler).
    const char *env = getenv("TECHNIQUES_REPEATS");
    int repeats = env ? atoi(env) : 15;
    if (repeats < 1) repeats = 1;
    (void)repeats;
#ifdef __CUDACC__
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    fprintf(stderr, "%s, %d SMs\n", prop.name, prop.multiProcessorCount);
#endif
    std::string line;
    while (std::getline(settings, line)) {
        std::istringstream in(line);
        std::string name;
        ItDelayParams p;
        unsigned long long seed;
        uint32_t items;
        if (!(in >> name >> p.taken_q16 >> p.n_pairs >> p.iterations >> seed >> items)) continue;
        p.seed = seed;
#ifdef __CUDACC__
        ok = bench_setting(dir, name, p, items, prop.multiProcessorCount, repeats) && ok;
#else
        // Without nvcc: the item function on the CPU against the expected outputs.
        std::vector<ItDelayOut> want, got;
        if (!read_expected(dir, name.c_str(), want)) return 1;
        for (uint32_t i = 0; i < want.size(); ++i) got.push_back(DistinctW::item(p, i));
        bool same = count_differences(name.c_str(), got, want) == 0;
        printf("%s\thost\t%zu\t%s\n", name.c_str(), want.size(), same ? "yes" : "no");
        ok = ok && same;
#endif
    }
    return ok ? 0 : 1;
}
