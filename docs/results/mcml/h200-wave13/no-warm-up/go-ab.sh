#!/bin/bash
# mcml whole process with a warm-up launch before the first batch (warm, 18e74a9) and without
# (cold), alternating, one cubin for both.
cd "$(dirname "$0")"
cap="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d '. ')"
ptxas -arch=sm_$cap mcml.ptx -o mcml.cubin
export RECONVERGE_GPU_CUBIN=$PWD/mcml.cubin
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > $OUT/device.txt
printf "build\tinput\tphotons\trun\twall_s\n" > $OUT/whole.tsv
for run in 1 2 3 4 5 6 7; do
  for input in skin slab; do for photons in 100000000 1000; do for build in warm cold; do
    t0=$(date +%s.%N)
    ./$build-mcml --backend cuda --fast-math --builtin $input --photons $photons --timings --output /tmp/$build-$input-$photons.mco > /tmp/$build-$input-$photons-$run.log 2>&1
    rc=$?
    t1=$(date +%s.%N)
    printf "%s\t%s\t%s\t%s\t%s\n" $build $input $photons $run "$(awk "BEGIN{printf \"%.3f\", $t1-$t0}")" >> $OUT/whole.tsv
    [ $rc = 0 ] || echo "$build $input $photons: exit $rc"
  done; done; done
done
cp /tmp/warm-slab-100000000-7.log /tmp/cold-slab-100000000-7.log /tmp/warm-skin-1000-7.log /tmp/cold-skin-1000-7.log $OUT/
python3 - $OUT/whole.tsv <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
for inp in ("skin", "slab"):
    for ph in ("100000000", "1000"):
        m = {b: statistics.median(float(r["wall_s"]) for r in rows if r["build"] == b and r["input"] == inp and r["photons"] == ph) for b in ("warm", "cold")}
        print(f"{inp} {ph}: warm {m['warm']:.3f} s, cold {m['cold']:.3f} s, warm/cold {m['warm']/m['cold']:.3f}")
PY
for input in skin slab; do for photons in 100000000 1000; do
  for build in warm cold; do
    mkdir -p /tmp/s-$build && (cd /tmp/s-$build && /tmp/run55/$build-mcml --backend cuda --fast-math --builtin $input --photons $photons --output o.mco > /dev/null 2>&1)
  done
  cmp <(grep -v "User time" /tmp/s-warm/o.mco) <(grep -v "User time" /tmp/s-cold/o.mco) > /dev/null && echo "$input, $photons photons: the same .mco but for its User time line" || echo "$input, $photons photons: .mco DIFFERS"
done; done | tee $OUT/same.txt
grep -h "kernels,\|around" /tmp/warm-slab-100000000-7.log /tmp/cold-slab-100000000-7.log /tmp/warm-skin-1000-7.log /tmp/cold-skin-1000-7.log
