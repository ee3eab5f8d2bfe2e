//! Collaborative context collection (Khorasani et al., MICRO 2015) through the conformance
//! kit on the CPU backend: on both of its workloads (the rare costly body and every iteration
//! taking it), under every assignment and the kit's launch shapes (one and many blocks,
//! partial warps, empty blocks), outputs equal the baseline's and the scalar reference's, and
//! the counters equal the one-thread reference executor's; one thread and two agree.

mod common;

use common::{check_all, check_threads};
use reconverge_backend::Launch;
use reconverge_transforms::{BranchLoopKernel, Strategy};
use reconverge_workloads::synthetic::RareCostlyBody;

/// Collaborative context collection over every assignment it pairs with.
fn strategies() -> Vec<Strategy> {
    let ccc = Strategy::COLLABORATIVE_CONTEXT_COLLECTION;
    ccc.paths
        .pairs_with()
        .iter()
        .map(|&a| ccc.over(a))
        .collect()
}

#[test]
fn both_workloads_conform_under_every_assignment() {
    for w in [RareCostlyBody::FAVOURABLE, RareCostlyBody::EVERY_ITERATION] {
        for items in [0, 1, 31, 33, 1000] {
            check_all(&BranchLoopKernel(w), &strategies(), items, |i| {
                w.reference(i)
            });
        }
    }
}

#[test]
fn one_thread_and_two_agree() {
    let w = RareCostlyBody::FAVOURABLE;
    let launch = Launch::new(64, 3).expect("launch");
    check_threads(&BranchLoopKernel(w), &strategies(), 2000, launch);
}
