#!/usr/bin/env bash
# MCML revisions side by side on one GPU, for measuring each change before and after in the
# same job (docs/results/mcml/changes-h100/). Each variant is VARIANTS/<label>.tgz holding
# <label>/mcml (the CUDA build of the `mcml` program of that revision) and <label>/kernels.ptx
# (its PTX, from target/release/build/reconverge-paper-kernels-*/out/), and optionally
# <label>/ptxas.flags (ptxas options of the variant's cubin). Per variant, 10^8
# photons (N), skin and slab, fast math and bit-identical, per-thread dynamic work assignment
# and branch distribution + cost-balanced delaying: the kernel time the program reports (CUDA
# events), the whole process's wall time and, for dynamic work, ncu's gpu__time_duration.
#   VARIANTS=dir scripts/mcml-variants.sh OUTDIR      (BATCH=1: also one launch for all photons;
#   PROFILE="mcml_fast_dynamic ...": ncu --set full of the last variant; MCML_BENCH=path.gz)
set -u
d="${VARIANTS:?VARIANTS=folder of <label>.tgz}"
out="$1"; mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
N=${N:-100000000}
tsv="$out/iter.tsv"; printf "code\tinput\tmode\tstrategy\tkernel_s\twall_s\tncu_s\n" > "$tsv"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$out/device.txt"
now() { date +%s.%N; }
mkdir -p "$out/v"; for t in "$d"/*.tgz; do tar -xzf "$t" -C "$out/v"; done
for vdir in "$out"/v/*/; do
  v=$(basename "$vdir")
  # <label>/ptxas.flags, if there: extra ptxas options of the variant (a register cap, say).
  pflags=$(cat "$vdir/ptxas.flags" 2>/dev/null)
  # shellcheck disable=SC2086 # the flags split on purpose
  ptxas -arch=sm_90 -v $pflags "$vdir/kernels.ptx" -o "$out/$v.cubin" > "$out/$v-ptxas.log" 2>&1
  export RECONVERGE_GPU_CUBIN="$out/$v.cubin"
  for input in skin slab; do
    for mode in fast exact; do
      for strategy in ${STRATEGIES:-dynamic branch-distribution-cost-balanced}; do
        f=(); [[ $mode == fast ]] && f=(--fast-math)
        t0=$(now)
        timeout 60 "$vdir/mcml" --backend cuda --f32 "${f[@]}" --strategy $strategy --builtin $input --photons $N --output "$out/$v-$input-$mode-$strategy.mco" > "$out/log-$v-$input-$mode-$strategy.txt" 2>&1
        line=$(grep "kernel time" "$out/log-$v-$input-$mode-$strategy.txt" | head -1)
        t1=$(now)
        k=$(sed -n 's/.*kernel time \([0-9.]*\) s.*/\1/p' <<< "$line")
        ncu_s=""
        if [[ $strategy == dynamic && -z "${SKIP_NCU:-}" ]]; then
          kn=mcml_dynamic; [[ $mode == fast ]] && kn=mcml_fast_dynamic
          ncu_s=$(timeout 120 ncu --kernel-name $kn --csv --metrics gpu__time_duration.sum "$vdir/mcml" --backend cuda --f32 "${f[@]}" --strategy $strategy --builtin $input --photons $N --output /dev/null 2>/dev/null | awk -F'","' '/gpu__time_duration/ {gsub(/[",]/,"",$NF); s+=$NF} END {printf "%.4f", s/1e9}')
        fi
        printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\n" $v $input $mode $strategy "$k" "$(python3 -c "print(f'{$t1-$t0:.3f}')")" "$ncu_s" >> "$tsv"
      done
    done
  done
  # One launch for all photons instead of the adaptive batches (fast, per-thread dynamic).
  if [[ -n "${BATCH:-}" ]]; then for input in skin slab; do
    t0=$(now); timeout 60 "$vdir/mcml" --backend cuda --f32 --fast-math --strategy dynamic --builtin $input --photons $N --batch-photons $N --output "$out/b.mco" > "$out/log-$v-$input-onebatch.txt" 2>&1; t1=$(now)
    k=$(sed -n 's/.*kernel time \([0-9.]*\) s.*/\1/p' "$out/log-$v-$input-onebatch.txt" | head -1)
    printf "%s\t%s\tfast\tdynamic-one-batch\t%s\t%s\t\n" $v $input "$k" "$(python3 -c "print(f'{$t1-$t0:.3f}')")" >> "$tsv"
  done; fi
  # Whole-process fixed cost: the same command on 1,000 photons.
  t0=$(now); "$vdir/mcml" --backend cuda --f32 --fast-math --strategy dynamic --builtin skin --photons 1000 --output "$out/fixed.mco" > /dev/null 2>&1; t1=$(now)
  printf "%s\tskin\tfast\tfixed-1000\t\t%s\t\n" $v "$(python3 -c "print(f'{$t1-$t0:.3f}')")" >> "$tsv"
  rm -f "$out"/$v-*.mco "$out/fixed.mco"
