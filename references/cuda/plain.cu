// Plain CUDA C++ kernels for reconverge's five reference workloads: what a CUDA programmer
// writes first, to measure reconverge's strategies against (DESIGN.md, "The plain kernel is
// the baseline"). Each workload is one `__host__ __device__` item function that computes the
// same bits as the Rust workload; three schedules run it:
//
//   one-per-item  one thread per item, 256 threads per block, ceil(n / 256) blocks;
//   grid-stride   a grid-stride loop over the items, SMs x max active blocks per SM;
//   persistent    persistent threads, each taking its next item from one global atomic
//                 counter (atomicAdd per thread, zeroed before each launch), same grid.
//
// Usage:
//   plain_cuda DIR               run every (workload, schedule) on the GPU, check against
//                                DIR/<workload>.out, print one TSV line each:
//                                workload language schedule threads_per_block blocks
//                                median_ms identical registers
//   plain_cuda --host-check DIR  run the item functions on the CPU and check them against
//                                DIR/<workload>.out (no GPU needed)
//
// DIR/<workload>.out holds the raw little-endian outputs of items 0..n of the Rust workload
// (n = file size / output size), as the Rust CPU backend computes them. The exit status is 0
// only if every output is identical.
//
// Build (README.md): nvcc -O3 -fmad=false -arch=sm_90 -o target/plain_cuda references/cuda/plain.cu
// `-fmad=false` matters: the Rust code never fuses a * b + c, and escape-time's f32 orbit
// would differ if nvcc contracted it into FMAs. Without nvcc, the host check alone builds
// with any C++17 compiler:
//   g++ -O2 -std=c++17 -ffp-contract=off -x c++ -o /tmp/plain_host references/cuda/plain.cu

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#ifndef __CUDACC__
#define __host__
#define __device__
#define __forceinline__ inline
#endif

// ---- Parameters: the Rust reference instances ------------------------------------------------

// Walk: examples/user-workload/walk, `Walk { max_steps: 400, trap: 3, escape: 24, seed: 7 }`,
// 65,536 items.
struct WalkParams {
    uint32_t max_steps, trap, escape, seed;
};
static const WalkParams WALK = {400, 3, 24, 7};
static const uint32_t WALK_ITEMS = 65536;

// Collatz: reconverge_workloads::reference::COLLATZ = `Collatz { max_steps: 1000 }`,
// COLLATZ_ITEMS = 1 << 20.
struct CollatzParams {
    uint32_t max_steps;
};
static const CollatzParams COLLATZ = {1000};
static const uint32_t COLLATZ_ITEMS = 1u << 20;

// SYN-ITDELAY: reconverge_workloads::reference::SYN_IT_DELAY =
// `SynItDelay::new(80, 32, 0.5, 2011)` = { seed 2011, n_pairs 80, iterations 32,
// taken_q16 32768 }, SYN_IT_DELAY_ITEMS = 1 << 18.
struct ItDelayParams {
    uint64_t seed;
    uint32_t n_pairs, iterations, taken_q16;
};
static const ItDelayParams SYN_IT_DELAY = {2011, 80, 32, 32768};
static const uint32_t SYN_IT_DELAY_ITEMS = 1u << 18;

// Dynamic work (seed 004 fig. A-1): reconverge_workloads::reference::DYNAMIC_WORK =
// `DynamicWork::new(64, 32, 1)` = { seed 1, loop_num 64, max_trips 32 },
// DYNAMIC_WORK_ITEMS = 1 << 18.
struct DynamicWorkParams {
    uint64_t seed;
    uint32_t loop_num, max_trips;
};
static const DynamicWorkParams DYNAMIC_WORK = {1, 64, 32};
static const uint32_t DYNAMIC_WORK_ITEMS = 1u << 18;

// Escape time: reconverge_workloads::reference::ESCAPE_TIME = `EscapeTime { width: 1024,
// height: 768, max_iter: 512, x0: -2.5, y0: -1.5, step: 1/256, band_lo: 0.24, band_hi: 0.25 }`,
// ESCAPE_TIME_ITEMS = 1024 * 768.
struct EscapeTimeParams {
    uint32_t width, height, max_iter;
    float x0, y0, step, band_lo, band_hi;
};
static const EscapeTimeParams ESCAPE_TIME = {1024, 768, 512, -2.5f, -1.5f, 1.0f / 256.0f,
                                             0.24f, 0.25f};
