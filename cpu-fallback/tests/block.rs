//! The reference block executor's own contract: it gives up on a warp that never finishes,
//! returns a strategy that does not apply as an error, and agrees with the parallel backend.

use reconverge_backend::{Backend, Launch};
use reconverge_cpu::CpuBackend;
use reconverge_cpu::block::{BlockError, RunInOrder, run_in_order};
use reconverge_transforms::{
    BranchLoop, BranchLoopKernel, Kernel, LoopRegion, LoopRegions, Strategy, StrategyError, Tally,
};
use reconverge_workloads::synthetic::SynItDelay;

/// One instruction per region: the tests count issues, not costs.
const SPIN_REGIONS: LoopRegions = LoopRegions::new([
    LoopRegion::Condition.region("condition", 1),
    LoopRegion::Taken.region("taken", 1),
    LoopRegion::NotTaken.region("not taken", 1),
    LoopRegion::AfterBranch.region("after", 1),
    LoopRegion::Item.region("item", 1),
]);

/// Items whose loop runs forever unless `endless` is off, in which case it runs `item % 5`
/// times.
#[derive(Clone, Copy)]
struct Spin {
    endless: bool,
}

impl BranchLoop for Spin {
    type State = u32;
    type Output = u32;
    fn regions(&self) -> LoopRegions {
        SPIN_REGIONS
    }
    fn start(&self, item: u32) -> u32 {
        item % 5
    }
    fn running(&self, s: &u32) -> bool {
        self.endless || *s > 0
    }
    fn condition(&self, s: &mut u32) -> bool {
        *s % 2 == 1
    }
    fn taken<T: Tally>(&self, _: &mut u32, _: &mut T) {}
    fn not_taken<T: Tally>(&self, _: &mut u32, _: &mut T) {}
    fn after_branch<T: Tally>(&self, s: &mut u32, _: &mut T) {
        *s = s.saturating_sub(1);
    }
    fn finish(&self, s: &u32) -> u32 {
        *s
    }
}

fn launch() -> Launch {
    Launch::new(64, 2).expect("valid launch")
}

#[test]
fn a_warp_that_never_finishes_hits_the_step_limit() {
    let options = RunInOrder {
        counting: true,
        step_limit: Some(50),
        ..RunInOrder::default()
    };
    let kernel = BranchLoopKernel(Spin { endless: true });
    match run_in_order(&kernel, &Strategy::BASELINE, 100, launch(), options) {
        Err(BlockError::StepLimit { block, steps, .. }) => {
            assert_eq!((block, steps), (0, 50));
        }
        other => panic!("expected a step-limit error, got {other:?}"),
    }
    // The same kernel, finite, finishes well within the limit and writes every item once.
    let finite = BranchLoopKernel(Spin { endless: false });
    let run = run_in_order(&finite, &Strategy::BASELINE, 100, launch(), options)
        .expect("finite loops finish");
    assert_eq!(run.first_not_written_once(), None);
    assert!(run.max_steps > 0 && run.max_steps < 50, "{}", run.max_steps);
}

#[test]
fn a_strategy_that_does_not_apply_is_an_error() {
    let kernel = BranchLoopKernel(Spin { endless: false });
    let result = run_in_order(
        &kernel,
        &Strategy::Z_CULL_MASKING,
        100,
        launch(),
        RunInOrder::default(),
    );
    assert!(
        matches!(
            result,
            Err(BlockError::Strategy(StrategyError::NotApplicable { .. }))
        ),
        "{result:?}"
    );
}

#[test]
fn in_order_run_equals_the_parallel_backend() {
    let kernel = BranchLoopKernel(SynItDelay::new(4, 12, 0.3, 7));
    let cpu = CpuBackend::with_threads(2).expect("pool");
    for strategy in <BranchLoopKernel<SynItDelay>>::STRATEGIES {
        let parallel = cpu.run(&kernel, *strategy, 777, launch()).expect("runs");
        let in_order =
            run_in_order(&kernel, strategy, 777, launch(), RunInOrder::default()).expect("runs");
        let outputs: Vec<_> = in_order.outputs.iter().flatten().copied().collect();
        assert_eq!(outputs.len(), 777, "{strategy}");
        assert_eq!(parallel.outputs, outputs, "{strategy}");
        assert_eq!(
            parallel.counters.as_ref(),
            Some(&in_order.counters),
            "{strategy}"
        );
    }
}
