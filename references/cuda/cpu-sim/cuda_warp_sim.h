#pragma once
// One warp of 32 std::threads in lockstep at every warp intrinsic (ballot, any, syncwarp), for
// checking a hand-written twin's warp logic on a machine without a GPU or nvcc
// (check-ccc.sh). Not a CUDA emulator: one block of one warp, shared memory a static array.
#include <cstdint>
#include <cstddef>
#include <barrier>
#include <atomic>
#define __global__
#define __device__
#define __host__
struct dim3s { unsigned x; };
inline thread_local dim3s threadIdx;
inline dim3s blockIdx, blockDim;
inline std::barrier<>* bar;
inline std::atomic<unsigned> votes;
inline unsigned __ballot_sync(unsigned, bool p) {
    bar->arrive_and_wait();
    if (p) votes.fetch_or(1u << (threadIdx.x & 31));
    bar->arrive_and_wait();
    unsigned v = votes.load();
    bar->arrive_and_wait();
    if ((threadIdx.x & 31) == 0) votes.store(0);
    bar->arrive_and_wait();
    return v;
}
inline bool __any_sync(unsigned m, bool p) { return __ballot_sync(m, p) != 0; }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline void __syncwarp() { bar->arrive_and_wait(); }
inline int min(int a, int b) { return a < b ? a : b; }
