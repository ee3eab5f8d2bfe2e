//! What a backend runs: a workload in one of the shapes, under a strategy, warp by warp.

use reconverge_simt::{LaneMask, Warp};

use crate::io::{Sink, Tally, WarpTask};
use crate::scratch::Scratch;
use crate::strategy::{Decision, Strategy, StrategyError};

/// One warp's part of a pass: a loop that the whole warp runs together, one iteration per
/// [`WarpProgram::step`].
///
/// Backends call `step` until it returns `false`. The CPU backend interleaves the warps of a
/// block step by step, so that block-shared counters are shared as on a GPU; the GPU backend
/// simply loops.
pub trait WarpProgram<W: Warp> {
    /// What each item produces.
    type Output: Copy;

    /// Runs one iteration of the warp's loop; `false` once the warp has no work left.
    fn step<S: Sink<Self::Output>, T: Tally>(
        &mut self,
        warp: &mut W,
        sink: &mut S,
        tally: &mut T,
    ) -> bool;
}

/// Implements [`WarpProgram`] for an enum whose variants each hold one program (one per
/// strategy family of a kernel): `step` runs the call after the variant list on the variant's
/// program, with the names it gives the program and `step`'s warp, sink and tally. Attributes
/// before `impl` go on `step` (MCML's programs ask for `#[inline(always)]`).
///
/// ```
/// # use reconverge_simt::Warp;
/// # use reconverge_transforms::{BranchLoop, BranchLoopProgram, warp_program_enum};
/// /// One workload's warp, as written or through an adapter.
/// pub enum Either<W: Warp, L: BranchLoop> {
///     AsWritten(BranchLoopProgram<W, L>),
///     Adapted(BranchLoopProgram<W, L>),
/// }
/// warp_program_enum!(
///     impl<W, L: BranchLoop> for Either -> L::Output { AsWritten, Adapted }
///     |program, warp, sink, tally| program.step(warp, sink, tally)
/// );
/// ```
#[macro_export]
macro_rules! warp_program_enum {
    (
        $(#[$attr:meta])*
        impl<$($lt:lifetime,)* W $(, $param:ident: $bound:path)*> for $name:ident -> $output:ty {
            $($variant:ident),+ $(,)?
        }
        |$program:ident, $warp:ident, $sink:ident, $tally:ident| $call:expr
    ) => {
        impl<$($lt,)* W: reconverge_simt::Warp $(, $param: $bound)*> $crate::WarpProgram<W>
            for $name<$($lt,)* W $(, $param)*>
        {
            type Output = $output;

            $(#[$attr])*
            fn step<S: $crate::Sink<$output>, T: $crate::Tally>(
                &mut self,
                $warp: &mut W,
                $sink: &mut S,
                $tally: &mut T,
            ) -> bool {
                match self {
                    $(Self::$variant($program) => $call,)+
                }
            }
        }
    };
}

/// Implements [`Kernel`] for a kernel type over one workload parameter: the impl states its
/// output (after `->`, as in [`warp_program_enum!`](crate::warp_program_enum)), its program
/// type, its shape's name and the body of [`Kernel::program`] (naming the arguments it uses),
/// and the signatures, which every kernel shares, are written here once. Any items after
/// `program` (`STRATEGIES`, `passes`, `tally_len`, ...) go into the impl as written, but for
/// [`Kernel::plain_items`], which may be written as `fn plain_items(&self, next, put, tally)
/// { ... }` (naming its arguments, patterns such as `mut next` or `_tally` allowed) and gets
/// its signature, and `#[inline(always)]`, from here too; [`Kernel::pass_as_lane`] and
/// [`Kernel::collected_items`] likewise (`fn pass_as_lane(&self, strategy, pass, lane, vote,
/// task, scratch, put, tally) { ... }`, `fn collected_items(&self, lane, vote, stack, deal, put,
/// tally) { ... }`).
///
/// ```
/// # use reconverge_transforms::{BranchLoop, BranchLoopProgram, check_pass, kernel_impl};
/// /// A branch loop run as written.
/// pub struct AsWritten<L>(L);
/// kernel_impl! {
///     impl<L: BranchLoop + Copy> for AsWritten -> L::Output {
///         type Program<'k, W> = BranchLoopProgram<W, &'k L>;
///         const SHAPE = "branch loop as written";
///         fn program(&self, warp, strategy, pass, task, _scratch) {
///             check_pass(pass, 1)?;
///             BranchLoopProgram::for_strategy(warp, &self.0, strategy, task)
///         }
///         fn passes(&self, strategy: &reconverge_transforms::Strategy)
///             -> Result<u32, reconverge_transforms::StrategyError> {
///             Ok(1)
///         }
///         fn plain_items(&self, mut next, mut put, _tally) {
///             while let Some(item) = next() {
///                 put(item, self.0.run_item(item));
///             }
///             true
///         }
///     }
/// }
/// ```
#[macro_export]
macro_rules! kernel_impl {
    (
        impl<$param:ident: $bound:ident $(+ $more:ident)*> for $kernel:ident -> $output:ty {
            type Program<$k:lifetime, $w:ident> = $program:ty;
            const SHAPE = $shape:expr;
            fn program(
                &$this:ident, $warp:ident, $strategy:ident, $pass:ident, $task:ident,
                $scratch:ident $(,)?
            ) $body:block
            $($rest:tt)*
        }
    ) => {
        impl<$param: $bound $(+ $more)*> $crate::Kernel for $kernel<$param> {
            type Output = $output;
            type Program<$k, $w: reconverge_simt::Warp>
                = $program
            where
                Self: $k;

            const SHAPE: &'static str = $shape;

            fn program<$k, $w: reconverge_simt::Warp>(
                &$k $this,
                $warp: &$w,
                $strategy: &$crate::Strategy,
                $pass: u32,
                $task: $crate::WarpTask,
                $scratch: &$k $crate::Scratch,
            ) -> Result<Self::Program<$k, $w>, $crate::StrategyError> $body

            $crate::kernel_impl! { @items $output; [] $($rest)* }
        }
    };
    // The items after `program`, passed through one token tree at a time into `[...]`, and
    // the per-thread forms' short forms (`plain_items`, `delayed_items`, `speculative_items`,
    // `collected_items`, `pass_as_lane`) given their signatures.
    (@items $output:ty; [$($done:tt)*]) => {
        $($done)*
    };
    (@items $output:ty; [$($done:tt)*]
        fn plain_items(&$this:ident, $next:pat, $put:pat, $tally:pat $(,)?) $body:block
        $($rest:tt)*
    ) => {
        $crate::kernel_impl! {
            @items $output; [
                $($done)*
                #[inline(always)]
                fn plain_items<T: $crate::Tally>(
                    &$this,
                    $next: impl FnMut() -> Option<u32>,
                    $put: impl FnMut(u32, $output),
                    $tally: &mut T,
                ) -> bool $body
            ]
            $($rest)*
        }
    };
    (@items $output:ty; [$($done:tt)*]
        fn delayed_items(
            &$this:ident, $decision:pat, $lane:pat, $vote:pat, $next:pat, $put:pat, $tally:pat
            $(,)?
        ) $body:block
        $($rest:tt)*
    ) => {
        $crate::kernel_impl! {
            @items $output; [
                $($done)*
                #[inline(always)]
                fn delayed_items<T: $crate::Tally>(
                    &$this,
                    $decision: $crate::Decision,
                    $lane: u32,
                    $vote: impl FnMut(bool) -> reconverge_simt::LaneMask,
                    $next: impl FnMut() -> Option<u32>,
                    $put: impl FnMut(u32, $output),
                    $tally: &mut T,
                ) -> bool $body
            ]
            $($rest)*
        }
    };
    (@items $output:ty; [$($done:tt)*]
        fn speculative_items(
            &$this:ident, $threshold:pat, $max_wait:pat, $lane:pat, $vote:pat, $next:pat,
            $put:pat, $tally:pat $(,)?
        ) $body:block
        $($rest:tt)*
    ) => {
        $crate::kernel_impl! {
            @items $output; [
                $($done)*
                #[allow(clippy::too_many_arguments)]
                #[inline(always)]
                fn speculative_items<T: $crate::Tally>(
                    &$this,
                    $threshold: u32,
                    $max_wait: u32,
                    $lane: u32,
                    $vote: impl FnMut(bool) -> reconverge_simt::LaneMask,
                    $next: impl FnMut() -> Option<u32>,
                    $put: impl FnMut(u32, $output),
                    $tally: &mut T,
                ) -> bool $body
            ]
            $($rest)*
        }
    };
    (@items $output:ty; [$($done:tt)*]
        fn collected_items(
            &$this:ident, $lane:pat, $vote:pat, $stack:ident, $deal:pat, $put:pat, $tally:pat
            $(,)?
        ) $body:block
        $($rest:tt)*
    ) => {
        $crate::kernel_impl! {
            @items $output; [
                $($done)*
                #[allow(clippy::too_many_arguments)]
                #[inline(always)]
                fn collected_items<
                    T: $crate::Tally,
                    C: $crate::strategies::collaborative_context_collection::ContextStack,
                >(
                    &$this,
                    $lane: u32,
                    $vote: impl FnMut(bool) -> reconverge_simt::LaneMask,
                    $stack: &mut C,
                    $deal: impl $crate::strategies::collaborative_context_collection::ItemDealer,
                    $put: impl FnMut(u32, $output),
                    $tally: &mut T,
                ) -> bool $body
            ]
            $($rest)*
        }
    };
    (@items $output:ty; [$($done:tt)*]
        fn pass_as_lane(
            &$this:ident, $strategy:pat, $pass:pat, $lane:pat, $vote:pat, $task:pat,
            $scratch:pat, $put:pat, $tally:pat $(,)?
        ) $body:block
        $($rest:tt)*
    ) => {
        $crate::kernel_impl! {
            @items $output; [
                $($done)*
                #[allow(clippy::too_many_arguments)]
                #[inline(always)]
                fn pass_as_lane<T: $crate::Tally>(
                    &$this,
                    $strategy: &$crate::Strategy,
                    $pass: u32,
                    $lane: u32,
                    $vote: impl FnMut(bool) -> reconverge_simt::LaneMask,
                    $task: $crate::WarpTask,
                    $scratch: &$crate::Scratch,
                    $put: impl FnMut(u32, $output),
                    $tally: &mut T,
                ) -> bool $body
            ]
            $($rest)*
        }
    };
    (@items $output:ty; [$($done:tt)*] $first:tt $($rest:tt)*) => {
        $crate::kernel_impl! { @items $output; [$($done)* $first] $($rest)* }
    };
}

/// A workload in one of the shapes of [`crate::shape`], ready to run under a strategy.
///
/// A strategy may need several passes (one kernel launch each on the GPU: branch splitting
/// runs one per path). Passes run in order; every item's output is written by exactly one
/// pass, and outputs never depend on the pass split, the strategy or the launch shape.
pub trait Kernel {
    /// What each item produces. Backends allocate one per item with `Default` (the CPU
    /// backend's buffer, the GPU backend's host copy) and fill them from several threads.
    type Output: Copy + Default + Send + Sync;
    /// The per-warp program of one pass. It borrows the kernel, so a program never copies
    /// the workload's parameters.
    type Program<'k, W: Warp>: WarpProgram<W, Output = Self::Output>
    where
        Self: 'k;

    /// The name of the workload's shape, for error messages.
    const SHAPE: &'static str;

    /// Representative strategies that apply to this kernel, with the papers' parameters: one
    /// of each kind the shape supports, so that benches, tests and entry-point lists can loop
    /// over them instead of writing the list again. Every one is accepted by
    /// [`Kernel::passes`]; parameters other than these (another threshold, another number of
    /// items per thread) may be accepted too. The default, for kernels that do not say, is
    /// [`Strategy::BASELINE`] alone, which every kernel runs.
    const STRATEGIES: &'static [Strategy] = &[Strategy::BASELINE];

    /// Accumulators the workload adds to through its [`Tally`] (MCML's grids); 0 for none.
    fn tally_len(&self) -> usize {
        0
    }

    /// How many passes `strategy` takes on this workload, or why it cannot run it.
    fn passes(&self, strategy: &Strategy) -> Result<u32, StrategyError>;

    /// Words of [`Scratch`] memory `strategy` needs over `items` items, kept from one pass to
    /// the next (z-cull masking's decision mask); 0, the default, for none.
    fn scratch_words(&self, strategy: &Strategy, items: u32) -> usize {
        let _ = (strategy, items);
        0
    }

    /// For a strategy whose number of passes depends on the data (GPU Gems 2 §34.3's
    /// occlusion-query loop): the [`Scratch`] word in which each pass counts the work it left.
    /// The backend zeroes that word before every pass, runs passes `0 .. passes - 1` once each,
    /// and then runs the last pass for as long as the word is non-zero when a pass ends (it
    /// reads it back from the device between launches, as the book's host reads its occlusion
    /// query). `None`, the default: every pass runs once.
    fn repeat_last_pass_while(&self, strategy: &Strategy) -> Option<usize> {
        let _ = strategy;
        None
    }

    /// The items `next` deals, run as plain sequential code by one thread, each output given
    /// to `put` and the tally adds made to `tally`: the loop a CUDA programmer writes, which the
    /// CUDA backend runs for the strategies whose lanes never need to agree
    /// ([`Strategy::runs_per_thread`]), `next` dealing the thread's items in the strategy's
    /// order until it answers `None`. A loop shape runs it flattened, as the warp programs do:
    /// when an item finishes, the thread takes its next one at once and goes on, instead of
    /// leaving the item's loop first (where the hardware would have it wait for the warp's
    /// other threads), so dynamic work assignment keeps its lanes busy. Outputs and adds must be
    /// the baseline's (the shapes' tests check it item by item).
    ///
    /// Returns `false`, having called nothing, for a kernel without such a form (the default):
    /// the backend then runs the kernel's program with each thread as a warp of one lane.
    #[inline(always)]
    fn plain_items<T: Tally>(
        &self,
        next: impl FnMut() -> Option<u32>,
        put: impl FnMut(u32, Self::Output),
        tally: &mut T,
    ) -> bool {
        let _ = (next, put, tally);
        false
    }

    /// Branch distribution as the plain loop of one thread: each iteration's divergent
    /// prologue, then the code the two paths share written once, then the divergent epilogue
    /// (seed 002 fig. 7b), the loop a CUDA programmer writes from the figure. It needs no vote
    /// (each thread's code is its own; the hardware reconverges the warp before the shared
    /// code), so the CUDA backend runs it for [`PathSchedule::BranchDistribution`] without
    /// delaying, over any [`Assignment`](crate::Assignment), as it runs
    /// [`Kernel::plain_items`] for the paths as written ([`Strategy::runs_per_thread`]).
    /// `next` and `put` are as for [`Kernel::plain_items`]; outputs and adds are the
    /// baseline's.
    ///
    /// Returns `false`, having called nothing, for a kernel without such a form (the default):
    /// the backend then runs the kernel's program with each thread as a warp of one lane.
    ///
    /// [`PathSchedule::BranchDistribution`]: crate::PathSchedule::BranchDistribution
    #[inline(always)]
    fn distributed_items<T: Tally>(
        &self,
        next: impl FnMut() -> Option<u32>,
        put: impl FnMut(u32, Self::Output),
        tally: &mut T,
    ) -> bool {
        let _ = (next, put, tally);
        false
    }

    /// Iteration delaying under `decision` as the plain loop of one thread of a warp, with a
    /// warp vote at the iteration point: the kernel a CUDA programmer writes from seed 002
    /// fig. 5, which the CUDA backend runs for [`Strategy::iteration_delaying`] over any
    /// [`Assignment`](crate::Assignment) instead of the warp program (the program
    /// deals lanes and masks paths each step; this form costs what the hand-written loop
    /// costs). `next` deals the thread's items in the strategy's order, as for
    /// [`Kernel::plain_items`]; `vote(p)` is the ballot of `p` over the thread's whole warp,
    /// which every thread of the warp calls at the same points; `lane` is the thread's lane.
    /// Outputs and adds are the baseline's.
    ///
    /// Returns `false`, having called nothing, for a kernel without such a form (the default)
    /// or a decision it refuses: the backend then runs the kernel's warp program.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn delayed_items<T: Tally>(
        &self,
        decision: Decision,
        lane: u32,
        vote: impl FnMut(bool) -> LaneMask,
        next: impl FnMut() -> Option<u32>,
        put: impl FnMut(u32, Self::Output),
        tally: &mut T,
    ) -> bool {
        let _ = (decision, lane, vote, next, put, tally);
        false
    }

    /// Branch path unification as the plain loop of one thread (seed 004 fig. 10 as a
    /// programmer writes it): for each group `(first, len)` that `groups` deals, two counters
    /// scan forward to the group's next item of path A and of path B, path A runs for the item
    /// counter A found, then path B for counter B's, until both have passed the group's end;
    /// the hardware reconverges the warp's lanes after each scan. The CUDA backend runs it for
    /// [`PathSchedule::BranchPathUnification`](crate::PathSchedule::BranchPathUnification)
    /// ([`Strategy::runs_as_thread_program`]), dealing each thread the groups the warp program
    /// gives its lane. Outputs are the baseline's.
    ///
    /// Returns `false`, having called nothing, for a kernel without such a form (the default):
    /// the backend then runs the kernel's program on a warp of one lane.
    #[inline(always)]
    fn unified_items<T: Tally>(
        &self,
        groups: impl FnMut() -> Option<(u32, u32)>,
        put: impl FnMut(u32, Self::Output),
        tally: &mut T,
    ) -> bool {
        let _ = (groups, put, tally);
        false
    }

    /// Speculative reconvergence (`threshold`, `max_wait`) as the plain loop of one thread of
    /// a warp with a warp vote at the iteration point, as [`Kernel::delayed_items`] is for
    /// iteration delaying (the same arguments; the kernel a programmer writes from Damani et
    /// al.'s convergence point). The CUDA backend runs it for
    /// [`PathSchedule::SpeculativeReconvergence`](crate::PathSchedule::SpeculativeReconvergence)
    /// over any [`Assignment`](crate::Assignment). Outputs and adds are the baseline's.
    ///
    /// Returns `false`, having called nothing, for a kernel without such a form (the default):
    /// the backend then runs the kernel's warp program.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn speculative_items<T: Tally>(
        &self,
        threshold: u32,
        max_wait: u32,
        lane: u32,
        vote: impl FnMut(bool) -> LaneMask,
        next: impl FnMut() -> Option<u32>,
        put: impl FnMut(u32, Self::Output),
        tally: &mut T,
    ) -> bool {
        let _ = (threshold, max_wait, lane, vote, next, put, tally);
        false
    }

    /// Collaborative context collection as the loop of one thread of a warp, contexts saved to
    /// the warp's `stack` in shared memory (Khorasani et al., MICRO 2015, as
    /// `references/cuda/collaborative_context_collection.cu` writes it): the CUDA backend runs it
    /// for [`PathSchedule::CollaborativeContextCollection`](crate::PathSchedule::CollaborativeContextCollection)
    /// over any [`Assignment`](crate::Assignment), with [`Kernel::dynamic_shared_bytes`] of
    /// dynamic shared memory. `lane` and `vote` are as for [`Kernel::delayed_items`]; `deal` gives
    /// the warp's items in the strategy's order (the same in every lane; `ItemDealer::count`
    /// where it knows how many). Outputs and adds are the baseline's.
    ///
    /// Returns `false`, having called nothing, for a kernel without such a form (the default).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn collected_items<
        T: Tally,
        C: crate::strategies::collaborative_context_collection::ContextStack,
    >(
        &self,
        lane: u32,
        vote: impl FnMut(bool) -> LaneMask,
        stack: &mut C,
        deal: impl crate::strategies::collaborative_context_collection::ItemDealer,
        put: impl FnMut(u32, Self::Output),
        tally: &mut T,
    ) -> bool {
        let _ = (lane, vote, stack, deal, put, tally);
        false
    }

    /// Thread-data remapping's permutation pass (pass 0 of
    /// [`Assignment::Remapped`](crate::Assignment::Remapped)) as the code of one lane of a warp:
    /// the CUDA backend runs it in every thread of the launch, warp 0 of each block sorting its
    /// block's chunk of `task` by the workload's key into the permutation in `scratch`
    /// ([`crate::strategies::thread_data_remapping::permute_as_lane`]). `lane` and `vote` are
    /// as for [`Kernel::delayed_items`]. The permutation is the warp program's, slot for slot.
    ///
    /// Returns `false`, having called nothing, for a kernel without such a form (the default):
    /// the backend then runs the pass's warp program.
    #[inline(always)]
    fn remap_permutation(
        &self,
        lane: u32,
        vote: impl FnMut(bool) -> LaneMask,
        task: WarpTask,
        scratch: &Scratch,
    ) -> bool {
        let _ = (lane, vote, task, scratch);
        false
    }

    /// Pass `pass` of a multi-pass strategy as the code of one lane of a warp, the form the
    /// hand-written kernels take: z-cull masking's passes
    /// ([`crate::strategies::z_cull_masking::pass_as_lane`]), the occlusion-query loop's
    /// ([`crate::strategies::occlusion_query_loop::pass_as_lane`]) and branch splitting's
    /// ([`crate::strategies::branch_splitting::pass_as_lane`]). The CUDA backend runs it in
    /// every thread of the launch for those strategies, instead of the pass's warp program
    /// (which kept each lane's item and flags in registers of a program dealing windows, and
    /// measured 1.1-1.5x the hand-written kernels' time on an H200). `lane` and `vote` are as
    /// for [`Kernel::delayed_items`], `task` is the calling lane's warp and `scratch` the run's.
    /// Outputs and adds are the baseline's; the passes may take their windows in another order
    /// than the warp programs (the scratch's layout is the same).
    ///
    /// Returns `false`, having called nothing, for a kernel or strategy without such a form
    /// (the default): the backend then runs the pass's warp program.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn pass_as_lane<T: Tally>(
        &self,
        strategy: &Strategy,
        pass: u32,
        lane: u32,
        vote: impl FnMut(bool) -> LaneMask,
        task: WarpTask,
        scratch: &Scratch,
        put: impl FnMut(u32, Self::Output),
        tally: &mut T,
    ) -> bool {
        let _ = (strategy, pass, lane, vote, task, scratch, put, tally);
        false
    }

    /// Bytes of dynamic shared memory a launch of `strategy` with `threads_per_block` threads
    /// per block needs (collaborative context collection's per-warp stacks); 0, the default,
    /// for none. The CUDA backend sizes its launches and its occupancy with it.
    fn dynamic_shared_bytes(&self, strategy: &Strategy, threads_per_block: u32) -> u32 {
        let _ = (strategy, threads_per_block);
        0
    }

    /// One item start to finish as plain sequential code, its tally adds made to `tally`:
    /// [`Kernel::plain_items`] dealt that one item, which the optimiser turns into the plain
    /// nested loop (the item's own loop and nothing else). What the CUDA backend runs for each
    /// item of the baseline, whose items come in a fixed order. `None` for a kernel without a
    /// plain form.
    #[inline(always)]
    fn plain_item<T: Tally>(&self, item: u32, tally: &mut T) -> Option<Self::Output> {
        let mut once = Some(item);
        let mut output = None;
        let plain = self.plain_items(|| once.take(), |_, out| output = Some(out), tally);
        if plain { output } else { None }
    }

    /// The program of warp `task.warp_in_block` for pass `pass`. `scratch` holds (at least)
    /// [`Kernel::scratch_words`] words, zeroed before pass 0 and shared by every warp and pass
    /// of the run.
    fn program<'k, W: Warp>(
        &'k self,
        warp: &W,
        strategy: &Strategy,
        pass: u32,
        task: WarpTask,
        scratch: &'k Scratch,
    ) -> Result<Self::Program<'k, W>, StrategyError>;
}

