//! The kernel interface, in one place: [`EntryArgs`], what the host hands an entry point; its
//! fields in order as the entry point's parameters ([`crate::warp_kernel!`], which rebuilds the
//! struct from them on the device) and as the launch's arguments
//! ([`EntryArgs::for_each_parameter`], which `reconverge-gpu` pushes), so that the host and the
//! device cannot disagree about an argument's order or type.

use reconverge_transforms::{Kernel, StrategyParameters};

/// What the host hands an entry point of kernel type `K`: the kernel's buffers in device
/// memory, their lengths, the pass, and the strategy's numbers.
///
/// An entry point takes the fields as parameters of their own, in this order, not the struct
/// as one: rustc passes a struct to an `extern "ptx-kernel"` function as one block of
/// parameter bytes (`.param .align 8 .b8 NAME_param_0[80]`), and the pointers loaded from it
/// are not known to point to global memory, so every load through them became a generic one
/// (on an H100's MCML kernels 56 to 72 registers and more; a pointer parameter of its own is
/// global, as nvcc's are).
#[repr(C)]
pub struct EntryArgs<K: Kernel> {
    /// One `K`, the workload's parameters.
    pub kernel: *const K,
    /// `items` outputs (one byte when outputs are zero-sized).
    pub out: *mut K::Output,
    /// `tally_copies` copies of `tally_len` accumulators each, accessed only atomically.
    pub tally: *mut u64,
    /// `scratch_len` zeroed words the passes of a multi-pass strategy hand each other,
    /// accessed only atomically.
    pub scratch: *mut u32,
    /// The launch's grid-wide work queue: one zeroed word, accessed only atomically.
    pub work_counter: *mut u32,
    /// One word, set to 1 if the strategy cannot run.
    pub status: *mut u32,
    /// Items `0..items` are the launch's.
    pub items: u32,
    /// The pass of a multi-pass strategy (ignored by an entry point compiled for one pass).
    pub pass: u32,
    /// Accumulators in one copy of the tally.
    pub tally_len: u32,
    /// Copies of the tally: block `b` adds to copy `b % tally_copies`.
    pub tally_copies: u32,
    /// Words of `scratch`.
    pub scratch_len: u32,
    /// The strategy's numbers (thresholds, cycles, items per pass): an `_any` entry point is
    /// compiled for a technique, and these pick the strategy of that technique it runs; a
    /// listed entry point has its strategy's numbers compiled in and ignores them.
    pub parameters: StrategyParameters,
}

// Written by hand: a derive would ask `K: Copy` and `K::Output: Copy`, where only pointers to
// them are copied.
impl<K: Kernel> Clone for EntryArgs<K> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<K: Kernel> Copy for EntryArgs<K> {}

/// One parameter of an entry point, as [`EntryArgs::for_each_parameter`] gives it: the bytes
/// the launch copies into the kernel's parameter space.
#[derive(Clone, Copy, Debug)]
pub enum EntryParameter<'a> {
    /// A device address (a pointer parameter).
    Address(&'a u64),
    /// A 32-bit word.
    Word(&'a u32),
    /// The strategy's numbers ([`StrategyParameters`], one parameter of 12 bytes).
    Words(&'a [u32; 3]),
}

impl<K: Kernel> EntryArgs<K> {
    /// Calls `push` with each of the entry point's parameters in order, borrowed from `self`:
    /// what a launch passes. The order is [`crate::warp_kernel!`]'s signature, the fields'.
    pub fn for_each_parameter<'a>(&'a self, mut push: impl FnMut(EntryParameter<'a>)) {
        // A pointer's bytes as the `u64` the driver copies (pointers are 64-bit on every
        // target the backend runs on: nvptx64 and the 64-bit hosts CUDA supports).
        fn address<T>(pointer: &*const T) -> &u64 {
            const { assert!(core::mem::size_of::<*const T>() == core::mem::size_of::<u64>()) };
            // SAFETY: a thin pointer has the size (asserted) and alignment of a `u64` on a
            // 64-bit target, and every bit pattern of it is a valid `u64`.
            unsafe { &*core::ptr::from_ref(pointer).cast::<u64>() }
        }
        fn address_mut<T>(pointer: &*mut T) -> &u64 {
            // SAFETY: as `address`; `*mut T` and `*const T` have the same layout.
            address(unsafe { &*core::ptr::from_ref(pointer).cast::<*const T>() })
        }
        push(EntryParameter::Address(address(&self.kernel)));
        push(EntryParameter::Address(address_mut(&self.out)));
        push(EntryParameter::Address(address_mut(&self.tally)));
        push(EntryParameter::Address(address_mut(&self.scratch)));
        push(EntryParameter::Address(address_mut(&self.work_counter)));
        push(EntryParameter::Address(address_mut(&self.status)));
        push(EntryParameter::Word(&self.items));
        push(EntryParameter::Word(&self.pass));
        push(EntryParameter::Word(&self.tally_len));
        push(EntryParameter::Word(&self.tally_copies));
        push(EntryParameter::Word(&self.scratch_len));
        push(EntryParameter::Words(&self.parameters.words));
    }
}

impl<K: Kernel> core::fmt::Debug for EntryArgs<K> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("EntryArgs")
            .field("items", &self.items)
            .field("pass", &self.pass)
            .field("tally_len", &self.tally_len)
            .field("tally_copies", &self.tally_copies)
            .field("scratch_len", &self.scratch_len)
            .field("parameters", &self.parameters)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::{format, vec::Vec};

    use super::{EntryArgs, EntryParameter};
    use reconverge_transforms::BranchLoopKernel;
    use reconverge_workloads::reference::Collatz;

    /// The launch passes every field once, in the struct's order, each with its own bytes.
    #[test]
    fn the_launch_passes_every_field_in_order() {
        let kernel = 0x1000 as *const BranchLoopKernel<Collatz>;
        let args = EntryArgs::<BranchLoopKernel<Collatz>> {
            kernel,
            out: 0x2000 as *mut _,
            tally: 0x3000 as *mut u64,
            scratch: 0x4000 as *mut u32,
            work_counter: 0x5000 as *mut u32,
            status: 0x6000 as *mut u32,
            items: 7,
            pass: 1,
            tally_len: 9,
            tally_copies: 4,
            scratch_len: 11,
            parameters: reconverge_transforms::StrategyParameters { words: [8, 1, 0] },
        };
        let mut seen = Vec::new();
        args.for_each_parameter(|p| {
            seen.push(match p {
                EntryParameter::Address(a) => format!("a{a:x}"),
                EntryParameter::Word(w) => format!("w{w}"),
                EntryParameter::Words(w) => format!("{w:?}"),
            })
        });
        assert_eq!(
            seen,
            [
                "a1000",
                "a2000",
                "a3000",
                "a4000",
                "a5000",
                "a6000",
                "w7",
                "w1",
                "w9",
                "w4",
                "w11",
                "[8, 1, 0]"
            ]
        );
    }
}
