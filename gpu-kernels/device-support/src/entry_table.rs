//! The table of a PTX module's entry points, as the host reads it: [`EntryPoint`], and the
//! [`DeviceKernel`] trait that maps a kernel type's (strategy, pass) to its entry point. Here,
//! beside the macros that compile the entry points, so that a crate of workloads can declare
//! them without depending on the CUDA runtime (`reconverge-gpu`, which re-exports all of it).

use reconverge_transforms::{
    BranchLoopKernel, FactoredBranchLoopKernel, ItemLoopKernel, Kernel, SplitLoopKernel, Strategy,
    TwoPathKernel,
};

/// One compiled entry point: a kernel type run under one strategy (or one technique), one
/// pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntryPoint {
    /// The PTX entry point's name.
    pub name: &'static str,
    /// The kernel type, as written in the kernel list (`BranchLoopKernel<SynItDelay>`).
    pub kernel: &'static str,
    /// The strategy listed for it.
    pub strategy: Strategy,
    /// The pass of `strategy` it runs (0 for single-pass strategies).
    pub pass: u32,
    /// Where it takes `strategy`'s numbers from, and so which strategies it runs.
    pub numbers: EntryNumbers,
}

/// Where an entry point takes its strategy's numbers ([`Strategy::parameters`]: a vote's
/// threshold, a round robin's cycle, iterations per pass, items per thread) from.
/// `reconverge_device::entries!` compiles each listed entry twice: as `name` with the listed
/// numbers and as `name_any` with the launch's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryNumbers {
    /// Compiled in as constants: the entry point runs exactly [`EntryPoint::strategy`], as
    /// fast as code that knew no other value.
    Listed,
    /// The launch's ([`crate::EntryArgs::parameters`]): the entry point runs every strategy of
    /// [`EntryPoint::strategy`]'s technique ([`Strategy::same_technique`]).
    Launch,
    /// None: an empty entry point, never launched (the `_any` twin of an entry whose
    /// technique has no numbers, or whose technique's first entry in the list has the twin
    /// that runs).
    Unused,
}

impl EntryNumbers {
    /// Whether the entry point takes the launch's numbers (and so runs at all, for a twin).
    pub const fn is_launch(self) -> bool {
        matches!(self, EntryNumbers::Launch)
    }
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

    /// The entry point that runs pass `pass` of `strategy`, if one was compiled for it: the
    /// one listed with exactly `strategy`, whose numbers are constants
    /// ([`EntryNumbers::Listed`]), else one that takes its technique's numbers from the launch
    /// ([`EntryNumbers::Launch`], [`Strategy::same_technique`]), so that an entry listed with a
    /// majority vote of 8 also gives a vote of any other threshold.
    fn entry_point(strategy: &Strategy, pass: u32) -> Option<&'static str> {
        let of_pass = |numbers| {
            Self::ENTRY_POINTS
                .iter()
                .filter(move |e| e.pass == pass && e.numbers == numbers)
        };
        of_pass(EntryNumbers::Listed)
            .find(|e| e.strategy == *strategy)
            .or_else(|| of_pass(EntryNumbers::Launch).find(|e| e.strategy.same_technique(strategy)))
            .map(|e| e.name)
    }

    /// The strategies listed with entry points (each once, in list order); every other
    /// strategy of a listed technique with numbers runs too.
    #[cfg(not(target_arch = "nvptx64"))]
    fn strategies() -> alloc::vec::Vec<Strategy> {
        let mut out: alloc::vec::Vec<Strategy> = alloc::vec::Vec::new();
        for e in Self::ENTRY_POINTS {
            if e.numbers == EntryNumbers::Listed && !out.contains(&e.strategy) {
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

/// Whether no two of `names` are equal, for [`device_entries!`]'s check that a listed name
/// does not collide with another entry's `_any` twin (the PTX would define the symbol twice).
#[doc(hidden)]
pub const fn names_are_unique(names: &[&str]) -> bool {
    let mut i = 0;
    while i < names.len() {
        let mut j = i + 1;
        while j < names.len() {
            if same_name(names[i], names[j]) {
                return false;
            }
            j += 1;
        }
        i += 1;
    }
    true
}

/// `a == b`, in a `const fn`.
pub(crate) const fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
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
///         my_baseline => Strategy::BASELINE,
///         my_dynamic => Strategy::DYNAMIC_WORK_ASSIGNMENT,
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
        /// Every entry point of the list (each listed entry and its `_any` twin), for
        /// `GpuContext::with_ptx`.
        $vis const $names: &[&str] =
            &[$($(stringify!($name), concat!(stringify!($name), "_any"),)*)*];
        const _: () = assert!(
            $crate::names_are_unique($names),
            "two GPU entry points of this list have one name: an entry named `x_any` beside an entry `x` (whose `_any` twin takes its numbers at run time), or a name listed twice; rename one"
        );
        $(
            // SAFETY: the caller's list names `#[repr(C)]` plain-data workloads (the macro's
            // documented contract) and the device crate compiles the same list.
            unsafe impl $crate::DeviceEntries<$shape<$workload>> for $workload {
                const KERNEL_NAME: &'static str = concat!(stringify!($shape), "<", stringify!($workload), ">");
                const ENTRY_POINTS: &'static [$crate::EntryPoint] = {
                    // The block's entries, as `entries!` numbers their twins.
                    const BLOCK: &[(&str, $crate::reexport::Strategy, u32)] =
                        $crate::entry_block!($($name $([pass $pass])? => $strategy),*);
                    &[$(
                        $crate::EntryPoint {
                            name: stringify!($name),
                            kernel: Self::KERNEL_NAME,
                            strategy: $strategy,
                            pass: $crate::device_entries!(@pass $($pass)?),
                            numbers: $crate::EntryNumbers::Listed,
                        },
                        $crate::EntryPoint {
                            name: concat!(stringify!($name), "_any"),
                            kernel: Self::KERNEL_NAME,
                            strategy: $strategy,
                            pass: $crate::device_entries!(@pass $($pass)?),
                            numbers: $crate::twin_numbers(BLOCK, stringify!($name)),
                        },
                    )*]
                };
            }
        )*
    };
    (@pass) => { 0 };
    (@pass $pass:literal) => { $pass };
}