static const uint32_t ESCAPE_TIME_ITEMS = 1024u * 768u;

// ---- Helpers -------------------------------------------------------------------------------

__host__ __device__ __forceinline__ uint32_t rotl32(uint32_t v, unsigned r) {
    return (v << r) | (v >> (32u - r));
}

__host__ __device__ __forceinline__ uint32_t float_bits(float f) {
#ifdef __CUDA_ARCH__
    return __float_as_uint(f);
#else
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
#endif
}

// SplitMix64's finaliser (workloads/src/synthetic/mod.rs `mix64`).
__host__ __device__ __forceinline__ uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// `item_hash(seed, item)`.
__host__ __device__ __forceinline__ uint64_t item_hash(uint64_t seed, uint32_t item) {
    return mix64(seed ^ mix64((uint64_t)item ^ 0x9E3779B97F4A7C15ull));
}

// A workload: `struct XW : ItemFunction<XParams, XOut>` adds `name()` (the stem of DIR's file)
// and `item(params, i)`, item i's output.
template <class P, class O = uint32_t>
struct ItemFunction {
    typedef O Out;
    typedef P Params;
};

// ---- Walk (examples/user-workload/walk/src/lib.rs) -----------------------------------------

__host__ __device__ __forceinline__ uint32_t xorshift32(uint32_t &rng) {
    uint32_t v = rng;
    v ^= v << 13;
    v ^= v >> 17;
    v ^= v << 5;
    rng = v;
    return v;
}

__host__ __device__ __forceinline__ uint32_t uabs(int32_t x) {
    return x < 0 ? 0u - (uint32_t)x : (uint32_t)x;
}

struct WalkW : ItemFunction<WalkParams> {
    static const char *name() { return "walk"; }
    static __host__ __device__ uint32_t item(const WalkParams &p, uint32_t item) {
        uint32_t rng = ((item ^ rotl32(p.seed, 16)) * 0x9E3779B9u) | 1u;
        int32_t x = 0;
        uint32_t steps = 0, energy = 0;
        while (steps < p.max_steps && uabs(x) < p.escape) {
            if (uabs(x) < p.trap) {
                // The reaction: 16 dependent multiply-rotate-xor steps.
                uint32_t e = energy ^ xorshift32(rng);
                for (int k = 0; k < 16; ++k) e = rotl32(e * 0x2545F491u, 7) ^ 0x6A09E667u;
                energy = e;
                if ((e & 3u) == 0) x += (e & 4u) == 0 ? 2 : -2;
            } else {
                x += (xorshift32(rng) & 1u) == 0 ? 1 : -1;
            }
            steps += 1;
        }
        return energy ^ (steps << 16) ^ (uint32_t)x;
    }
};

// ---- Collatz (workloads/src/reference/collatz.rs) ------------------------------------------

struct CollatzW : ItemFunction<CollatzParams> {
    static const char *name() { return "collatz"; }
    static __host__ __device__ uint32_t item(const CollatzParams &p, uint32_t item) {
        uint64_t n = (uint64_t)item + 1;
        uint32_t steps = 0;
        while (n != 1 && steps < p.max_steps) {
            if (n & 1) n = n * 3 + 1;  // wraps as the Rust code's wrapping_mul/wrapping_add
            else n >>= 1;
            steps += 1;
        }
        return steps;
    }
};

// ---- SYN-ITDELAY (workloads/src/synthetic/itdelay.rs, rng.rs Mwc64) ------------------------

// Matches `ItDelayOutput` (#[repr(C)] { f32 val; u32 taken; u32 trace }).
struct ItDelayOut {
    float val;
    uint32_t taken;
    uint32_t trace;
};
static_assert(sizeof(ItDelayOut) == 12, "ItDelayOutput is 12 bytes");

static const uint32_t MWC64X_MULTIPLIER = 4294883355u;

__host__ __device__ __forceinline__ uint32_t mwc_next(uint64_t &state) {
    state = (state & 0xFFFFFFFFull) * (uint64_t)MWC64X_MULTIPLIER + (state >> 32);
    return (uint32_t)state;
}

