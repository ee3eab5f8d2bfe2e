// Hand-written twins of branch path unification (Kato, Suda & Tamada, seed 004 fig. 10) on the
// kernel of fig. A-2 with paths of distinct shape
// (`reconverge_workloads::synthetic::PathUnificationDistinct`: path A a float chain, path B the
// paper's integer functionB), with no reconverge code, to measure reconverge's strategy against.
//
//   plain one-per-item, grid-stride, persistent   `if (decide) path_a else path_b`, plain.cu's
//                        schedules: the hardware diverges (the compiler cannot merge the paths);
//   twin unification n   each thread owns groups of n contiguous items of its block's chunk
//                        (the groups reconverge's strategy gives it: thread t's first group
//                        starts at t * n, the next at (t + threads) * n), two counters scan
//                        forward to the group's next item of their path, path A runs for the
//                        item counter A found, then path B for counter B's; the hardware
//                        reconverges the lanes after each scan. 256 threads, as many blocks as
//                        give every thread one group (reconverge's default launch).
//
// Every kernel computes the Rust workload's outputs bit for bit; each is checked against the
// CPU backend's outputs.
//
// Usage:  unification_cuda DIR   (TECHNIQUES_REPEATS=1: one timed launch per kernel, for ncu)
//   DIR/unify-settings.tsv: one line per setting: name loop seed items
//   DIR/<name>.out:         the Rust CPU backend's outputs of that setting (u32, little endian).
// Prints one TSV line per (setting, kernel): setting language code threads_per_block blocks
// median_ms identical registers. Exit status 0 only if every output is identical.
//
// Build: nvcc -O3 -fmad=false -arch=sm_90 -o target/unification_cuda references/cuda/unification.cu

#define PLAIN_CU_NO_MAIN
#include "plain.cu"

#include <fstream>
#include <sstream>

struct UnifyParams {
    uint64_t seed;
    uint32_t loop;
};

// `PathUnification::decide`: bit 2 of the high word of the item's hash.
__host__ __device__ __forceinline__ bool unify_decide(const UnifyParams &p, uint32_t item) {
    return ((item_hash(p.seed, item) >> 32) & 0x4u) != 0;
}

// `float_chain`: LOOP steps v = v * 0.999 + 1 from v = item mod 2^16 (-fmad=false: no FMA).
__host__ __device__ __forceinline__ uint32_t unify_path_a(const UnifyParams &p, uint32_t item) {
    float v = (float)(item & 0xFFFFu);
    for (uint32_t k = 0; k < p.loop; ++k) v = v * 0.999f + 1.0f;
    uint32_t bits;
    memcpy(&bits, &v, 4);
    return bits;
}

// The paper's functionB: LOOP steps tmp = 0xffff & (tmp * tmp + tmp).
__host__ __device__ __forceinline__ uint32_t unify_path_b(const UnifyParams &p, uint32_t item) {
    uint32_t tmp = item;
    for (uint32_t k = 0; k < p.loop; ++k) tmp = 0xFFFFu & ((tmp & 0xFFFFu) * (tmp & 0xFFFFu) + tmp);
    return tmp;
}

struct UnifyW {
    typedef UnifyParams Params;
    typedef uint32_t Out;
    static const char *name() { return "unify"; }
    __host__ __device__ static uint32_t item(const UnifyParams &p, uint32_t i) {
        return unify_decide(p, i) ? unify_path_a(p, i) : unify_path_b(p, i);
    }
};

#ifdef __CUDACC__

