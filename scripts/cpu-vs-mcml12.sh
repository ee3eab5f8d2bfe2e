#!/usr/bin/env bash
# CPU throughput of reconverge's MCML against the original MCML 1.2 (C; Wang, Jacques & Zheng),
# side by side in one run, on the built-in `skin` and `slab` inputs, at 1 and 2 cores.
#
#   scripts/cpu-vs-mcml12.sh MCML12_SRC_DIR [OUTDIR]
#
# MCML12_SRC_DIR holds MCML 1.2's sources (mcml.h mcmlmain.c mcmlgo.c mcmlio.c mcmlnr.c), as
# published by the authors; they are not part of this repository. The script copies them into a
# temporary folder, applies the one fix MCML 1.2.2 made that a current gcc needs (see
# `patch_mcml12` below), and builds them with `gcc -O3`. It builds the project's `mcml` program
# (`cargo build --release -p reconverge-mcml-cli --bin mcml --locked`, the binary `cargo install
# reconverge-mcml-cli` installs; CARGO_TARGET_DIR default target/; set MCML_BIN to an existing
# binary to skip the build) and measures, per input:
#
#   MCML 1.2           1 process; and 2 concurrent processes with half the photons each (MCML is
#                      single-threaded: one process per core), time = the slower process.
#   reconverge         --strategy scalar (the plain per-photon loop) in f32 and in f64, and
#                      --strategy baseline (warps emulated in lockstep) in f32;
#                      RAYON_NUM_THREADS = cores, one process.
#
# Every time is the wall-clock time of whole processes (date +%s.%N around them), for both codes:
# it includes start-up and input parsing, and for MCML 1.2 writing its .mco (the script measures
# that fixed overhead with a 100-photon run and reports it). One measurement per cell.
# Rd, A and Tt come from MCML's .mco (RAT section) and from the project's stdout; the report
# checks that they agree within Monte Carlo noise. Finally the project's scalar f32 loop (and
# MCML 1.2, for comparison) runs once under valgrind's callgrind on PHOTONS_PROFILE photons.
#
# Writes OUTDIR (default target/cpu-vs-mcml12): cpu-vs-mcml12.md (the report), results.tsv,
# logs/ and callgrind files. Touches no tracked file (cargo build --locked keeps Cargo.lock).
#
# Environment:
#   PHOTONS_SKIN     photons per skin measurement (default 300000: ~10 s for MCML 1.2 on 1 core)
#   PHOTONS_SLAB     photons per slab measurement (default 100000: ~10 s likewise)
#   PHOTONS_PROFILE  photons of the callgrind runs (default 10000, skin)
#   CORES            core counts to measure (default "1 2")
#   MCML_BIN         use this reconverge `mcml` binary instead of building one
#   MCML_BEFORE_BIN  also measure this older reconverge `mcml` binary (f64 default, `--f32`
#                    flag), as "reconverge before", for before/after side by side in one run
#   CC               C compiler for MCML 1.2 (default gcc)
set -euo pipefail

