//! The advisor over a user's own compiled entry points: [`advise_compiled`] reads what the
//! compiler made of each entry point (registers per thread, and whether its per-thread loop
//! stayed flat, from the SASS) from a [`CompiledModule`] and ranks exactly the strategies the
//! user compiled, their `_any` entry points' numbers included.
//!
//! With feature `cuda`, `GpuModule` is the module a `CudaBackend` loaded: registers from the
//! driver (`cuFuncGetAttribute`), SASS from the module's cubin for the GPU (or its PTX through
//! `ptxas`) read by `cuobjdump` where it is installed. Without `cuobjdump` the loops take the
//! schedule model's default (nested) and [`CompiledAdvice::loops`] says why, never an error.
//!
//! ```
//! use reconverge_advisor::{CompiledModule, EntryFactsError, Gpu, compiled_facts, compiled_strategies};
//! use reconverge_gpu_build::SassError;
//! use reconverge_transforms::{BranchLoopKernel, Decision, Strategy};
//! use reconverge_workloads::synthetic::SynItDelay;
//!
//! /// A module as a test sees it (no GPU): 40 registers everywhere, and a SASS listing of its
//! /// own. On a GPU, `GpuModule::new(&backend, &MODULE)` (feature `cuda`) reads the real ones.
//! struct Listed(&'static str);
//! impl CompiledModule for Listed {
//!     fn registers(&self, _entry: &str) -> Result<u32, EntryFactsError> {
//!         Ok(40)
//!     }
//!     fn sass(&self) -> Result<String, SassError> {
//!         Ok(self.0.to_string())
//!     }
//! }
//! // The papers' SYN-ITDELAY entry list (`reconverge-workloads`, feature `gpu-entries`), and a
//! // vote of 20 that its `_any` entry point takes at run time.
//! type K = BranchLoopKernel<SynItDelay>;
//! let vote20 = Strategy::iteration_delaying(Decision::majority_vote(20, true));
//! let strategies = compiled_strategies::<K>(&[vote20]);
//! assert!(strategies.len() > 10 && strategies.ends_with(&[vote20]));
//! // The baseline's entry point with one loop: flat (a thread takes its next item at once).
//! let module = Listed("\tFunction : itdelay_baseline\n /*0100*/ @P0 BRA 0x0080 ;\n");
//! let kernel = BranchLoopKernel(SynItDelay::new(10, 64, 0.5, 1));
//! let (compiled, loops) = compiled_facts(&kernel, &strategies, &module, &Gpu::h100()?)?;
//! assert_eq!(compiled.registers.map(|r| r.baseline), Some(40));
//! assert_eq!(compiled.loops.flat, [Strategy::BASELINE]);
//! assert_eq!(loops?.len(), 1);
//! // `advise_compiled(&kernel, items, &strategies, &module, &gpu, &sampling)` ranks them.
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use reconverge_device::{DeviceKernel, EntryNumbers};
use reconverge_gpu_build::{LoopNesting, SassError, loop_nesting};
use reconverge_transforms::Strategy;

use crate::plan::{Advice, Gpu, Sampling};
use crate::{AdviseError, Compiled, CompiledLoops, Registers};

/// Why a module could not say an entry point's registers.
pub type EntryFactsError = Box<dyn std::error::Error + Send + Sync>;

/// What a compiled module says about its entry points: where [`advise_compiled`] reads them.
/// `GpuModule` (feature `cuda`) reads a loaded module; a test can list its own.
pub trait CompiledModule {
    /// Registers per thread of entry point `entry`.
    ///
    /// # Errors
    /// Whatever kept the module from saying (an entry point it lacks, a driver error).
    fn registers(&self, entry: &str) -> Result<u32, EntryFactsError>;

    /// The module's SASS, as `cuobjdump -sass` lists it.
    ///
    /// # Errors
    /// [`SassError::NoCuobjdump`] where CUDA's binary utilities are not installed; a tool's
    /// failure. [`advise_compiled`] then takes the schedule model's default loops.
    fn sass(&self) -> Result<String, SassError>;
}

/// [`advise_compiled`]'s answer: the advice, and the compiled facts it was given.
#[derive(Debug)]
pub struct CompiledAdvice {
    /// The ranking over the compiled strategies.
    pub advice: Advice,
    /// The registers and loop facts read from the module.
    pub compiled: Compiled,
    /// Each function of the module's SASS, or why none was read (then every per-thread loop
    /// is taken as nested, the schedule model's default).
    pub loops: Result<Vec<LoopNesting>, SassError>,
}