// `n` pairs `v = v * m1 + a1; v = v * m2 + a2` (never fused: build with -fmad=false).
__host__ __device__ __forceinline__ float fma_pairs(float v, uint32_t n, float m1, float a1,
                                                    float m2, float a2) {
    for (uint32_t k = 0; k < n; ++k) {
        v = v * m1 + a1;
        v = v * m2 + a2;
    }
    return v;
}

struct ItDelayW : ItemFunction<ItDelayParams, ItDelayOut> {
    static const char *name() { return "syn-itdelay"; }
    static __host__ __device__ ItDelayOut item(const ItDelayParams &p, uint32_t item) {
        // item_mwc(seed, item): x = low word | 1, carry = high word % (a - 1).
        uint64_t h = item_hash(p.seed, item);
        uint32_t x = (uint32_t)h | 1u;
        uint32_t carry = (uint32_t)(h >> 32) % (MWC64X_MULTIPLIER - 1u);
        uint64_t state = ((uint64_t)carry << 32) | x;
        float val = (float)(mwc_next(state) >> 12);
        uint32_t taken = 0, trace = 0;
        for (uint32_t i = 0; i < p.iterations; ++i) {
            uint32_t bits = mwc_next(state) >> 16;
            if (p.taken_q16 >= 65536u || bits < p.taken_q16) {
                val = fma_pairs(val, p.n_pairs, 2.0f, 1.0f, 0.5f, -0.5f);
                taken += 1;
                trace = trace * 0x9E3779B1u + 0x68E31DA4u;
            } else {
                val = fma_pairs(val, p.n_pairs, 4.0f, 3.0f, 0.25f, -0.75f);
                trace = trace * 0x9E3779B1u + 0x1B56C4E9u;
            }
        }
        ItDelayOut o;
        o.val = val;
        o.taken = taken;
        o.trace = trace;
        return o;
    }
};

// ---- Dynamic work (workloads/src/synthetic/kato.rs) ----------------------------------------

struct DynamicWorkW : ItemFunction<DynamicWorkParams> {
    static const char *name() { return "dynamic-work"; }
    static __host__ __device__ uint32_t item(const DynamicWorkParams &p, uint32_t item) {
        uint32_t max_trips = p.max_trips > 0 ? p.max_trips : 1;
        uint32_t trips = 1 + (uint32_t)(item_hash(p.seed, item) >> 32) % max_trips;
        uint32_t num = trips;
        for (uint32_t t = 0; t < trips; ++t) {
            // function(num, loop_num): tmp = 0xffff & (tmp * tmp + tmp).
            for (uint32_t k = 0; k < p.loop_num; ++k)
                num = 0xFFFFu & ((num & 0xFFFFu) * (num & 0xFFFFu) + num);
        }
        return num;
    }
};

// ---- Escape time (workloads/src/reference/escape_time.rs) ----------------------------------

struct EscapeTimeW : ItemFunction<EscapeTimeParams> {
    static const char *name() { return "escape-time"; }
    static __host__ __device__ uint32_t item(const EscapeTimeParams &p, uint32_t item) {
        const float RC = 0.5625f, RS = 0.75f;  // the refinement's rotation, 9/16 and 3/4
        uint32_t w = p.width > 0 ? p.width : 1;
        float cr = p.x0 + (float)(item % w) * p.step;
        float ci = p.y0 + (float)(item / w) * p.step;
        float zr = 0.0f, zi = 0.0f, mag2 = 0.0f;
        uint32_t iter = 0, hash = 0;
        while (iter < p.max_iter && mag2 <= 4.0f) {
            if (mag2 > p.band_lo && mag2 <= p.band_hi) {
                // The rare, costly refinement: 8 steps of a contracting rotation plus c / 8,
                // folded into the hash; the orbit itself does not move.
                float kr = cr * 0.125f, ki = ci * 0.125f;
                float a = zr, b = zi;
                for (int k = 0; k < 8; ++k) {
                    float na = a * RC - b * RS + kr;
                    float nb = a * RS + b * RC + ki;
                    a = na;
                    b = nb;
                }
                uint32_t hh = (rotl32(hash, 5) ^ float_bits(a)) * 0x9E3779B1u;
                hash = (hh ^ float_bits(b)) * 0x85EBCA77u;
            }
            float zr2 = zr * zr, zi2 = zi * zi, zri = zr * zi;
            zr = zr2 - zi2 + cr;
            zi = zri + zri + ci;
            mag2 = zr * zr + zi * zi;
            iter += 1;
        }
        return (iter & 0xFFFFu) | (hash & 0xFFFF0000u);
    }
};

