//! Which image of a module a GPU loads: a shipped cubin (SASS) that runs on it, else the PTX.
//! Always compiled, so that the choice is testable (and usable) without a driver.

use std::fmt;

/// Set (to anything but empty or `0`) to load the PTX even where a cubin for the GPU is shipped:
/// how the cost of the driver's JIT compilation is measured beside the SASS.
pub const FORCE_PTX_ENV: &str = "RECONVERGE_FORCE_PTX";

/// A module as a program ships it: its PTX, which the driver compiles for any GPU of its target
/// or later, and cubins (SASS) for some architectures, which load with no compilation.
/// `reconverge-gpu-build` writes the cubin list beside the PTX (`<stem>.cubins.rs`):
///
/// ```ignore
/// const MY_MODULE: ModuleImages = ModuleImages::new(
///     "kernels",
///     include_str!(concat!(env!("OUT_DIR"), "/kernels.ptx")),
///     include!(concat!(env!("OUT_DIR"), "/kernels.cubins.rs")),
/// );
/// ```
#[derive(Clone, Copy)]
pub struct ModuleImages {
    /// A name for reports and errors (`mcml`).
    pub name: &'static str,
    /// The PTX text.
    pub ptx: &'static str,
    /// The cubins: (architecture as `ptxas -arch` takes it, image).
    pub cubins: &'static [(&'static str, &'static [u8])],
}

impl fmt::Debug for ModuleImages {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The images themselves are megabytes; their sizes say what is shipped.
        f.debug_struct("ModuleImages")
            .field("name", &self.name)
            .field("ptx_bytes", &self.ptx.len())
            .field(
                "cubins",
                &self
                    .cubins
                    .iter()
                    .map(|(arch, image)| (*arch, image.len()))
                    .collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl ModuleImages {
    /// A module named `name` of `ptx` and `cubins`.
    pub const fn new(
        name: &'static str,
        ptx: &'static str,
        cubins: &'static [(&'static str, &'static [u8])],
    ) -> Self {
        Self { name, ptx, cubins }
    }

    /// The image for a GPU of compute capability `major.minor`: the cubin [`best_cubin`] picks
    /// among the shipped ones, or the PTX when `force_ptx` is set or none runs there.
    pub fn choose(&self, major: i32, minor: i32, force_ptx: bool) -> ImageChoice {
        if force_ptx {
            return ImageChoice::Ptx(PtxReason::Forced);
        }
        let archs: Vec<&'static str> = self.cubins.iter().map(|(a, _)| *a).collect();
        match best_cubin(&archs, major, minor) {
            Some(i) => ImageChoice::Cubin(i),
            None => ImageChoice::Ptx(PtxReason::NoCubinFor {
                major,
                minor,
                shipped: archs.iter().map(|a| a.to_string()).collect(),
            }),
        }
    }
}

/// What [`ModuleImages::choose`] picked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ImageChoice {
    /// The cubin at this index of [`ModuleImages::cubins`].
    Cubin(usize),
    /// The PTX, and why.
    Ptx(PtxReason),
}

/// Why a module was loaded from PTX (compiled by the driver's JIT on the first load on a machine,
/// then from the driver's cache, `~/.nv/ComputeCache`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PtxReason {
    /// [`FORCE_PTX_ENV`] is set.
    Forced,
    /// No shipped cubin runs on this GPU (none may be shipped: the build found no `ptxas`).
    NoCubinFor {
        /// The GPU's compute capability, major.
        major: i32,
        /// Minor.
        minor: i32,
        /// The architectures of the shipped cubins.
        shipped: Vec<String>,
    },
    /// The module was given as PTX alone (`GpuContext::with_ptx`).
    PtxOnly,
}

/// What one module of a context was loaded from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoadedImage {
    /// A shipped cubin of this architecture: no JIT compilation.
    Sass {
        /// Its architecture (`sm_90`).
        arch: String,
    },
    /// The PTX, compiled by the driver.
    Ptx(PtxReason),
    /// A cubin the caller gave (`GpuContext::with_cubin`, `RECONVERGE_GPU_CUBIN`).
    GivenCubin,
}

impl fmt::Display for LoadedImage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Sass { arch } => write!(f, "SASS {arch}"),
            Self::GivenCubin => write!(f, "cubin given by the caller"),
            Self::Ptx(PtxReason::Forced) => write!(f, "PTX, JIT-compiled ({FORCE_PTX_ENV})"),
            Self::Ptx(PtxReason::PtxOnly) => write!(f, "PTX, JIT-compiled (given as PTX)"),
            Self::Ptx(PtxReason::NoCubinFor {
                major,
                minor,
                shipped,
            }) if shipped.is_empty() => write!(
                f,
                "PTX, JIT-compiled (no SASS shipped; GPU is compute capability {major}.{minor})"
            ),
            Self::Ptx(PtxReason::NoCubinFor {
                major,
                minor,
                shipped,
            }) => write!(
                f,
                "PTX, JIT-compiled (no SASS for compute capability {major}.{minor}; shipped: {})",
                shipped.join(", ")
            ),
        }
    }
}

/// Whether [`FORCE_PTX_ENV`] asks for PTX.
pub fn force_ptx_from_env() -> bool {
    std::env::var_os(FORCE_PTX_ENV).is_some_and(|v| !v.is_empty() && v != "0")
}

