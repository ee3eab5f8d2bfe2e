//! The workspace README's advisor example: which strategy and which launch for a Collatz loop
//! of 2^20 items on an H100 (the committed calibration), on the CPU model.
//!
//! ```text
//! cargo run --release -p reconverge-advisor --example collatz
//! ```

use reconverge_advisor::{Gpu, advise};
use reconverge_transforms::{BranchLoop, BranchLoopKernel, LoopRegion, LoopRegions, Tally};

/// Item i runs the Collatz sequence of i + 1 and outputs its number of steps.
#[derive(Clone, Copy)]
struct Collatz;

impl BranchLoop for Collatz {
    type State = (u64, u32); // the value, the steps so far
    type Output = u32;
    fn regions(&self) -> LoopRegions {
        LoopRegions {
            // counter rows and instruction costs: what the prediction weighs
            condition: LoopRegion::Condition.region("odd?", 1),
            taken: LoopRegion::Taken.region("3n + 1", 2),
            not_taken: LoopRegion::NotTaken.region("n / 2", 1),
            after_branch: LoopRegion::AfterBranch.region("count", 1),
            item: LoopRegion::Item.region("item", 2),
        }
    }
    fn start(&self, item: u32) -> (u64, u32) {
        (u64::from(item) + 1, 0)
    }
    fn running(&self, s: &(u64, u32)) -> bool {
        s.0 != 1
    }
    fn condition(&self, s: &mut (u64, u32)) -> bool {
        s.0 % 2 == 1
    }
    fn taken<T: Tally>(&self, s: &mut (u64, u32), _: &mut T) {
        s.0 = 3 * s.0 + 1
    }
    fn not_taken<T: Tally>(&self, s: &mut (u64, u32), _: &mut T) {
        s.0 /= 2
    }
    fn after_branch<T: Tally>(&self, s: &mut (u64, u32), _: &mut T) {
        s.1 += 1
    }
    fn finish(&self, s: &(u64, u32)) -> u32 {
        s.1
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let kernel = BranchLoopKernel(Collatz);
    // 2^20 items on an H100: every strategy at every candidate launch, ranked.
    let advice = advise(&kernel, 1 << 20, &Gpu::h100()?)?;
    println!("{advice}");
    Ok(())
}
