//! Checks on a finished PTX module: the entries the host will look up, and no unresolved calls.

/// Why a PTX module cannot be loaded as it is.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PtxCheckError {
    /// Kernels the host expects are not `.entry` points of the module (a name typo, a missing
    /// `#[unsafe(no_mangle)]`, or an entry point not compiled for this target).
    #[error(
        "PTX is missing the kernel entry point(s) {}; it has: {}",
        missing.join(", "),
        if found.is_empty() { "none".to_string() } else { found.join(", ") }
    )]
    MissingEntries {
        /// Expected kernels without an `.entry`.
        missing: Vec<String>,
        /// The entries the module has.
        found: Vec<String>,
    },
    /// The module declares functions it does not define (`.extern .func`): the CUDA driver
    /// cannot resolve them, so loading would fail. Usually a crate whose bitcode was not linked.
    #[error(
        "PTX calls undefined function(s) {} (`.extern .func`): link every crate's bitcode",
        names.join(", ")
    )]
    UndefinedFunctions {
        /// The undefined functions.
        names: Vec<String>,
    },
}

/// What [`check_ptx`] found in a module that passed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PtxSummary {
    /// Every `.entry` of the module, in order.
    pub entries: Vec<String>,
    /// The `.target` line's architecture (`sm_80`), if present.
    pub target: Option<String>,
    /// The `.version` of the PTX ISA (`8.0`), if present.
    pub version: Option<String>,
}

/// The kernels a crate defines, read off its LLVM IR (`llvm-dis` of its bitcode): the functions
/// of the `ptx_kernel` calling convention (`extern "ptx-kernel"`), in order.
pub fn kernels_in_ir(ir: &str) -> Vec<String> {
    ir.lines()
        .filter(|l| l.starts_with("define ") && l.contains(" ptx_kernel "))
        .filter_map(|l| {
            let name = l.split_once('@')?.1;
            let end = name.find('(')?;
            Some(name[..end].trim_matches('"').to_string())
        })
        .collect()
}

/// The names of the `.entry` points of `ptx`, in order.
pub fn entries(ptx: &str) -> Vec<String> {
    directive_names(ptx, ".entry")
}

/// The names of the functions `ptx` declares but does not define (`.extern .func`).
pub fn undefined_functions(ptx: &str) -> Vec<String> {
    ptx.lines()
        .filter_map(|line| line.trim_start().strip_prefix(".extern"))
        .filter_map(|rest| rest.trim_start().strip_prefix(".func"))
        .filter_map(symbol_after_directive)
        .collect()
}

/// Checks that every kernel of `expected` is an `.entry` of `ptx` and that `ptx` has no
/// `.extern .func`.
///
/// ```
/// use reconverge_gpu_build::{PtxCheckError, check_ptx};
///
/// let ptx = ".version 8.0\n.target sm_90\n.visible .entry scale(\n.param .u64 p) { ret; }";
/// assert_eq!(check_ptx(ptx, &["scale"]).map(|s| s.entries), Ok(vec!["scale".to_string()]));
/// assert!(matches!(
///     check_ptx(ptx, &["scale", "shift"]),
///     Err(PtxCheckError::MissingEntries { missing, .. }) if missing == ["shift"]
/// ));
/// let calls = ".extern .func (.param .b64 r) log(.param .b64 x);\n.visible .entry k() { ret; }";
/// assert!(matches!(
///     check_ptx(calls, &["k"]),
///     Err(PtxCheckError::UndefinedFunctions { names }) if names == ["log"]
/// ));
/// ```
pub fn check_ptx<S: AsRef<str>>(ptx: &str, expected: &[S]) -> Result<PtxSummary, PtxCheckError> {
    let found = entries(ptx);
    let missing: Vec<String> = expected
        .iter()
        .map(|k| k.as_ref())
        .filter(|k| !found.iter().any(|f| f == k))
        .map(str::to_string)
        .collect();
    if !missing.is_empty() {
        return Err(PtxCheckError::MissingEntries { missing, found });
    }
    let names = undefined_functions(ptx);
    if !names.is_empty() {
        return Err(PtxCheckError::UndefinedFunctions { names });
    }
    Ok(PtxSummary {
        entries: found,
        target: first_word_after(ptx, ".target"),
        version: first_word_after(ptx, ".version"),
    })
}

