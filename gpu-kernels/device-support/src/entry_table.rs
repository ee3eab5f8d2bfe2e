//! The table of a PTX module's entry points, as the host reads it: [`EntryPoint`], and the
//! [`DeviceKernel`] trait that maps a kernel type's (strategy, pass) to its entry point. Here,
//! beside the macros that compile the entry points, so that a crate of workloads can declare
//! them without depending on the CUDA runtime (`reconverge-gpu`, which re-exports all of it).

use reconverge_transforms::{
    BranchLoopKernel, FactoredBranchLoopKernel, ItemLoopKernel, Kernel, SplitLoopKernel, Strategy,
    TwoPathKernel,
};

/// One compiled entry point: a kernel type run under one technique, one pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntryPoint {
    /// The PTX entry point's name.
    pub name: &'static str,
    /// The kernel type, as written in the kernel list (`BranchLoopKernel<SynItDelay>`).
    pub kernel: &'static str,
    /// The strategy listed for it: its technique is compiled in, its numbers
    /// ([`Strategy::parameters`]) are the launch's.
    pub strategy: Strategy,
    /// The pass of `strategy` it runs (0 for single-pass strategies).
    pub pass: u32,
}

/// A kernel type the CUDA backend can run: it has entry points in a PTX module.
///
/// Implemented for the shape wrappers of a workload that lists its entry points
/// ([`DeviceEntries`], written by [`device_entries!`](crate::device_entries)); a (strategy, pass)
/// with no entry point is an error naming the kernel and the strategy
/// (`reconverge_gpu::GpuError::NoEntryPoint`), never a panic.
///
/// # Safety
/// `Self` and `Self::Output` are plain data (`Copy`, no pointers, no references) with the same
/// layout on the host and on `nvptx64-nvidia-cuda` (`#[repr(C)]`, or `#[repr(transparent)]`
/// around such a type), and all-zero bytes are a valid `Self::Output` (the backend zeroes the
/// output buffer before a run).
pub unsafe trait DeviceKernel: Kernel + Copy + 'static {
    /// The kernel type as the kernel list writes it, for reports and errors.
    const KERNEL_NAME: &'static str;
    /// Its entry points.
    const ENTRY_POINTS: &'static [EntryPoint];

    /// The entry point that runs pass `pass` of `strategy`, if one was compiled for its
    /// technique ([`Strategy::same_technique`]): an entry point takes the strategy's numbers at
    /// run time, so one listed with a majority vote of 8 runs a vote of any threshold. The
    /// entry listed with exactly `strategy` is preferred, for its name in reports.
    fn entry_point(strategy: &Strategy, pass: u32) -> Option<&'static str> {
        let of_pass = || Self::ENTRY_POINTS.iter().filter(move |e| e.pass == pass);
        of_pass()
            .find(|e| e.strategy == *strategy)
            .or_else(|| of_pass().find(|e| e.strategy.same_technique(strategy)))
            .map(|e| e.name)
    }

    /// The strategies listed with entry points (each once, in list order); every other
    /// strategy of the same techniques runs too.
    #[cfg(not(target_arch = "nvptx64"))]
    fn strategies() -> alloc::vec::Vec<Strategy> {
        let mut out: alloc::vec::Vec<Strategy> = alloc::vec::Vec::new();
        for e in Self::ENTRY_POINTS {
            if !out.contains(&e.strategy) {
                out.push(e.strategy);
            }
        }
        out
    }
}

/// The entry points of workload `Self` run as shape kernel `K` (`BranchLoopKernel<Self>`,
/// `TwoPathKernel<Self>`, ...) in a PTX module of your own: what makes `K` a [`DeviceKernel`]
/// (and so runnable by `reconverge_gpu::CudaBackend`) without a newtype, since `Self` is your
/// type.
/// Written by [`device_entries!`](crate::device_entries) from the same list that
/// `reconverge_device::entries!` compiles into the module.
///
/// # Safety
/// As [`DeviceKernel`]: `Self` and `K::Output` are plain data with one layout on the host and
/// the device (`#[repr(C)]`), all-zero bytes are a valid output, and every entry point named
/// runs `K` under the strategy and pass its entry says.
pub unsafe trait DeviceEntries<K> {
    /// The kernel type as the list writes it.
    const KERNEL_NAME: &'static str;
    /// Its entry points.
    const ENTRY_POINTS: &'static [EntryPoint];
}

/// `Shape<L>` is a [`DeviceKernel`] wherever `L` lists its entry points for it.
macro_rules! shape_device_kernels {
    ($($wrapper:ident: $shape:ident),* $(,)?) => {$(
        // SAFETY: `DeviceEntries`' contract is `DeviceKernel`'s, and the wrappers are
        // `#[repr(transparent)]` around `L`.
        unsafe impl<L> DeviceKernel for $wrapper<L>
        where
            L: DeviceEntries<$wrapper<L>> + reconverge_transforms::$shape + Copy + 'static,
        {
            const KERNEL_NAME: &'static str = L::KERNEL_NAME;
            const ENTRY_POINTS: &'static [EntryPoint] = L::ENTRY_POINTS;
        }
    )*};
}
shape_device_kernels!(
    BranchLoopKernel: BranchLoop,
    TwoPathKernel: TwoPath,
    ItemLoopKernel: ItemLoop,
    FactoredBranchLoopKernel: FactoredBranchLoop,
    SplitLoopKernel: SplitLoop,
);

/// Declares, on the host, the entry points of your own PTX module from the one list that
/// `reconverge_device::entries!` compiles on the device and `reconverge_gpu_build::entry_names!`
/// names in `build.rs`: one [`DeviceEntries`] impl per workload and shape, and a constant with
/// every entry point's name (what `reconverge_gpu::CudaBackend::with_ptx` loads).
///
/// Invoke it in the crate that defines the workloads (the impls are for your types; behind a
/// host-only feature if that crate is also compiled for the GPU), with the shapes in scope:
///
/// ```text
/// reconverge_device::device_entries! {
///     pub const MY_ENTRY_POINTS;
///     MyLoop as BranchLoopKernel {
///         my_baseline => Strategy::Baseline,
///         my_dynamic => Strategy::DynamicWorkAssignment,
///     }
/// }
/// ```
///
/// The workloads must be `#[repr(C)]` plain data (see [`DeviceEntries`]); the macro's impls are
/// `unsafe` on that promise.
#[macro_export]
macro_rules! device_entries {
    (
        $vis:vis const $names:ident;
        $( $workload:ty as $shape:ident { $( $name:ident $([pass $pass:literal])? => $strategy:expr ),* $(,)? } )*
    ) => {
        /// Every entry point of the list, for `GpuContext::with_ptx`.
        $vis const $names: &[&str] = &[$($(stringify!($name),)*)*];
        $(
            // SAFETY: the caller's list names `#[repr(C)]` plain-data workloads (the macro's
            // documented contract) and the device crate compiles the same list.
            unsafe impl $crate::DeviceEntries<$shape<$workload>> for $workload {
                const KERNEL_NAME: &'static str = concat!(stringify!($shape), "<", stringify!($workload), ">");
                const ENTRY_POINTS: &'static [$crate::EntryPoint] = &[
                    $($crate::EntryPoint {
                        name: stringify!($name),
                        kernel: concat!(stringify!($shape), "<", stringify!($workload), ">"),
                        strategy: $strategy,
                        pass: $crate::device_entries!(@pass $($pass)?),
                    },)*
                ];
            }
        )*
    };
    (@pass) => { 0 };
    (@pass $pass:literal) => { $pass };
}
