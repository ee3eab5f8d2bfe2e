#!/usr/bin/env bash
# MCML's kernel time against GPU-MCML's at the GPU's own clock and at the base clock:
# ncu's gpu__time_duration summed over each code's kernel launches, with `--clock-control none`
# (the clock the GPU picks, as in normal use) and `--clock-control base` (ncu's default, which
# scripts/gpu-all.sh part gpumcml uses). 10^8 photons, skin and slab, per-thread dynamic work
# assignment in fast math and bit-identical.
#
#   DEVICE_DIR=dir GPUMCML_DIR=dir scripts/mcml-own-clock.sh OUTDIR
#
# DEVICE_DIR holds `mcml` (the CUDA build) and `mcml.ptx` (its module); GPUMCML_DIR a GPU-MCML binary
# `gpumcml` built by you from its public source outside the repository, its
# `safeprimes_base32.txt` and `skin.mci`/`slab.mci` (as for gpu-all.sh part gpumcml).
set -u
dev="${DEVICE_DIR:?}"; gm="${GPUMCML_DIR:?}"; out="${1:?OUTDIR}"; mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
ptxas -arch=sm_90 "$dev/mcml.ptx" -o "$out/k.cubin" && export RECONVERGE_GPU_CUBIN="$out/k.cubin"
sum() { awk -F'","' '/gpu__time_duration/ {gsub(/[",]/,"",$NF); s+=$NF} END {printf "%.4f", s/1e9}' "$1"; }
for cc in none base; do for input in skin slab; do
  w="$out/w-$input-$cc"; mkdir -p "$w/executable"; ln -sf "$gm/safeprimes_base32.txt" "$w/executable/"; cp "$gm/$input.mci" "$w/"
  (cd "$w" && ncu --clock-control $cc --kernel-name regex:MCMLKernel --csv --metrics gpu__time_duration.sum "$gm/gpumcml" -S12345 $input.mci > "$out/gm-$input-$cc.csv" 2>&1)
  echo "gpumcml $input clock=$cc kernel_s=$(sum "$out/gm-$input-$cc.csv")"
  for m in fast exact; do f=(); k=mcml_dynamic; [[ $m == fast ]] && f=(--fast-math) && k=mcml_fast_dynamic
    ncu --clock-control $cc --kernel-name $k --csv --metrics gpu__time_duration.sum "$dev/mcml" --backend cuda --f32 "${f[@]}" --strategy dynamic --builtin $input --photons 100000000 --output "$out/o.mco" > "$out/ours-$input-$m-$cc.csv" 2>&1
    echo "ours-$m $input clock=$cc kernel_s=$(sum "$out/ours-$input-$m-$cc.csv")"
  done
  rm -rf "$w" "$out/o.mco"
done; done
rm -f "$out/k.cubin"
