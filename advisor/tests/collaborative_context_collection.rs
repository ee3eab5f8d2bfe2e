//! The advisor's model on collaborative context collection's workloads (Khorasani et al.,
//! MICRO 2015): on the rare costly body it predicts the technique faster than the code as
//! written and recommends it; with every iteration taking the body it predicts a loss (the
//! context moves, nothing gathered) and keeps the baseline. The CUDA C++ twin measured the same
//! directions on an H200: 3.13x and 0.95x the plain kernel (`docs/results/techniques/`).

use reconverge_advisor::{Options, advise_strategies};
use reconverge_backend::Launch;
use reconverge_transforms::{BranchLoopKernel, Strategy};
use reconverge_workloads::synthetic::RareCostlyBody;

const CCC: Strategy = Strategy::COLLABORATIVE_CONTEXT_COLLECTION;

fn advice(w: RareCostlyBody) -> (f64, Strategy) {
    let launch = Launch::new(128, 2).expect("launch");
    let advice = advise_strategies(
        &BranchLoopKernel(w),
        8192,
        launch,
        &[Strategy::BASELINE, CCC],
        &Options::default(),
    )
    .expect("advice");
    let ccc = advice.prediction(&CCC).expect("predicted").speedup;
    (ccc, advice.recommended().strategy)
}

#[test]
fn the_model_predicts_the_favourable_and_the_unfavourable_workload() {
    // Rare body: issued with ~1.6 lanes as written, ~32 collected; the 448-slot body dominates
    // the baseline's issue slots, so the prediction is well over 2x.
    let (favourable, pick) = advice(RareCostlyBody::FAVOURABLE);
    assert!(favourable > 2.0, "{favourable}");
    assert_eq!(pick, CCC);
    // Every iteration: the same body issues, plus the saves and restores: a loss.
    let (every, pick) = advice(RareCostlyBody::EVERY_ITERATION);
    assert!(every < 1.0, "{every}");
    assert_eq!(pick, Strategy::BASELINE);
}
