//! The advisor's model on speculative reconvergence's workload (Damani et al., CGO 2020): on
//! the phased periodic-block loop it predicts the technique faster than the code as written and
//! recommends a strategy that is not the baseline; on the aligned one (every lane reaches the
//! block together) it predicts no gain and keeps the baseline.

use reconverge_advisor::{Options, advise_strategies};
use reconverge_backend::Launch;
use reconverge_transforms::{BranchLoopKernel, Strategy};
use reconverge_workloads::synthetic::PeriodicBlockLoop;

const SPEC: Strategy = Strategy::speculative_reconvergence(16, 8);

fn speedups(w: PeriodicBlockLoop) -> (f64, Strategy) {
    let launch = Launch::new(128, 2).expect("launch");
    let advice = advise_strategies(
        &BranchLoopKernel(w),
        1024,
        launch,
        &[Strategy::BASELINE, SPEC],
        &Options::default(),
    )
    .expect("advice");
    let spec = advice.prediction(&SPEC).expect("predicted").speedup;
    (spec, advice.recommended().strategy)
}

#[test]
fn the_model_predicts_the_favourable_and_the_unfavourable_workload() {
    // Phased: the block (80 instructions) issued with ~4 lanes as written, with ~32 under the
    // schedule; the block dominates the loop, so the issue slots fall by well over half.
    let (phased, pick) = speedups(PeriodicBlockLoop::phased(64, 8, 20));
    assert!(phased > 2.0, "{phased}");
    assert_eq!(pick, SPEC);
    // Aligned: the same issues either way, so no gain and the baseline stays.
    let (aligned, pick) = speedups(PeriodicBlockLoop::aligned(64, 8, 20));
    assert!(aligned <= 1.0, "{aligned}");
    assert_eq!(pick, Strategy::BASELINE);
}
