// The fast paths of the GPU's correctly rounded square root and division, without their range
// checks: where do they give IEEE 754's result? `sqrt.rn.f32` and `div.rn.f32` are the reference
// (the driver's own IEEE instructions). MCML's exact f32 (`McmlFloat::sqrt_rn_in_range`,
// `div_rn_in_range` in workloads/src/mcml/float.rs) runs these steps where its operands are in
// range, and promises the same bits as the CPU's IEEE operations: this program is the evidence.
//
// It checks every positive float from 2^-101 up for the root, and for the division 4,096
// quotients (random mantissas and signs, the extreme mantissas among them) for each pair of
// normal exponents, plus +0 and -0 over a million divisors. Exit status 0 when the root matches
// everywhere from 2^-101, the division everywhere with the operands and the quotient in
// [2^-100, 2^100] (`IN_RANGE_MIN`, `IN_RANGE_MAX`), and +0 divides exactly; 1 otherwise.
//
// Built and run by scripts/gpu-all.sh part `check`: nvcc -O3 -arch=sm_XX fast_paths.cu
#include <cstdio>
#include <cstdint>
#include <cstring>
__device__ __forceinline__ float fast_sqrt(float x) {
  float y, s, h, r;
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  asm("mul.ftz.f32 %0, %1, %2;" : "=f"(s) : "f"(x), "f"(y));
  asm("mul.ftz.f32 %0, %1, 0f3F000000;" : "=f"(h) : "f"(y));
  asm("fma.rn.f32 %0, %1, %2, %3;" : "=f"(r) : "f"(-s), "f"(s), "f"(x));
  asm("fma.rn.f32 %0, %1, %2, %3;" : "=f"(s) : "f"(r), "f"(h), "f"(s));
  return s;
}
__device__ __forceinline__ float fast_div(float a, float b) {
  float r, e, q, rem;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(b));
  asm("fma.rn.f32 %0, %1, %2, 0f3F800000;" : "=f"(e) : "f"(-b), "f"(r));
  asm("fma.rn.f32 %0, %1, %2, %3;" : "=f"(r) : "f"(r), "f"(e), "f"(r));
  asm("fma.rn.f32 %0, %1, %2, 0f00000000;" : "=f"(q) : "f"(a), "f"(r));
  asm("fma.rn.f32 %0, %1, %2, %3;" : "=f"(rem) : "f"(-b), "f"(q), "f"(a));
  asm("fma.rn.f32 %0, %1, %2, %3;" : "=f"(q) : "f"(r), "f"(rem), "f"(q));
  return q;
}
__device__ unsigned long long sqrt_bad, sqrt_n;
__global__ void sqrt_all(uint32_t first) {
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long bad = 0, n = 0;
  for (uint64_t b = first + i; b < 0x7f800000u; b += (uint64_t)gridDim.x * blockDim.x) {
    float x = __uint_as_float((uint32_t)b);
    float ref; asm("sqrt.rn.f32 %0, %1;" : "=f"(ref) : "f"(x));
    bad += __float_as_uint(fast_sqrt(x)) != __float_as_uint(ref); n++;
  }
  atomicAdd(&sqrt_bad, bad); atomicAdd(&sqrt_n, n);
}
// bad[ea+150][eb+150]: mismatches for |a| in [2^ea, 2^(ea+1)), |b| in [2^eb, 2^(eb+1)), both signs.
__device__ unsigned int div_bad[300][300];
__device__ uint32_t hash(uint32_t x) { x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15; x *= 0x846ca68b; x ^= x >> 16; return x; }
__global__ void div_grid(int samples) {
  int ea = blockIdx.x - 126, eb = blockIdx.y - 126;  // normal exponents -126..127
  unsigned int bad = 0;
  for (int k = threadIdx.x; k < samples; k += blockDim.x) {
    uint32_t h1 = hash(k * 2654435761u + blockIdx.x * 97 + blockIdx.y * 7919), h2 = hash(h1 ^ 0x9e3779b9);
    uint32_t ma = h1 & 0x7fffff, mb = h2 & 0x7fffff;
    if (k < 64) { ma = (k & 7) == 0 ? 0 : (k & 7) == 1 ? 0x7fffff : ma; mb = (k >> 3) == 0 ? 0 : (k >> 3) == 1 ? 0x7fffff : mb; }
    float a = __uint_as_float(((uint32_t)(ea + 127) << 23) | ma | ((h2 >> 31) << 31));
    float b = __uint_as_float(((uint32_t)(eb + 127) << 23) | mb | ((h1 >> 31) << 31));
    float ref; asm("div.rn.f32 %0, %1, %2;" : "=f"(ref) : "f"(a), "f"(b));
    bad += __float_as_uint(fast_div(a, b)) != __float_as_uint(ref);
  }
  atomicAdd(&div_bad[ea + 150][eb + 150], bad);
}
__global__ void div_zero() {
  // +0 and -0 over normal divisors.
  uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  float b = __uint_as_float((hash(k) & 0x7fffffff) | 0x00800000); if (!(b < 3e38f)) return;
  for (int s = 0; s < 2; s++) { float a = s ? -0.0f : 0.0f;
    float ref; asm("div.rn.f32 %0, %1, %2;" : "=f"(ref) : "f"(a), "f"(b));
    if (__float_as_uint(fast_div(a, b)) != __float_as_uint(ref)) atomicAdd(&div_bad[s][0], 1u); }
}
int main() {
  sqrt_all<<<1024, 256>>>(0x0d000000u);  // 2^-101 and up
  unsigned long long bad, n; cudaDeviceSynchronize();
  cudaMemcpyFromSymbol(&bad, sqrt_bad, 8); cudaMemcpyFromSymbol(&n, sqrt_n, 8);
  printf("sqrt: %llu mismatches of %llu positive floats from 2^-101 to the largest\n", bad, n);
  unsigned long long z1 = 0, z2 = 0;
  unsigned long long zero = 0; cudaMemcpyToSymbol(sqrt_bad, &zero, 8); cudaMemcpyToSymbol(sqrt_n, &zero, 8);
  sqrt_all<<<256, 256>>>(0x00800000u); cudaDeviceSynchronize();
  cudaMemcpyFromSymbol(&z1, sqrt_bad, 8); cudaMemcpyFromSymbol(&z2, sqrt_n, 8);
  printf("sqrt: %llu mismatches of %llu positive normal floats from 2^-126 (all normals)\n", z1, z2);
  dim3 g(254, 254); div_grid<<<g, 256>>>(4096); cudaDeviceSynchronize();
  static unsigned int h[300][300]; cudaMemcpyFromSymbol(h, div_bad, sizeof(h));
  // For each a exponent: the b exponents with mismatches (first..last), and totals.
  unsigned long long tot = 0; int shown = 0;
  for (int ea = -126; ea <= 127; ea++) {
    int lo = 999, hi = -999; unsigned long long c = 0;
    for (int eb = -126; eb <= 127; eb++) { unsigned v = h[ea + 150][eb + 150]; if (v) { lo = lo < eb ? lo : eb; hi = hi > eb ? hi : eb; c += v; } }
    tot += c;
    if (c && (ea < -100 || ea > 100 || shown < 400)) { printf("div ea=%d: %llu mismatches, eb in [%d, %d] (ea-eb in [%d, %d])\n", ea, c, lo, hi, ea - hi, ea - lo); shown++; }
  }
  printf("div: %llu mismatches of %llu samples (normal a, b: exponents -126..127, 4096 per pair)\n", tot, 254ull * 254 * 4096);
  // The safe box: largest E such that all |a|,|b| in [2^-E, 2^E] with quotient exponent in [-E, E] match.
  int box = 0;
  for (int E = 126; E >= 1; E--) { bool ok = true;
    for (int ea = -E; ea <= E && ok; ea++) for (int eb = -E; eb <= E && ok; eb++) if (ea - eb >= -E && ea - eb <= E && h[ea + 150][eb + 150]) ok = false;
    if (ok) { printf("div: every sample matches with |a|, |b| and the quotient in [2^-%d, 2^%d]\n", E, E); box = E; break; } }
  memset(h, 0, sizeof(h)); cudaMemcpyToSymbol(div_bad, h, sizeof(h)); div_zero<<<4096, 256>>>(); cudaDeviceSynchronize(); cudaMemcpyFromSymbol(h, div_bad, sizeof(h));
  printf("div: +0 / normal b: %u mismatches, -0 / normal b: %u mismatches (of 1048576 each)\n", h[0][0], h[1][0]);
  bool pass = bad == 0 && box >= 100 && h[0][0] == 0;
  printf("FAST PATHS %s: the root from 2^-101 up, the division in [2^-100, 2^100] and +0\n", pass ? "PASS" : "FAIL");
  return pass ? 0 : 1;
}
