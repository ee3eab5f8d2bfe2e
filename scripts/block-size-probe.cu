// Build and run on a GPU machine:
//   nvcc -O3 -arch=sm_90 -o /tmp/bsp scripts/block-size-probe.cu && /tmp/bsp
// (output: docs/results/advisor/schedule-model/block-size-probe.txt).
//
// Why do bigger blocks run the same warps faster? On an H100 the held-out two-path baseline
// ran 12 % faster at 528 x 512 than at 2112 x 128 (the same 270,336 threads), and the
// calibration set 2-6 % faster at 512 than at 128 threads a block, the gap growing with the
// kernel's time. Three questions, each answered by a part below:
//   A. Which of the SM's four sub-partitions (schedulers) runs which warp of a block? Heavy
//      warps that each saturate one scheduler (8 independent FMA chains) take 1x the time if
//      they sit on four schedulers, 4x if on one.
//   B. Do the same per-item costs, at the same threads, take longer in smaller blocks, and for
//      which cost patterns (uniform, random per warp, in runs of items)?
//   C. When does each warp start and end (%globaltimer), and on which SM and %warpid: the
//      launch's ramp, and each scheduler's load if it is %warpid mod 4.
#include <algorithm>
#include <cstdio>
#include <vector>

__device__ __forceinline__ unsigned smid() { unsigned r; asm volatile("mov.u32 %0, %%smid;" : "=r"(r)); return r; }
__device__ __forceinline__ unsigned warpid() { unsigned r; asm volatile("mov.u32 %0, %%warpid;" : "=r"(r)); return r; }
__device__ __forceinline__ unsigned long long gtime() { unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }

// Host and device: the host recomputes each warp's trips to read the SMs' and schedulers' loads.
__host__ __device__ __forceinline__ unsigned hash(unsigned x) {
  x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; x ^= x >> 16; return x;
}

// Part A: warp `w` of each block is heavy when bit w of `mask` is set.
__global__ void heavy_warps(unsigned mask, int iters, float* out) {
  unsigned w = threadIdx.x / 32;
  if (!((mask >> w) & 1u)) return;
  float a[8];
  for (int j = 0; j < 8; j++) a[j] = threadIdx.x + j;
  for (int i = 0; i < iters; i++)
    for (int j = 0; j < 8; j++) a[j] = fmaf(a[j], 0.999f, 0.5f);
  float s = 0; for (int j = 0; j < 8; j++) s += a[j];
  if (s == 12345.f) out[0] = s;
}

// Part B/C: one item per thread, `trips` dependent FMAs per item by the pattern.
//   0 uniform: every item `base` trips.
//   1 random per warp: a warp's 32 items share hash(item / 32) % (2 base).
//   2 random per item: hash(item) % (2 base) (a warp runs its slowest lane's trips).
//   3 runs: items in runs of 64, 30 % of runs heavy (4 base), the rest base / 4.
__host__ __device__ __forceinline__ int trips_of(unsigned item, int pattern, int base) {
  switch (pattern) {
    case 0: return base;
    case 1: return hash(item / 32) % (2 * base);
    case 2: return hash(item) % (2 * base);
    default: return (hash(item / 64) % 10 < 3) ? 4 * base : base / 4;
  }
}

__global__ void items(int pattern, int base, float* out, unsigned long long* t0,
                      unsigned long long* t1, unsigned* where, int record) {
  unsigned long long s = gtime();
  unsigned item = blockIdx.x * blockDim.x + threadIdx.x;
  int t = trips_of(item, pattern, base);
  float x = item * 1e-6f;
  for (int i = 0; i < t; i++) x = fmaf(x, 0.9999f, 0.25f);
  out[item] = x;
  if (record && (threadIdx.x & 31) == 0) {
    unsigned g = item / 32;
    t0[g] = s; t1[g] = gtime(); where[g] = (smid() << 8) | warpid();
  }
}

static float time_ms(cudaEvent_t a, cudaEvent_t b) { float ms; cudaEventElapsedTime(&ms, a, b); return ms; }