// Fig. 10: one thread's groups of n items, two forward-scanning counters. Volta and later
// schedule a warp's threads independently, and nvcc then need not reconverge the lanes at the
// paths: written as the paper's loop alone, the warp ran the paths split (ncu, LOOP = 100: 6.2
// to 7.6 threads per warp instruction where the Rust twin ran 16-23, and 3.4-4.4x its time).
// As a CUDA programmer writes it for such GPUs, the loops are warp-wide (`__any_sync`) and a
// `__syncwarp` before each path makes the lanes that take it issue it together.
template <uint32_t N>
__global__ void unified(const UnifyParams p, uint32_t *out, uint32_t items) {
    uint32_t chunk = (items + gridDim.x - 1) / gridDim.x;
    uint32_t start = min(blockIdx.x * chunk, items);
    uint32_t end = min(start + chunk, items);
    for (uint32_t first = start + threadIdx.x * N; __any_sync(0xffffffffu, first < end);
         first += blockDim.x * N) {
        uint32_t len = first < end ? min(end - first, N) : 0;
        uint32_t ca = 0, cb = 0;
        while (__any_sync(0xffffffffu, ca < len || cb < len)) {
            while (ca < len && !unify_decide(p, first + ca)) ++ca;
            __syncwarp();
            if (ca < len) {
                out[first + ca] = unify_path_a(p, first + ca);
                ++ca;
            }
            while (cb < len && unify_decide(p, first + cb)) ++cb;
            __syncwarp();
            if (cb < len) {
                out[first + cb] = unify_path_b(p, first + cb);
                ++cb;
            }
        }
    }
}

static bool bench_setting(const std::string &dir, const std::string &name, const UnifyParams &p,
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
        int blocks = plain_blocks<UnifyW>(s, n, sms);
        Timing t = time_and_check(
            d_out, bytes, 1, repeats,
            [&]() {
                if (s == PERSISTENT) CK(cudaMemsetAsync(d_next, 0, sizeof(unsigned int)));
            },
            [&]() { plain_enqueue<UnifyW>(s, blocks, p, d_out, n, d_next); },
            [&]() { return check(SCHEDULE_NAMES[s]); });
        report(std::string("plain ") + SCHEDULE_NAMES[s], blocks, t, plain_kernel<UnifyW>(s));
    }
    const uint32_t per_thread[] = {4, 16, 64};
    const void *kernels[] = {(const void *)unified<4>, (const void *)unified<16>,
                             (const void *)unified<64>};
    for (int k = 0; k < 3; ++k) {
        uint32_t g = per_thread[k];
        int blocks = (int)(((n + g - 1) / g + THREADS - 1) / THREADS);
        if (blocks < 1) blocks = 1;
        Timing t = time_and_check(
            d_out, bytes, 1, repeats, [&]() {},
            [&]() {
                if (g == 4) unified<4><<<blocks, THREADS>>>(p, d_out, n);
                else if (g == 16) unified<16><<<blocks, THREADS>>>(p, d_out, n);
                else unified<64><<<blocks, THREADS>>>(p, d_out, n);
            },
            [&]() { return check("unification"); });
        report("twin branch path unification, " + std::to_string(g) + " items per thread", blocks, t,
               kernels[k]);
    }
    CK(cudaFree(d_next));
    CK(cudaFree(d_out));
    return ok;
}

#endif  // __CUDACC__

int main(int argc, char **argv) {
    std::string dir;
    std::ifstream settings;
    if (!open_settings(argc, argv, "unify-settings.tsv", dir, settings)) return 2;
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
        UnifyParams p;
        unsigned long long seed;
        uint32_t items;
        if (!(in >> name >> p.loop >> seed >> items)) continue;
        p.seed = seed;
#ifdef __CUDACC__
        ok = bench_setting(dir, name, p, prop.multiProcessorCount, repeats) && ok;
#else
        // Without nvcc: the item function on the CPU against the expected outputs.
        std::vector<uint32_t> want, got;
        if (!read_expected(dir, name.c_str(), want)) return 1;
        for (uint32_t i = 0; i < want.size(); ++i) got.push_back(UnifyW::item(p, i));
        bool same = count_differences(name.c_str(), got, want) == 0;
        printf("%s\thost\t%zu\t%s\n", name.c_str(), want.size(), same ? "yes" : "no");
        ok = ok && same;
#endif
    }
    return ok ? 0 : 1;
}
