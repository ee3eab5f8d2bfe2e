//! The device side of reconverge's CUDA backend, for your own kernels: [`warp_kernel!`] turns
//! a (kernel type, strategy) pair into a PTX entry point, [`entries!`] does so for a whole list
//! ([`entries_from_data!`] writes out a list whose strategies are data),
//! and `run_warp_program` (nvptx64 only) is what every entry point runs. Compiled for `nvptx64-nvidia-cuda`
//! (with `reconverge-gpu-build` from a `build.rs`); on any other target the crate is empty.
//!
//! It also defines the device panic handler (a `trap`, which the host reports as a failed
//! launch naming the kernel), so a device crate that uses it defines none of its own.
//!
//! Your own crate reaches it through the facade: `reconverge::gpu_entry_points!` lists your
//! workloads' entry points once, in your library, and `reconverge_gpu_build::build_this_crate()`
//! in your `build.rs` compiles that library again for nvptx64, where the list expands to
//! [`entries!`] (see `examples/user-workload`). The papers' kernels use the macros here directly,
//! from a device crate of their own:
//!
//! ```text
//! // device/src/lib.rs of a device crate (no_std, nvptx64 only)
//! #![no_std]
//! #![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]
//! use reconverge_transforms::{BranchLoopKernel, Decision, Strategy};
//! use my_workload::MyLoop;
//! use reconverge_device::entries;
//! entries! {
//!     pub const MY_ENTRY_POINTS;
//!     MyLoop as BranchLoopKernel {
//!         my_baseline => Strategy::BASELINE,
//!         my_dynamic => Strategy::DYNAMIC_WORK_ASSIGNMENT,
//!     }
//! }
//! ```
#![no_std]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(stdarch_nvptx, asm_experimental_arch, abi_ptx, link_llvm_intrinsics),
    // `link_llvm_intrinsics`: the hand-written twins' warp vote (`delaying_twin::ballot`).
    allow(internal_features)
)]

/// This package's source folder (the one with its `Cargo.toml`), for a build script that
/// compiles the package for the GPU in a device crate of its own
/// (`reconverge_gpu_build::PtxBuilder::template_path`): the same sources in a workspace and
/// from the registry.
pub const SOURCE_DIR: &str = env!("CARGO_MANIFEST_DIR");

