#!/usr/bin/env bash
# The pictures of `mcml --plot` for every input the repository ships, for
# docs/results/mcml/pictures/.
#
#   scripts/mcml-pictures.sh [OUTDIR]
#
# Draws, into OUTDIR (default docs/results/mcml/pictures), with PHOTONS photons per run (default
# 100000: enough for smooth curves, few enough to keep the run short), seed 1, f32, the default
# strategy:
#   - the four built-in inputs (skin, slab, vandehulst, giovanelli), MCML's pencil beam;
#     scripts/mcml12-inputs/skin.mci and slab.mci are the same models for MCML 1.2 and are not
#     drawn again;
#   - mcml/fuzz/corpus/parse_mci/sample.mci, both of its runs (MCML's sample layers on a 10 x 10
#     grid, and a one-bin grid);
#   - skin under a flat beam of radius 0.1 cm two ways: convolved from the pencil run with the
#     bins' interpolation (--convolve, skin.flat_0.1cm-*) and sampled in the simulation
#     (--beam, skin-flat-sampled-*), the sampled beam also on the linear scale
#     (--plot-scale linear, skin-flat-linear-*: a pencil beam's peak at the entry point would
#     leave the rest of a linear map in the lowest colour);
# each as STEM-rd_r, -tt_r, -a_z and -fluence, SVG and PNG. Builds the `mcml` binary (cargo build
# --release --locked -p reconverge-mcml-cli --bin mcml; MCML_BIN to use another). The .mco
# files go to a temporary folder; OUTDIR gets the pictures and pictures.log (the program's
# output, which names every file drawn).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/docs/results/mcml/pictures}"
photons="${PHOTONS:-100000}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
if [[ -n "${MCML_BIN:-}" ]]; then
    bin="$(cd "$(dirname "$MCML_BIN")" && pwd)/$(basename "$MCML_BIN")"
else
    (cd "$root" && cargo build --release --locked -p reconverge-mcml-cli --bin mcml) >&2
    bin="${CARGO_TARGET_DIR:-$root/target}/release/mcml"
fi
work="$(mktemp -d "${TMPDIR:-/tmp}/mcml-pictures.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cd "$work"
rm -f "$out"/*.svg "$out"/*.png
run() { echo "\$ mcml $*"; "$bin" --photons "$photons" --plot "$out" "$@"; echo; }
{
    run --builtin skin --output skin.mco --convolve flat:0.1 --convolve-interpolation bins
    for b in slab vandehulst giovanelli; do
        run --builtin "$b" --output "$b.mco"
    done
    cp "$root/mcml/fuzz/corpus/parse_mci/sample.mci" .
    run --input sample.mci
    run --builtin skin --output skin-flat-sampled.mco --beam flat:0.1
    run --builtin skin --output skin-flat-linear.mco --beam flat:0.1 --plot-scale linear
} 2>&1 | grep -v 'photons/s' | tee "$out/pictures.log"
