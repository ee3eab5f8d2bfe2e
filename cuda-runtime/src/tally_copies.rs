//! Copies of a kernel's tally, one per group of blocks, added up after the run: the CUDA
//! backend's cure for hot accumulators (MCML's absorption bins by the light source), whose
//! atomics the L2 serialises per address. Integer sums wrap the same way in any order, so the
//! tallies are the same bit for bit with any number of copies.

/// Copies of the tally when the backend chooses (`CudaBackend::with_tally_copies`). On an H100
/// (10^8 photons, fast-math MCML, per-thread dynamic work): 16 against 8 made skin's kernel 11 %
/// faster (0.573 against 0.646 s, 4 blocks of 256 per SM), the slab's 5 %; at one block of 1,024
/// per SM with the copies added on the GPU (2026-11-25), 32 against 16 made the slab's 2.7 %
/// faster (1.010-1.015 against 1.039-1.041 s) and skin's 1 % slower (0.505-0.507 against
/// 0.500 s), the bit-identical kernels unchanged (1.323 s on the slab either way); 64 copies
/// (51 MB, more than the L2's 50) made the slab's 12 % slower.
pub const DEFAULT_TALLY_COPIES: u32 = 32;

/// The most device memory the backend's choice of tally copies takes: fewer copies of a
/// large tally. The copies must stay in the L2 to pay (50 MB on an H100: 64 copies of MCML's
/// 0.8 MB slab tally were 12 % slower than 32).
pub const TALLY_COPIES_MAX_BYTES: usize = 32 << 20;

/// Copies of a tally of `tally_len` accumulators in a launch of `blocks` blocks: `requested`,
/// or [`DEFAULT_TALLY_COPIES`] within [`TALLY_COPIES_MAX_BYTES`]; one per block at most, and
/// one for no tally.
// Used by the backend (feature `runtime`); tested without it.
#[cfg_attr(not(feature = "runtime"), allow(dead_code))]
pub(crate) fn tally_copies(requested: Option<u32>, tally_len: u32, blocks: u32) -> u32 {
    if tally_len == 0 {
        return 1;
    }
    let copies = requested.unwrap_or_else(|| {
        let bytes = tally_len as usize * std::mem::size_of::<u64>();
        u32::try_from(TALLY_COPIES_MAX_BYTES / bytes)
            .unwrap_or(u32::MAX)
            .min(DEFAULT_TALLY_COPIES)
    });
    copies.clamp(1, blocks.max(1))
}

/// The first `len` accumulators of `copies` (copies of `len` one after another), each the
/// wrapping sum of its copies: what one copy would hold had every block added to it, since
/// the device's atomics wrap the same way.
#[cfg_attr(not(feature = "runtime"), allow(dead_code))]
pub(crate) fn add_up_copies(mut copies: Vec<u64>, len: usize) -> Vec<u64> {
    if len > 0 {
        let split = len.min(copies.len());
        let (first, rest) = copies.split_at_mut(split);
        for copy in rest.chunks(len) {
            for (sum, v) in first.iter_mut().zip(copy) {
                *sum = sum.wrapping_add(*v);
            }
        }
    }
    copies.truncate(len);
    copies
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Adding up per-block copies gives what one tally gets from the same adds, wrap-arounds
    /// included (the device's atomics wrap mod 2^64).
    #[test]
    fn copies_add_up_to_the_one_tally() {
        let len = 5;
        let adds: Vec<(usize, usize, u64)> = (0..200u64)
            .map(|i| {
                let amount = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) | (i << 60);
                ((i % 3) as usize, (i % 5) as usize, amount)
            })
            .collect();
        let mut one = vec![0u64; len];
        let mut three = vec![0u64; 3 * len];
        for &(copy, index, amount) in &adds {
            one[index] = one[index].wrapping_add(amount);
            three[copy * len + index] = three[copy * len + index].wrapping_add(amount);
        }
        assert!(three.iter().any(|&v| v != 0));
        assert_eq!(add_up_copies(three, len), one);
        assert_eq!(add_up_copies(vec![7, 8], 2), vec![7, 8]);
        assert_eq!(add_up_copies(vec![0], 0), Vec::<u64>::new());
    }

    #[test]
    fn tally_copies_stay_within_blocks_and_memory() {
        assert_eq!(tally_copies(None, 112_002, 528), DEFAULT_TALLY_COPIES);
        assert_eq!(tally_copies(None, 112_002, 3), 3);
        assert_eq!(tally_copies(None, 0, 528), 1);
        assert_eq!(tally_copies(Some(0), 10, 528), 1);
        assert_eq!(tally_copies(Some(32), 10, 528), 32);
        // A tally of 2^30 counters (8 GiB) gets one copy, not thirty-two.
        assert_eq!(tally_copies(None, 1 << 30, 528), 1);
        let big = (TALLY_COPIES_MAX_BYTES / 8 / 3) as u32;
        assert_eq!(tally_copies(None, big, 528), 3);
    }
}