template <class F> static float median_ms(F launch, int reps = 7) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  launch(); cudaDeviceSynchronize();
  std::vector<float> v;
  for (int r = 0; r < reps; r++) { cudaEventRecord(a); launch(); cudaEventRecord(b); cudaEventSynchronize(b); v.push_back(time_ms(a, b)); }
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main() {
  int dev; cudaGetDevice(&dev); cudaDeviceProp p; cudaGetDeviceProperties(&p, dev);
  int sms = p.multiProcessorCount;
  printf("device %s, %d SMs\n", p.name, sms);
  float* out; cudaMalloc(&out, (size_t)sms * 2048 * 4 * sizeof(float));

  printf("\nA. heavy warps (8 independent FMA chains each), one block per SM\n");
  printf("%-8s %-26s %10s %8s\n", "threads", "heavy warps of each block", "ms", "x alone");
  struct A { int threads; unsigned mask; const char* what; };
  A as[] = {{512, 0x1, "0"}, {512, 0xF, "0,1,2,3"}, {512, 0x1111, "0,4,8,12"}, {512, 0xFFFF, "all 16"},
            {128, 0x1, "0"}, {128, 0xF, "0,1,2,3"},
            {1024, 0x11111111, "0,4,...,28"}, {1024, 0xF, "0,1,2,3"}};
  float alone = 0;
  for (auto& c : as) {
    float ms = median_ms([&] { heavy_warps<<<sms, c.threads>>>(c.mask, 20000, out); });
    if (alone == 0) alone = ms;
    printf("%-8d %-26s %10.4f %8.2f\n", c.threads, c.what, ms, ms / alone);
  }
  // Four blocks of 128 per SM, warp 0 of each heavy: do the blocks' first warps share a scheduler?
  {
    float one = median_ms([&] { heavy_warps<<<sms, 128>>>(0x1, 20000, out); });
    float four = median_ms([&] { heavy_warps<<<sms * 4, 128>>>(0x1, 20000, out); });
    float four_all = median_ms([&] { heavy_warps<<<sms * 4, 128>>>(0xF, 20000, out); });
    printf("128 x %d blocks (4 per SM), warp 0 heavy: %.4f ms = %.2f x one block's; all 4 warps heavy: %.2f x\n",
           sms * 4, four, four / one, four_all / one);
  }

  printf("\nB/C. one item per thread, %d threads (one resident wave), dependent FMA trips\n", sms * 2048);
  printf("%-12s %-7s %7s %10s %8s %10s %10s %12s %12s\n", "pattern", "threads", "blocks", "ms", "/ 512's",
         "ramp us", "end sprd", "SMSP max/mn", "SM max/mean");
  const char* names[] = {"uniform", "rand/warp", "rand/item", "runs of 64"};
  int total = sms * 2048, warps = total / 32;
  unsigned long long *t0, *t1; unsigned* where;
  cudaMalloc(&t0, warps * 8); cudaMalloc(&t1, warps * 8); cudaMalloc(&where, warps * 4);
  std::vector<unsigned long long> h0(warps), h1(warps); std::vector<unsigned> hw(warps);
  for (int base : {200, 2000}) {
    printf("-- base %d trips\n", base);
    for (int pattern = 0; pattern < 4; pattern++) {
      float ref = 0;
      for (int threads : {512, 1024, 256, 128, 64}) {
        int blocks = total / threads;
        float ms = median_ms([&] { items<<<blocks, threads>>>(pattern, base, out, t0, t1, where, 0); });
        if (threads == 512) ref = ms;
        items<<<blocks, threads>>>(pattern, base, out, t0, t1, where, 1); cudaDeviceSynchronize();
        cudaMemcpy(h0.data(), t0, warps * 8, cudaMemcpyDeviceToHost);
        cudaMemcpy(h1.data(), t1, warps * 8, cudaMemcpyDeviceToHost);
        cudaMemcpy(hw.data(), where, warps * 4, cudaMemcpyDeviceToHost);
        unsigned long long s0 = *std::min_element(h0.begin(), h0.end());
        unsigned long long s1 = *std::max_element(h0.begin(), h0.end());
        std::vector<unsigned long long> ends(h1);
        std::sort(ends.begin(), ends.end());
        // Each warp's cost is its slowest lane's trips; load per SM and per (SM, %warpid mod 4).
        std::vector<double> sm_load(256 * 4, 0), smsp_load(256 * 4, 0);
        std::vector<int> sm_used(256, 0);
        for (int g = 0; g < warps; g++) {
          int mx = 0;
          unsigned item0 = g * 32;
          for (int l = 0; l < 32; l++) mx = std::max(mx, trips_of(item0 + l, pattern, base));
          unsigned sm = hw[g] >> 8, wid = hw[g] & 255;
          sm_load[sm] += mx; smsp_load[sm * 4 + (wid & 3)] += mx; sm_used[sm] = 1;
        }
        double sm_max = 0, sm_sum = 0, sp_max = 0; int n = 0;
        for (int s = 0; s < 256; s++) if (sm_used[s]) { n++; sm_sum += sm_load[s]; sm_max = std::max(sm_max, sm_load[s]);
          for (int q = 0; q < 4; q++) sp_max = std::max(sp_max, smsp_load[s * 4 + q]); }
        double sm_mean = sm_sum / n;
        printf("%-12s %-7d %7d %10.4f %8.3f %10.2f %10.2f %12.3f %12.3f\n", names[pattern], threads, blocks, ms,
               ms / ref, (s1 - s0) / 1000.0, (ends.back() - ends[ends.size() / 2]) / 1000.0,
               sp_max / (sm_mean / 4), sm_max / sm_mean);
      }
    }
  }
  // %warpid of the first warps of SM 0's blocks at 128 and 512 threads (uniform, base 200).
  for (int threads : {128, 512}) {
    items<<<total / threads, threads>>>(0, 200, out, t0, t1, where, 1); cudaDeviceSynchronize();
    cudaMemcpy(hw.data(), where, warps * 4, cudaMemcpyDeviceToHost);
    printf("%d threads: %%warpid of warps on the SM of warp 0, in launch order:", threads);
    unsigned sm0 = hw[0] >> 8; int k = 0;
    for (int g = 0; g < warps && k < 40; g++) if ((hw[g] >> 8) == sm0) { printf(" %u", hw[g] & 255); k++; }
    printf("\n");
  }
  cudaError_t e = cudaDeviceSynchronize();
  printf("\n%s\n", cudaGetErrorString(e));
}
