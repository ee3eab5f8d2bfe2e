//! Collaborative context collection (Khorasani, Gupta & Bhuyan, MICRO 2015) as a path schedule
//! of the branch loop, on the reference model: outputs are the plain scalar loop's
//! (`RareCostlyBody::reference`) under every assignment and at awkward sizes; on the rare
//! costly body the body is issued with a full warp instead of ~1.57 lanes and the model's
//! issue slots fall; with every iteration taking the body they rise (the context moves); the
//! stacks never hold more than `STACK` contexts; the id parses back; the factored loop runs it
//! unfactored and a shape without a loop refuses it with a typed error; the GPU's per-thread
//! form computes the same outputs.

mod common;

use common::{Launch, Run, run, run_complete};
use proptest::prelude::*;
use reconverge_transforms::strategies::collaborative_context_collection::{
    STACK, collaborative_warp_loop,
};
use reconverge_transforms::{
    Assignment, BranchLoop, BranchLoopKernel, FactoredBranchLoopKernel, NoTally, PathSchedule,
    Strategy, StrategyError, TwoPathKernel,
};
use reconverge_workloads::synthetic::{BranchSplitBench, MaskLayout, RareCostlyBody, SynBrDis};

const CCC: Strategy = Strategy::COLLABORATIVE_CONTEXT_COLLECTION;

fn run_ccc(w: RareCostlyBody, s: Strategy, launch: Launch) -> Run<u32> {
    run_complete(&BranchLoopKernel(w), &s, launch)
}

#[test]
fn outputs_are_the_plain_loops_under_every_assignment_and_size() {
    for w in [
        RareCostlyBody::FAVOURABLE,
        RareCostlyBody::EVERY_ITERATION,
        RareCostlyBody {
            rate_q32: 1 << 31,
            seed: 7,
        },
    ] {
        for items in [0, 1, 31, 33, 1000] {
            for launch in [Launch::new(items, 2, 64), Launch::new(items, 1, 32)] {
                for &assignment in CCC.paths.pairs_with() {
                    let s = CCC.over(assignment);
                    let r = run_ccc(w, s, launch);
                    let expected: Vec<Option<u32>> =
                        (0..items).map(|i| Some(w.reference(i))).collect();
                    assert_eq!(r.outputs, expected, "{s} on {w:?}, {launch:?}");
                    assert!(r.writes.iter().all(|&n| n == 1), "{s}, {launch:?}");
                }
            }
        }
    }
}

/// (lanes per issue of the costly body, the run's issue slots) by the SIMT model.
fn body_and_slots(r: &Run<u32>, w: &RareCostlyBody) -> (f64, u64) {
    let body = r.counters.region(w.regions().taken).expect("the body ran");
    (
        body.active_lane_slots as f64 / body.issue_slots as f64,
        r.counters.issue_slots(),
    )
}

/// Favourable (1/32 of the iterations take the 448-slot body): as written the body is issued
/// with 32p / (1 − (1 − p)^32) = 1.57 lanes (p = 1/32, the mean of a binomial given it is not
/// 0); collected, with a full warp but for each warp's drain (at most 14 issues of a few lanes
/// at its end: one warp of 8192 items, ~2,800 body runs, keeps them a small share). The module test's hand count
/// puts the issue slots some 3.4x lower; here at least 2.5x. Every iteration taking the body:
/// 32 lanes either way, and the saves, restores and the body's pop and push (5 words each) add
/// issue slots, so collection is predicted slower.
#[test]
fn the_model_predicts_a_win_on_the_rare_body_and_a_loss_when_every_iteration_takes_it() {
    let launch = Launch::new(8192, 1, 32);
    let w = RareCostlyBody::FAVOURABLE;
    let (base_lanes, base_slots) = body_and_slots(&run_ccc(w, Strategy::BASELINE, launch), &w);
    let (ccc_lanes, ccc_slots) = body_and_slots(&run_ccc(w, CCC, launch), &w);
    assert!((1.3..1.9).contains(&base_lanes), "{base_lanes}");
    assert!(ccc_lanes > 26.0, "{ccc_lanes}");
    assert!(
        base_slots as f64 > 2.5 * ccc_slots as f64,
        "{ccc_slots} vs {base_slots}"
    );
    let w = RareCostlyBody::EVERY_ITERATION;
    let (base_lanes, base_slots) = body_and_slots(&run_ccc(w, Strategy::BASELINE, launch), &w);
    let (ccc_lanes, ccc_slots) = body_and_slots(&run_ccc(w, CCC, launch), &w);
    assert!(base_lanes > 31.0, "{base_lanes}");
    assert!(ccc_lanes > 31.0, "{ccc_lanes}");
    assert!(ccc_slots > base_slots, "{ccc_slots} vs {base_slots}");
}