// ---- Expected outputs ----------------------------------------------------------------------

// For the twins' harnesses that include this file with a main of their own: the one
// argument, the folder DIR, and its settings file DIR/<name> opened into `settings`; false,
// after saying why on stderr, where the argument or the file is missing (their mains then exit
// with status 2).
#ifdef PLAIN_CU_NO_MAIN
static bool open_settings(int argc, char **argv, const char *name, std::string &dir,
                          std::ifstream &settings) {
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return false;
    }
    dir = argv[1];
    settings.open(dir + "/" + name);
    if (!settings) {
        fprintf(stderr, "%s/%s: cannot open\n", dir.c_str(), name);
        return false;
    }
    return true;
}
#endif

// Reads DIR/<name>.out into `out` (n = size / sizeof(T)); false if it cannot.
template <class T>
static bool read_expected(const std::string &dir, const char *name, std::vector<T> &out) {
    std::string path = dir + "/" + name + ".out";
    FILE *f = fopen(path.c_str(), "rb");
    if (!f) {
        fprintf(stderr, "%s: cannot open\n", path.c_str());
        return false;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (size < 0 || size % (long)sizeof(T) != 0) {
        fprintf(stderr, "%s: size %ld is not a multiple of %zu\n", path.c_str(), size, sizeof(T));
        fclose(f);
        return false;
    }
    out.resize((size_t)size / sizeof(T));
    size_t got = out.empty() ? 0 : fread(out.data(), sizeof(T), out.size(), f);
    fclose(f);
    if (got != out.size()) {
        fprintf(stderr, "%s: short read\n", path.c_str());
        return false;
    }
    return true;
}

// Items whose bytes differ; reports the first.
template <class T>
static size_t count_differences(const char *what, const std::vector<T> &got,
                                const std::vector<T> &want) {
    size_t differ = 0, first = 0;
    for (size_t i = 0; i < want.size(); ++i) {
        if (memcmp(&got[i], &want[i], sizeof(T)) != 0) {
            if (differ == 0) first = i;
            ++differ;
        }
    }
    if (differ) {
        uint32_t g, w;
        memcpy(&g, &got[first], 4);
        memcpy(&w, &want[first], 4);
        fprintf(stderr, "%s: %zu of %zu items differ; first is item %zu (first word 0x%08x, expected 0x%08x)\n",
                what, differ, want.size(), first, g, w);
    }
    return differ;
}

// W's expected outputs (read_expected), with a warning if there are not `items` of them.
template <class W>
static bool read_reference(const std::string &dir, uint32_t items,
                           std::vector<typename W::Out> &want) {
    if (!read_expected(dir, W::name(), want)) return false;
    if (want.size() != items)
        fprintf(stderr, "%s: the file has %zu items, the reference instance %u\n", W::name(),
                want.size(), items);
    return true;
}

// Calls `check(W(), params, items)` on each workload W with its reference instance, in this
// order; true if every call is.
template <class Check>
static bool each_workload(Check check) {
    bool ok = true;
    ok = check(WalkW(), WALK, WALK_ITEMS) && ok;
    ok = check(CollatzW(), COLLATZ, COLLATZ_ITEMS) && ok;
    ok = check(ItDelayW(), SYN_IT_DELAY, SYN_IT_DELAY_ITEMS) && ok;
    ok = check(DynamicWorkW(), DYNAMIC_WORK, DYNAMIC_WORK_ITEMS) && ok;
    ok = check(EscapeTimeW(), ESCAPE_TIME, ESCAPE_TIME_ITEMS) && ok;
    return ok;
}

template <class W>
static bool host_check(const std::string &dir, const typename W::Params &p, uint32_t items) {
    typedef typename W::Out Out;
    std::vector<Out> want;
    if (!read_reference<W>(dir, items, want)) return false;
    std::vector<Out> got(want.size());
    for (size_t i = 0; i < want.size(); ++i) got[i] = W::item(p, (uint32_t)i);
    size_t differ = count_differences(W::name(), got, want);
    printf("%s\thost\t%zu\t%s\n", W::name(), want.size(), differ == 0 ? "yes" : "no");
    return differ == 0;
}

// ---- GPU schedules -------------------------------------------------------------------------

#ifdef __CUDACC__

#define CK(call)                                                                          \
    do {                                                                                  \
        cudaError_t err_ = (call);                                                        \
        if (err_ != cudaSuccess) {                                                        \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                 \
                    cudaGetErrorString(err_));                                            \
            exit(2);                                                                      \
        }                                                                                 \
    } while (0)