/// The strategies a kernel's entry list compiled ([`DeviceKernel::strategies`], in list order),
/// then `extra` (numbers the user wants tried on the `_any` entry points, which take them at run
/// time), each once.
pub fn compiled_strategies<K: DeviceKernel>(extra: &[Strategy]) -> Vec<Strategy> {
    let mut out = K::strategies();
    for s in extra {
        if !out.contains(s) {
            out.push(*s);
        }
    }
    out
}

/// The entry points that run `strategy`'s passes on `kernel`, one per pass.
///
/// # Errors
/// [`AdviseError::Strategy`] where the shape cannot run the strategy;
/// [`AdviseError::NoEntryPoint`] where a pass has no compiled entry point (a strategy of a
/// technique the list does not name, or of one whose `_any` twin is empty).
pub fn entry_points_of<K: DeviceKernel>(
    kernel: &K,
    strategy: &Strategy,
) -> Result<Vec<&'static str>, AdviseError> {
    let passes = kernel
        .passes(strategy)
        .map_err(|source| AdviseError::Strategy {
            strategy: *strategy,
            shape: K::SHAPE,
            source,
        })?;
    (0..passes)
        .map(|pass| {
            K::entry_point(strategy, pass).ok_or_else(|| AdviseError::NoEntryPoint {
                kernel: K::KERNEL_NAME,
                strategy: *strategy,
                pass,
                available: K::ENTRY_POINTS
                    .iter()
                    .filter(|e| e.numbers != EntryNumbers::Unused)
                    .map(|e| e.name)
                    .collect::<Vec<_>>()
                    .join(", "),
            })
        })
        .collect()
}