#[test]
fn the_id_parses_back_and_pairs_with_every_dealing_assignment() {
    for assignment in Assignment::ALL {
        let s = CCC.over(assignment);
        // Remapping's order would need its permutation pass first: refused, naming the others.
        if assignment == Assignment::Remapped {
            let refused = s.pairing().unwrap_err();
            assert_eq!(
                refused.pairs_with,
                &[
                    Assignment::Static,
                    Assignment::Dynamic,
                    Assignment::GridWide
                ]
            );
            continue;
        }
        assert_eq!(s.pairing(), Ok(()));
        let id = s.id().to_string();
        assert_eq!(id.parse::<Strategy>(), Ok(s), "{id}");
        assert!(id.starts_with("collaborative-context-collection"), "{id}");
    }
    assert_eq!(
        CCC.over(Assignment::Dynamic).id().to_string(),
        "collaborative-context-collection-dynamic"
    );
    assert_eq!(CCC.to_string(), "collaborative context collection");
    assert!(PathSchedule::EVERY_KIND.contains(&PathSchedule::CollaborativeContextCollection));
}

#[test]
fn the_factored_loop_runs_it_unfactored_and_a_two_path_workload_refuses_it() {
    // The factored loop runs each iteration's path in full, as its other loop schedules do.
    let w = SynBrDis::new(4, 3, 6, 12);
    let r = run_complete(&FactoredBranchLoopKernel(w), &CCC, Launch::new(300, 2, 64));
    let expected: Vec<_> = (0..300).map(|i| Some(w.reference(i))).collect();
    assert_eq!(r.outputs, expected);
    // A shape without a loop has no program for it: a typed refusal naming it, not a crash.
    let two_path = TwoPathKernel(BranchSplitBench::new(64, 0.5, MaskLayout::Random, 1));
    match run(&two_path, &CCC, Launch::new(64, 1, 32)) {
        Err(StrategyError::NotApplicable { strategy, .. }) => assert_eq!(strategy, CCC),
        other => panic!("{:?}", other.map(|r| r.outputs.len())),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The module's bound: whatever the rate of the body and the number of items, the two
    /// stacks together never hold [`STACK`] contexts (the proof's most is 2·32 − 1), and every
    /// item's output is the plain loop's.
    #[test]
    fn the_stacks_stay_within_their_bound(
        rate_q32 in 0u64..=(1u64 << 32),
        seed in any::<u32>(),
        items in 0u32..700,
    ) {
        let w = RareCostlyBody { rate_q32, seed };
        let mut out = vec![None; items as usize];
        let mut deal = 0..items;
        let stats = collaborative_warp_loop(
            &w,
            || deal.next(),
            |i, o| out[i as usize] = Some(o),
            &mut NoTally,
        );
        let stats = stats.expect("within the bound");
        prop_assert!(stats.peak_stacked < STACK, "{stats:?}");
        for (i, o) in out.iter().enumerate() {
            prop_assert_eq!(*o, Some(w.reference(i as u32)));
        }
    }
}

/// Runs `kernel`'s per-thread form (`Kernel::collected_items`) on 32 OS threads as one warp,
/// over each item count and both dealings: every item's output must be `expected(item)`, and
/// every lane must have voted (and synchronised) as often as the others, or the warp would hang.
fn check_per_thread_form<L>(
    kernel: &BranchLoopKernel<L>,
    items_list: &[u32],
    expected: impl Fn(u32) -> L::Output,
) where
    L: BranchLoop + Copy + Sync + core::fmt::Debug,
    L::Output: PartialEq + core::fmt::Debug,
{
    use reconverge_cpu::thread_warp::{Dealing, VotedLoop, run_voted_warp};
    for &items in items_list {
        for dealing in [Dealing::Stride, Dealing::Counter] {
            let run = run_voted_warp(
                kernel,
                VotedLoop::CollaborativeContextCollection,
                items,
                dealing,
            )
            .expect("the branch loop has the per-thread form");
            for (item, out) in run.outputs.iter().enumerate() {
                assert_eq!(
                    *out,
                    Some(expected(item as u32)),
                    "{:?}, {items} items, {dealing:?}, item {item}",
                    kernel.0
                );
            }
            assert!(run.votes.iter().all(|&v| v == run.votes[0]), "{dealing:?}");
        }
    }
}

/// The GPU's form, each thread's own loop with warp votes and the warp's shared stack
/// (`Kernel::collected_items`), run by 32 OS threads as one warp: every item's output is the
/// plain loop's under both dealings, and every lane voted (and synchronised) as often as the
/// others, or the warp would hang.
#[test]
fn the_per_thread_form_computes_the_plain_loops_outputs() {
    for w in [
        RareCostlyBody::FAVOURABLE,
        RareCostlyBody::EVERY_ITERATION,
        RareCostlyBody {
            rate_q32: 1 << 31,
            seed: 3,
        },
    ] {
        check_per_thread_form(&BranchLoopKernel(w), &[0, 1, 31, 33, 1000], |i| {
            w.reference(i)
        });
    }
}

/// [`RareCostlyBody`] with 100 bytes more state, past `PARK_ABOVE`: the per-thread form then
/// parks the contexts its lanes hold on the resumed stack before each body run. The padding is
/// the item's index, scrambled, in every word; the output says whether it came back intact.
#[derive(Clone, Copy, Debug)]
struct Padded(RareCostlyBody);

type PaddedState = (
    <RareCostlyBody as reconverge_transforms::BranchLoop>::State,
    u32,
    [u32; 24],
);

impl reconverge_transforms::BranchLoop for Padded {
    type State = PaddedState;
    type Output = (u32, bool);

    fn regions(&self) -> reconverge_transforms::LoopRegions {
        self.0.regions()
    }
    fn start(&self, item: u32) -> PaddedState {
        (self.0.start(item), item, [item ^ 0x5a5a_5a5a; 24])
    }
    fn running(&self, s: &PaddedState) -> bool {
        self.0.running(&s.0)
    }
    fn condition(&self, s: &mut PaddedState) -> bool {
        self.0.condition(&mut s.0)
    }
    fn taken<T: reconverge_transforms::Tally>(&self, s: &mut PaddedState, tally: &mut T) {
        self.0.taken(&mut s.0, tally)
    }
    fn not_taken<T: reconverge_transforms::Tally>(&self, s: &mut PaddedState, tally: &mut T) {
        self.0.not_taken(&mut s.0, tally)
    }
    fn after_branch<T: reconverge_transforms::Tally>(&self, s: &mut PaddedState, tally: &mut T) {
        self.0.after_branch(&mut s.0, tally)
    }
    fn finish(&self, s: &PaddedState) -> (u32, bool) {
        (
            self.0.finish(&s.0),
            s.2.iter().all(|&p| p == s.1 ^ 0x5a5a_5a5a),
        )
    }
}

/// Contexts past `PARK_ABOVE` bytes: parked before each body run, every item still computes the
/// plain loop's output with its whole context intact, under both dealings.
#[test]
fn the_per_thread_form_parks_large_contexts_and_loses_none() {
    use reconverge_transforms::strategies::collaborative_context_collection::PARK_ABOVE;
    assert!(core::mem::size_of::<PaddedState>() > PARK_ABOVE);
    for w in [RareCostlyBody::FAVOURABLE, RareCostlyBody::EVERY_ITERATION] {
        check_per_thread_form(&BranchLoopKernel(Padded(w)), &[1, 33, 1000], |i| {
            (w.reference(i), true)
        });
    }
}