done
unset RECONVERGE_GPU_CUBIN
# Where the last variant's fastest kernels spend their time (skin, 10^7 photons, one batch).
if [[ -n "${PROFILE:-}" ]]; then
  v=$(ls "$out/v" | tail -1); vdir="$out/v/$v"
  export RECONVERGE_GPU_CUBIN="$out/$v.cubin"
  n=10000000
  gunzip -c "${MCML_BENCH:-$d/mcml_bench.gz}" > "$out/mcml_bench"; chmod +x "$out/mcml_bench"; "$out/mcml_bench" --count-steps $n --inputs skin > "$out/steps.txt" 2>&1
  for kernel in $PROFILE; do
    f=(); [[ $kernel == mcml_fast_* ]] && f=(--fast-math)
    run=(--backend cuda --f32 "${f[@]}" --strategy dynamic --builtin skin --photons $n --batch-photons $n --output /dev/null)
    timeout 200 ncu --kernel-name $kernel --csv --metrics smsp__thread_inst_executed.sum,smsp__inst_executed.sum "$vdir/mcml" "${run[@]}" > "$out/ncu-sum.csv" 2>&1
    timeout 200 ncu --kernel-name $kernel --launch-count 1 --set full --import-source no -o "$out/prof" "$vdir/mcml" "${run[@]}" > /dev/null 2>&1
    ncu -i "$out/prof.ncu-rep" --page details --print-units base > "$out/ncu-details.txt"
    ncu -i "$out/prof.ncu-rep" --page source --csv --print-source sass > "$out/ncu-source.csv"
    python3 "$(dirname "$0")/ncu-where-time-goes.py" "$out/ncu-details.txt" "$out/ncu-source.csv" "$out/ncu-sum.csv" "$out/steps.txt" > "$out/where-time-goes-$kernel.md" 2>&1
    mv "$out/ncu-details.txt" "$out/ncu-details-$kernel.txt"; mv "$out/ncu-sum.csv" "$out/ncu-sum-$kernel.csv"
    gzip -c "$out/ncu-source.csv" > "$out/ncu-source-$kernel.csv.gz"; rm -f "$out/prof.ncu-rep" "$out/ncu-source.csv"
    head -5 "$out/where-time-goes-$kernel.md" | tail -1
  done
  tar -czf "$out/profile.tar.gz" -C "$out" $(cd "$out" && ls | grep -E "where-time|ncu-|steps") && (cd "$out" && rm -f where-time* ncu-* steps.txt)
fi
awk -F'\t' '{printf "%-12s %-5s %-5s %-34s %-8s %-8s %s\n", $1,$2,$3,$4,$5,$6,$7}' "$tsv"
rm -rf "$out/mcml_bench" "$out/v" "$out"/*.cubin "$out"/gm-*/*.mco "$out"/f.mco "$out"/*.mco
(cd "$out" && tar -czf all.tgz --exclude=all.tgz --exclude=iter.tsv . && find . -mindepth 1 ! -name all.tgz ! -name iter.tsv -delete)
