//! The one abstraction every strategy is written against.

use crate::{LaneMask, Region};

/// One warp, as seen by a warp-level algorithm.
///
/// Values that differ per lane have type [`Warp::V`]: the calling thread's own value on the GPU,
/// an array of all lanes in the model. Everything outside [`Warp::branch`] must be warp-uniform:
/// the whole warp executes it together, and its results (votes, counters) are the same in every
/// lane.
///
/// Votes take an explicit `mask` of the lanes that take part. On the GPU every lane of the warp
/// must call every warp operation, with the same mask (the GPU warp votes with the whole warp
/// and applies the mask afterwards, since `vote.sync` and `shfl.sync` are undefined for a thread
/// outside their member mask); strategies keep all lanes of a warp in one loop and pass the
/// mask of lanes still working, never an implicit "active mask".
pub trait Warp {
    /// A value per lane.
    type V<T: Copy>: Copy;

    /// Lanes in this warp (32 on NVIDIA hardware; the model allows fewer).
    fn width(&self) -> u32;

    /// The mask of all lanes of this warp.
    fn full_mask(&self) -> LaneMask {
        crate::full_mask(self.width())
    }

    /// Each lane's index within the warp, `0..width`.
    fn lane_ids(&self) -> Self::V<u32>;

    /// Whether a lane whose item finished waits for the warp's other lanes before it takes its
    /// next item (`true`) or takes it at once (`false`, the default: the flattened loop the
    /// strategies write). A GPU runs a per-thread item loop the first way wherever its compiler
    /// nests the item's loop inside the loop over items (the threads reconverge at the inner
    /// loop's exit); only the model answers `true`, where asked
    /// ([`crate::ModelWarp::as_compiled_plain_loop`]), to count such a loop. Outputs are the
    /// same either way.
    #[inline(always)]
    fn reconverges_per_item(&self) -> bool {
        false
    }

    /// Whether the two paths of a branch whose paths share their middle (a factored branch)
    /// issue that shared code once for both (`true`) or once per path (`false`, the default:
    /// the code as written). A GPU compiler makes the first of a plain per-thread loop: it
    /// sinks the instructions both paths have in common below the branch (on an H100 the
    /// SYN-BRDIS plain loop ran at 32.0 active threads per warp instruction). Only the model
    /// answers `true`, where asked ([`crate::ModelWarp::as_compiled_plain_loop`]).
    #[inline(always)]
    fn shares_common_path_code(&self) -> bool {
        false
    }

    /// The same value in every lane.
    fn splat<T: Copy>(&self, value: T) -> Self::V<T>;

    /// Applies `f` in every lane. Uncounted: use it for bookkeeping the hardware does for free
    /// or that the workload's regions already cover; work that costs goes through
    /// [`Warp::branch`].
    fn map<T: Copy, U: Copy>(&self, v: Self::V<T>, f: impl FnMut(T) -> U) -> Self::V<U>;

    /// Applies `f` to a borrowed per-lane value in every lane (uncounted, like [`Warp::map`]).
    /// Reading one field of a large per-lane state this way avoids copying the whole state of
    /// every lane, which is what the CPU model would otherwise do.
    fn map_ref<T: Copy, U: Copy>(&self, v: &Self::V<T>, f: impl FnMut(&T) -> U) -> Self::V<U>;

    /// Combines two per-lane values lane by lane (uncounted, like [`Warp::map`]).
    fn zip_with<A: Copy, B: Copy, U: Copy>(
        &self,
        a: Self::V<A>,
        b: Self::V<B>,
        f: impl FnMut(A, B) -> U,
    ) -> Self::V<U>;

    /// The lanes of `mask` whose `p` is true (`__ballot_sync(mask, p)`). Counted as one issue
    /// of [`Region::VOTE`].
    fn ballot(&mut self, mask: LaneMask, p: Self::V<bool>) -> LaneMask;

    /// Whether any lane of `mask` has `p` (`__any_sync`).
    fn any(&mut self, mask: LaneMask, p: Self::V<bool>) -> bool {
        self.ballot(mask, p) != 0
    }

    /// Whether every lane of `mask` has `p` (`__all_sync`).
    fn all(&mut self, mask: LaneMask, p: Self::V<bool>) -> bool {
        self.ballot(mask, p) == mask
    }

    /// Runs `f` on `v` in the lanes of `mask`: one issue of `region` if any lane is active.
    ///
    /// This is the masked region of SIMT execution: the warp issues the region once, and only
    /// the lanes of `mask` change their value. The lanes reconverge when it returns.
    fn branch<T: Copy>(
        &mut self,
        region: Region,
        mask: LaneMask,
        v: &mut Self::V<T>,
        f: impl FnMut(&mut T),
    );

    /// Lane `src[i]`'s `v` in lane `i`, for the lanes of `mask` (`__shfl_sync`); lanes outside
    /// `mask` keep their own value. Counted as one issue of [`Region::EXCHANGE`].
    fn shuffle(&mut self, mask: LaneMask, v: Self::V<u32>, src: Self::V<u32>) -> Self::V<u32>;

    /// The value of `v` in lane `lane` of `mask` (a broadcast), the same in every lane of
    /// `mask`. Counted as one issue of [`Region::EXCHANGE`].
    fn read_lane(&mut self, mask: LaneMask, v: Self::V<u32>, lane: u32) -> u32;

    /// Adds `n` to the block-shared work counter `counter` once for the whole warp and returns
    /// its previous value in every lane (a warp-aggregated `atomicAdd` on shared memory).
    /// Counted as one issue of [`Region::ATOMIC`] by the lowest lane of `mask`. The counters
    /// deal items under dynamic work assignment: the CUDA backend sets them (and pays the
    /// block barrier that takes) only for a strategy over `Assignment::Dynamic`.
    fn block_fetch_add(&mut self, mask: LaneMask, counter: usize, n: u32) -> u32;

    /// Adds `n` to the launch's one grid-wide work counter (in global memory, zeroed before the
    /// launch) once for the whole warp and returns its previous value in every lane, as
    /// [`Warp::block_fetch_add`] does for a block's counter: the work queue of grid-wide dynamic
    /// work assignment. A warp that was given no grid counter returns `u32::MAX` (no work).
    /// Counted as one issue of [`Region::ATOMIC`].
    fn grid_fetch_add(&mut self, mask: LaneMask, n: u32) -> u32;
}