/// Generates a kernel entry point that runs one (workload, strategy) pair, so that entry points
/// are generated rather than written by hand.
///
/// `warp_kernel!(NAME: KernelType => strategy_expression);` expands (on nvptx64 only) to
///
/// ```text
/// #[unsafe(no_mangle)]
/// pub unsafe extern "ptx-kernel" fn NAME(
///     kernel: *const KernelType, out: *mut <KernelType as Kernel>::Output, tally: *mut u64,
///     scratch: *mut u32, work_counter: *mut u32, status: *mut u32, items: u32, pass: u32,
///     tally_len: u32, tally_copies: u32, scratch_len: u32, parameters: StrategyParameters,
/// )
/// ```
///
/// whose parameters are [`EntryArgs`]' fields in order (the kernel interface: buffers,
/// lengths, pass, and the strategy's numbers; the host pushes them with
/// [`EntryArgs::for_each_parameter`]), and which runs `run_warp_program`: each warp builds its program with
/// [`reconverge_transforms::Kernel::program`] and calls `step` until it returns `false`. A
/// strategy whose lanes never need to agree
/// ([`Strategy::runs_per_thread`](reconverge_transforms::Strategy::runs_per_thread)) runs with
/// each thread as a warp of one lane instead: the plain per-thread loop, no votes or masks.
/// `KernelType` must implement [`reconverge_transforms::Kernel`] and have the same layout on
/// the host and the device: `#[repr(C)]` plain data, or a one-field wrapper of it such as
/// `BranchLoopKernel<L>` (`#[repr(transparent)]`) with `L: #[repr(C)]`. Every block must have
/// a multiple of 32 threads.
///
/// The strategy's technique is a constant of the entry point (its variant and, for the
/// delaying strategies, its kind of [`Decision`](reconverge_transforms::Decision) and that
/// decision's switches); its numbers
/// (a vote's threshold, a round robin's cycle, an occlusion query's iterations per pass, path
/// unification's items per thread) come from [`EntryArgs::parameters`]
/// ([`Strategy::with_parameters`](reconverge_transforms::Strategy::with_parameters)), so one
/// entry point runs every value of them.
///
/// `warp_kernel!(NAME: KernelType => strategy, pass = N);` compiles pass `N` in as a constant
/// (`EntryArgs::pass` is then ignored): each pass of a multi-pass strategy becomes a kernel of
/// its own, with its own register count, which is what branch splitting's occupancy gain
/// needs. `warp_kernel!(NAME: KernelType => strategy, pass = N, numbers = listed);` also
/// compiles the strategy's numbers in as constants (`EntryArgs::parameters` is then ignored):
/// the entry point runs exactly `strategy`, with no cost for numbers it could have taken.
/// [`entries!`] generates the entry points of a whole list both ways.
#[macro_export]
macro_rules! warp_kernel {
    ($name:ident : $kernel:ty => $strategy:expr) => {
        $crate::warp_kernel!(@entry [unsafe(no_mangle)] $name : $kernel => $strategy,
            |pass: u32| pass, launch, true);
    };
    ($name:ident : $kernel:ty => $strategy:expr, pass = $pass:expr) => {
        $crate::warp_kernel!(@entry [unsafe(no_mangle)] $name : $kernel => $strategy,
            |_runtime_pass: u32| $pass, launch, true);
    };
    ($name:ident : $kernel:ty => $strategy:expr, pass = $pass:expr, numbers = $numbers:ident) => {
        $crate::warp_kernel!(@entry [unsafe(no_mangle)] $name : $kernel => $strategy,
            |_runtime_pass: u32| $pass, $numbers, true);
    };
    // An entry point named by `$symbol` (`unsafe(no_mangle)`: the function's name;
    // `unsafe(export_name = ...)`: a name made by a macro), which runs only if `$runs` (a
    // constant).
    (@entry [$($symbol:tt)*] $fn:ident : $kernel:ty => $strategy:expr, $pass_of:expr,
        $numbers:ident, $runs:expr) => {
        #[cfg(target_arch = "nvptx64")]
        #[$($symbol)*]
        #[doc = concat!("An entry point: ", stringify!($kernel), " under ", stringify!($strategy), ".")]
        pub unsafe extern "ptx-kernel" fn $fn(
            kernel: *const $kernel,
            out: *mut <$kernel as $crate::reexport::Kernel>::Output,
            tally: *mut u64,
            scratch: *mut u32,
            work_counter: *mut u32,
            status: *mut u32,
            items: u32,
            pass: u32,
            tally_len: u32,
            tally_copies: u32,
            scratch_len: u32,
            parameters: $crate::reexport::StrategyParameters,
        ) {
            const RUNS: bool = $runs;
            if !RUNS {
                return;
            }
            // `EntryArgs`' fields, in its order (`EntryArgs::for_each_parameter`).
            let args = $crate::EntryArgs::<$kernel> {
                kernel, out, tally, scratch, work_counter, status,
                items, pass, tally_len, tally_copies, scratch_len, parameters,
            };
            // The strategy as listed, its numbers from the list or from the launch. Evaluated
            // outside the unsafe block, so the caller's expression gets no unsafety.
            let listed: $crate::reexport::Strategy = $strategy;
            let strategy = $crate::warp_kernel!(@numbers $numbers, listed, args.parameters);
            // A constant pass (`pass = N`) makes each pass a kernel of its own.
            let pass_of: fn(u32) -> u32 = $pass_of;
            let pass = pass_of(args.pass);
            // SAFETY: the host launches this entry point with pointers to device buffers of
            // the sizes `EntryArgs` documents (reconverge-gpu's launcher checks them).
            unsafe { $crate::run_warp_program::<$kernel>(args, strategy, pass) }
        }
    };
    (@numbers listed, $listed:expr, $parameters:expr) => {{
        let listed: $crate::reexport::Strategy = $listed;
        // A technique without numbers takes the launch's way, which gives the same strategy:
        // its code is then what it was when every entry point took its numbers from the launch
        // (written as the constant itself, the strategy reached LLVM in another form, and
        // ptxas gave MCML's branch distribution 66 registers instead of 64).
        if listed.has_parameters() {
            listed
        } else {
            $crate::entry_strategy(listed, $parameters)
        }
    }};
    (@numbers launch, $listed:expr, $parameters:expr) => {
        $crate::entry_strategy($listed, $parameters)
    };
}

