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

use core::marker::PhantomData;
use core::mem::MaybeUninit;
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

    /// Sets word `index` (items `32 · index …`, bit `j` for item `32 · index + j`) to `lanes`:
    /// what a warp stores when it owns the word's whole window (the lane forms of the passes,
    /// whose windows start on multiples of 32). Nothing past the mask's end.
    #[inline]
    pub fn set_word(&self, index: u32, lanes: LaneMask) {
        if let Some(w) = self.words.get(index as usize) {
            w.store(lanes, Ordering::Relaxed);
        }
    }

    /// [`Self::set_word`] as a plain store, as the hand-written kernel stores its ballot: the
    /// atomic store is a system-scope store on the GPU (`st.relaxed.sys`, `STG.E.STRONG.SYS`).
    ///
    /// # Safety
    /// No other thread reads or writes word `index` while the pass that calls this runs (z-cull
    /// masking's lane form: each window, and so each word, belongs to one warp, whose lane 0
    /// alone stores it, and nothing reads the mask before a later pass).
    #[inline]
    pub unsafe fn set_word_exclusive(&self, index: u32, lanes: LaneMask) {
        // An index test, not `get`'s `Option<&_>`: the GPU tested that reference against null
        // besides (the scratch's pointer is a kernel parameter).
        let i = index as usize;
        if i < self.words.len() {
            // SAFETY: `i` is in bounds (tested just above); the word is live memory inside an
            // `UnsafeCell`, and no access races with this store (the caller's contract).
            unsafe { self.words.get_unchecked(i).as_ptr().write(lanes) }
        }
    }

    /// Word `index` (0 past the mask's end).
    #[inline]
    pub fn word(&self, index: u32) -> LaneMask {
        self.words
            .get(index as usize)
            .map_or(0, |w| w.load(Ordering::Relaxed))
    }

    /// Word `index` read as plain memory (0 past the mask's end): a pass that only reads the
    /// mask loads it as the hand-written kernel does, where the atomic load of [`Self::word`]
    /// is a system-scope load on the GPU (`ld.relaxed.sys`).
    ///
    /// # Safety
    /// Nothing writes the mask while the reading pass runs: it was written by an earlier pass
    /// (an earlier launch on the GPU, a finished pass on the CPU).
    #[inline]
    pub unsafe fn word_of_earlier_pass(&self, index: u32) -> LaneMask {
        // As `set_word_exclusive`: no `Option<&_>` for the GPU to test against null.
        let i = index as usize;
        if i < self.words.len() {
            // SAFETY: `i` is in bounds (tested just above); the word is live memory inside an
            // `UnsafeCell`, and no write races with this read (the caller's contract).
            unsafe { self.words.get_unchecked(i).as_ptr().read() }
        } else {
            0
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

/// One value of type `S` per item, each in its own run of scratch words: what an item carries
/// from one pass to the next (the occlusion-query loop's unfinished loop states).
///
/// A slot is only ever touched by the lane that holds its item, so stores and loads are plain
/// (unaligned) memory accesses to the words' bytes, which [`AtomicU32`]'s interior mutability
/// permits through a shared reference.
#[derive(Debug)]
pub struct ItemSlots<'s, S> {
    words: &'s Scratch,
    _value: PhantomData<S>,
}

impl<S> Clone for ItemSlots<'_, S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S> Copy for ItemSlots<'_, S> {}

impl<'s, S: Copy> ItemSlots<'s, S> {
    /// Words one value takes.
    pub const fn words_per_item() -> usize {
        core::mem::size_of::<S>().div_ceil(4)
    }

    /// Words the slots of `items` items take.
    pub const fn words_for(items: u32) -> usize {
        Self::words_per_item().saturating_mul(items as usize)
    }

    /// Slots over `words`.
    pub const fn new(words: &'s Scratch) -> Self {
        Self {
            words,
            _value: PhantomData,
        }
    }

    /// The words of `item`'s slot, if it lies within the scratch.
    #[inline(always)]
    fn slot(&self, item: u32) -> Option<&'s [AtomicU32]> {
        let n = Self::words_per_item();
        let first = (item as usize).checked_mul(n)?;
        self.words.get(first..first.checked_add(n)?)
    }

    /// Whether a value moves as whole 32-bit words: its alignment is 4 or more (so its size is
    /// a multiple of 4). Others move byte by byte (`read_unaligned`), which the GPU does as
    /// one load or store per byte.
    const BY_WORDS: bool = core::mem::align_of::<S>() >= 4;

    /// Stores `value` as `item`'s (nothing happens past the scratch's end).
    #[inline(always)]
    pub fn store(&self, item: u32, value: S) {
        if let Some(slot) = self.slot(item) {
            let to = slot.as_ptr().cast::<MaybeUninit<u32>>().cast_mut();
            if Self::BY_WORDS {
                let from = (&raw const value).cast::<MaybeUninit<u32>>();
                for k in 0..Self::words_per_item() {
                    // SAFETY: `S` is 4-aligned and `words_per_item()` words long, so word `k`
                    // lies within `value` and is aligned; it is copied as `MaybeUninit` (padding
                    // included) into word `k` of the slot, which lies inside an `UnsafeCell`
                    // (`AtomicU32`) that no other thread touches during the pass (the caller's
                    // contract: one lane per item).
                    unsafe { to.add(k).write(from.add(k).read()) }
                }
            } else {
                // SAFETY: the slot spans `size_of::<S>()` bytes or more, all inside
                // `UnsafeCell`s, written through this shared borrow as above; unaligned-safe.
                unsafe { core::ptr::write_unaligned(to.cast::<S>(), value) }
            }
        }
    }

    /// The value last stored as `item`'s; `None` past the scratch's end.
    ///
    /// # Safety
    /// A value was stored as `item`'s earlier in this run (an earlier pass, or earlier in this
    /// pass by the same lane): the words otherwise hold zeros or another type's bytes, which
    /// need not be a valid `S`.
    #[inline(always)]
    pub unsafe fn load(&self, item: u32) -> Option<S> {
        let slot = self.slot(item)?;
        let from = slot.as_ptr().cast::<MaybeUninit<u32>>();
        if Self::BY_WORDS {
            let mut value = MaybeUninit::<S>::uninit();
            let to = value.as_mut_ptr().cast::<MaybeUninit<u32>>();
            for k in 0..Self::words_per_item() {
                // SAFETY: in bounds and aligned on both sides, as for `store`.
                unsafe { to.add(k).write(from.add(k).read()) }
            }
            // SAFETY: every byte of `value` was copied from a stored `S` (the caller's contract).
            Some(unsafe { value.assume_init() })
        } else {
            // SAFETY: in bounds as for `store`; the bytes are those of a stored `S` (the caller's
            // contract), read unaligned.
            Some(unsafe { core::ptr::read_unaligned(from.cast::<S>()) })
        }
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

    #[test]
    fn item_slots_keep_each_items_value() {
        #[derive(Clone, Copy, Debug, PartialEq)]
        struct State {
            x: f64,
            n: u16,
            flag: bool,
        }
        let per = ItemSlots::<State>::words_per_item();
        assert_eq!(per, core::mem::size_of::<State>().div_ceil(4));
        let w = words(ItemSlots::<State>::words_for(5));
        let slots = ItemSlots::<State>::new(&w);
        for i in 0..5u32 {
            slots.store(
                i,
                State {
                    x: f64::from(i) * 1.5,
                    n: 7 * i as u16,
                    flag: i % 2 == 0,
                },
            );
        }
        slots.store(
            5,
            State {
                x: 9.0,
                n: 9,
                flag: true,
            },
        ); // past the end: ignored
        for i in (0..5u32).rev() {
            // SAFETY: stored above.
            let v = unsafe { slots.load(i) };
            assert_eq!(
                v,
                Some(State {
                    x: f64::from(i) * 1.5,
                    n: 7 * i as u16,
                    flag: i % 2 == 0,
                })
            );
        }
        // SAFETY: past the end, nothing is read.
        assert_eq!(unsafe { slots.load(5) }, None);
    }
}
