#!/usr/bin/env bash
# Packages every library crate as `cargo publish` would (metadata, dependencies, no cycle in
# the packaging order), then unpacks reconverge-paper-kernels' .crate and checks that the
# device crate travels inside it: its sources and manifest template are there, and the
# unpacked crate builds its PTX (feature cuda, nightly with rust-src and llvm-tools) with the
# other reconverge crates taken from this checkout through [patch.crates-io], as they would
# come from the registry. Then checks the `mcml` program as `cargo install` gives it: the
# packaged reconverge-mcml-cli holds its binary's sources and Cargo.lock, and `cargo install
# --path mcml/cli --locked` installs an `mcml` whose --help runs. Run by CI (.ci/run);
# `--list-only` skips the PTX build and the install.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
name=reconverge-paper-kernels
# Left out: the user-shaped example (unpublished) and
# the apps (unpublished, they depend on the unpublished benches crate's experiments).
cargo package --workspace --exclude user-workload \
    --exclude reconverge-apps --no-verify --allow-dirty --quiet
work="$root/target/package-check"
rm -rf "$work"
mkdir -p "$work"
tar -xzf "target/package/$name-$version.crate" -C "$work"
pkg="$work/$name-$version"
missing=0
for f in build.rs device/Cargo.toml.in device/Cargo.lock device/builder.rs device/names.rs \
    device/src/lib.rs device/src/gpu.rs device/src/plain.rs device/src/selftest.rs src/lib.rs \
    src/selftest.rs; do
    if [[ ! -f "$pkg/$f" ]]; then
        echo "FAIL: $f is not in the packaged $name"
        missing=1
    fi
done
# A Cargo.toml under device/ would be a package of its own, which cargo package leaves out.
if [[ -e "$pkg/device/Cargo.toml" ]]; then
    echo "FAIL: device/Cargo.toml is packaged (the device manifest must stay a template)"
    missing=1
fi
if grep -q 'path *= *"\.\.' "$pkg/device/Cargo.toml.in"; then
    echo "FAIL: the device manifest template has a relative path dependency"
    missing=1
fi
cli=reconverge-mcml-cli
# Listed once into a variable: `tar | grep -q` under pipefail fails at random, grep leaving
# early and tar dying of SIGPIPE.
cli_files=$(tar -tzf "target/package/$cli-$version.crate")
for f in src/main.rs src/lib.rs Cargo.lock README.md; do
    if ! grep -qx "$cli-$version/$f" <<<"$cli_files"; then
        echo "FAIL: $f is not in the packaged $cli (cargo install needs it)"
        missing=1
    fi
done
[[ $missing == 0 ]] || exit 1
echo "ok: the packaged $name holds the device crate's sources and manifest template"
echo "ok: the packaged $cli holds the mcml binary's sources and its Cargo.lock"
[[ "${1:-}" == "--list-only" ]] && exit 0

# The unpacked crate, built on its own: every reconverge crate from this checkout, as if from
# the registry.
# The empty [workspace] keeps it out of this checkout's workspace, as a download is.
{
    echo
    echo "[workspace]"
    echo
    echo "[patch.crates-io]"
    for crate in occupancy:reconverge-occupancy backend:reconverge-backend \
        simt-model:reconverge-simt transforms:reconverge-transforms \
        workloads:reconverge-workloads cuda-runtime:reconverge-gpu \
        gpu-kernels/build-support:reconverge-gpu-build \
        gpu-kernels/device-support:reconverge-device; do
        echo "${crate#*:} = { path = \"$root/${crate%%:*}\" }"
    done
} >> "$pkg/Cargo.toml"
CARGO_TARGET_DIR="$work/target" cargo build --offline --quiet --manifest-path "$pkg/Cargo.toml" --features cuda
ptx=$(ls "$work"/target/debug/build/"$name"-*/out/kernels.ptx)
if grep -q '\.extern \.func' "$ptx"; then
    echo "FAIL: $ptx calls an undefined function"
    exit 1
fi
echo "ok: the unpacked $name builds its PTX ($(grep -c '^\.visible \.entry' "$ptx") entry points, no .extern .func)"

# The program a user installs: `cargo install --locked` of the CLI crate, then its --help. The
# release build shares its dependencies with scripts/mpi-check.sh's (run before this by CI):
# only reconverge-mcml and the CLI are compiled again.
bin="$(mktemp -d)"
trap 'rm -rf "$bin"' EXIT
cargo install --quiet --path "$root/mcml/cli" --root "$bin" --locked \
    --target-dir "${CARGO_TARGET_DIR:-$root/target}/mpi"
help=$("$bin/bin/mcml" --help)
grep -q -- "--input" <<<"$help"
echo "ok: cargo install --path mcml/cli --locked installs an mcml whose --help runs"
