#!/bin/bash
# CCC with its entries capped at 32 registers (.maxnreg) against the build's PTX, alternating.
out="$1"; d="$(cd "$(dirname "$0")" && pwd)"
cap="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d '. ')"
python3 "$d/maxnreg.py" "$d/kernels.ptx" "$out/capped.ptx" '^rare_ccc' 32
ptxas -arch="sm_$cap" "$d/kernels.ptx" -o "$out/plain.cubin"
ptxas -arch="sm_$cap" -v "$out/capped.ptx" -o "$out/capped.cubin" 2>&1 | grep -A3 "entry function 'rare_ccc" | grep -E "Used|spill" > "$out/capped-ptxas.txt"
for round in 1 2; do
  for v in plain capped; do
    RECONVERGE_GPU_CUBIN="$out/$v.cubin" "$d/techniques" --backend cuda --out "$out/$v-$round" --only rare > "$out/$v-$round.log" 2>&1
    grep -h "collaborative\|plain persistent" "$out/$v-$round"/rare-*.tsv | cut -f1,2,5,6,9,10 | sed "s/^/$v $round\t/"
  done
done
rm -f "$out"/*.cubin "$out/capped.ptx"
