# Builds MCML 1.2 (C; Wang, Jacques & Zheng) from its published sources, for the scripts that
# time the project against it (cpu-vs-mcml12.sh, main-job-timing.sh). Source this file, then
#
#   build_mcml12 SRC_DIR WORK_DIR CC LOG
#
# copies SRC_DIR's mcml.h mcmlmain.c mcmlgo.c mcmlio.c mcmlnr.c into WORK_DIR, applies the one
# fix below and builds WORK_DIR/mcml12 with CC -O3. Sets mcml12 (the binary), mcml12_version,
# cflags (an array) and cc_version. And
#
#   build_project_mcml ROOT LOG
#
# sets bin to the project's `mcml` the scripts time against it: MCML_BIN where it is set, else
# the release build of reconverge-mcml-cli (cargo's output to LOG; CARGO_TARGET_DIR honoured).
#
# The fix (MCML 1.2.2, "LW 1/11/2000. Added static."): FindDataLine() in mcmlio.c returns the
# address of its local `char buf[STRLEN]`. Current gcc (-Wreturn-local-addr) compiles that
# `return` as a null pointer, so MCML 1.2 dies with SIGSEGV in ReadNumRuns' strcpy before it
# reads anything, at every optimisation level. 1.2.2 made the buffer `static`; so does this.
# For gcc >= 14, where an implicit function declaration is an error, the ShowVersion()
# prototype that 1.2.2 added to mcmlmain.c is added too (a no-op where it is already declared).
# The other 1.2.2 changes (short-index clamping in the tallies, the Tt_a angle sign, the banner)
# do not affect Rd, A, Tt or the speed and are not applied: this is MCML 1.2 as published.
patch_mcml12() {
    local d="$1"
    sed -i '/^char \*[[:space:]]*FindDataLine/,/^}/ s/^\([[:space:]]*\)char buf\[STRLEN\];/\1static char buf[STRLEN];/' "$d/mcmlio.c"
    if ! grep -q 'static char buf\[STRLEN\]' <<<"$(sed -n '/^char \*[[:space:]]*FindDataLine/,/^}/p' "$d/mcmlio.c")"; then
        echo "error: could not apply the FindDataLine fix to $d/mcmlio.c (not MCML 1.2?)" >&2
        exit 1
    fi
    grep -q 'void[[:space:]]*ShowVersion' "$d/mcmlmain.c" ||
        sed -i '/#include "mcml.h"/a void ShowVersion(char *);' "$d/mcmlmain.c"
}

build_mcml12() { # src work cc log
    local src="$1" work="$2" cc="$3" log="$4" f gcc_major
    for f in mcml.h mcmlmain.c mcmlgo.c mcmlio.c mcmlnr.c; do
        [[ -f "$src/$f" ]] || { echo "error: $src/$f not found (need MCML 1.2's sources)" >&2; exit 1; }
    done
    mkdir -p "$work"
    cp "$src"/mcml.h "$src"/mcml*.c "$work/"
    patch_mcml12 "$work"
    mcml12_version="$(grep -o 'Version [0-9.]*[^"]*' "$work/mcmlmain.c" | head -1 || true)"
    cflags=(-O3)
    gcc_major="$("$cc" -dumpversion 2>/dev/null | cut -d. -f1 || echo 0)"
    [[ "$gcc_major" =~ ^[0-9]+$ && "$gcc_major" -ge 14 ]] && cflags+=(-fpermissive)
    (cd "$work" && "$cc" "${cflags[@]}" -o mcml12 mcmlmain.c mcmlgo.c mcmlio.c mcmlnr.c -lm) \
        > "$log" 2>&1 || { cat "$log" >&2; exit 1; }
    mcml12="$work/mcml12"
    cc_version="$("$cc" --version | head -1)"
}

build_project_mcml() { # root log
    local root="$1" log="$2" target_dir
    if [[ -n "${MCML_BIN:-}" ]]; then
        bin="$MCML_BIN"
        echo "[$(date +%T)] using $bin (MCML_BIN)" >&2
    else
        target_dir="${CARGO_TARGET_DIR:-$root/target}"
        echo "[$(date +%T)] cargo build --release -p reconverge-mcml-cli --bin mcml (target dir $target_dir)" >&2
        (cd "$root" && CARGO_TARGET_DIR="$target_dir" cargo build --release --locked \
            -p reconverge-mcml-cli --bin mcml) > "$log" 2>&1 ||
            { tail -30 "$log" >&2; exit 1; }
        bin="$target_dir/release/mcml"
    fi
    [[ -x "$bin" ]] || { echo "error: $bin is not an executable" >&2; exit 1; }
}
