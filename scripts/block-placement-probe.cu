// Build and run on a GPU machine: nvcc -O2 -arch=sm_90 -o /tmp/probe scripts/block-placement-probe.cu && /tmp/probe
// (output: docs/results/advisor/schedule-model/block-placement.txt).
// Which SM runs block i, and when: the schedule model's placement assumption (block i of the
// first wave on SM i mod sms) checked on the device. Each block spins `work(i)` ns.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <map>
__device__ unsigned smid() { unsigned r; asm volatile("mov.u32 %0, %%smid;" : "=r"(r)); return r; }
__device__ unsigned long long gtime() { unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }
__global__ void k(unsigned* sm, unsigned long long* t0, unsigned long long* t1, unsigned spin_ns, int mode) {
  unsigned long long s = gtime();
  unsigned w = spin_ns;
  if (mode == 1) w = spin_ns * (1 + (blockIdx.x % 7));
  while (gtime() - s < w) {}
  __syncthreads();
  if (threadIdx.x == 0) { sm[blockIdx.x] = smid(); t0[blockIdx.x] = s; t1[blockIdx.x] = gtime(); }
}
int main() {
  int dev; cudaGetDevice(&dev); cudaDeviceProp p; cudaGetDeviceProperties(&p, dev);
  int sms = p.multiProcessorCount;
  int cfg[][3] = {{528, 512, 0}, {2112, 128, 0}, {132, 128, 0}, {8192, 128, 0}, {8192, 128, 1}};
  for (auto& c : cfg) {
    int B = c[0], T = c[1], mode = c[2];
    unsigned* sm; unsigned long long *t0, *t1;
    cudaMallocManaged(&sm, B * 4); cudaMallocManaged(&t0, B * 8); cudaMallocManaged(&t1, B * 8);
    k<<<B, T>>>(sm, t0, t1, 20000, mode); k<<<B, T>>>(sm, t0, t1, 20000, mode); cudaDeviceSynchronize();
    unsigned long long tmin = ~0ull; for (int i = 0; i < B; i++) tmin = t0[i] < tmin ? t0[i] : tmin;
    int first = 0; for (int i = 0; i < B; i++) if (t0[i] - tmin < 5000) first++;
    int mod_ok = 0; for (int i = 0; i < first && i < B; i++) if (sm[i] == (unsigned)(i % sms)) mod_ok++;
    std::map<unsigned, int> per; for (int i = 0; i < first; i++) per[sm[i]]++;
    int mx = 0, mn = 1 << 30; for (auto& kv : per) { mx = kv.second > mx ? kv.second : mx; mn = kv.second < mn ? kv.second : mn; }
    // Same-SM neighbours: how often block i and i+1 share an SM in the first wave.
    int nb = 0; for (int i = 0; i + 1 < first; i++) if (sm[i] == sm[i + 1]) nb++;
    // In order? fraction of later blocks that started no earlier than the block before them.
    int inorder = 0; for (int i = first; i + 1 < B; i++) if (t0[i + 1] + 2000 >= t0[i]) inorder++;
    printf("B=%d T=%d mode=%d sms=%d first_wave=%d smid==i%%sms: %d  SMs used %zu, blocks per SM %d..%d, i,i+1 same SM %d, later blocks in order %d/%d\n",
           B, T, mode, sms, first, mod_ok, per.size(), mn, mx, nb, inorder, B - first - 1 > 0 ? B - first - 1 : 0);
    printf("  smid of blocks 0..47:"); for (int i = 0; i < 48 && i < B; i++) printf(" %u", sm[i]); printf("\n");
    if (B > 140) { printf("  smid of blocks 132..151:"); for (int i = 132; i < 152; i++) printf(" %u", sm[i]); printf("\n"); }
    cudaFree(sm); cudaFree(t0); cudaFree(t1);
  }
}