/// Generates the entry points of a list of (workload, shape, strategies): for each
/// `Workload as Shape { name [pass N] => strategy, ... }`, two [`warp_kernel!`]s per entry with
/// kernel type `Shape<Workload>` and its pass as a constant: `name`, which runs the strategy
/// with its numbers compiled in (as fast as code that knew no other value: a vote of 1 folds
/// to "any lane", an occlusion loop of 8 unrolls), and `name_any`, which takes them from the
/// launch and so runs every strategy of the technique. Only the first `_any` of each
/// technique (and pass) with numbers in a block runs; the others, and those of techniques
/// without numbers, are empty entry points the host never launches ([`twin_numbers`]), since a
/// macro cannot leave an item out by a constant's value. The list starts with
/// `pub const NAMES;`, the constant that `reconverge_gpu::device_entries!` (host) and
/// `reconverge_gpu_build::entry_names!` (`build.rs`) define from the same list with every
/// entry point's name; here it is ignored. Keep the list in one file and `include!` it in all
/// three places, each with its macro imported as `entries`.
#[macro_export]
macro_rules! entries {
    (
        $vis:vis const $names:ident;
        $( $workload:ty as $shape:ident { $( $name:ident $([pass $pass:literal])? => $strategy:expr ),* $(,)? } )*
    ) => {
        $(
            // The strategies as listed, their numbers compiled in...
            $(
                $crate::warp_kernel!($name : $shape<$workload> => $strategy,
                    pass = $crate::entries!(@pass $($pass)?), numbers = listed);
            )*
            // ... and their twins `<name>_any`, which take them from the launch: the first of
            // each technique with numbers runs, the others are empty.
            const _: () = {
                // The block's entries in list order, for each to find whether its twin runs.
                const BLOCK: &[(&str, $crate::reexport::Strategy, u32)] =
                    $crate::entry_block!($($name $([pass $pass])? => $strategy),*);
                $(
                    const _: () = {
                        $crate::warp_kernel!(
                            @entry [unsafe(export_name = concat!(stringify!($name), "_any"))] entry
                            : $shape<$workload> => $strategy,
                            |_runtime_pass: u32| $crate::entries!(@pass $($pass)?), launch,
                            $crate::twin_numbers(BLOCK, stringify!($name)).is_launch());
                    };
                )*
            };
        )*
    };
    (@pass) => { 0 };
    (@pass $pass:literal) => { $pass };
}

/// A block of an entry list as `(name, strategy, pass)` in list order, what [`twin_numbers`]
/// reads: written by this one macro for the device ([`entries!`]) and the host
/// (`device_entries!`), which must agree on which twins run.
#[doc(hidden)]
#[macro_export]
macro_rules! entry_block {
    ($( $name:ident $([pass $pass:literal])? => $strategy:expr ),*) => {
        &[$((stringify!($name), $strategy, $crate::entries!(@pass $($pass)?)),)*]
    };
}