/// Initial values of the block-shared counters of [`Warp::block_fetch_add`]: counter 0 deals
/// out the block's items, and the first `threads_per_block` are handed out at the start.
pub const fn initial_block_counters(threads_per_block: u32) -> [u32; 4] {
    [threads_per_block, 0, 0, 0]
}

/// Checks a pass index against a strategy's pass count, for [`Kernel::program`] impls.
pub fn check_pass(pass: u32, passes: u32) -> Result<(), StrategyError> {
    if pass < passes {
        Ok(())
    } else {
        Err(StrategyError::NoSuchPass { pass, passes })
    }
}

/// The order in which a backend runs a strategy's passes: each of [`Kernel::passes`] once, or,
/// for a strategy with a [`Kernel::repeat_last_pass_while`] word, the last pass again for as
/// long as the previous pass left that word non-zero. Every backend drives its runs with it,
/// so they cannot disagree on how many passes run.
///
/// ```
/// # use reconverge_transforms::PassPlan;
/// // Two passes, the last repeated while word 0 is non-zero: the word reads 5, 2, 0.
/// let mut plan = PassPlan::new(2, Some(0));
/// let mut left = [0u32, 5, 2, 0].into_iter();
/// let mut query = |_word: usize| Ok::<u32, ()>(left.next().unwrap_or(0));
/// let mut run = Vec::new();
/// while let Some(pass) = plan.next_pass(&mut query).unwrap() {
///     run.push(pass);
/// }
/// assert_eq!(run, [0, 1, 1]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PassPlan {
    passes: u32,
    query: Option<usize>,
    next: u32,
}

