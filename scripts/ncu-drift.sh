#!/bin/bash
# Do the plain loops' threads stay together after each item? ncu's per-SASS-instruction counts
# (SourceCounters) of the held-out workloads' plain loops and MCML's baseline, at the first two
# launches of each sweep (one item per thread at 8192 x 128, one resident wave at 2112 x 128),
# appended to one gzipped CSV (one gzip member per kernel).
# On a GPU machine, from the repository root: ADVISE_DIR (default .devrun/r8) holds the advise
# example built with feature `cuda` and its kernels.ptx. Output in $OUT; the table last
# (docs/results/advisor/schedule-model/drift.md).
set -u
export PATH="/usr/local/cuda/bin:$PATH"
d=${ADVISE_DIR:-.devrun/r8}
cubin="$(mktemp -d)/kernels.cubin"
ptxas -arch=sm_90 $d/kernels.ptx -o "$cubin" && export RECONVERGE_GPU_CUBIN="$cubin"
profile() { # tag workload kernel-regex launches [advise arguments]
  local tag=$1 workload=$2 regex=$3 count=$4; shift 4
  timeout 300 ncu --kernel-name regex:"$regex" --launch-count "$count" --section SourceCounters \
    -o /tmp/$tag -f $d/advise $workload --backend cuda --sweep /tmp/$tag.tsv --reps 1 "$@" \
    > /tmp/$tag.log 2>&1 || echo "$tag: ncu rc $?"
  ncu -i /tmp/$tag.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip >> $OUT/ncu-drift-source.csv.gz
}
# The sweep runs each launch three times (a check against the CPU, a warm-up, the timed run):
# four launches of a kernel are its first launch and one of the second.
profile costmap-baseline cost-map '^costmap_baseline$' 4
profile costmap-dynamic cost-map '^costmap_dynamic$' 4
profile costmap-grid cost-map '^costmap_grid$' 4
profile sunset-dynamic sunset-map '^sunset_dynamic$' 4
profile geojobs-dynamic geometric-jobs '^geojobs_dynamic$' 4
profile heavy-dynamic heavy-tail '^heavy_dynamic$' 4
profile bisect-dynamic bisect '^bisect_dynamic$' 4
profile vtrips-dynamic variable-trips '^vtrips_dynamic$' 4
profile mcml-baseline mcml-skin '^mcml_baseline$' 1
python3 scripts/ncu-drift.py $OUT/ncu-drift-source.csv.gz | tee $OUT/drift-table.md