static const int THREADS = 256;

// (a) one thread per item.
template <class W>
__global__ void
    one_per_item(const typename W::Params p, typename W::Out *out, uint32_t n) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = W::item(p, i);
}

// (b) a grid-stride loop.
template <class W>
__global__ void
    grid_stride(const typename W::Params p, typename W::Out *out, uint32_t n) {
    uint32_t stride = gridDim.x * blockDim.x;
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = W::item(p, i);
}

// (c) persistent threads: every thread takes its next item from one global counter.
template <class W>
__global__ void
    persistent(const typename W::Params p, typename W::Out *out, uint32_t n,
               unsigned int *next) {
    for (;;) {
        uint32_t i = atomicAdd(next, 1u);
        if (i >= n) break;
        out[i] = W::item(p, i);
    }
}

enum Schedule { ONE_PER_ITEM, GRID_STRIDE, PERSISTENT };
static const char *SCHEDULE_NAMES[] = {"one-per-item", "grid-stride", "persistent"};

// W's kernel of schedule `s`.
template <class W>
static const void *plain_kernel(int s) {
    return s == ONE_PER_ITEM  ? (const void *)one_per_item<W>
           : s == GRID_STRIDE ? (const void *)grid_stride<W>
                              : (const void *)persistent<W>;
}

// The blocks schedule `s` launches for n items: one thread per item, or SMs x the kernel's
// active blocks per SM.
template <class W>
static int plain_blocks(int s, uint32_t n, int sms) {
    int blocks;
    if (s == ONE_PER_ITEM) {
        blocks = (int)((n + THREADS - 1) / THREADS);
    } else {
        int per_sm = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, plain_kernel<W>(s), THREADS, 0));
        blocks = sms * per_sm;
    }
    return blocks > 0 ? blocks : 1;
}

// Enqueues W's kernel of schedule `s` (the persistent schedule's counter must be zero).
template <class W>
static void plain_enqueue(int s, int blocks, const typename W::Params &p, typename W::Out *d_out,
                          uint32_t n, unsigned int *d_next) {
    if (s == ONE_PER_ITEM) one_per_item<W><<<blocks, THREADS>>>(p, d_out, n);
    else if (s == GRID_STRIDE) grid_stride<W><<<blocks, THREADS>>>(p, d_out, n);
    else persistent<W><<<blocks, THREADS>>>(p, d_out, n, d_next);
}

// What one kernel's timing gives: the median of its timed launches and whether its outputs
// were identical after the first launch and after the last.
struct Timing {
    float median_ms;
    bool identical;
};

// Poisons the `bytes` of outputs at d_out (so that an item no launch writes is caught), runs
// `enqueue` once and checks the outputs with `check`, runs it `warmups` more times, then
// `repeats` times timed with CUDA events, and checks again. `reset` runs before each launch,
// outside the timed part (the persistent schedule's counter).
template <class Reset, class Enqueue, class Check>
static Timing time_and_check(void *d_out, size_t bytes, int warmups, int repeats, Reset reset,
                             Enqueue enqueue, Check check) {
    cudaEvent_t start, stop;
    CK(cudaEventCreate(&start));
    CK(cudaEventCreate(&stop));
    auto launch = [&]() {
        reset();
        CK(cudaEventRecord(start));
        enqueue();
        CK(cudaGetLastError());
        CK(cudaEventRecord(stop));
        CK(cudaEventSynchronize(stop));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, start, stop));
        return ms;
    };
    CK(cudaMemset(d_out, 0xFF, bytes));
    launch();
    bool identical = check();
    for (int w = 0; w < warmups; ++w) launch();
    std::vector<float> times;
    for (int r = 0; r < repeats; ++r) times.push_back(launch());
    identical = check() && identical;
    CK(cudaEventDestroy(start));
    CK(cudaEventDestroy(stop));
    std::sort(times.begin(), times.end());
    size_t m = times.size() / 2;
    float median = times.size() % 2 ? times[m] : (times[m - 1] + times[m]) / 2;
    return {median, identical};
}