impl PassPlan {
    /// The plan of `passes` passes, with [`Kernel::repeat_last_pass_while`]'s word `query`.
    pub const fn new(passes: u32, query: Option<usize>) -> Self {
        Self {
            passes,
            query,
            next: 0,
        }
    }

    /// The plan of `strategy` on `kernel`.
    pub fn of<K: Kernel + ?Sized>(kernel: &K, strategy: &Strategy) -> Result<Self, StrategyError> {
        Ok(Self::new(
            kernel.passes(strategy)?,
            kernel.repeat_last_pass_while(strategy),
        ))
    }

    /// The pass to run next, or `None` when the run is over. For a strategy with a query word,
    /// `read_and_zero(word)` must return the word as the previous pass left it (0 before the
    /// first pass) and zero it for the next pass; it is called once before every pass.
    pub fn next_pass<E>(
        &mut self,
        mut read_and_zero: impl FnMut(usize) -> Result<u32, E>,
    ) -> Result<Option<u32>, E> {
        let Some(last) = self.passes.checked_sub(1) else {
            return Ok(None);
        };
        let Some(word) = self.query else {
            let pass = self.next;
            self.next = self.next.saturating_add(1);
            return Ok((pass <= last).then_some(pass));
        };
        let left = read_and_zero(word)?;
        if self.next < last {
            self.next += 1;
            Ok(Some(self.next - 1))
        } else if left != 0 {
            self.next = last;
            Ok(Some(last))
        } else {
            Ok(None)
        }
    }

    /// [`PassPlan::next_pass`] for a scratch in host memory (the CPU backend's): the query
    /// word is read and zeroed in place.
    pub fn next_pass_in(&mut self, scratch: &Scratch) -> Option<u32> {
        let read_and_zero = |w: usize| {
            Ok::<u32, core::convert::Infallible>(
                scratch
                    .get(w)
                    .map_or(0, |a| a.swap(0, core::sync::atomic::Ordering::Relaxed)),
            )
        };
        match self.next_pass(read_and_zero) {
            Ok(pass) => pass,
            Err(never) => match never {},
        }
    }
}
