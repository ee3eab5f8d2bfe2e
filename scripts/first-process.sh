#!/usr/bin/env bash
# The first process on a fresh machine against later ones (issue 41): `mcml --backend cuda`
# RUNS times in a row with the driver's JIT cache starting empty (a fresh CUDA_CACHE_PATH),
# once loading the shipped SASS and once, with RECONVERGE_FORCE_PTX=1, the PTX (which the
# driver JIT-compiles in the first process and reads from its cache in later ones).
#
# On the GPU machine (CUDA driver; no Rust), from the binaries scripts/build-device.sh put in
# .device/ (build them where ptxas is found, or mcml ships no SASS and says so):
#   bash scripts/first-process.sh [OUTDIR]       (or PARTS=first bash scripts/gpu-all.sh OUTDIR)
# PHOTONS (default 100000), RUNS (default 3), MCML_FLAGS (extra mcml flags, e.g. "--fast-math").
# Writes OUTDIR/first-process/{first-process.tsv,*.log,device.txt}; prints a table last, and
# PASS where the first SASS process is within 0.2 s of the later ones and loaded SASS.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dev="${DEVICE_DIR:-$root/.device}"
out="${1:-$root/gpu-results}/first-process"
mkdir -p "$out"
photons="${PHOTONS:-100000}"
runs="${RUNS:-3}"
# The images the program ships, not a cubin another script made for it.
unset RECONVERGE_GPU_CUBIN RECONVERGE_FORCE_PTX CUDA_CACHE_DISABLE
if [[ ! -x "$dev/mcml" ]]; then
    echo "no $dev/mcml: build it with scripts/build-device.sh (PARTS=mcml) first" >&2
    exit 1
fi
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader > "$out/device.txt"
tsv="$out/first-process.tsv"
printf "image\trun\twall_s\tload_s\tkernel_s\tloaded\n" > "$tsv"
for image in sass ptx; do
    cache="$(mktemp -d)"
    for run in $(seq 1 "$runs"); do
        log="$out/$image-$run.log"
        force=()
        [[ $image == ptx ]] && force=(RECONVERGE_FORCE_PTX=1)
        t0=$(date +%s.%N)
        # shellcheck disable=SC2086 # MCML_FLAGS splits into flags on purpose
        env CUDA_CACHE_PATH="$cache" "${force[@]}" "$dev/mcml" --backend cuda --builtin skin \
            --photons "$photons" --timings ${MCML_FLAGS:-} > "$log" 2>&1
        rc=$?
        t1=$(date +%s.%N)
        # `--timings`: "   0.230 s  load 1 GPU(s): contexts, modules (mcml: SASS sm_90)"
        line="$(grep -m1 'load [0-9]* GPU(s)' "$log")"
        load="$(awk '{print $1}' <<< "$line")"
        loaded="$(sed -n 's/.*contexts, modules (\(.*\))$/\1/p' <<< "$line")"
        # The run's own report: "... kernel time 0.501 s ...": the SASS shipped (ptxas of the
        # build machine) against the driver's JIT of the PTX, for the same kernel.
        kernel="$(sed -n 's/.*kernel time \([0-9.]*\) s.*/\1/p' "$log" | head -1)"
        [[ $rc -ne 0 ]] && loaded="FAILED (exit $rc, see $log)"
        printf "%s\t%s\t%s\t%s\t%s\t%s\n" "$image" "$run" \
            "$(python3 -c "print(f'{$t1 - $t0:.3f}')")" "${load:-?}" "${kernel:-?}" \
            "${loaded:-?}" >> "$tsv"
    done
    rm -rf "$cache"
done
echo "== first process against later ones: mcml --backend cuda --builtin skin --photons $photons" \
    "${MCML_FLAGS:-}, $(cat "$out/device.txt")"
# `column` is not on every GPU machine (the lent H200 lacks it): the TSV as it is there.
if command -v column > /dev/null; then column -t -s $'\t' "$tsv"; else cat "$tsv"; fi
python3 - "$tsv" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
def runs(image):
    return [r for r in rows if r["image"] == image]
for image in ("sass", "ptx"):
    rs = runs(image)
    if len(rs) < 2:
        continue
    first, later = float(rs[0]["wall_s"]), statistics.median(float(r["wall_s"]) for r in rs[1:])
    print(f"{image}: first process {first:.3f} s, later ones (median) {later:.3f} s, "
          f"first - later {first - later:+.3f} s")
sass = runs("sass")
if len(sass) >= 2:
    first = float(sass[0]["wall_s"])
    later = statistics.median(float(r["wall_s"]) for r in sass[1:])
    want = "SASS"
    loaded_sass = all(r["loaded"].startswith("mcml: SASS") for r in sass)
    ok = first - later <= 0.2 and loaded_sass
    print(f"{'PASS' if ok else 'FAIL'}: first SASS process within 0.2 s of later ones "
          f"({first - later:+.3f} s), every SASS run loaded {want}: {loaded_sass}")
EOF
