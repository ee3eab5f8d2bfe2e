#!/usr/bin/env bash
# The README's main job timed as a user runs it, beside MCML 1.2 in the same run.
#
#   scripts/main-job-timing.sh MCML12_SRC_DIR [OUTDIR]
#
# The main job is `cargo run --release --example mcml` with no arguments: the built-in skin
# model, 100,000 photons, f32, the default strategy. The example calls `reconverge_mcml_cli::main`,
# the same code as the `mcml` binary, so the script builds that binary (`cargo build --release
# --locked -p reconverge-mcml-cli --bin mcml`; MCML_BIN to use another) and times the process
# with no arguments, which leaves out cargo's own start (about 0.1 s when nothing is rebuilt).
# MCML 1.2 (MCML12_SRC_DIR holds its published sources, not part of this repository; built by
# scripts/mcml12-build.sh with gcc -O3 and the one fix current compilers need) runs the same
# skin model (scripts/mcml12-inputs/skin.mci) with the same photons, on one core: it is
# single-threaded.
#
# They run in turn, RUNS times: the project, MCML 1.2, and the project under `--strategy
# baseline` (the GPU strategies' reference, in warps of 32 emulated on the CPU: the default
# before issue 43), so a machine that slows down slows all three. Every figure is a whole process's, from bash's `time`: start-up, input, the photons
# and, for MCML 1.2, writing its .mco. Reported:
#   - the project's wall time per run: median, min-max and the middle half (quartiles);
#   - photons per second per core: photons / CPU seconds (user + system) of the process, the
#     project's over the cores it used and MCML 1.2's on its one, and their ratio pair by pair,
#     median and min-max: CPU seconds do not count the time another program held a core, so
#     this figure drifts far less with a shared machine's load than the wall time does;
#   - the baseline's photons per CPU second and the default's ratio to it, pair by pair.
#
# Writes OUTDIR (default target/main-job-timing): main-job-timing.md (the report), runs.tsv and
# logs/. Touches no tracked file.
#
# Environment:
#   RUNS      pairs of runs (default 9)
#   PHOTONS   photons of MCML 1.2's runs (default 100000, the main job's)
#   MCML_BIN  time this `mcml` binary instead of building one
#   CC        C compiler for MCML 1.2 (default gcc)
set -euo pipefail