/// A list whose strategies are data, written out for an entry macro: [`entries!`] here, and
/// `reconverge_gpu::device_entries!` / `reconverge_gpu_build::entry_names!` on the host, each
/// imported as the first argument's name where the list is included.
///
/// ```text
/// reconverge_device::entries_from_data! {
///     entries;
///     pub const MY_ENTRY_POINTS;
///     MyLoop as BranchLoopKernel from (MY_STRATEGIES) {
///         my_baseline, my_dynamic, my_vote,
///     }
///     MyBranch as TwoPathKernel {
///         two_baseline, two_predication, two_static, (two_split_a, two_split_b), ...
///     }
/// }
/// ```
///
/// A block without `from (slice)` takes the shape's own list, `<Shape<Workload> as
/// Kernel>::STRATEGIES` (every strategy the shape runs, one of each kind).
///
/// Entry `i` of a block runs `slice[i]`; a parenthesised group of two or three names is one
/// multi-pass strategy, a name per pass (`[pass 0]`, `[pass 1]`, ...). The device and the host
/// take the strategy from the same slice at the same index, so they cannot disagree about the
/// strategy behind a name, and a block whose names are not one per strategy of its slice does
/// not compile (where the strategies are evaluated: the device crate and the host).
///
/// Nor does a strategy the block's shape cannot run: the one error names the entry, its index
/// in the slice, and what to write instead. A list that compiles (the callback `names` here
/// stands for [`entries!`] and the host's macros):
///
/// ```
/// use reconverge_transforms::{BranchLoopKernel, Strategy, TwoPathKernel};
/// use reconverge_workloads::reference::Collatz;
/// use reconverge_workloads::synthetic::PathUnification;
/// macro_rules! names { ($vis:vis const $names:ident; $($list:tt)*) => {}; }
///
/// const LOOP: &[Strategy] = &[Strategy::BASELINE, Strategy::DYNAMIC_WORK_ASSIGNMENT];
/// const TWO_PATH: &[Strategy] = &[Strategy::BASELINE, Strategy::BRANCH_SPLITTING];
/// reconverge_device::entries_from_data! {
///     names;
///     pub const NAMES;
///     Collatz as BranchLoopKernel from (LOOP) { collatz_baseline, collatz_dynamic }
///     PathUnification as TwoPathKernel from (TWO_PATH) { two_baseline, (split_a, split_b) }
/// }
/// ```
///
/// A schedule of another shape:
///
/// ```text
/// error[E0080]: evaluation panicked: GPU entry point `collatz_split` (LOOP[1]):
/// BranchLoopKernel<Collatz> does not run the path schedule branch splitting
/// (PathSchedule::BranchSplitting). It runs paths as written (PathSchedule::AsWritten),
/// iteration delaying (PathSchedule::IterationDelaying(..)), speculative reconvergence
/// (PathSchedule::SpeculativeReconvergence { .. }) and collaborative context collection
/// (PathSchedule::CollaborativeContextCollection) over Assignment::Static,
/// Assignment::Dynamic or Assignment::GridWide (<BranchLoopKernel<Collatz> as
/// Kernel>::STRATEGIES); branch splitting is the two-path shape's (TwoPathKernel). Write the
/// strategy as Strategy::new(assignment, schedule) with one of those, or drop the entry and
/// its strategy.
/// ```
///
/// ```compile_fail,E0080
/// # use reconverge_transforms::{BranchLoopKernel, Strategy};
/// # use reconverge_workloads::reference::Collatz;
/// # macro_rules! names { ($vis:vis const $names:ident; $($list:tt)*) => {}; }
/// const LOOP: &[Strategy] = &[Strategy::BASELINE, Strategy::BRANCH_SPLITTING];
/// reconverge_device::entries_from_data! {
///     names;
///     pub const NAMES;
///     Collatz as BranchLoopKernel from (LOOP) { collatz_baseline, (collatz_split, collatz_b) }
/// }
/// ```
///
/// A schedule the shape runs, over an assignment no program pairs it with:
///
/// ```text
/// error[E0080]: evaluation panicked: GPU entry point `split_a` (TWO_PATH[1]): no program
/// pairs branch splitting (PathSchedule::BranchSplitting) with Assignment::GridWide: branch
/// splitting pairs only with Assignment::Static (per-item and multi-pass techniques fix which
/// items a warp holds, and keep an item in its slot between passes). Write
/// Strategy::new(Assignment::Static, PathSchedule::BranchSplitting), or drop the entry and its
/// strategy.
/// ```
///
/// ```compile_fail,E0080
/// # use reconverge_transforms::{Assignment, Strategy, TwoPathKernel};
/// # use reconverge_workloads::synthetic::PathUnification;
/// # macro_rules! names { ($vis:vis const $names:ident; $($list:tt)*) => {}; }
/// const TWO_PATH: &[Strategy] =
///     &[Strategy::BASELINE, Strategy::BRANCH_SPLITTING.over(Assignment::GridWide)];
/// reconverge_device::entries_from_data! {
///     names;
///     pub const NAMES;
///     PathUnification as TwoPathKernel from (TWO_PATH) { two_baseline, (split_a, split_b) }
/// }
/// ```
///
/// (The tests of `entry_error`, which composes these messages, pin their exact text, and a
/// third: an assignment the shape deals no items by.)
#[macro_export]
macro_rules! entries_from_data {
    // The callback as one macro name in scope (`entries;`) or a path in brackets
    // (`[$crate::entries];`), which a macro of another crate can pass.
    ($entries:ident; $vis:vis const $names:ident; $($blocks:tt)*) => {
        $crate::entries_from_data! { @blocks [$entries] [$vis const $names;] [] $($blocks)* }
    };
    ([$($entries:tt)*]; $vis:vis const $names:ident; $($blocks:tt)*) => {
        $crate::entries_from_data! { @blocks [$($entries)*] [$vis const $names;] [] $($blocks)* }
    };
    // The same list written out a second time in one crate (`reconverge::gpu_entry_points!`:
    // the host's tables and, on the GPU, the entry points), without the checks, which the
    // first expansion reports: each mistake is then one error, not two.
    (@unchecked [$($entries:tt)*]; $vis:vis const $names:ident; $($blocks:tt)*) => {
        $crate::entries_from_data! { @blocks [$($entries)*] [$vis const $names;] [@unchecked] $($blocks)* }
    };
    (@blocks [$($entries:tt)*] [$($out:tt)*] [@unchecked $($checks:tt)*]) => {
        $($entries)*! { $($out)* }
    };
    (@blocks [$($entries:tt)*] [$($out:tt)*] [$($checks:tt)*]) => {
        $($entries)*! { $($out)* }
        // What the compiler can check about the list, where the list is written.
        const _: () = { $($checks)* };
    };
    (@blocks [$($entries:tt)*] [$($out:tt)*] [$($checks:tt)*]
        $workload:ty as $shape:ident from ($slice:expr) { $($item:tt),* $(,)? } $($rest:tt)*) => {
        $crate::entries_from_data! {
            @items [$($entries)*] [$($out)*] [$($checks)*
                // The list names one entry point (or one group of passes) per strategy of its
                // slice: on a mismatch rustc says "expected an array with a size of <names>,
                // found one with a size of <strategies>".
                let _one_name_per_strategy: [(); <[()]>::len(&[$($crate::entries_from_data!(@unit $item)),*])] =
                    [(); <[$crate::reexport::Strategy]>::len($slice)];
            ] [$workload] [$shape] ($slice) 0 []
            $($item)* ; $($rest)*
        }
    };
    // Without `from (slice)`: every strategy the shape lists.
    (@blocks [$($entries:tt)*] [$($out:tt)*] [$($checks:tt)*]
        $workload:ty as $shape:ident { $($item:tt),* $(,)? } $($rest:tt)*) => {
        $crate::entries_from_data! {
            @blocks [$($entries)*] [$($out)*] [$($checks)*]
            $workload as $shape from (<$shape<$workload> as $crate::reexport::Kernel>::STRATEGIES) {
                $($item),*
            }
            $($rest)*
        }
    };
    (@unit $item:tt) => { () };
    (@items [$($entries:tt)*] [$($out:tt)*] [$($checks:tt)*] [$workload:ty] [$shape:ident]
        ($slice:expr) $i:tt [$($acc:tt)*] ; $($rest:tt)*) => {
        $crate::entries_from_data! {
            @blocks [$($entries)*] [$($out)* $workload as $shape { $($acc)* }] [$($checks)*] $($rest)*
        }
    };
    (@items [$($entries:tt)*] [$($out:tt)*] [$($checks:tt)*] [$workload:ty] [$shape:ident]
        ($slice:expr) $i:tt [$($acc:tt)*] $name:ident $($more:tt)*) => {
        $crate::entries_from_data! {
            @items [$($entries)*] [$($out)*]
            [$($checks)* $crate::entries_from_data!(@applies $workload, $shape, $name, $slice, $i);]
            [$workload] [$shape] ($slice) ($i + 1)
            [$($acc)* $name => $crate::entries_from_data!(@at ($slice) $i),]
            $($more)*
        }
    };
    // A group of two or three passes.
    (@items [$($entries:tt)*] [$($out:tt)*] [$($checks:tt)*] [$workload:ty] [$shape:ident]
        ($slice:expr) $i:tt [$($acc:tt)*] ($a:ident, $b:ident $(, $c:ident)?) $($more:tt)*) => {
        $crate::entries_from_data! {
            @items [$($entries)*] [$($out)*]
            [$($checks)* $crate::entries_from_data!(@applies $workload, $shape, $a, $slice, $i);]
            [$workload] [$shape] ($slice) ($i + 1)
            [$($acc)*
                $a [pass 0] => $crate::entries_from_data!(@at ($slice) $i),
                $b [pass 1] => $crate::entries_from_data!(@at ($slice) $i),
                $($c [pass 2] => $crate::entries_from_data!(@at ($slice) $i),)?]
            $($more)*
        }
    };
    (@at ($slice:expr) $i:tt) => {{
        const STRATEGY: $crate::reexport::Strategy = $crate::strategy_at($slice, $i);
        STRATEGY
    }};
    // A strategy the shape does not run at all is a compile error, not an entry point that
    // fails on the GPU: one message, with what to write instead (`entry_error`).
    (@applies $workload:ty, $shape:ident, $name:ident, $slice:expr, $i:tt) => {
        if let Some(message) = &$crate::entry_error(
            stringify!($name),
            concat!(stringify!($shape), "<", stringify!($workload), ">"),
            stringify!($slice),
            <$shape<$workload> as $crate::reexport::Kernel>::STRATEGIES,
            $slice,
            $i,
        ) {
            panic!("{}", message.as_str())
        }
    };
}

