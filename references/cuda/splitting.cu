// Hand-written twin of branch splitting (Carrillo, Siegel & Li, seed 001 fig. 6b) on the
// benchmark of §5 with paths of distinct shape
// (`reconverge_workloads::synthetic::BranchSplitDistinct`: the light if branch the paper's
// integer LCG chain, the heavy else branch a float chain), with no reconverge code.
//
//   plain one-per-item, grid-stride, persistent   `if (decide) light else heavy`, plain.cu's
//                        schedules: the hardware diverges (the compiler cannot merge the paths);
//   twin branch splitting   two kernels, a thread per item, the first running the if branch for
//                        the items whose decision takes it, the second the else branch for the
//                        others (timed together: both launches between one pair of events).
//
// Every kernel computes the Rust workload's outputs bit for bit; each is checked against the
// CPU backend's outputs.
//
// Usage:  splitting_cuda DIR   (TECHNIQUES_REPEATS=1: one timed launch per kernel, for ncu)
//   DIR/split-settings.tsv: one line per setting: name else_q16 light heavy seed items
//   DIR/<name>.out:         the Rust CPU backend's outputs of that setting (u32, little endian).
// Prints one TSV line per (setting, kernel): setting language code threads_per_block blocks
// median_ms identical registers. Exit status 0 only if every output is identical.
//
// Build: nvcc -O3 -fmad=false -arch=sm_90 -o target/splitting_cuda references/cuda/splitting.cu

#define PLAIN_CU_NO_MAIN
#include "plain.cu"

#include <fstream>
#include <sstream>

struct SplitParams {
    uint64_t seed;
    uint32_t else_q16, light, heavy;
};

// `BranchSplitBench::decide` with the random mask: the if branch unless 16 random bits fall
// below the else fraction.
__host__ __device__ __forceinline__ bool split_decide(const SplitParams &p, uint32_t item) {
    uint32_t bits = (uint32_t)(item_hash(p.seed, item) >> 40);
    return !((bits & 0xFFFFu) < p.else_q16);
}

__host__ __device__ __forceinline__ uint32_t split_start(const SplitParams &p, uint32_t item) {
    return (uint32_t)item_hash(p.seed ^ 1ull, item);
}

// The light if branch: `light` LCG steps.
__host__ __device__ __forceinline__ uint32_t split_light(const SplitParams &p, uint32_t item) {
    uint32_t v = split_start(p, item);
    for (uint32_t k = 0; k < p.light; ++k) v = v * 1664525u + 1013904223u;
    return v;
}

// The heavy else branch: `heavy` float steps v = v * 0.999 + 1 (-fmad=false: no FMA).
__host__ __device__ __forceinline__ uint32_t split_heavy(const SplitParams &p, uint32_t item) {
    float v = (float)(split_start(p, item) & 0xFFFFu);
    for (uint32_t k = 0; k < p.heavy; ++k) v = v * 0.999f + 1.0f;
    uint32_t bits;
    memcpy(&bits, &v, 4);
    return bits;
}

struct SplitW {
    typedef SplitParams Params;
    typedef uint32_t Out;
    static const char *name() { return "split"; }
    __host__ __device__ static uint32_t item(const SplitParams &p, uint32_t i) {
        return split_decide(p, i) ? split_light(p, i) : split_heavy(p, i);
    }
};

#ifdef __CUDACC__

__global__ void split_if(const SplitParams p, uint32_t *out, uint32_t n) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && split_decide(p, i)) out[i] = split_light(p, i);
}

__global__ void split_else(const SplitParams p, uint32_t *out, uint32_t n) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && !split_decide(p, i)) out[i] = split_heavy(p, i);
}

static bool bench_setting(const std::string &dir, const std::string &name, const SplitParams &p,
                          int sms, int repeats) {
    std::vector<uint32_t> want;
    if (!read_expected(dir, name.c_str(), want)) return false;
    uint32_t n = (uint32_t)want.size();
    size_t bytes = want.size() * sizeof(uint32_t);
    uint32_t *d_out = nullptr;
    unsigned int *d_next = nullptr;
    CK(cudaMalloc(&d_out, bytes > 0 ? bytes : 1));
    CK(cudaMalloc(&d_next, sizeof(unsigned int)));
    std::vector<uint32_t> got(want.size());
    bool ok = true;
    auto check = [&](const std::string &what) {
        CK(cudaMemcpy(got.data(), d_out, bytes, cudaMemcpyDeviceToHost));
        return count_differences((name + " " + what).c_str(), got, want) == 0;
    };
    auto report = [&](const std::string &code, int blocks, const Timing &t, const void *f) {
        cudaFuncAttributes attr;
        CK(cudaFuncGetAttributes(&attr, f));
        printf("%s\tcuda\t%s\t%d\t%d\t%.4f\t%s\t%d\n", name.c_str(), code.c_str(), THREADS, blocks,
               t.median_ms, t.identical ? "yes" : "no", attr.numRegs);
        fflush(stdout);
        ok = ok && t.identical;
    };
    for (int s = ONE_PER_ITEM; s <= PERSISTENT; ++s) {
        int blocks = plain_blocks<SplitW>(s, n, sms);
        Timing t = time_and_check(
            d_out, bytes, 1, repeats,
            [&]() {
                if (s == PERSISTENT) CK(cudaMemsetAsync(d_next, 0, sizeof(unsigned int)));
            },
            [&]() { plain_enqueue<SplitW>(s, blocks, p, d_out, n, d_next); },
            [&]() { return check(SCHEDULE_NAMES[s]); });
        report(std::string("plain ") + SCHEDULE_NAMES[s], blocks, t, plain_kernel<SplitW>(s));
    }
    int blocks = (int)((n + THREADS - 1) / THREADS);
    if (blocks < 1) blocks = 1;
    Timing t = time_and_check(
        d_out, bytes, 1, repeats, [&]() {},
        [&]() {
            split_if<<<blocks, THREADS>>>(p, d_out, n);
            split_else<<<blocks, THREADS>>>(p, d_out, n);
        },
        [&]() { return check("branch splitting"); });
    report("twin branch splitting", blocks, t, (const void *)split_else);
    CK(cudaFree(d_next));
    CK(cudaFree(d_out));
    return ok;
}

#endif  // __CUDACC__

int main(int argc, char **argv) {
    std::string dir;
    std::ifstream settings;
    if (!open_settings(argc, argv, "split-settings.tsv", dir, settings)) return 2;
    const char *env = getenv("TECHNIQUES_REPEATS");
    int repeats = env ? atoi(env) : 15;
    if (repeats < 1) repeats = 1;
    (void)repeats;
#ifdef __CUDACC__
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
#endif
    bool ok = true;
    std::string line;
    while (std::getline(settings, line)) {
        std::istringstream in(line);
        std::string name;
        SplitParams p;
        unsigned long long seed;
        uint32_t items;
        if (!(in >> name >> p.else_q16 >> p.light >> p.heavy >> seed >> items)) continue;
        p.seed = seed;
#ifdef __CUDACC__
        ok = bench_setting(dir, name, p, prop.multiProcessorCount, repeats) && ok;
#else
        // Without nvcc: the item function on the CPU against the expected outputs.
        std::vector<uint32_t> want, got;
        if (!read_expected(dir, name.c_str(), want)) return 1;
        for (uint32_t i = 0; i < want.size(); ++i) got.push_back(SplitW::item(p, i));
        bool same = count_differences(name.c_str(), got, want) == 0;
        printf("%s\thost\t%zu\t%s\n", name.c_str(), want.size(), same ? "yes" : "no");
        ok = ok && same;
#endif
    }
    return ok ? 0 : 1;
}
