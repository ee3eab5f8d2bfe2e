#!/usr/bin/env bash
# MCML under MPI on the CPU backend: `mpirun -np 2` (and 3) of the `mcml` program (the binary
# of reconverge-mcml-cli, which `cargo install` installs) built with feature `mpi` must write
# the .mco one process writes, bit for bit (all but MCML's line with the run's time). Installs
# Open MPI and libclang from Debian's packages where they are missing (the mpi crate's bindings
# need both). Run by .ci/run; needs no GPU.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
if ! command -v mpicc > /dev/null || ! ls /usr/lib/llvm-*/lib/libclang*.so* > /dev/null 2>&1; then
    apt-get update -q > /dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q openmpi-bin libopenmpi-dev libclang-dev > /dev/null
fi
target="${CARGO_TARGET_DIR:-$root/target}/mpi"
cargo build --release --manifest-path "$root/Cargo.toml" -p reconverge-mcml-cli --features mpi \
    --bin mcml --target-dir "$target"
mcml="$target/release/mcml"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
mpirun_() { mpirun --allow-run-as-root --oversubscribe "$@"; }
# Each run writes run.mco in its own folder: `--output` names the run inside the .mco too
# (InParm's output file), so the three files compare only under one name.
mkdir one two three
(cd one && "$mcml" --builtin skin --photons 30000 --output run.mco > run.log)
(cd two && mpirun_ -np 2 "$mcml" --builtin skin --photons 30000 --output run.mco > run.log)
(cd three && mpirun_ -np 3 "$mcml" --builtin skin --photons 30000 --strategy dynamic \
    --output run.mco > run.log)
same() { cmp <(grep -v "User time" "$1") <(grep -v "User time" "$2"); }
same one/run.mco two/run.mco
same one/run.mco three/run.mco
grep -q "over 2 processes" two/run.log
echo "mpi check: 2 and 3 processes write the 1-process .mco bit for bit"