/// Names declared by `directive` (`.entry`, `.func`) anywhere on a line, after linkage words
/// such as `.visible` or `.weak`.
fn directive_names(ptx: &str, directive: &str) -> Vec<String> {
    ptx.lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            // Linkage directives may precede the declaration; anything else means it is not one.
            loop {
                let w = words.next()?;
                if w == directive {
                    break;
                }
                if !matches!(w, ".visible" | ".weak" | ".extern" | ".common") {
                    return None;
                }
            }
            let rest = line.split_once(directive)?.1;
            symbol_after_directive(rest)
        })
        .collect()
}

/// The symbol of a function declaration's remainder: `(.param .b64 r) name(...)` or `name(`.
fn symbol_after_directive(rest: &str) -> Option<String> {
    let mut rest = rest.trim_start();
    if rest.starts_with('(') {
        // Skip the return-value parameter list.
        let close = rest.find(')')?;
        rest = rest[close + 1..].trim_start();
    }
    let name: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.'))
        .collect();
    (!name.is_empty()).then_some(name)
}

fn first_word_after(ptx: &str, directive: &str) -> Option<String> {
    ptx.lines().find_map(|line| {
        let rest = line.trim_start().strip_prefix(directive)?;
        rest.split_whitespace().next().map(str::to_string)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernels_are_read_off_the_ptx_kernel_calling_convention() {
        // Lines as llvm-dis prints them for a crate with two kernels and a device function.
        let ir = "define ptx_kernel void @walk_baseline(ptr noundef readonly %kernel, i32 noundef %items) unnamed_addr #0 {\n\
                  define internal fastcc void @_RNvCs1_4walk6helper(ptr %x) unnamed_addr #1 {\n\
                  declare void @llvm.nvvm.barrier0()\n\
                  define ptx_kernel void @\"odd name\"(i32 %n) #2 {\n";
        assert_eq!(kernels_in_ir(ir), ["walk_baseline", "odd name"]);
        assert!(kernels_in_ir("define void @f() {").is_empty());
    }

    const PTX: &str = "\
//
.version 7.0
.target sm_80
.address_size 64
.extern .shared .align 16 .b8 dyn_smem[];
.shared .align 4 .b32 reconverge_block_counters[4];
.visible .entry libm_selftest(
\t.param .u64 libm_selftest_param_0
)
{ ret; }
.entry warp_selftest(.param .u64 p)
{ ret; }
.func (.param .b32 func_retval0) helper(.param .b32 x) { ret; }
";

    #[test]
    fn finds_entries_and_header() {
        let s = check_ptx(PTX, &["libm_selftest", "warp_selftest"]);
        assert_eq!(
            s,
            Ok(PtxSummary {
                entries: vec!["libm_selftest".into(), "warp_selftest".into()],
                target: Some("sm_80".into()),
                version: Some("7.0".into()),
            })
        );
    }

    #[test]
    fn shared_externs_are_not_functions() {
        assert!(undefined_functions(PTX).is_empty());
    }

    #[test]
    fn names_missing_entries() {
        let e = check_ptx(PTX, &["nope", "libm_selftest"]).err();
        assert_eq!(
            e,
            Some(PtxCheckError::MissingEntries {
                missing: vec!["nope".into()],
                found: vec!["libm_selftest".into(), "warp_selftest".into()],
            })
        );
        let msg = e.map(|e| e.to_string()).unwrap_or_default();
        assert!(
            msg.contains("nope") && msg.contains("warp_selftest"),
            "{msg}"
        );
    }

    #[test]
    fn names_undefined_functions() {
        let ptx = format!(
            "{PTX}.extern .func (.param .b64 func_retval0) _ZN4libm4math3log17h0E(\n.param .b64 x);\n.extern .func abort\n();\n"
        );
        assert_eq!(
            check_ptx(&ptx, &["libm_selftest"]),
            Err(PtxCheckError::UndefinedFunctions {
                names: vec!["_ZN4libm4math3log17h0E".into(), "abort".into()]
            })
        );
    }
}
