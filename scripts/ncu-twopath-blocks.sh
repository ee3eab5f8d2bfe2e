#!/bin/bash
# Why bigger blocks ran faster on the two-path kernel at equal warps: ncu of its baseline at
# every launch of the sweep (ncu's clock control).
set -u
export PATH="/usr/local/cuda/bin:$PATH"
d=${ADVISE_DIR:-.devrun/r7}  # the advise example built with feature cuda, and kernels.ptx
cubin="$(mktemp -d)/kernels.cubin"
ptxas -arch=sm_90 $d/kernels.ptx -o "$cubin" && export RECONVERGE_GPU_CUBIN="$cubin"
M=gpu__time_duration.sum,launch__grid_size,launch__block_size,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_elapsed.max,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__bytes.sum,lts__t_bytes.sum
S=smsp__average_warps_issue_stalled
for r in long_scoreboard wait math_pipe_throttle not_selected lg_throttle drain barrier no_instruction; do M="$M,${S}_${r}_per_issue_active.ratio"; done
timeout 300 ncu --kernel-name regex:'^runs_baseline$' --launch-count 30 --metrics $M --csv \
  $d/advise two-path-runs --backend cuda --sweep /tmp/tp.tsv --reps 1 > $OUT/ncu-twopath.csv 2>$OUT/ncu-twopath.err
echo "ncu rc $?; $(wc -l < $OUT/ncu-twopath.csv) lines"
cp /tmp/tp.tsv $OUT/ 2>/dev/null
python3 - "$OUT/ncu-twopath.csv" <<'PY'
import csv,sys,collections
rows=list(csv.DictReader(l for l in open(sys.argv[1]) if l.startswith('"')))
# One dict of metrics per profiled launch, in launch order.
k=collections.OrderedDict()
for r in rows:
    k.setdefault(r['ID'],{})[r['Metric Name']]=r['Metric Value']
for i,m in list(k.items())[:14]:
    print(i, m.get('launch__grid_size'), m.get('launch__block_size'), 'us', m.get('gpu__time_duration.sum'), 'smact', m.get('sm__cycles_active.avg'), m.get('sm__cycles_active.max'), 'el', m.get('sm__cycles_elapsed.max'), 'inst', m.get('smsp__inst_executed.sum'), 'dram', m.get('dram__bytes.sum'), 'lg', m.get('smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio'), 'ls', m.get('smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio'), 'drain', m.get('smsp__average_warps_issue_stalled_drain_per_issue_active.ratio'))
PY
