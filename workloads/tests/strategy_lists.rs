//! Each kernel's [`Kernel::STRATEGIES`] against what its [`Kernel::passes`] accepts, on one of
//! the papers' workloads per shape: every listed strategy runs, and every kind of strategy the
//! shape runs is listed (a strategy of another shape's list is `NotApplicable`).

use reconverge_transforms::{
    BranchLoopKernel, FactoredBranchLoopKernel, ItemLoopKernel, Kernel, SplitLoopKernel, Strategy,
    StrategyError, TwoPathKernel,
};
use reconverge_workloads::synthetic::{
    BranchSplitBench, DynamicWork, LoopSplitBench, MaskLayout, PathUnification, SynBrDis,
    SynItDelay,
};

/// Every strategy any shape lists, each once.
fn union() -> Vec<Strategy> {
    let mut all = Vec::new();
    for list in [
        <BranchLoopKernel<SynItDelay> as Kernel>::STRATEGIES,
        <FactoredBranchLoopKernel<SynBrDis> as Kernel>::STRATEGIES,
        <TwoPathKernel<BranchSplitBench> as Kernel>::STRATEGIES,
        <ItemLoopKernel<DynamicWork> as Kernel>::STRATEGIES,
        <SplitLoopKernel<LoopSplitBench> as Kernel>::STRATEGIES,
    ] {
        for s in list {
            if !all.contains(s) {
                all.push(*s);
            }
        }
    }
    all
}

fn check<K: Kernel>(kernel: &K) {
    let list = K::STRATEGIES;
    assert_eq!(list.first(), Some(&Strategy::BASELINE), "{}", K::SHAPE);
    for (i, s) in list.iter().enumerate() {
        assert!(!list[..i].contains(s), "{}: {s} listed twice", K::SHAPE);
        let passes = kernel.passes(s);
        assert!(
            matches!(passes, Ok(n) if n >= 1),
            "{}: listed {s} gives {passes:?}",
            K::SHAPE
        );
    }
    let mut rejected = 0;
    for s in union() {
        if list.contains(&s) {
            continue;
        }
        // The union holds each kind of strategy with the same parameters in every list, so
        // anything of it this shape accepts should have been in its list.
        assert_eq!(
            kernel.passes(&s),
            Err(StrategyError::NotApplicable {
                strategy: s,
                shape: K::SHAPE
            }),
            "{}: {s} accepted but not listed",
            K::SHAPE
        );
        rejected += 1;
    }
    assert!(rejected > 0, "{}: every strategy applies", K::SHAPE);
}

#[test]
fn every_listed_strategy_applies_and_every_applicable_kind_is_listed() {
    check(&BranchLoopKernel(SynItDelay::new(8, 32, 0.1, 1)));
    check(&FactoredBranchLoopKernel(SynBrDis::new(4, 4, 32, 1)));
    check(&TwoPathKernel(BranchSplitBench::new(
        1000,
        0.5,
        MaskLayout::Random,
        1,
    )));
    check(&TwoPathKernel(PathUnification::new(4, 1)));
    check(&ItemLoopKernel(DynamicWork::new(4, 32, 1)));
    check(&SplitLoopKernel(LoopSplitBench::new(16, 1)));
}

#[test]
fn lists_name_strategies_with_distinct_texts() {
    let all = union();
    assert!(all.len() >= 15, "{} strategies", all.len());
    for (i, a) in all.iter().enumerate() {
        for b in &all[..i] {
            assert_ne!(a.to_string(), b.to_string());
        }
    }
}