/// Whether a shape whose [`Kernel::STRATEGIES`] are `supported` runs `slice[index]`, for
/// [`entries_from_data!`]'s compile-time check: some listed strategy has its kind of path
/// schedule ([`PathSchedule::same_kind`]), some listed strategy its assignment (a shape that
/// deals items by a counter deals them so under each of its loop schedules), and some program
/// pairs the two ([`Strategy::pairing`]); `entry_error` says which is missing. An index out of
/// `slice` is left to the list's length check.
///
/// [`Kernel::STRATEGIES`]: reconverge_transforms::Kernel::STRATEGIES
/// [`PathSchedule::same_kind`]: reconverge_transforms::PathSchedule::same_kind
/// [`Strategy::pairing`]: reconverge_transforms::Strategy::pairing
#[doc(hidden)]
pub const fn shape_runs(
    supported: &[reconverge_transforms::Strategy],
    slice: &[reconverge_transforms::Strategy],
    index: usize,
) -> bool {
    entry_error("", "", "", supported, slice, index).is_none()
}

/// `slice[index]`, for [`entries_from_data!`], evaluated in a constant. A list whose names are
/// not one per strategy of `slice` does not compile: the list's own length check says so with
/// both counts, and an index past `slice` gives the baseline here so that it is the one error.
#[doc(hidden)]
pub const fn strategy_at(
    slice: &[reconverge_transforms::Strategy],
    index: usize,
) -> reconverge_transforms::Strategy {
    if index < slice.len() {
        slice[index]
    } else {
        reconverge_transforms::Strategy::BASELINE
    }
}

