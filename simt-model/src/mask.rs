//! Lane masks: bit `i` set means lane `i` is active.

/// The number of lanes in an NVIDIA warp, and the most any reconverge warp may have.
pub const WARP_SIZE: u32 = 32;

/// A set of lanes of one warp, one bit per lane (lane 0 in the least significant bit).
pub type LaneMask = u32;

/// The mask with the first `width` lanes set (`width` is clamped to [`WARP_SIZE`]).
#[inline]
pub const fn full_mask(width: u32) -> LaneMask {
    if width >= WARP_SIZE {
        u32::MAX
    } else {
        (1u32 << width) - 1
    }
}

/// Iterates over the lanes of `mask`, lowest first.
#[inline]
pub fn lanes(mut mask: LaneMask) -> impl Iterator<Item = u32> {
    core::iter::from_fn(move || {
        if mask == 0 {
            None
        } else {
            let lane = mask.trailing_zeros();
            mask &= mask - 1;
            Some(lane)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_mask_has_width_bits() {
        assert_eq!(full_mask(0), 0);
        assert_eq!(full_mask(3), 0b111);
        assert_eq!(full_mask(32), u32::MAX);
        assert_eq!(full_mask(40), u32::MAX);
    }

    #[test]
    fn lanes_lists_set_bits_in_order() {
        let mut it = lanes(0b1010_0001);
        assert_eq!(it.next(), Some(0));
        assert_eq!(it.next(), Some(5));
        assert_eq!(it.next(), Some(7));
        assert_eq!(it.next(), None);
    }
}
