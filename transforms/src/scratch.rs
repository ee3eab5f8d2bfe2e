//! Memory a multi-pass strategy keeps between its passes.
//!
//! Some strategies compute something in one pass that a later pass reads: z-cull masking
//! (GPU Gems 2 §34.2.3) evaluates every item's condition once, in a preprocessing pass, and
//! the passes after it skip the items (and whole warps of items) the mask rules out. A
//! [`Kernel`](crate::Kernel) asks for such memory with
//! [`Kernel::scratch_words`](crate::Kernel::scratch_words); the backend allocates that many
//! zeroed words per run (device memory on the GPU), shares them between every warp of every
//! pass, and frees them after the run.
//!
//! Warps of one pass run concurrently, so the words are atomics: a pass writes with
//! `fetch_or` / `store` and a later pass reads with `load`. Passes are separate launches, so a
//! later pass sees everything an earlier one wrote.

use core::sync::atomic::{AtomicU32, Ordering};

use reconverge_simt::LaneMask;

/// The words of a run's scratch memory (see the module docs).
pub type Scratch = [AtomicU32];

/// One bit per item, packed 32 items to a word (bit `item % 32` of word `item / 32`): a
/// precomputed branch decision, z-cull's depth mask.
#[derive(Clone, Copy, Debug)]
pub struct DecisionMask<'s> {
    words: &'s Scratch,
}

impl<'s> DecisionMask<'s> {
    /// Words a mask of `items` items needs.
    pub const fn words_for(items: u32) -> usize {
        items.div_ceil(32) as usize
    }

    /// A mask over `words` (of [`words_for`](Self::words_for) the items, or more).
    pub const fn new(words: &'s Scratch) -> Self {
        Self { words }
    }

    /// Sets the bits of the 32 consecutive items `first, first + 1, …` whose bit in `lanes`
    /// is set (lane `j` stands for item `first + j`). At most two atomic ORs, so one lane can
    /// record a whole warp's window even when `first` is not a multiple of 32. Items past the
    /// mask's end are ignored.
    #[inline]
    pub fn record(&self, first: u32, lanes: LaneMask) {
        if lanes == 0 {
            return;
        }
        let word = (first / 32) as usize;
        let shift = first % 32;
        if let Some(w) = self.words.get(word) {
            w.fetch_or(lanes << shift, Ordering::Relaxed);
        }
        if shift > 0 {
            let high = lanes >> (32 - shift);
            if high != 0
                && let Some(w) = self.words.get(word + 1)
            {
                w.fetch_or(high, Ordering::Relaxed);
            }
        }
    }

    /// Whether `item`'s bit is set (false past the mask's end).
    #[inline]
    pub fn get(&self, item: u32) -> bool {
        self.words
            .get((item / 32) as usize)
            .is_some_and(|w| (w.load(Ordering::Relaxed) >> (item % 32)) & 1 != 0)
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use super::*;

    fn words(n: usize) -> Vec<AtomicU32> {
        (0..n).map(|_| AtomicU32::new(0)).collect()
    }

    #[test]
    fn unaligned_windows_set_exactly_their_items() {
        let w = words(DecisionMask::words_for(100));
        assert_eq!(w.len(), 4);
        let mask = DecisionMask::new(&w);
        // Window of items 20..52: lanes 0, 11, 12 and 31 are items 20, 31, 32 and 51.
        mask.record(20, 1 | 1 << 11 | 1 << 12 | 1 << 31);
        let set: Vec<u32> = (0..128).filter(|i| mask.get(*i)).collect();
        assert_eq!(set, [20, 31, 32, 51]);
        // A window at the end: items past the mask are dropped, not wrapped.
        mask.record(96, u32::MAX);
        assert!(mask.get(127));
        assert!(!mask.get(128));
        assert_eq!(w[3].load(Ordering::Relaxed), u32::MAX);
    }
}