/// Where the twin `<name>_any` of entry `name` in a block of [`entries!`] takes its numbers:
/// [`EntryNumbers::Launch`] for the first entry of each technique (and pass) with numbers
/// ([`Strategy::has_parameters`]), [`EntryNumbers::Unused`] for every other (an empty entry
/// point). The device ([`entries!`]) and the host (`device_entries!`) both ask this, so they
/// agree on which twins run.
///
/// [`Strategy::has_parameters`]: reconverge_transforms::Strategy::has_parameters
#[doc(hidden)]
pub const fn twin_numbers(
    block: &[(&str, reconverge_transforms::Strategy, u32)],
    name: &str,
) -> EntryNumbers {
    let mut at = 0;
    while at < block.len() && !entry_table::same_name(block[at].0, name) {
        at += 1;
    }
    if at == block.len() || !block[at].1.has_parameters() {
        return EntryNumbers::Unused;
    }
    let (_, strategy, pass) = block[at];
    let mut earlier = 0;
    while earlier < at {
        if block[earlier].2 == pass && block[earlier].1.same_technique(&strategy) {
            return EntryNumbers::Unused;
        }
        earlier += 1;
    }
    EntryNumbers::Launch
}

/// The strategy an entry point compiled for `technique` runs: `technique` with the launch's
/// numbers ([`Strategy::with_parameters`]), those a technique needs to be at least 1 (a round
/// robin's runs, an occlusion query's iterations per pass, path unification's items per
/// thread) raised to 1. The host rejects a 0 there before any launch (`Kernel::program` on
/// the host, `reconverge-gpu`'s `try_run`), so this changes nothing it launches; it lets the
/// compiler drop the error paths for a 0 from the entry point (with them, the occlusion-query
/// loop's entry point needed 64 registers and 16 bytes of stack instead of 32 and none).
///
/// [`Strategy::with_parameters`]: reconverge_transforms::Strategy::with_parameters
#[doc(hidden)]
#[inline(always)]
pub const fn entry_strategy(
    technique: reconverge_transforms::Strategy,
    parameters: reconverge_transforms::StrategyParameters,
) -> reconverge_transforms::Strategy {
    use reconverge_transforms::{Decision, PathSchedule, StrategyParameters};
    let [a, b, c] = parameters.words;
    const fn at_least_one(w: u32) -> u32 {
        if w == 0 { 1 } else { w }
    }
    let words = match (technique.paths, technique.decision()) {
        (_, Some(Decision::RoundRobin { .. })) => [at_least_one(a), at_least_one(b), c],
        (
            PathSchedule::OcclusionQueryLoop { .. } | PathSchedule::BranchPathUnification { .. },
            _,
        ) => [at_least_one(a), b, c],
        _ => [a, b, c],
    };
    technique.with_parameters(StrategyParameters { words })
}