template <class W>
static bool gpu_bench(const std::string &dir, const typename W::Params &p, uint32_t items,
                      int sms) {
    typedef typename W::Out Out;
    std::vector<Out> want;
    if (!read_reference<W>(dir, items, want)) return false;
    uint32_t n = (uint32_t)want.size();
    size_t bytes = want.size() * sizeof(Out);
    Out *d_out = nullptr;
    unsigned int *d_next = nullptr;
    CK(cudaMalloc(&d_out, bytes > 0 ? bytes : 1));
    CK(cudaMalloc(&d_next, sizeof(unsigned int)));
    std::vector<Out> got(want.size());
    bool all_identical = true;

    for (int s = ONE_PER_ITEM; s <= PERSISTENT; ++s) {
        cudaFuncAttributes attr;
        CK(cudaFuncGetAttributes(&attr, plain_kernel<W>(s)));
        int blocks = plain_blocks<W>(s, n, sms);
        // Two untimed launches, then the median of 20.
        Timing t = time_and_check(
            d_out, bytes, 1, 20,
            [&]() {
                if (s == PERSISTENT) CK(cudaMemsetAsync(d_next, 0, sizeof(unsigned int)));
            },
            [&]() { plain_enqueue<W>(s, blocks, p, d_out, n, d_next); },
            [&]() {
                CK(cudaMemcpy(got.data(), d_out, bytes, cudaMemcpyDeviceToHost));
                std::string what = std::string(W::name()) + " " + SCHEDULE_NAMES[s];
                return count_differences(what.c_str(), got, want) == 0;
            });
        printf("%s\tcuda\t%s\t%d\t%d\t%.4f\t%s\t%d\n", W::name(), SCHEDULE_NAMES[s], THREADS,
               blocks, t.median_ms, t.identical ? "yes" : "no", attr.numRegs);
        fflush(stdout);
        all_identical = all_identical && t.identical;
    }
    CK(cudaFree(d_next));
    CK(cudaFree(d_out));
    return all_identical;
}

#endif  // __CUDACC__

// ---- main ----------------------------------------------------------------------------------

// techniques.cu includes this file for its item functions and helpers, with a main of its own.
#ifndef PLAIN_CU_NO_MAIN
static int usage(const char *argv0) {
    fprintf(stderr, "usage: %s DIR | %s --host-check DIR\n", argv0, argv0);
    return 2;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--host-check") == 0) {
        std::string dir = argv[2];
        bool ok = each_workload([&](auto w, const auto &p, uint32_t items) {
            return host_check<decltype(w)>(dir, p, items);
        });
        return ok ? 0 : 1;
    }
    if (argc != 2 || argv[1][0] == '-') return usage(argv[0]);
#ifdef __CUDACC__
    std::string dir = argv[1];
    int device = 0;
    CK(cudaGetDevice(&device));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, device));
    fprintf(stderr, "%s, %d SMs, compute capability %d.%d\n", prop.name,
            prop.multiProcessorCount, prop.major, prop.minor);
    fprintf(stderr,
            "workload\tlanguage\tschedule\tthreads_per_block\tblocks\tmedian_ms\tidentical\t"
            "registers\n");
    int sms = prop.multiProcessorCount;
    bool ok = each_workload([&](auto w, const auto &p, uint32_t items) {
        return gpu_bench<decltype(w)>(dir, p, items, sms);
    });
    return ok ? 0 : 1;
#else
    fprintf(stderr, "built without CUDA: only --host-check is available\n");
    return 2;
#endif
}
#endif  // PLAIN_CU_NO_MAIN
