//! Seed 004's branch path unification kernel (fig. A-2) with paths of distinct shape, so that
//! the plain kernel really diverges.
//!
//! The paper's functionA and functionB ([`super::kato`]) are the same integer step with an add
//! and a subtract, which a compiler may merge into one path with the operation selected per
//! lane; whether it does depends on the compiler, and where it does there is no divergence for
//! unification to remove. Here path A is a float chain (`LOOP` steps `v = v · 0.999 + 1`, in
//! IEEE single precision, one multiply and one add each, the same bits on every backend) and
//! path B is the paper's integer functionB, which no select can share with it. The decision
//! (bit 2 of `length_ary[i]`, probability 1/2), `LOOP` and the seed are the paper's.

use reconverge_simt::Region;
use reconverge_transforms::{TwoPath, TwoPathRegion, TwoPathRegions};

use super::kato::{BPU_B, BPU_DECIDE, BPU_ITEM, PathUnification, STEP_INSTRUCTIONS, function};

/// Path A: `LOOP` float steps (a multiply and an add each).
pub const FLOAT_PATH: Region = TwoPathRegion::PathA.region("float chain (LOOP steps)", 0);

/// Instructions of one step of the float chain.
pub const FLOAT_STEP_INSTRUCTIONS: u32 = 2;

/// `steps` steps `v = v · 0.999 + 1` from `v = item mod 2^16` (exact start), the result's bits.
#[inline(always)]
pub fn float_chain(item: u32, steps: u32) -> u32 {
    let mut v = (item & 0xFFFF) as f32;
    for _ in 0..steps {
        v = v * 0.999 + 1.0;
    }
    v.to_bits()
}

/// Fig. A-2's kernel with a float path A (see the module docs). `#[repr(transparent)]`: on the
/// GPU it is the same kernel argument as [`PathUnification`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub struct PathUnificationDistinct(pub PathUnification);

impl PathUnificationDistinct {
    /// LOOP `loop_count`, the decisions of `seed`.
    pub fn new(loop_count: u32, seed: u64) -> Self {
        Self(PathUnification::new(loop_count, seed))
    }

    /// Element `item` run as plain scalar code.
    pub fn reference(&self, item: u32) -> u32 {
        self.run_item(item)
    }
}

impl TwoPath for PathUnificationDistinct {
    type Output = u32;

    fn regions(&self) -> TwoPathRegions {
        let n = self.0.loop_count;
        TwoPathRegions::new([
            BPU_DECIDE,
            FLOAT_PATH.with_cost(n.saturating_mul(FLOAT_STEP_INSTRUCTIONS)),
            BPU_B.with_cost(n.saturating_mul(STEP_INSTRUCTIONS)),
            BPU_ITEM,
        ])
    }

    #[inline]
    fn decide(&self, item: u32) -> bool {
        self.0.decide(item)
    }

    #[inline]
    fn path_a(&self, item: u32) -> u32 {
        float_chain(item, self.0.loop_count)
    }

    #[inline]
    fn path_b(&self, item: u32) -> u32 {
        function(item, self.0.loop_count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_a_is_the_float_chain_and_path_b_the_papers_function_b() {
        let w = PathUnificationDistinct::new(3, 4);
        let original = w.0;
        // By hand: 5 -> 5·0.999 + 1 = 5.995 -> 6.989005 -> 7.982016 (in f32, rounded each step).
        let mut v = 5.0f32;
        for _ in 0..3 {
            v = v * 0.999 + 1.0;
        }
        assert!((f32::from_bits(float_chain(5, 3)) - 7.982_016).abs() < 1e-5);
        assert_eq!(float_chain(5, 3), v.to_bits());
        let (mut a, mut b) = (0, 0);
        for item in 0..256 {
            assert_eq!(w.decide(item), original.decide(item));
            let out = w.reference(item);
            if w.decide(item) {
                a += 1;
                assert_eq!(out, float_chain(item, 3));
            } else {
                b += 1;
                assert_eq!(out, original.reference(item), "path B is the paper's");
            }
        }
        assert!(a > 64 && b > 64, "both paths taken: {a} / {b}");
    }
}
