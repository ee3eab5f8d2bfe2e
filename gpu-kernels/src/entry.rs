//! The entry points of the device module, from the one kernel list (`src/kernels.in`), and the
//! [`DeviceKernel`] trait that maps a kernel type's (strategy, pass) to its entry point.

use reconverge_transforms::{
    BranchLoopKernel, Decision, FactoredBranchLoopKernel, ItemLoopKernel, Kernel, SplitLoopKernel,
    Strategy, TwoPathKernel,
};
use reconverge_workloads::mcml::McmlKernel;
use reconverge_workloads::synthetic::{
    BranchSplitBench, DynamicWork, Gems34Branch, LoopSplitBench, PathUnification, SynBrDis,
    SynItDelay,
};

/// One compiled entry point: a kernel type run under one strategy, one pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntryPoint {
    /// The PTX entry point's name.
    pub name: &'static str,
    /// The kernel type, as written in the kernel list (`BranchLoopKernel<SynItDelay>`).
    pub kernel: &'static str,
    /// The strategy compiled into it.
    pub strategy: Strategy,
    /// The pass of `strategy` it runs (0 for single-pass strategies).
    pub pass: u32,
}

/// A kernel type the CUDA backend can run: it has entry points in the embedded PTX.
///
/// Implemented, by the kernel list `src/kernels.in`, for exactly the kernel types that have
/// entry points; a (strategy, pass) with no entry point is an error naming the kernel and the
/// strategy ([`crate::GpuError::NoEntryPoint`]), never a panic.
///
/// # Safety
/// `Self` and `Self::Output` are plain data (`Copy`, no pointers, no references) with the same
/// layout on the host and on `nvptx64-nvidia-cuda` (`#[repr(C)]`, or `#[repr(transparent)]`
/// around such a type), and all-zero bytes are a valid `Self::Output` (the backend zeroes the
/// output buffer before a run). The kernel list only names such types.
pub unsafe trait DeviceKernel: Kernel + Copy + 'static {
    /// The kernel type as the kernel list writes it, for reports and errors.
    const KERNEL_NAME: &'static str;
    /// Its entry points.
    const ENTRY_POINTS: &'static [EntryPoint];

    /// The entry point that runs pass `pass` of `strategy`, if one was compiled.
    fn entry_point(strategy: &Strategy, pass: u32) -> Option<&'static str> {
        Self::ENTRY_POINTS
            .iter()
            .find(|e| e.strategy == *strategy && e.pass == pass)
            .map(|e| e.name)
    }

    /// The strategies that have entry points (each once, in list order).
    fn strategies() -> Vec<Strategy> {
        let mut out: Vec<Strategy> = Vec::new();
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
/// (and so runnable by `CudaBackend`, feature `runtime`) without a newtype, since `Self` is your
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
/// reconverge_gpu::device_entries! {
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

/// Expands the kernel list: [`KERNELS`], [`ENTRY_POINTS`] and one [`DeviceKernel`] impl per
/// kernel type.
macro_rules! reconverge_kernels {
    (
        selftests: $($selftest:ident),* $(,)? ;
        $( $kernel:ty { $( $name:ident $([pass $pass:literal])? => $strategy:expr ),* $(,)? } )*
    ) => {
        /// Every entry point of the embedded PTX: the self-tests, then [`ENTRY_POINTS`]
        /// (the kernel list `src/kernels.in`, shared with build.rs and the device crate).
        pub const KERNELS: &[&str] = &[
            $(stringify!($selftest),)*
            $($(stringify!($name),)*)*
        ];

        /// Every (kernel type, strategy, pass) entry point of the kernel list.
        pub const ENTRY_POINTS: &[EntryPoint] = &[
            $($(EntryPoint {
                name: stringify!($name),
                kernel: stringify!($kernel),
                strategy: $strategy,
                pass: reconverge_kernels!(@pass $($pass)?),
            },)*)*
        ];

        $(
            // SAFETY: the kernel list names only `#[repr(transparent)]` wrappers of
            // `#[repr(C)]` plain-data workloads whose outputs are plain data valid as zeros.
            unsafe impl DeviceKernel for $kernel {
                const KERNEL_NAME: &'static str = stringify!($kernel);
                const ENTRY_POINTS: &'static [EntryPoint] = &[
                    $(EntryPoint {
                        name: stringify!($name),
                        kernel: stringify!($kernel),
                        strategy: $strategy,
                        pass: reconverge_kernels!(@pass $($pass)?),
                    },)*
                ];
            }
        )*
    };
    (@pass) => { 0 };
    (@pass $pass:literal) => { $pass };
}

include!("kernels.in");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_every_entry_is_in_kernels() {
        for (i, a) in KERNELS.iter().enumerate() {
            assert!(!KERNELS[..i].contains(a), "{a} twice");
        }
        for e in ENTRY_POINTS {
            assert!(KERNELS.contains(&e.name), "{}", e.name);
        }
    }

    #[test]
    fn every_entry_runs_a_pass_its_kernel_has() {
        fn check<K: DeviceKernel>(kernel: K) {
            for e in K::ENTRY_POINTS {
                let passes = kernel.passes(&e.strategy);
                assert!(
                    passes.is_ok_and(|p| e.pass < p),
                    "{}: {:?} pass {}",
                    e.name,
                    e.strategy,
                    e.pass
                );
                // Every pass of a listed strategy has its entry point.
                for p in 0..passes.unwrap_or(0) {
                    assert!(
                        K::entry_point(&e.strategy, p).is_some(),
                        "{} pass {p}",
                        e.name
                    );
                }
            }
        }
        check(BranchLoopKernel(SynItDelay::new(2, 8, 0.5, 1)));
        check(FactoredBranchLoopKernel(SynBrDis::new(2, 2, 8, 1)));
        check(TwoPathKernel(BranchSplitBench::new(
            64,
            0.5,
            reconverge_workloads::synthetic::MaskLayout::Random,
            1,
        )));
        check(ItemLoopKernel(DynamicWork::new(4, 8, 1)));
        check(TwoPathKernel(PathUnification::new(4, 1)));
        check(TwoPathKernel(Gems34Branch::random(0.5, 1)));
    }

    #[test]
    fn lookup_finds_passes_and_rejects_the_unknown() {
        type B = TwoPathKernel<BranchSplitBench>;
        assert_eq!(
            B::entry_point(&Strategy::BranchSplitting, 1),
            Some("bsplit_split_b")
        );
        assert_eq!(B::entry_point(&Strategy::BranchSplitting, 2), None);
        type M = McmlKernel<f32>;
        assert_eq!(
            M::entry_point(&Strategy::Baseline, 0),
            Some("mcml_baseline")
        );
        assert_eq!(
            M::entry_point(
                &Strategy::IterationDelaying(Decision::MajorityVote {
                    threshold: 3,
                    stop_when_a_lane_finishes: true
                }),
                0
            ),
            None
        );
        assert_eq!(<BranchLoopKernel<SynItDelay>>::strategies().len(), 18);
    }
}