usage() { sed -n '2,4p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
[[ $# -ge 1 && $# -le 2 ]] || usage
[[ "$1" != -h && "$1" != --help ]] || usage

root="$(cd "$(dirname "$0")/.." && pwd)"
src="$(cd "$1" && pwd)"
out="${2:-$root/target/cpu-vs-mcml12}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
inputs_dir="$root/scripts/mcml12-inputs"
photons_skin="${PHOTONS_SKIN:-300000}"
photons_slab="${PHOTONS_SLAB:-100000}"
photons_profile="${PHOTONS_PROFILE:-10000}"
cores_list="${CORES:-1 2}"
cc="${CC:-gcc}"
cmdline="$0 $*"
for v in PHOTONS_SKIN PHOTONS_SLAB PHOTONS_PROFILE CORES MCML_BIN MCML_BEFORE_BIN CC CARGO_TARGET_DIR; do
    [[ -z "${!v:-}" ]] || cmdline="$v=${!v} $cmdline"
done

for f in mcml.h mcmlmain.c mcmlgo.c mcmlio.c mcmlnr.c; do
    [[ -f "$src/$f" ]] || { echo "error: $src/$f not found (need MCML 1.2's sources)" >&2; exit 1; }
done
for n in "$photons_skin" "$photons_slab" "$photons_profile"; do
    [[ "$n" =~ ^[0-9]+$ && "$n" -ge 2 ]] || { echo "error: photon counts must be integers >= 2" >&2; exit 1; }
done

if [[ -n "${MCML_BIN:-}" && "$MCML_BIN" != /* ]]; then MCML_BIN="$PWD/$MCML_BIN"; fi
work="$(mktemp -d "${TMPDIR:-/tmp}/cpu-vs-mcml12.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cd "$work" # nothing below writes into the caller's folder
logs="$out/logs"
rm -rf "$logs"
mkdir -p "$logs"
log() { echo "[$(date +%T)] $*" >&2; }

# ---------------------------------------------------------------------------------------------
# MCML 1.2: copy, fix, build (scripts/mcml12-build.sh: the one fix and why).
# shellcheck source=scripts/mcml12-build.sh
source "$root/scripts/mcml12-build.sh"
log "building MCML 1.2 from $src"
build_mcml12 "$src" "$work/mcml12" "$cc" "$logs/mcml12-build.log"

# ---------------------------------------------------------------------------------------------
# The project's mcml program (the installable binary; `--example mcml` runs the same code).
build_project_mcml "$root" "$logs/cargo-build.log"
help="$("$bin" --help)"
# Precision flags: today f64 is the default and --f32 opts in; a --f64 flag (f32 default) works too.
if grep -q -- '--f64' <<<"$help"; then f64_flag=(--f64); else f64_flag=(); fi
if grep -q -- '--f32' <<<"$help"; then f32_flag=(--f32); else f32_flag=(); fi
[[ ${#f32_flag[@]} -gt 0 || ${#f64_flag[@]} -gt 0 ]] ||
    { echo "error: $bin --help shows neither --f32 nor --f64" >&2; exit 1; }
rustc_version="$(rustc --version 2>/dev/null || echo unknown)"

# ---------------------------------------------------------------------------------------------
# Measurements. results.tsv: input code mode cores photons seconds pps Rd A Tt own_seconds
tsv="$out/results.tsv"
printf 'input\tcode\tmode\tcores\tphotons\tseconds\tphotons_per_s\tRd\tA\tTt\town_seconds\n' > "$tsv"
now() { date +%s.%N; }
fsub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a - b }'; }
fdiv() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", a / b }'; }

# MCML 1.2's RAT section: Rsp, Rd, A, Tt on the four lines after "RAT".
mco_rat() {
    [[ -s "$1" ]] || { echo "error: MCML 1.2 wrote no $1; its log: $(dirname "$1")/run.log" >&2; tail -5 "$(dirname "$1")/run.log" >&2; exit 1; }
    awk '/^RAT/ { n = 1; next } n >= 1 && n <= 4 { v[n++] = $1 } END { print v[2], v[3], v[4] }' "$1"
}

# Writes the .mci for input $1 with $2 photons into folder $3.
make_mci() { sed "s/@PHOTONS@/$2/" "$inputs_dir/$1.mci" > "$3/$1.mci"; }

# One MCML 1.2 process in its own folder; prints the wall seconds.
run_mcml12_in() { # dir input
    local s e
    s="$(now)"
    (cd "$1" && "$mcml12" "$2.mci" > run.log 2>&1)
    e="$(now)"
    fsub "$e" "$s"
}

measure_mcml12() { # input photons cores
    local input="$1" n="$2" cores="$3" d secs rat i
    if [[ "$cores" -eq 1 ]]; then
        d="$work/run/$input-mcml12-1"
        mkdir -p "$d" && make_mci "$input" "$n" "$d"
        secs="$(run_mcml12_in "$d" "$input")"
        rat="$(mco_rat "$d/$input.mco")"
        cp "$d/run.log" "$logs/$input-mcml12-1core.log"
    else
        # `cores` concurrent processes sharing the photons; the wall time of the slower one.
        local s pids=() per=$((n / cores)) rest=$((n - (n / cores) * cores))
        s="$(now)"
        for ((i = 0; i < cores; i++)); do
            d="$work/run/$input-mcml12-${cores}-$i"
            mkdir -p "$d" && make_mci "$input" $((per + (i < rest ? 1 : 0))) "$d"
            (cd "$d" && "$mcml12" "$input.mci" > run.log 2>&1; now > end) &
            pids+=($!)
        done
        for p in "${pids[@]}"; do wait "$p"; done
        local last=0
        for ((i = 0; i < cores; i++)); do
            d="$work/run/$input-mcml12-${cores}-$i"
            last="$(awk -v a="$last" -v b="$(cat "$d/end")" 'BEGIN { print (b > a ? b : a) }')"
            cp "$d/run.log" "$logs/$input-mcml12-${cores}core-proc$i.log"
        done
        secs="$(fsub "$last" "$s")"
        # The processes' results, weighted by their photons.
        rat="$(for ((i = 0; i < cores; i++)); do
            d="$work/run/$input-mcml12-${cores}-$i"
            echo "$((per + (i < rest ? 1 : 0))) $(mco_rat "$d/$input.mco")"
        done | awk '{ w += $1; rd += $1 * $2; a += $1 * $3; t += $1 * $4 }
                    END { printf "%.6g %.6g %.6g", rd / w, a / w, t / w }')"
    fi
    read -r rd a tt <<<"$rat"
    printf '%s\tMCML 1.2\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t-\n' "$input" \
        "gcc -O3, $cores process$([[ "$cores" -gt 1 ]] && echo es)" "$cores" "$n" "$secs" "$(fdiv "$n" "$secs")" "$rd" "$a" "$tt" >> "$tsv"
    log "$input MCML 1.2 ${cores} core(s): $n photons in $secs s"
}

measure_project() { # input photons cores precision strategy [binary label]
    local input="$1" n="$2" cores="$3" prec="$4" strategy="$5" flags s e secs lg
    local exe="${6:-$bin}" code="${7:-reconverge}"
    if [[ "$prec" == f32 ]]; then flags=("${f32_flag[@]}"); else flags=("${f64_flag[@]}"); fi
    # The older binary's precision flag: f64 by default, --f32 to opt in.
    [[ "$code" == "reconverge" || "$prec" == f64 ]] || flags=(--f32)
    [[ "$code" == "reconverge" || "$prec" == f32 ]] || flags=()
    lg="$logs/$input-${code// /-}-$strategy-$prec-${cores}core.log"
    s="$(now)"
    RAYON_NUM_THREADS="$cores" "$exe" --builtin "$input" "${flags[@]}" --strategy "$strategy" \
        --photons "$n" > "$lg" 2>&1
    e="$(now)"
    secs="$(fsub "$e" "$s")"
    local rd a tt own threads
    rd="$(awk '$1 == "Rd" { print $3 }' "$lg")"
    a="$(awk '$1 == "A" { print $3 }' "$lg")"
    tt="$(awk '$1 == "Tt" { print $3 }' "$lg")"
    own="$(sed -n 's/.*photons\/s (\([0-9.]*\) s, \([0-9]*\) threads).*/\1/p' "$lg")"
    threads="$(sed -n 's/.*photons\/s ([0-9.]* s, \([0-9]*\) threads).*/\1/p' "$lg")"
    [[ -z "$threads" || "$threads" == "$cores" ]] ||
        log "warning: $lg reports $threads threads, expected $cores"
    printf '%s\t%s\t%s %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$input" "$code" "$strategy" "$prec" \
        "$cores" "$n" "$secs" "$(fdiv "$n" "$secs")" "$rd" "$a" "$tt" "${own:--}" >> "$tsv"
    log "$input $code $strategy $prec ${cores} core(s): $n photons in $secs s"
}

load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
declare -A overhead
for input in skin slab; do
    n_var="photons_$input"
    n="${!n_var}"
    # MCML 1.2's fixed cost (start, parse, allocate, write the .mco): a 100-photon run.
    d="$work/run/$input-mcml12-overhead"
    mkdir -p "$d" && make_mci "$input" 100 "$d"
    overhead[$input]="$(run_mcml12_in "$d" "$input")"
    for cores in $cores_list; do
        measure_mcml12 "$input" "$n" "$cores"
        measure_project "$input" "$n" "$cores" f32 scalar
        measure_project "$input" "$n" "$cores" f32 baseline
        measure_project "$input" "$n" "$cores" f64 scalar
        if [[ -n "${MCML_BEFORE_BIN:-}" ]]; then
            measure_project "$input" "$n" "$cores" f32 scalar "$MCML_BEFORE_BIN" "reconverge before"
            measure_project "$input" "$n" "$cores" f32 baseline "$MCML_BEFORE_BIN" "reconverge before"
        fi
    done
done
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"

# ---------------------------------------------------------------------------------------------
# Profile: callgrind on the scalar f32 loop (skin), and on MCML 1.2 for comparison.
profile() { # name cmd... ; prints "total_Ir"; writes $out/callgrind-NAME.{out,txt}
    local name="$1"
    shift
    valgrind --tool=callgrind --callgrind-out-file="$out/callgrind-$name.out" "$@" \
        > "$logs/callgrind-$name.log" 2>&1
    callgrind_annotate --inclusive=no --auto=no --threshold=100 "$out/callgrind-$name.out" > "$out/callgrind-$name.txt" 2>/dev/null
    awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }' "$out/callgrind-$name.txt"
}
# Top $2 of a callgrind_annotate listing, summed by function ("fn") or by source file ("file").
top_list() { # txt fn|file count (reads all of sort's output: `head` would make it die of
    # SIGPIPE on a long list, which pipefail turns into the script's exit status)
    awk -v by="$2" -v top="$3" -v root="$root/" '
        /PROGRAM TOTALS/ { total = $1; gsub(",", "", total); next }
        /^ *[0-9,]+ +\( *[0-9.]+%\) +/ && total > 0 {
            ir = $1; gsub(",", "", ir)
            line = $0; sub(/^ *[0-9,]+ +\( *[0-9.]+%\) +/, "", line); sub(/ +\[[^]]*\]$/, "", line)
            i = index(line, ":")
            file = i ? substr(line, 1, i - 1) : "???"; fn = i ? substr(line, i + 1) : line
            if (index(file, root) == 1) file = substr(file, length(root) + 1)
            sub(/^\/rustc\/[0-9a-f]+\/library\//, "(rust std) ", file)
            sub(/^.*\/registry\/src\/[^\/]+\//, "(crate) ", file)
            key = (by == "file") ? file : fn
            sum[key] += ir
        }
        END {
            for (k in sum) printf "%.2f\t%s\n", 100 * sum[k] / total, k
        }' "$1" | sort -t$'\t' -k1,1 -gr | awk -v n="$3" 'NR <= n' |
        awk -F'\t' '{ f = $2; if (length(f) > 110) f = substr(f, 1, 107) "..."; printf "| %6.2f%% | `%s` |\n", $1, f }'
}
profile_ok=0
if command -v valgrind > /dev/null && command -v callgrind_annotate > /dev/null; then
    log "callgrind: reconverge scalar f32, skin, $photons_profile photons"
    ir_project="$(RAYON_NUM_THREADS=1 profile reconverge "$bin" --builtin skin "${f32_flag[@]}" \
        --strategy scalar --photons "$photons_profile")"
    log "callgrind: MCML 1.2, skin, $photons_profile photons"
    d="$work/run/skin-mcml12-callgrind"
    mkdir -p "$d" && make_mci skin "$photons_profile" "$d"
    ir_mcml12="$(cd "$d" && profile mcml12 "$mcml12" skin.mci)"
    profile_ok=1
else
    log "valgrind/callgrind_annotate not found: no profile"
fi

# ---------------------------------------------------------------------------------------------
# Report.
cpu_model="$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || uname -m)"
git_rev="$(cd "$root" && git rev-parse --short HEAD 2>/dev/null || echo '?')"
git_dirty="$(cd "$root" && git status --porcelain --untracked-files=no 2>/dev/null | wc -l)"
md="$out/cpu-vs-mcml12.md"

# Rows with the ratio against MCML 1.2 at the same input and cores.
table() { # with_results(1/0)
    awk -F'\t' -v full="$1" '
        NR == 1 { next }
        { row[NR] = $0; if ($2 == "MCML 1.2") ref[$1 "," $4] = $7 }
        END {
            if (full) {
                print "| input | code / mode | cores | photons | seconds | photons/s | vs MCML 1.2 | Rd | A | Tt |"
                print "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|"
            } else {
                printf "%-6s %-32s %5s %9s %8s %10s %7s\n", "input", "code / mode", "cores", "photons", "s", "photons/s", "ratio"
            }
            for (i = 2; i <= NR; i++) {
                split(row[i], f, "\t")
                r = ref[f[1] "," f[4]]
                ratio = r > 0 ? sprintf("%.2fx", f[7] / r) : "-"
                name = f[2] " " f[3]
                if (full)
                    printf "| %s | %s | %s | %s | %.2f | %d | %s | %.5f | %.5f | %.5f |\n", f[1], name, f[4], f[5], f[6], f[7], ratio, f[8], f[9], f[10]
                else
                    printf "%-6s %-32s %5s %9s %8.2f %10d %7s\n", f[1], name, f[4], f[5], f[6], f[7], ratio
            }
        }' "$tsv"
}

# Agreement: each row against MCML 1.2 on one core. sigma(p) = sqrt(p (1 - p) / N) bounds the
# standard error of a per-photon score in [0, 1] (Rd, A and Tt are such scores); z = diff / the
# combined bound, so |z| > 4 is unlikely to be noise.
agreement() {
    awk -F'\t' '
        function sg(p, n) { return p > 0 && p < 1 ? p * (1 - p) / n : 0 }
        function z(x, nx, y, ny,   s) { s = sqrt(sg(x, nx) + sg(y, ny)); return s > 0 ? (x - y) / s : 0 }
        NR == 1 { next }
        $2 == "MCML 1.2" && $4 == 1 { rn[$1] = $5; rd[$1] = $8; ra[$1] = $9; rt[$1] = $10; next }
        { row[++m] = $0 }
        END {
            print "| input | code / mode | cores | dRd | dA | dTt | max abs(z) | verdict |"
            print "|---|---|--:|--:|--:|--:|--:|---|"
            for (i = 1; i <= m; i++) {
                split(row[i], f, "\t")
                if (!(f[1] in rn)) continue
                z1 = z(f[8], f[5], rd[f[1]], rn[f[1]]); z2 = z(f[9], f[5], ra[f[1]], rn[f[1]])
                z3 = z(f[10], f[5], rt[f[1]], rn[f[1]])
                mz = z1 < 0 ? -z1 : z1; if ((z2 < 0 ? -z2 : z2) > mz) mz = z2 < 0 ? -z2 : z2
                if ((z3 < 0 ? -z3 : z3) > mz) mz = z3 < 0 ? -z3 : z3
                printf "| %s | %s %s | %s | %+.5f | %+.5f | %+.5f | %.1f | %s |\n", f[1], f[2], f[3], f[4],
                    f[8] - rd[f[1]], f[9] - ra[f[1]], f[10] - rt[f[1]], mz, (mz > 4 ? "CHECK" : "within noise")
            }
        }' "$tsv"
}

{
    echo "# CPU throughput: reconverge MCML vs MCML 1.2 (C)"
    echo
    echo "- Date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "- CPU: $cpu_model; $(nproc) cores available to this run; load average $load_before before, $load_after after"
    echo "- Command: \`$cmdline\`"
    echo "- reconverge: $bin (git $git_rev$([[ "$git_dirty" -gt 0 ]] && echo ", $git_dirty tracked files modified")), $rustc_version;" \
        "precision flags: f32 = \`${f32_flag[*]:-(default)}\`, f64 = \`${f64_flag[*]:-(default)}\`"
    echo "- MCML 1.2: $src ($mcml12_version), \`$cc ${cflags[*]}\` ($cc_version), with 1.2.2's \`static\` buffer in FindDataLine"
    echo "- Timing: wall clock of whole processes for both codes (\`date +%s.%N\`), one measurement each." \
        "MCML 1.2 at k cores: k concurrent single-threaded processes, each with 1/k of the photons," \
        "time = the slower one; reconverge: one process, RAYON_NUM_THREADS = cores." \
        "MCML 1.2's fixed cost (start, parse, allocate, write the .mco; a 100-photon run):" \
        "skin ${overhead[skin]} s, slab ${overhead[slab]} s, included in its times."
    echo "- Rd, A, Tt: MCML's .mco RAT section (at 2+ cores the photon-weighted mean of the processes';" \
        "MCML 1.2 seeds from time(NULL), so processes started in the same second repeat the same photons);" \
        "reconverge's stdout (seed 1). The numbers are indicative: other work on the machine changes them."
    echo
    table 1
    echo
    echo "## Agreement with MCML 1.2 (1 core)"
    echo
    echo "Differences from MCML 1.2's 1-core run; z = difference / sqrt(s1^2 + s2^2) with s = sqrt(p(1-p)/N)," \
        "an upper bound on the standard error of a per-photon score in [0, 1], so |z| > 4 is unlikely to be noise."
    echo
    agreement
    echo
    if [[ "$profile_ok" -eq 1 ]]; then
        echo "## Profile (callgrind, skin, $photons_profile photons, self instructions)"
        echo
        echo "reconverge \`--strategy scalar\` f32, RAYON_NUM_THREADS=1: $(awk -v a="$ir_project" -v n="$photons_profile" 'BEGIN { printf "%.0f", a / n }') instructions per photon" \
            "(whole process); MCML 1.2: $(awk -v a="$ir_mcml12" -v n="$photons_profile" 'BEGIN { printf "%.0f", a / n }') instructions per photon" \
            "(whole process, including its start-up and writing the .mco; see its fixed cost above)." \
            "With inlining, most of the project's loop lands in one function (the rayon closure); the source files that the" \
            "inlined instructions come from (line tables, \`debug = 1\`) say more. Full listings: callgrind-*.txt."
        echo
        echo "reconverge, top functions:"
        echo
        echo "| self Ir | function |"
        echo "|--:|---|"
        top_list "$out/callgrind-reconverge.txt" fn 8
        echo
        echo "reconverge, top source files (inlined code attributed to its file):"
        echo
        echo "| self Ir | file |"
        echo "|--:|---|"
        top_list "$out/callgrind-reconverge.txt" file 8
        echo
        echo "MCML 1.2, top functions:"
        echo
        echo "| self Ir | function |"
        echo "|--:|---|"
        top_list "$out/callgrind-mcml12.txt" fn 8
        echo
    fi
} > "$md"

echo
table 0
echo
echo "Rd, A, Tt against MCML 1.2 on 1 core:"
agreement | sed -n '3,$p' | awk -F'|' '{ gsub(/^ +| +$/, "", $3); printf "  %-5s %-32s %2d cores  max|z| %5.1f  %s\n", $2, $3, $4, $8, $9 }'
if [[ "$profile_ok" -eq 1 ]]; then
    echo
    echo "callgrind, reconverge scalar f32 (skin, $photons_profile photons), top functions:"
    top_list "$out/callgrind-reconverge.txt" fn 8 | cut -c1-120
fi
echo
echo "report: $md"
