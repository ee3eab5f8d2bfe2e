#!/bin/bash
# EXPERIMENT (device code not committed): the plain loop with a warp-wide vote at every step
# (per-step-vote.patch applied to e155eed, whose device code is revision 8's, built with
# `cargo build --release -p reconverge-paper-kernels --features cuda`, its kernels.ptx copied to
# .devrun/exp/) against the committed one (.devrun/r8/kernels.ptx), the same advise binary
# (feature cuda) loading each. Run on the GPU machine from the repository root; the TSVs it
# wrote are in per-step-vote/, its table is in ../drift.md.
set -u
export PATH="/usr/local/cuda/bin:$PATH"
for v in r8 exp; do
  cubin=/tmp/$v.cubin
  ptxas -arch=sm_90 .devrun/$v/kernels.ptx -o $cubin
  for w in mcml-skin cost-map sunset-map heavy-tail; do
    RECONVERGE_GPU_CUBIN=$cubin timeout 280 .devrun/r8/advise $w --backend cuda --sweep $OUT/$v-$w.tsv --reps 5 > /tmp/$v-$w.log 2>&1
    echo "$v $w rc $? $(tail -1 /tmp/$v-$w.log)"
  done
done
python3 - <<'PY'
import csv,os
out=os.environ['OUT']
for w in ['mcml-skin','cost-map','sunset-map','heavy-tail']:
    rows={}
    for v in ['r8','exp']:
        try:
            for r in csv.DictReader(open(f'{out}/{v}-{w}.tsv'),delimiter='\t'):
                rows.setdefault((r['strategy'],r['blocks'],r['threads']),{})[v]=(float(r['median_ms']),r['outputs_equal'])
        except FileNotFoundError: pass
    for k,d in rows.items():
        if k[0] in ('baseline','dynamic work assignment','dynamic work assignment, one grid-wide counter') and 'r8' in d and 'exp' in d:
            print(f"{w:11s} {k[0][:40]:40s} {k[1]:>5s}x{k[2]:<4s} {d['r8'][0]:9.4f} {d['exp'][0]:9.4f} {d['exp'][0]/d['r8'][0]:6.3f} {d['exp'][1]}")
PY