/// What [`warp_kernel!`]'s expansion names, so that a downstream device crate needs no direct
/// dependency on `reconverge-transforms`.
pub mod reexport {
    pub use reconverge_transforms::{ItemLoop, Kernel, Strategy, StrategyParameters, TwoPath};
}

#[cfg(not(target_arch = "nvptx64"))]
extern crate alloc;

pub mod delaying_twin;
mod device_data;
pub mod gems34_twin;
pub use device_data::DeviceData;
mod entry_args;
mod entry_check;
pub use entry_args::{EntryArgs, EntryParameter};
#[doc(hidden)]
pub use entry_check::{EntryMessage, entry_error};
mod entry_table;
#[doc(hidden)]
pub use entry_table::names_are_unique;
pub use entry_table::{DeviceEntries, DeviceKernel, EntryNumbers, EntryPoint};

pub mod plain;
#[cfg(target_arch = "nvptx64")]
mod runner;
#[cfg(target_arch = "nvptx64")]
mod shared_stack;
pub mod tally_copies;
#[cfg(target_arch = "nvptx64")]
pub use runner::run_warp_program;

#[cfg(test)]
mod tests {
    use reconverge_transforms::Strategy;

    /// An entry macro that keeps what it is given: (name, strategy, pass) per entry.
    macro_rules! collect {
        (
            $vis:vis const $names:ident;
            $( $workload:ty as $shape:ident { $( $name:ident $([pass $pass:literal])? => $strategy:expr ),* $(,)? } )*
        ) => {
            $vis const $names: &[(&str, Strategy, u32)] =
                &[$($((stringify!($name), $strategy, collect!(@pass $($pass)?)),)*)*];
        };
        (@pass) => { 0 };
        (@pass $pass:literal) => { $pass };
    }

    use reconverge_transforms::{SplitLoopKernel, TwoPathKernel};
    use reconverge_workloads::synthetic::{BranchSplitBench, LoopSplitBench};

    const ONE_EACH: &[Strategy] = &[
        Strategy::BASELINE,
        Strategy::BRANCH_SPLITTING,
        Strategy::Z_CULL_MASKING,
    ];
    const TWO: &[Strategy] = &[Strategy::BASELINE, Strategy::LOOP_SPLITTING];

