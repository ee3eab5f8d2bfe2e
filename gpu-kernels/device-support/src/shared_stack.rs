//! Collaborative context collection's per-warp stacks in the block's dynamic shared memory
//! (`nvptx64` only): what [`reconverge_transforms::Kernel::collected_items`] saves contexts to
//! on the GPU, as `extern __shared__` does in the CUDA twin.

use core::arch::asm;

use reconverge_transforms::strategies::collaborative_context_collection::{
    ContextStack, STACK, STATES_OFFSET,
};

unsafe extern "C" {
    /// The generic address of the block's dynamic shared memory, sized by the host at launch
    /// (`Kernel::dynamic_shared_bytes`). Defined in LLVM IR that `reconverge-build` links into
    /// every module, because Rust has no way to name the `.shared` state space: there it is an
    /// `addrspacecast` of a shared-space global, so LLVM compiles the stack's accesses to
    /// `ld.shared` / `st.shared` (as CUDA's `extern __shared__`) instead of generic ones.
    safe fn reconverge_dynamic_shared_base() -> *mut u8;
}

/// One warp's stack: `bytes` bytes of dynamic shared memory from `base` (a generic address),
/// the layout of `shared_bytes_per_warp`.
pub struct SharedContextStack {
    base: *mut u8,
    bytes: u32,
}

impl SharedContextStack {
    /// Warp `warp_in_block`'s stack of `bytes_per_warp` bytes, or `None` when the launch's
    /// dynamic shared memory (`%dynamic_smem_size`) does not hold it: the host launched with
    /// less than the kernel asked for, and the entry point reports it instead of writing past
    /// the block's shared memory.
    #[inline(always)]
    pub fn for_warp(warp_in_block: u32, bytes_per_warp: u32) -> Option<Self> {
        let size: u32;
        // SAFETY: reads a special register; touches no memory.
        unsafe {
            asm!("mov.u32 {s}, %dynamic_smem_size;", s = out(reg32) size, options(pure, nomem, nostack));
        }
        let base = reconverge_dynamic_shared_base();
        let offset = warp_in_block.checked_mul(bytes_per_warp)?;
        if offset.checked_add(bytes_per_warp)? > size || bytes_per_warp % 16 != 0 {
            return None;
        }
        Some(Self {
            base: base.wrapping_add(offset as usize),
            bytes: bytes_per_warp,
        })
    }

    /// Slot `slot` wrapped into the stack (the loop never names one past it, module docs of
    /// collaborative context collection), and the byte offset of its state, if `STACK` states
    /// fit the stack. Whether they fit depends only on `S` and the stack's size, constants of
    /// the entry point, so the check folds away; a check of each slot instead cost a branch
    /// around every load and store (more `BSSY`/`BSYNC` than the CUDA twin).
    #[inline(always)]
    fn state_at<S>(&self, slot: u32) -> Option<(usize, usize)> {
        let slot = slot as usize % STACK;
        let size = core::mem::size_of::<S>();
        (STATES_OFFSET + STACK * size <= self.bytes as usize && core::mem::align_of::<S>() <= 16)
            .then_some((slot, STATES_OFFSET + slot * size))
    }
}

impl ContextStack for SharedContextStack {
    #[inline(always)]
    fn store<S: Copy>(&mut self, slot: u32, item: u32, state: S) {
        let Some((slot, at)) = self.state_at::<S>(slot) else {
            return;
        };
        // SAFETY: both places lie within this warp's part of the launch's dynamic shared memory
        // (`for_warp` checked its size; `state_at` wrapped the slot into the stack and checked
        // that `STACK` states fit), aligned: the part starts on 16 bytes, item indices are 4
        // bytes apart and states follow at 256, `size_of::<S>()` apart (a multiple of its
        // alignment, at most 16).
        unsafe {
            self.base.add(slot * 4).cast::<u32>().write(item);
            self.base.add(at).cast::<S>().write(state);
        }
    }

    #[inline(always)]
    fn load<S: Copy>(&mut self, slot: u32) -> Option<(u32, S)> {
        let (slot, at) = self.state_at::<S>(slot)?;
        // SAFETY: as for `store`; the loop loads only slots it stored a context of type `S` in
        // (the module docs of collaborative context collection: a slot is popped only after
        // its push, behind a `sync`).
        unsafe {
            Some((
                self.base.add(slot * 4).cast::<u32>().read(),
                self.base.add(at).cast::<S>().read(),
            ))
        }
    }

    #[inline(always)]
    fn sync(&mut self) {
        // SAFETY: every lane of the warp calls `sync` at the same points (the loop's branches
        // around it are warp-uniform). `bar.warp.sync` as LLVM's convergent intrinsic: an
        // `asm!` block is not convergent and could be moved into code only some lanes run.
        unsafe { reconverge_simt::sync_warp() }
    }
}