/// An architecture name's compute capability and its kind: `sm_86` is (8, 6, plain), `sm_90a`
/// (9, 0, arch-specific), `sm_100f` (10, 0, family-specific); `None` for anything else.
fn parse_arch(arch: &str) -> Option<(i32, i32, Suffix)> {
    let rest = arch.strip_prefix("sm_")?;
    let (digits, suffix) = match rest.strip_suffix('a') {
        Some(d) => (d, Suffix::ArchSpecific),
        None => match rest.strip_suffix('f') {
            Some(d) => (d, Suffix::Family),
            None => (rest, Suffix::Plain),
        },
    };
    if digits.len() < 2 || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let (major, minor) = digits.split_at(digits.len() - 1);
    Some((major.parse().ok()?, minor.parse().ok()?, suffix))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Suffix {
    Plain,
    Family,
    ArchSpecific,
}

/// Whether a cubin built for `arch` runs on a GPU of compute capability `major.minor`, by
/// NVIDIA's rule (CUDA compatibility guides, "Application Compatibility"): a cubin runs on GPUs
/// of the same major revision and the same or a higher minor revision (sm_80 on 8.0, 8.6, 8.9;
/// not on 9.0). An arch-specific cubin (`sm_90a`) runs on exactly its compute capability; a
/// family-specific one (`sm_100f`) within its major revision from its minor on.
pub fn cubin_runs_on(arch: &str, major: i32, minor: i32) -> bool {
    match parse_arch(arch) {
        Some((m, n, Suffix::ArchSpecific)) => (m, n) == (major, minor),
        Some((m, n, _)) => m == major && n <= minor,
        None => false,
    }
}

/// The index of the cubin in `archs` to load on a GPU of compute capability `major.minor`:
/// of those that run there ([`cubin_runs_on`]), the one of the highest minor revision (the
/// closest to the GPU), an arch-specific one before a family one before a plain one.
pub fn best_cubin(archs: &[&str], major: i32, minor: i32) -> Option<usize> {
    archs
        .iter()
        .enumerate()
        .filter(|(_, a)| cubin_runs_on(a, major, minor))
        .filter_map(|(i, a)| parse_arch(a).map(|(_, n, s)| (i, (n, s))))
        .max_by_key(|&(_, key)| key)
        .map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// NVIDIA's examples (Hopper and Ada compatibility guides, "Application Compatibility"):
    /// "a cubin generated for compute capability 8.0 is supported to run on a GPU with compute
    /// capability 8.6, however a cubin generated for compute capability 8.6 is not supported to
    /// run on a GPU with compute capability 8.0, and a cubin generated with compute capability
    /// 8.x is not supported to run on a GPU with compute capability 9.0"; 8.6 runs on 8.9.
    #[test]
    fn nvidia_examples() {
        assert!(cubin_runs_on("sm_80", 8, 6));
        assert!(!cubin_runs_on("sm_86", 8, 0));
        assert!(cubin_runs_on("sm_86", 8, 9));
        assert!(!cubin_runs_on("sm_89", 8, 6));
        for minor in [0, 6, 7, 9] {
            assert!(!cubin_runs_on(&format!("sm_8{minor}"), 9, 0));
        }
        // Across majors in either direction: no.
        assert!(!cubin_runs_on("sm_90", 10, 0));
        assert!(!cubin_runs_on("sm_90", 8, 9));
        // Arch-specific features are not forward compatible, even within a major revision.
        assert!(cubin_runs_on("sm_90a", 9, 0));
        assert!(!cubin_runs_on("sm_100a", 10, 3));
        assert!(cubin_runs_on("sm_100f", 10, 3));
        assert!(!cubin_runs_on("sm_103f", 10, 0));
        // Two-digit majors.
        assert!(cubin_runs_on("sm_120", 12, 1));
        assert!(!cubin_runs_on("compute_90", 9, 0));
        assert!(!cubin_runs_on("sm_9", 9, 0));
    }

    #[test]
    fn the_closest_cubin_that_runs_is_taken() {
        let shipped = ["sm_80", "sm_90"];
        // An H100/H200 takes sm_90; an A100 sm_80; an RTX 4090 (8.9) sm_80, the only 8.x.
        assert_eq!(best_cubin(&shipped, 9, 0), Some(1));
        assert_eq!(best_cubin(&shipped, 8, 0), Some(0));
        assert_eq!(best_cubin(&shipped, 8, 9), Some(0));
        // Blackwell (10.0) and Volta (7.0): no cubin, the PTX.
        assert_eq!(best_cubin(&shipped, 10, 0), None);
        assert_eq!(best_cubin(&shipped, 7, 0), None);
        assert_eq!(best_cubin(&["sm_80", "sm_86", "sm_89"], 8, 7), Some(1));
        assert_eq!(best_cubin(&["sm_90", "sm_90a"], 9, 0), Some(1));
        assert_eq!(best_cubin(&[], 9, 0), None);
    }

    #[test]
    fn a_module_chooses_and_says_why() {
        static SHIPPED: [(&str, &[u8]); 2] = [("sm_80", &[1]), ("sm_90", &[2])];
        let m = ModuleImages::new("m", "ptx", &SHIPPED);
        assert_eq!(m.choose(9, 0, false), ImageChoice::Cubin(1));
        assert_eq!(m.choose(9, 0, true), ImageChoice::Ptx(PtxReason::Forced));
        let ImageChoice::Ptx(why) = m.choose(10, 0, false) else {
            panic!("a Blackwell GPU has no cubin here");
        };
        let said = LoadedImage::Ptx(why).to_string();
        assert!(
            said.contains("10.0") && said.contains("sm_80, sm_90"),
            "{said}"
        );
        let none = ModuleImages::new("m", "ptx", &[]);
        let ImageChoice::Ptx(why) = none.choose(9, 0, false) else {
            panic!("nothing shipped");
        };
        assert!(
            LoadedImage::Ptx(why)
                .to_string()
                .contains("no SASS shipped")
        );
        assert!(format!("{m:?}").contains(r#"("sm_90", 1)"#));
    }
}
