//! Your crate's GPU entry points, listed once: [`gpu_entry_points!`](crate::gpu_entry_points)
//! is read by both builds of your crate. The GPU build (nvptx64, which
//! `reconverge_gpu_build::build_this_crate` runs from your `build.rs`) expands it to the PTX
//! entry points; both builds to the list of names and the tables `CudaBackend` looks
//! strategies up in.

/// The GPU entry points of your crate's workloads, listed once: one name per strategy of a
/// slice of strategies (entry `i` runs `slice[i]`; a parenthesised group of two or three names
/// is one multi-pass strategy, a name per pass), and the constant `NAMES` with every entry
/// point's name. Each entry is compiled twice: `name` runs its strategy with the numbers
/// (thresholds, cycles, iterations per pass, items per thread) compiled in, as fast as code
/// that knew no other value; `name_any` takes them as a kernel argument, so it runs every
/// strategy of that technique, listed or not (only the first `_any` of a technique with
/// numbers has code; the rest are empty and never launched).
///
/// ```
/// use reconverge::prelude::*;
///
/// reconverge::device_data! {
///     #[derive(Clone, Copy)]
///     pub struct Halving;
/// }
///
/// impl BranchLoop for Halving {
///     type State = u32;
///     type Output = u32;
///     fn regions(&self) -> LoopRegions {
///         LoopRegions {
///             condition: LoopRegion::Condition.region("odd?", 1),
///             taken: LoopRegion::Taken.region("- 1", 1),
///             not_taken: LoopRegion::NotTaken.region("/ 2", 1),
///             after_branch: LoopRegion::AfterBranch.region("-", 0),
///             item: LoopRegion::Item.region("item", 1),
///         }
///     }
///     fn start(&self, item: u32) -> u32 { item }
///     fn running(&self, s: &u32) -> bool { *s > 0 }
///     fn condition(&self, s: &mut u32) -> bool { *s % 2 == 1 }
///     fn taken<T: Tally>(&self, s: &mut u32, _: &mut T) { *s -= 1 }
///     fn not_taken<T: Tally>(&self, s: &mut u32, _: &mut T) { *s /= 2 }
///     fn after_branch<T: Tally>(&self, _: &mut u32, _: &mut T) {}
///     fn finish(&self, s: &u32) -> u32 { *s }
/// }
///
/// pub const HALVING_STRATEGIES: &[Strategy] =
///     &[Strategy::BASELINE, Strategy::DYNAMIC_WORK_ASSIGNMENT];
///
/// reconverge::gpu_entry_points! {
///     pub const HALVING_ENTRY_POINTS;
///     Halving as BranchLoopKernel from (HALVING_STRATEGIES) { halving_baseline, halving_dynamic }
/// }
///
/// assert_eq!(
///     HALVING_ENTRY_POINTS,
///     ["halving_baseline", "halving_baseline_any", "halving_dynamic", "halving_dynamic_any"]
/// );
/// ```
///
/// The host build also defines the tables `CudaBackend` looks strategies up in
/// (`reconverge::device::DeviceEntries`); the GPU build (nvptx64, run by `reconverge_gpu_build::build_this_crate` from your
/// `build.rs`) defines the entry points themselves. `Halving` must be GPU data, `#[repr(C)]`
/// plain data the host copies to the GPU byte for byte: declare it with
/// [`device_data!`](crate::device_data), which writes the `#[repr(C)]` and the
/// `DeviceData` impl together; it must also compile without `std` for the GPU build. What the
/// compiler can see is checked where the list is written: a workload not declared as GPU data
/// ("`Halving` is not declared as GPU data"), a name count that differs from the slice's
/// ("expected an array with a size of N, found one with a size of S": N names, S strategies),
/// and a strategy the shape does not run (one error naming the entry point, its index, the
/// shape and what it runs instead, or, for a pairing no program implements, the assignment
/// that pairs).
///
/// A workload written as a plain struct, without `device_data!`, does not compile:
///
/// ```compile_fail,E0277
/// # use reconverge::prelude::*;
/// #[derive(Clone, Copy)]
/// pub struct Halving;
/// # impl BranchLoop for Halving {
/// #     type State = u32; type Output = u32;
/// #     fn regions(&self) -> LoopRegions { LoopRegions {
/// #         condition: LoopRegion::Condition.region("c", 1), taken: LoopRegion::Taken.region("t", 1),
/// #         not_taken: LoopRegion::NotTaken.region("n", 1), after_branch: LoopRegion::AfterBranch.region("a", 0),
/// #         item: LoopRegion::Item.region("i", 1) } }
/// #     fn start(&self, item: u32) -> u32 { item }
/// #     fn running(&self, s: &u32) -> bool { *s > 0 }
/// #     fn condition(&self, s: &mut u32) -> bool { *s % 2 == 1 }
/// #     fn taken<T: Tally>(&self, s: &mut u32, _: &mut T) { *s -= 1 }
/// #     fn not_taken<T: Tally>(&self, s: &mut u32, _: &mut T) { *s /= 2 }
/// #     fn after_branch<T: Tally>(&self, _: &mut u32, _: &mut T) {}
/// #     fn finish(&self, s: &u32) -> u32 { *s }
/// # }
/// const ONE: &[Strategy] = &[Strategy::BASELINE];
/// reconverge::gpu_entry_points! {
///     pub const NAMES;
///     Halving as BranchLoopKernel from (ONE) { halving_baseline }
/// }
/// ```
///
/// Two names for three strategies does not compile:
///
/// ```compile_fail,E0308
/// # use reconverge::prelude::*;
/// # reconverge::device_data! { #[derive(Clone, Copy)] pub struct Halving; }
/// # impl BranchLoop for Halving {
/// #     type State = u32; type Output = u32;
/// #     fn regions(&self) -> LoopRegions { LoopRegions {
/// #         condition: LoopRegion::Condition.region("c", 1), taken: LoopRegion::Taken.region("t", 1),
/// #         not_taken: LoopRegion::NotTaken.region("n", 1), after_branch: LoopRegion::AfterBranch.region("a", 0),
/// #         item: LoopRegion::Item.region("i", 1) } }
/// #     fn start(&self, item: u32) -> u32 { item }
/// #     fn running(&self, s: &u32) -> bool { *s > 0 }
/// #     fn condition(&self, s: &mut u32) -> bool { *s % 2 == 1 }
/// #     fn taken<T: Tally>(&self, s: &mut u32, _: &mut T) { *s -= 1 }
/// #     fn not_taken<T: Tally>(&self, s: &mut u32, _: &mut T) { *s /= 2 }
/// #     fn after_branch<T: Tally>(&self, _: &mut u32, _: &mut T) {}
/// #     fn finish(&self, s: &u32) -> u32 { *s }
/// # }
/// const THREE: &[Strategy] =
///     &[Strategy::BASELINE, Strategy::DYNAMIC_WORK_ASSIGNMENT, Strategy::GRID_WIDE_DYNAMIC_WORK];
/// reconverge::gpu_entry_points! {
///     pub const NAMES;
///     Halving as BranchLoopKernel from (THREE) { halving_baseline, halving_dynamic }
/// }
/// ```
///
/// nor does a strategy of another shape (branch splitting is the two-path shape's):
///
/// ```compile_fail,E0080
/// # use reconverge::prelude::*;
/// # reconverge::device_data! { #[derive(Clone, Copy)] pub struct Halving; }
/// # impl BranchLoop for Halving {
/// #     type State = u32; type Output = u32;
/// #     fn regions(&self) -> LoopRegions { LoopRegions {
/// #         condition: LoopRegion::Condition.region("c", 1), taken: LoopRegion::Taken.region("t", 1),
/// #         not_taken: LoopRegion::NotTaken.region("n", 1), after_branch: LoopRegion::AfterBranch.region("a", 0),
/// #         item: LoopRegion::Item.region("i", 1) } }
/// #     fn start(&self, item: u32) -> u32 { item }
/// #     fn running(&self, s: &u32) -> bool { *s > 0 }
/// #     fn condition(&self, s: &mut u32) -> bool { *s % 2 == 1 }
/// #     fn taken<T: Tally>(&self, s: &mut u32, _: &mut T) { *s -= 1 }
/// #     fn not_taken<T: Tally>(&self, s: &mut u32, _: &mut T) { *s /= 2 }
/// #     fn after_branch<T: Tally>(&self, _: &mut u32, _: &mut T) {}
/// #     fn finish(&self, s: &u32) -> u32 { *s }
/// # }
/// const TWO: &[Strategy] = &[Strategy::BASELINE, Strategy::BRANCH_SPLITTING];
/// reconverge::gpu_entry_points! {
///     pub const NAMES;
///     Halving as BranchLoopKernel from (TWO) { halving_baseline, halving_split }
/// }
/// ```
#[macro_export]
macro_rules! gpu_entry_points {
    // Each workload of the list must be declared as GPU data (`#[repr(C)]` plain data: the
    // backend copies it to the GPU byte for byte).
    (@device_data) => {};
    (@device_data $workload:ty as $shape:ident from ($slice:expr) { $($item:tt)* } $($rest:tt)*) => {
        const _: () = {
            fn workload_is_device_data<T: $crate::device::DeviceData>() {}
            let _ = workload_is_device_data::<$workload> as fn();
        };
        $crate::gpu_entry_points! { @device_data $($rest)* }
    };
    ($vis:vis const $names:ident; $($list:tt)*) => {
        $crate::gpu_entry_points! { @device_data $($list)* }
        // The names and the host's tables (no CUDA runtime needed)...
        $crate::device::entries_from_data! { [$crate::device::device_entries]; $vis const $names; $($list)* }
        // ... and the entry points, which only the GPU build compiles, without the list's
        // checks: the expansion above has made and reported them.
        #[cfg(target_arch = "nvptx64")]
        const _: () = {
            $crate::device::entries_from_data! { @unchecked [$crate::device::entries]; pub const $names; $($list)* }
        };
    };
}