usage() { sed -n '2,4p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
[[ $# -ge 1 && $# -le 2 ]] || usage
[[ "$1" != -h && "$1" != --help ]] || usage

root="$(cd "$(dirname "$0")/.." && pwd)"
src="$(cd "$1" && pwd)"
out="${2:-$root/target/main-job-timing}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
runs="${RUNS:-9}"
photons="${PHOTONS:-100000}"
cc="${CC:-gcc}"
[[ "$runs" =~ ^[0-9]+$ && "$runs" -ge 3 ]] || { echo "error: RUNS must be an integer >= 3" >&2; exit 1; }
[[ "$photons" =~ ^[0-9]+$ && "$photons" -ge 2 ]] || { echo "error: PHOTONS must be an integer >= 2" >&2; exit 1; }
cmdline="$0 $*"
for v in RUNS PHOTONS MCML_BIN CC; do
    [[ -z "${!v:-}" ]] || cmdline="$v=${!v} $cmdline"
done

if [[ -n "${MCML_BIN:-}" && "$MCML_BIN" != /* ]]; then MCML_BIN="$PWD/$MCML_BIN"; fi
work="$(mktemp -d "${TMPDIR:-/tmp}/main-job-timing.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cd "$work" # nothing below writes into the caller's folder
logs="$out/logs"
rm -rf "$logs"
mkdir -p "$logs"
log() { echo "[$(date +%T)] $*" >&2; }

# shellcheck source=scripts/mcml12-build.sh
source "$root/scripts/mcml12-build.sh"
log "building MCML 1.2 from $src"
build_mcml12 "$src" "$work/mcml12" "$cc" "$logs/mcml12-build.log"

build_project_mcml "$root" "$logs/cargo-build.log"

mkdir -p "$work/m12"
sed "s/@PHOTONS@/$photons/" "$root/scripts/mcml12-inputs/skin.mci" > "$work/m12/skin.mci"
tsv="$out/runs.tsv"
printf 'pair\tproject_s\tproject_photons\tproject_cores\tproject_pps_per_core\tmcml12_s\tmcml12_pps\tratio\tproject_cpu_s\tmcml12_cpu_s\tbaseline_s\tbaseline_cpu_s\tbaseline_pps_per_core\tdefault_over_baseline\n' > "$tsv"
log "warm-up: one run of each"
"$bin" > "$logs/warm-up-project.log" 2>&1
"$bin" --strategy baseline > "$logs/warm-up-baseline.log" 2>&1
(cd "$work/m12" && "$mcml12" skin.mci > "$logs/warm-up-mcml12.log" 2>&1)
# Wall, user and system seconds of a command, its output to $1.
timed() { # log command...
    local log="$1" TIMEFORMAT='%R %U %S'
    shift
    { time "$@" > "$log" 2>&1; } 2>&1
}
for ((i = 1; i <= runs; i++)); do
    read -r p_s p_u p_sys <<<"$(timed "$logs/project-$i.log" "$bin")"
    # The header names the photons; the rate line the threads the plain loop ran on.
    p_n="$(grep -o '[0-9]* photons,' "$logs/project-$i.log" | head -1 | grep -o '[0-9]*')"
    p_c="$(grep -o '[0-9]* threads\?)' "$logs/project-$i.log" | head -1 | grep -o '[0-9]*')"
    read -r m_s m_u m_sys <<<"$(cd "$work/m12" && timed "$logs/mcml12-$i.log" "$mcml12" skin.mci)"
    read -r b_s b_u b_sys <<<"$(timed "$logs/baseline-$i.log" "$bin" --strategy baseline)"
    awk -v i="$i" -v ps="$p_s" -v pn="$p_n" -v pc="$p_c" -v pcpu="$(awk -v a="$p_u" -v b="$p_sys" 'BEGIN { print a + b }')" \
        -v ms="$m_s" -v mn="$photons" -v mcpu="$(awk -v a="$m_u" -v b="$m_sys" 'BEGIN { print a + b }')" \
        -v bs="$b_s" -v bcpu="$(awk -v a="$b_u" -v b="$b_sys" 'BEGIN { print a + b }')" 'BEGIN {
        ppc = pn / pcpu; mp = mn / mcpu; bp = pn / bcpu
        printf "%d\t%.3f\t%d\t%d\t%.0f\t%.3f\t%.0f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.0f\t%.3f\n",
            i, ps, pn, pc, ppc, ms, mp, ppc / mp, pcpu, mcpu, bs, bcpu, bp, ppc / bp }' >> "$tsv"
    log "pair $i: project $p_s s ($p_n photons, $p_c cores), MCML 1.2 $m_s s, baseline $b_s s"
done

# Median, quartiles (by the order statistics nearest to them) and extremes of a column.
stats() { # column
    awk -F'\t' -v c="$1" 'NR > 1 { print $c }' "$tsv" | sort -g | awk '
        { v[NR] = $1 }
        END {
            n = NR; mid = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
            printf "%s %s %s %s %s", mid, v[1], v[n], v[int((n + 3) / 4)], v[n + 1 - int((n + 3) / 4)]
        }'
}
read -r t_med t_min t_max t_q1 t_q3 <<<"$(stats 2)"
read -r p_med p_min p_max _ _ <<<"$(stats 5)"
read -r m_med m_min m_max _ _ <<<"$(stats 7)"
read -r r_med r_min r_max _ _ <<<"$(stats 8)"
read -r ms_med ms_min ms_max _ _ <<<"$(stats 6)"
read -r bp_med bp_min bp_max _ _ <<<"$(stats 13)"
read -r db_med db_min db_max _ _ <<<"$(stats 14)"
cores="$(awk -F'\t' 'NR == 2 { print $4 }' "$tsv")"
pn="$(awk -F'\t' 'NR == 2 { print $3 }' "$tsv")"
{
    echo "# The main job's time, beside MCML 1.2"
    echo
    echo "\`$cmdline\`, $(date -u +%Y-%m-%d) ($(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?'))."
    echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')."
    echo "The project: \`$bin\` with no arguments (the README's \`cargo run --release --example mcml\`:"
    echo "skin, $pn photons, f32, the default strategy), $cores cores. MCML 1.2: $mcml12_version,"
    echo "\`$cc ${cflags[*]}\` ($cc_version), the same skin model, $photons photons, one core."
    echo "$runs rounds of the project, MCML 1.2 and the project under \`--strategy baseline\`, after one warm-up run of each; whole processes' wall and CPU (user + system) seconds from bash's \`time\`."
    echo
    echo "| | median | min - max | middle half |"
    echo "|---|---|---|---|"
    echo "| project, wall time (s) | $t_med | $t_min - $t_max | $t_q1 - $t_q3 |"
    echo "| project, photons per CPU second (per core) | $p_med | $p_min - $p_max | |"
    echo "| MCML 1.2, wall time (s) | $ms_med | $ms_min - $ms_max | |"
    echo "| MCML 1.2, photons per CPU second (one core) | $m_med | $m_min - $m_max | |"
    echo "| project / MCML 1.2, per core, pair by pair | $r_med | $r_min - $r_max | |"
    echo "| project \`--strategy baseline\`, photons per CPU second (per core) | $bp_med | $bp_min - $bp_max | |"
    echo "| default / baseline, per core, pair by pair | $db_med | $db_min - $db_max | |"
    echo
    echo "Each pair's figures: \`runs.tsv\`; each process's output: \`logs/\`."
} > "$out/main-job-timing.md"
cat "$out/main-job-timing.md"
