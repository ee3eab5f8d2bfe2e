#!/usr/bin/env bash
# The CUDA C++ twin of collaborative context collection (../collaborative_context_collection.cu),
# its `ccc` kernel run as one warp of 32 CPU threads (cuda_warp_sim.h) and compared item by item
# with `run_item` at four rates and five item counts: checks the twin's warp logic (stack
# indices, ballots, the drain) where there is no GPU. Needs g++ with C++20 (std::barrier).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
python3 - "$here" "$work" <<'PY'
import sys
here, work = sys.argv[1], sys.argv[2]
s = open(f"{here}/../collaborative_context_collection.cu").read()
s = s[:s.index("static float median")]
s = s.replace("#include <cuda_runtime.h>", f'#include "{here}/cuda_warp_sim.h"')
s = s.replace("extern __shared__ Ctx smem[];", "extern Ctx smem[];")
s = s[:s.index("#define CHECK")] + s[s.index("constexpr unsigned FULL"):]
s += r'''
#include <cstdio>
#include <thread>
#include <vector>
Ctx smem[STACK];
int main() {
    bool ok = true;
    for (uint64_t rate : {1ull << 27, 1ull << 31, 1ull << 32, 1ull << 24}) {
        for (uint32_t n : {1u, 31u, 33u, 1000u, 3000u}) {
            std::vector<uint32_t> out(n, 0);
            blockIdx.x = 0;
            blockDim.x = 32;
            std::barrier<> b(32);
            bar = &b;
            votes = 0;
            std::vector<std::thread> ts;
            for (unsigned t = 0; t < 32; ++t)
                ts.emplace_back([&, t] { threadIdx.x = t; ccc(out.data(), n, rate, n); });
            for (auto& t : ts) t.join();
            for (uint32_t i = 0; i < n; ++i)
                if (out[i] != run_item(i, rate)) {
                    ok = false;
                    printf("mismatch: rate %llu, %u items, item %u\n", (unsigned long long)rate, n, i);
                    break;
                }
        }
    }
    printf(ok ? "ccc twin: every output identical\n" : "ccc twin: outputs differ\n");
    return ok ? 0 : 1;
}
'''
open(f"{work}/check.cpp", "w").write(s)
PY
g++ -std=c++20 -O1 -pthread -o "$work/check" "$work/check.cpp"
"$work/check"