/// The PTX that `reconverge_gpu_build::build_this_crate` compiled from this crate's
/// [`gpu_entry_points!`](crate::gpu_entry_points), as a `&'static str` for
/// `CudaBackend::with_ptx`. Without a `build.rs` that calls it (none, or one whose `main` does
/// not), the compiler says what to write.
///
/// `build_this_crate` names the file it wrote in `RECONVERGE_THIS_CRATE_PTX`
/// (`reconverge_gpu_build::THIS_CRATE_PTX_ENV`) for this crate's compilation only, so a crate
/// whose build script did not build it gets that message, not rustc's "couldn't read" of a
/// file in `OUT_DIR`. Here, in a crate whose build script (it has none) never called it:
///
/// ```compile_fail
/// const PTX: &str = reconverge::this_crate_ptx!();
/// ```
#[cfg(all(not(target_arch = "nvptx64"), feature = "cuda"))]
#[macro_export]
macro_rules! this_crate_ptx {
    () => {
        include_str!(env!(
            "RECONVERGE_THIS_CRATE_PTX",
            "this crate's GPU entry points were not compiled: its build.rs must call reconverge_gpu_build::build_this_crate(). Write build.rs as `fn main() { reconverge_gpu_build::build_this_crate(); }` (behind the feature that needs the GPU, if any), with reconverge-gpu-build under [build-dependencies]"
        ))
    };
}

/// This crate's GPU module as `build_this_crate` shipped it, a
/// [`ModuleImages`](crate::gpu::ModuleImages) for `CudaBackend::with_images`: the PTX of
/// [`this_crate_ptx!`](crate::this_crate_ptx) and the cubins (SASS, by default for sm_80 and
/// sm_90) that the build made from it where it found CUDA's `ptxas` (none elsewhere, and a
/// build warning says why). A GPU loads the cubin for its architecture where there is one,
/// which saves the driver's JIT compilation of the PTX, and the PTX otherwise.
#[cfg(all(not(target_arch = "nvptx64"), feature = "cuda"))]
#[macro_export]
macro_rules! this_crate_module {
    () => {
        $crate::gpu::ModuleImages::new(
            env!("CARGO_PKG_NAME"),
            $crate::this_crate_ptx!(),
            include!(concat!(
                env!(
                    "OUT_DIR",
                    "no build script: this crate's GPU entry points are compiled by its build.rs. Add `build.rs` with `fn main() { reconverge_gpu_build::build_this_crate(); }` and `reconverge-gpu-build` under [build-dependencies]"
                ),
                "/reconverge-entry-points.cubins.rs"
            )),
        )
    };
}