/// The registers and loop facts of `strategies`' entry points on `kernel`, read from `module`:
/// each pass's registers, the baseline's from its entry point (the calibration's default where
/// the list compiled none), and the strategies that run per thread whose entry point's loop the
/// SASS shows flat. The SASS's absence is not an error: the loops then stay at the schedule
/// model's default (nested), and the second value says why.
///
/// # Errors
/// As [`entry_points_of`], for the first strategy that fails; [`AdviseError::EntryFacts`]
/// where the module cannot say an entry point's registers.
pub fn compiled_facts<K: DeviceKernel>(
    kernel: &K,
    strategies: &[Strategy],
    module: &impl CompiledModule,
    gpu: &Gpu,
) -> Result<(Compiled, Result<Vec<LoopNesting>, SassError>), AdviseError> {
    let registers_of = |entry: &'static str| {
        module
            .registers(entry)
            .map_err(|source| AdviseError::EntryFacts { entry, source })
    };
    // Every strategy's entry points first, so that a list with a strategy the shape cannot
    // run fails before any tool runs.
    let entries = strategies
        .iter()
        .map(|s| entry_points_of(kernel, s).map(|e| (*s, e)))
        .collect::<Result<Vec<_>, _>>()?;
    let baseline = match K::entry_point(&Strategy::BASELINE, 0) {
        Some(entry) => registers_of(entry)?,
        None => gpu.calibration.default_registers,
    };
    let per_strategy = entries
        .iter()
        .map(|(s, names)| {
            names
                .iter()
                .map(|n| registers_of(n))
                .collect::<Result<Vec<u32>, _>>()
                .map(|r| (*s, r))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let sass = module.sass().map(|text| loop_nesting(&text));
    let flat = match &sass {
        Ok(read) => {
            let mut per_thread: Vec<(Strategy, &str)> = entries
                .iter()
                .filter_map(|(s, names)| Some((*s, *names.first()?)))
                .collect();
            if let Some(entry) = K::entry_point(&Strategy::BASELINE, 0)
                && !per_thread.iter().any(|(s, _)| *s == Strategy::BASELINE)
            {
                per_thread.push((Strategy::BASELINE, entry));
            }
            flat_loops(read, per_thread)
        }
        Err(_) => CompiledLoops::default(),
    };
    Ok((
        Compiled {
            registers: Some(Registers {
                arch: gpu.arch,
                baseline,
                strategies: per_strategy,
            }),
            loops: flat,
        },
        sass,
    ))
}

/// The strategies (that run per thread) whose entry point `read` shows with a flat loop.
/// Entry points the listing lacks stay nested.
pub fn flat_loops<'a>(
    read: &[LoopNesting],
    entries: impl IntoIterator<Item = (Strategy, &'a str)>,
) -> CompiledLoops {
    CompiledLoops {
        flat: entries
            .into_iter()
            .filter(|(s, name)| {
                s.runs_per_thread()
                    && read
                        .iter()
                        .any(|r| r.function == *name && !r.reconverges_per_item)
            })
            .map(|(s, _)| s)
            .collect(),
    }
}

/// Which of the strategies a user compiled, at which launch, for `items` items of `kernel`: every
/// strategy of `strategies` (each must have compiled entry points:
/// [`compiled_strategies`] lists the entry list's and adds numbers for the `_any` entry points)
/// and the baseline, at every candidate launch, ranked with the registers and loop facts
/// `module` gives ([`compiled_facts`]). Model runs that are the same for several pairs are run
/// once, and `sampling` takes fewer items per run where the model would take more than about
/// [`crate::DEFAULT_MODEL_SECONDS`], the first pairs then modelled again on a larger sample
/// ([`crate::advise_within`]; [`crate::advise_launches`] runs a sampling as given).
///
/// # Errors
/// A strategy the shape cannot run ([`AdviseError::Strategy`]) or with no compiled entry point
/// ([`AdviseError::NoEntryPoint`]), checked before anything runs; registers the module cannot
/// say; as [`advise_launches`](crate::advise_launches).
pub fn advise_compiled<K: DeviceKernel + Sync>(
    kernel: &K,
    items: u32,
    strategies: &[Strategy],
    module: &impl CompiledModule,
    gpu: &Gpu,
    sampling: &Sampling,
) -> Result<CompiledAdvice, AdviseError> {
    if items == 0 {
        return Err(AdviseError::NoItems);
    }
    let (compiled, loops) = compiled_facts(kernel, strategies, module, gpu)?;
    let advice = crate::advise_within(
        kernel,
        items,
        strategies,
        gpu,
        sampling,
        &compiled,
        crate::DEFAULT_MODEL_SECONDS,
    )?;
    Ok(CompiledAdvice {
        advice,
        compiled,
        loops,
    })
}

#[cfg(feature = "cuda")]
pub use gpu::GpuModule;

#[cfg(feature = "cuda")]
mod gpu {
    use reconverge_gpu::{CudaBackend, ImageChoice, ModuleImages, force_ptx_from_env};
    use reconverge_gpu_build::{SassError, cubin_sass, ptx_sass};

    use super::{CompiledModule, EntryFactsError};

    /// A module a [`CudaBackend`] loaded, with the images it was loaded from
    /// (`reconverge::this_crate_module!()`, or a `ModuleImages` of your own): registers from
    /// the driver, SASS from the cubin the GPU runs (the one [`ModuleImages::choose`] picks),
    /// else from the PTX compiled by `ptxas` for the GPU's architecture.
    #[derive(Debug)]
    pub struct GpuModule<'a> {
        /// The backend that loaded the module.
        pub backend: &'a CudaBackend,
        /// The images the module was loaded from.
        pub images: &'a ModuleImages,
    }

    impl<'a> GpuModule<'a> {
        /// The module of `backend` loaded from `images`.
        pub fn new(backend: &'a CudaBackend, images: &'a ModuleImages) -> Self {
            Self { backend, images }
        }
    }

    impl CompiledModule for GpuModule<'_> {
        fn registers(&self, entry: &str) -> Result<u32, EntryFactsError> {
            Ok(self.backend.gpu().attributes(entry)?.registers_per_thread)
        }

        fn sass(&self) -> Result<String, SassError> {
            let device = self.backend.gpu().device();
            match self
                .images
                .choose(device.major, device.minor, force_ptx_from_env())
            {
                ImageChoice::Cubin(i) => cubin_sass(self.images.cubins[i].1),
                ImageChoice::Ptx(_) => ptx_sass(
                    self.images.ptx,
                    &format!("sm_{}{}", device.major, device.minor),
                ),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reconverge_device::{DeviceEntries, EntryPoint};
    use reconverge_transforms::{
        Assignment, BranchLoopKernel, Decision, FactoredBranchLoopKernel, Kernel, PathSchedule,
    };
    use reconverge_workloads::synthetic::SynItDelay;

    /// SYN-ITDELAY under entry points of a list of its own: a baseline, dynamic work, a vote
    /// with its `_any` twin, and a round robin whose twin is empty.
    #[derive(Clone, Copy)]
    #[repr(transparent)]
    struct Listed(SynItDelay);

    const VOTE: Strategy = Strategy::iteration_delaying(Decision::majority_vote(8, true));
    const ROUND_ROBIN: Strategy = Strategy::iteration_delaying(Decision::round_robin(3, 1, true));

    const fn entry(name: &'static str, strategy: Strategy, numbers: EntryNumbers) -> EntryPoint {
        EntryPoint {
            name,
            kernel: "BranchLoopKernel<Listed>",
            strategy,
            pass: 0,
            numbers,
        }
    }

    const ENTRIES: &[EntryPoint] = &[
        entry("l_baseline", Strategy::BASELINE, EntryNumbers::Listed),
        entry("l_baseline_any", Strategy::BASELINE, EntryNumbers::Unused),
        entry(
            "l_dynamic",
            Strategy::DYNAMIC_WORK_ASSIGNMENT,
            EntryNumbers::Listed,
        ),
        entry("l_vote", VOTE, EntryNumbers::Listed),
        entry("l_vote_any", VOTE, EntryNumbers::Launch),
        entry("l_rr", ROUND_ROBIN, EntryNumbers::Listed),
        entry("l_rr_any", ROUND_ROBIN, EntryNumbers::Unused),
    ];

    // SAFETY: host-only tests; no device ever sees this type.
    unsafe impl DeviceEntries<BranchLoopKernel<Listed>> for Listed {
        const KERNEL_NAME: &'static str = "BranchLoopKernel<Listed>";
        const ENTRY_POINTS: &'static [EntryPoint] = ENTRIES;
    }

    impl reconverge_transforms::BranchLoop for Listed {
        type State = <SynItDelay as reconverge_transforms::BranchLoop>::State;
        type Output = <SynItDelay as reconverge_transforms::BranchLoop>::Output;
        fn regions(&self) -> reconverge_transforms::LoopRegions {
            self.0.regions()
        }
        fn start(&self, item: u32) -> Self::State {
            self.0.start(item)
        }
        fn running(&self, s: &Self::State) -> bool {
            self.0.running(s)
        }
        fn condition(&self, s: &mut Self::State) -> bool {
            self.0.condition(s)
        }
        fn taken<T: reconverge_transforms::Tally>(&self, s: &mut Self::State, t: &mut T) {
            self.0.taken(s, t)
        }
        fn not_taken<T: reconverge_transforms::Tally>(&self, s: &mut Self::State, t: &mut T) {
            self.0.not_taken(s, t)
        }
        fn after_branch<T: reconverge_transforms::Tally>(&self, s: &mut Self::State, t: &mut T) {
            self.0.after_branch(s, t)
        }
        fn finish(&self, s: &Self::State) -> Self::Output {
            self.0.finish(s)
        }
    }

    /// A module whose registers are a table and whose SASS is given, or missing.
    struct Fake {
        registers: &'static [(&'static str, u32)],
        sass: Option<&'static str>,
    }

    impl CompiledModule for Fake {
        fn registers(&self, entry: &str) -> Result<u32, EntryFactsError> {
            self.registers
                .iter()
                .find(|(n, _)| *n == entry)
                .map(|(_, r)| *r)
                .ok_or_else(|| format!("no kernel {entry}").into())
        }
        fn sass(&self) -> Result<String, SassError> {
            self.sass.map(str::to_string).ok_or(SassError::NoCuobjdump(
                reconverge_gpu_build::NoCuobjdump::NotFound,
            ))
        }
    }

    const REGISTERS: &[(&str, u32)] = &[
        ("l_baseline", 30),
        ("l_dynamic", 32),
        ("l_vote", 40),
        ("l_vote_any", 48),
        ("l_rr", 44),
    ];

    /// The baseline's loop nested (a barrier closing after the step loop's back-edge, inside
    /// the item loop), dynamic work's flat (one loop): hand-written, as in the fixtures.
    const SASS: &str = "\tFunction : l_baseline\n /*0e90*/ BSSY B0, 0x1260 ;\n\
        /*1240*/ @P1 BRA 0xf80 ;\n /*12f0*/ @!P0 BRA 0x120 ;\n\
        \tFunction : l_dynamic\n /*0100*/ @P0 BRA 0x0080 ;\n";

    fn kernel() -> BranchLoopKernel<Listed> {
        BranchLoopKernel(Listed(SynItDelay::new(10, 64, 0.5, 1)))
    }

    #[test]
    fn the_list_and_the_extra_numbers_resolve_to_their_entry_points() {
        let vote20 = Strategy::iteration_delaying(Decision::majority_vote(20, true));
        let list = compiled_strategies::<BranchLoopKernel<Listed>>(&[vote20, VOTE]);
        assert_eq!(
            list,
            [
                Strategy::BASELINE,
                Strategy::DYNAMIC_WORK_ASSIGNMENT,
                VOTE,
                ROUND_ROBIN,
                vote20
            ]
        );
        // The listed vote on its own entry; another threshold on the `_any` twin.
        assert_eq!(entry_points_of(&kernel(), &VOTE).unwrap(), ["l_vote"]);
        assert_eq!(entry_points_of(&kernel(), &vote20).unwrap(), ["l_vote_any"]);
    }

    #[test]
    fn registers_and_loops_come_from_the_module() {
        let vote20 = Strategy::iteration_delaying(Decision::majority_vote(20, true));
        let list = compiled_strategies::<BranchLoopKernel<Listed>>(&[vote20]);
        let gpu = Gpu::h100().unwrap();
        let module = Fake {
            registers: REGISTERS,
            sass: Some(SASS),
        };
        let (compiled, loops) = compiled_facts(&kernel(), &list, &module, &gpu).unwrap();
        let regs = compiled.registers.unwrap();
        assert_eq!(regs.baseline, 30);
        assert_eq!(
            regs.strategies,
            [
                (Strategy::BASELINE, vec![30]),
                (Strategy::DYNAMIC_WORK_ASSIGNMENT, vec![32]),
                (VOTE, vec![40]),
                (ROUND_ROBIN, vec![44]),
                (vote20, vec![48]),
            ]
        );
        // Dynamic work's one loop is flat; the baseline's is nested; the votes do not run per
        // thread, so their loops are not the schedule model's question.
        assert_eq!(compiled.loops.flat, [Strategy::DYNAMIC_WORK_ASSIGNMENT]);
        assert_eq!(loops.unwrap().len(), 2);
    }

    #[test]
    fn no_cuobjdump_leaves_the_default_loops_and_says_why() {
        let gpu = Gpu::h100().unwrap();
        let module = Fake {
            registers: REGISTERS,
            sass: None,
        };
        let (compiled, loops) = compiled_facts(
            &kernel(),
            &[Strategy::DYNAMIC_WORK_ASSIGNMENT],
            &module,
            &gpu,
        )
        .unwrap();
        assert_eq!(compiled.loops, CompiledLoops::default());
        assert!(matches!(loops, Err(SassError::NoCuobjdump(_))));
        assert_eq!(compiled.registers.unwrap().baseline, 30);
    }

    #[test]
    fn a_strategy_the_shape_cannot_run_is_a_typed_error_before_any_tool_runs() {
        let gpu = Gpu::h100().unwrap();
        // A module that fails every question: the list is checked first.
        let module = Fake {
            registers: &[],
            sass: None,
        };
        let distribution = Strategy::new(
            Assignment::Static,
            PathSchedule::BranchDistribution { delaying: None },
        );
        let err = compiled_facts(&kernel(), &[distribution], &module, &gpu).unwrap_err();
        match &err {
            AdviseError::Strategy {
                strategy, shape, ..
            } => {
                assert_eq!(*strategy, distribution);
                assert_eq!(*shape, <BranchLoopKernel<Listed> as Kernel>::SHAPE);
            }
            other => panic!("expected AdviseError::Strategy, got {other:?}"),
        }
        // What the factored shape runs is not this one's.
        assert_ne!(
            <BranchLoopKernel<Listed> as Kernel>::SHAPE,
            <FactoredBranchLoopKernel<reconverge_workloads::synthetic::SynBrDis> as Kernel>::SHAPE
        );
    }

    #[test]
    fn a_strategy_without_an_entry_point_names_the_ones_compiled() {
        let gpu = Gpu::h100().unwrap();
        let module = Fake {
            registers: REGISTERS,
            sass: Some(SASS),
        };
        // Round robin's twin is empty: only its listed cycle was compiled.
        let other_cycle = Strategy::iteration_delaying(Decision::round_robin(1, 2, true));
        let grid = Strategy::new(Assignment::GridWide, PathSchedule::AsWritten);
        for missing in [other_cycle, grid] {
            let err = compiled_facts(&kernel(), &[missing], &module, &gpu).unwrap_err();
            match &err {
                AdviseError::NoEntryPoint {
                    strategy,
                    available,
                    ..
                } => {
                    assert_eq!(*strategy, missing);
                    assert!(available.contains("l_vote_any"), "{available}");
                    assert!(!available.contains("l_rr_any"), "{available}");
                }
                other => panic!("expected AdviseError::NoEntryPoint, got {other:?}"),
            }
        }
        // Registers the module cannot say are an error naming the entry point.
        let silent = Fake {
            registers: &[("l_baseline", 30)],
            sass: None,
        };
        let err = compiled_facts(
            &kernel(),
            &[Strategy::DYNAMIC_WORK_ASSIGNMENT],
            &silent,
            &gpu,
        )
        .unwrap_err();
        assert!(
            matches!(
                err,
                AdviseError::EntryFacts {
                    entry: "l_dynamic",
                    ..
                }
            ),
            "{err:?}"
        );
    }
}
