//! Speculative reconvergence (Damani et al., CGO 2020) on the reference model: on a loop whose
//! expensive block comes every `period` iterations at a per-item phase
//! (`PeriodicBlockLoop::phased`), lanes wait for each other and the block is issued with many
//! lanes instead of about `32 / period`; with every item at phase 0 (`aligned`) nothing
//! changes. Outputs are the plain scalar loop's under every assignment.

mod common;

use common::{Launch, Run, run_complete};
use reconverge_transforms::{Assignment, BranchLoopKernel, Strategy};
use reconverge_workloads::synthetic::PeriodicBlockLoop;
use reconverge_workloads::synthetic::periodic_block::BLOCK;

const LAUNCH: Launch = Launch::new(1024, 4, 128);
const SPEC: Strategy = Strategy::speculative_reconvergence(16, 8);

fn run(w: PeriodicBlockLoop, s: Strategy) -> Run<u32> {
    run_complete(&BranchLoopKernel(w), &s, LAUNCH)
}

/// (issues, active lanes per issue) of the expensive block.
fn block(run: &Run<u32>, w: &PeriodicBlockLoop) -> (u64, f64) {
    let row = run
        .counters
        .region(BLOCK.with_cost(w.block_rounds * 4))
        .expect("the block ran");
    (
        row.issues,
        row.active_lane_slots as f64 / row.issue_slots as f64,
    )
}

#[test]
fn outputs_are_the_plain_loops_under_every_assignment() {
    for w in [
        PeriodicBlockLoop::phased(40, 8, 6),
        PeriodicBlockLoop::aligned(40, 8, 6),
        PeriodicBlockLoop::phased(33, 5, 3),
    ] {
        // Every assignment but remapping, which needs a key the workload does not give.
        for items in [
            Assignment::Static,
            Assignment::Dynamic,
            Assignment::GridWide,
        ] {
            for s in [
                SPEC,
                Strategy::speculative_reconvergence(32, 1),
                Strategy::speculative_reconvergence(1, 30),
            ] {
                let r = run(w, s.over(items));
                for (item, out) in r.outputs.iter().enumerate() {
                    assert_eq!(
                        *out,
                        Some(w.reference(item as u32)),
                        "{s} over {items}, item {item}"
                    );
                }
            }
        }
    }
}

#[test]
fn phased_blocks_are_issued_with_many_lanes() {
    let w = PeriodicBlockLoop::phased(64, 8, 20);
    let (base_issues, base_lanes) = block(&run(w, Strategy::BASELINE), &w);
    let (spec_issues, spec_lanes) = block(&run(w, SPEC), &w);
    // As written: every lane runs the block 64 / 8 = 8 times in at most 64 iterations, in the
    // iterations its phase picks, about 32 / 8 = 4 lanes at a time (the phases are a hash, so
    // a few more where they cluster); never more than 64 issues per warp (32 warps).
    assert!((4.0..8.0).contains(&base_lanes), "{base_lanes}");
    assert!(base_issues <= 64 * 32, "{base_issues}");
    // Under the schedule a lane at the block waits while the others run their cheap
    // iterations; within 8 of them every other lane reaches its own block, so the warp's lanes
    // fall into step and the block runs for about all 32 at once (at least the threshold, 16,
    // but for the last, partial issues of a warp).
    assert!(spec_lanes >= 16.0, "{spec_lanes} vs {base_lanes}");
    assert!(
        spec_issues * 3 < base_issues,
        "{spec_issues} vs {base_issues}"
    );
}

#[test]
fn aligned_blocks_gain_nothing() {
    // Every lane reaches the block in the same iteration: 32 lanes per issue either way, and
    // the same issues (the vote releases the block at once: no lane is left to progress).
    let w = PeriodicBlockLoop::aligned(64, 8, 20);
    let base = block(&run(w, Strategy::BASELINE), &w);
    let spec = block(&run(w, SPEC), &w);
    assert_eq!(base.1, 32.0);
    assert_eq!(spec, base);
}

/// The per-thread form the CUDA backend runs (`Kernel::speculative_items`: each thread's loop
/// with a warp vote at the iteration point), run by 32 OS threads as one warp: every item gets
/// its plain scalar output, dealt by stride and from a counter, and every lane votes as often
/// (else the ballot would never complete).
#[test]
fn the_per_thread_form_gives_every_item_its_plain_output() {
    use reconverge_cpu::thread_warp::{Dealing, VotedLoop, run_voted_warp};
    for w in [
        PeriodicBlockLoop::phased(40, 8, 6),
        PeriodicBlockLoop::aligned(40, 8, 6),
    ] {
        for (threshold, max_wait) in [(16, 8), (32, 1), (1, 30)] {
            for dealing in [Dealing::Stride, Dealing::Counter] {
                let form = VotedLoop::SpeculativeReconvergence {
                    threshold,
                    max_wait,
                };
                let r = run_voted_warp(&BranchLoopKernel(w), form, 100, dealing)
                    .expect("a per-thread form");
                for (item, out) in r.outputs.iter().enumerate() {
                    assert_eq!(*out, Some(w.reference(item as u32)), "{form:?} item {item}");
                }
                assert!(
                    r.votes.iter().all(|&v| v == r.votes[0] && v > 0),
                    "{form:?}"
                );
            }
        }
    }
}
