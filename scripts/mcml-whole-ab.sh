#!/usr/bin/env bash
# Two `mcml` programs side by side on a GPU: whole processes, alternating, and whether they
# write the same .mco.
#
#   scripts/mcml-whole-ab.sh NAME_A MCML_A NAME_B MCML_B [OUTDIR]
#
# For a change to the program around the kernels (loading, release, batches): both programs
# load one cubin (RECONVERGE_GPU_CUBIN, made here with ptxas from MCML_PTX, default the
# mcml.ptx beside MCML_A), so only their host code differs. Each round runs every input and
# photon count with A, then B, timing the whole process (`date` around it); then each pair
# writes one .mco under the same name (the file echoes its own name) and the two files are
# compared but for their `User time` line. Writes OUTDIR (default ./mcml-whole-ab):
# whole.tsv (build, input, photons, round, wall_s), same.txt, device.txt and each build's
# `--timings` log of the last round; prints the medians and the A/B ratios last.
#
# Environment: ROUNDS (7), INPUTS ("skin slab"), PHOTONS ("100000000 1000"), MCML_FLAGS
# ("--fast-math"), MCML_PTX.
set -uo pipefail
[[ $# -ge 4 && $# -le 5 ]] || { sed -n '5p' "$0" | sed 's/^# *//'; exit 2; }
name_a="$1" bin_a="$(realpath "$2")" name_b="$3" bin_b="$(realpath "$4")"
out="$(realpath -m "${5:-mcml-whole-ab}")"
mkdir -p "$out"
ptx="${MCML_PTX:-$(dirname "$bin_a")/mcml.ptx}"
cap="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d '. ')"
ptxas -arch="sm_$cap" "$ptx" -o "$out/mcml.cubin" || exit 1
export RECONVERGE_GPU_CUBIN="$out/mcml.cubin"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$out/device.txt"
work="$(mktemp -d)"
printf "build\tinput\tphotons\tround\twall_s\n" > "$out/whole.tsv"
# shellcheck disable=SC2086 # the flags and lists split on purpose
for round in $(seq 1 "${ROUNDS:-7}"); do
    for input in ${INPUTS:-skin slab}; do for photons in ${PHOTONS:-100000000 1000}; do
        for build in a b; do
            name="name_$build" bin="bin_$build"
            t0=$(date +%s.%N)
            "${!bin}" --backend cuda ${MCML_FLAGS---fast-math} --builtin "$input" --photons "$photons" \
                --timings --output "$work/o.mco" > "$work/${!name}-$input-$photons.log" 2>&1
            rc=$?
            t1=$(date +%s.%N)
            printf "%s\t%s\t%s\t%s\t%s\n" "${!name}" "$input" "$photons" "$round" \
                "$(awk "BEGIN{printf \"%.3f\", $t1 - $t0}")" >> "$out/whole.tsv"
            [[ $rc == 0 ]] || echo "${!name} $input $photons: exit $rc"
        done
    done; done
done
cp "$work"/*.log "$out/"
# shellcheck disable=SC2086
for input in ${INPUTS:-skin slab}; do for photons in ${PHOTONS:-100000000 1000}; do
    for build in a b; do
        bin="bin_$build"
        mkdir -p "$work/$build"
        (cd "$work/$build" && "${!bin}" --backend cuda ${MCML_FLAGS---fast-math} --builtin "$input" \
            --photons "$photons" --output o.mco > /dev/null 2>&1)
    done
    if cmp -s <(grep -v "User time" "$work/a/o.mco") <(grep -v "User time" "$work/b/o.mco"); then
        echo "$input, $photons photons: the same .mco but for its User time line"
    else
        echo "$input, $photons photons: the .mco files DIFFER"
    fi
done; done | tee "$out/same.txt"
rm -rf "$work" "$out/mcml.cubin"
python3 - "$out/whole.tsv" "$name_a" "$name_b" <<'PY'
import csv, statistics, sys
path, a, b = sys.argv[1:4]
rows = list(csv.DictReader(open(path), delimiter="\t"))
for key in dict.fromkeys((r["input"], r["photons"]) for r in rows):
    m = {n: statistics.median(float(r["wall_s"]) for r in rows
                              if r["build"] == n and (r["input"], r["photons"]) == key)
         for n in (a, b)}
    print(f"{key[0]}, {key[1]} photons: {a} {m[a]:.3f} s, {b} {m[b]:.3f} s, {a}/{b} {m[a] / m[b]:.3f}")
PY