    crate::entries_from_data! {
        collect;
        const LIST;
        BranchSplitBench as TwoPathKernel from (ONE_EACH) { base, (split_a, split_b), (zcull_mask, zcull_a, zcull_b) }
        LoopSplitBench as SplitLoopKernel from (TWO) { loop_base, loop_split, }
    }

    #[test]
    fn a_shape_runs_the_kinds_it_lists_whatever_their_parameters() {
        use reconverge_transforms::{BranchLoopKernel, Decision, Kernel};
        let loop_kinds =
            <BranchLoopKernel<reconverge_workloads::reference::Collatz> as Kernel>::STRATEGIES;
        let other_vote = [Strategy::iteration_delaying(Decision::majority_vote(
            3, false,
        ))];
        assert!(crate::shape_runs(loop_kinds, &other_vote, 0));
        let split = [Strategy::BRANCH_SPLITTING, Strategy::LOOP_SPLITTING];
        assert!(!crate::shape_runs(loop_kinds, &split, 0));
        assert!(!crate::shape_runs(loop_kinds, &split, 1));
        // An index past the slice is the length check's to report.
        assert!(crate::shape_runs(loop_kinds, &split, 2));
    }

    #[test]
    fn the_first_entry_of_each_technique_with_numbers_has_the_twin_that_runs() {
        use crate::EntryNumbers::{Launch, Unused};
        use reconverge_transforms::Decision;
        let vote = |t| Strategy::iteration_delaying(Decision::majority_vote(t, true));
        let block = [
            ("base", Strategy::BASELINE, 0),
            ("vote8", vote(8), 0),
            ("vote16", vote(16), 0),
            (
                "vote8_nostop",
                Strategy::iteration_delaying(Decision::majority_vote(8, false)),
                0,
            ),
            (
                "cycle",
                Strategy::iteration_delaying(Decision::round_robin(3, 1, true)),
                0,
            ),
            (
                "balanced",
                Strategy::iteration_delaying(Decision::CostBalanced),
                0,
            ),
            ("occ4_first", Strategy::occlusion_query_loop(4), 0),
            ("occ4_next", Strategy::occlusion_query_loop(4), 1),
            ("occ8_next", Strategy::occlusion_query_loop(8), 1),
        ];
        let twins = block.map(|(name, _, _)| crate::twin_numbers(&block, name));
        // No numbers (baseline, cost-balanced): no twin. A second vote of the same switches:
        // the first's twin serves it. Another switch or decision, another pass: a twin each.
        assert_eq!(
            twins,
            [
                Unused, Launch, Unused, Launch, Launch, Unused, Launch, Launch, Unused
            ]
        );
        assert_eq!(crate::twin_numbers(&block, "not listed"), Unused);
    }

    #[test]
    fn a_name_that_is_another_entrys_twin_is_caught() {
        assert!(crate::names_are_unique(&[
            "vote",
            "vote_any",
            "cycle",
            "cycle_any"
        ]));
        // `vote_any` listed beside `vote`: its own name and `vote`'s twin collide.
        let names = ["vote", "vote_any", "vote_any", "vote_any_any"];
        assert!(!crate::names_are_unique(&names));
        assert!(!crate::names_are_unique(&["a", "b", "a"]));
    }

    #[test]
    fn names_take_their_slices_strategies_in_order_with_a_pass_each() {
        let expected: &[(&str, Strategy, u32)] = &[
            ("base", Strategy::BASELINE, 0),
            ("split_a", Strategy::BRANCH_SPLITTING, 0),
            ("split_b", Strategy::BRANCH_SPLITTING, 1),
            ("zcull_mask", Strategy::Z_CULL_MASKING, 0),
            ("zcull_a", Strategy::Z_CULL_MASKING, 1),
            ("zcull_b", Strategy::Z_CULL_MASKING, 2),
            ("loop_base", Strategy::BASELINE, 0),
            ("loop_split", Strategy::LOOP_SPLITTING, 0),
        ];
        assert_eq!(LIST, expected);
    }
}
