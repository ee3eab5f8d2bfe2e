//! MCML under every loop strategy on the CPU backend gives exactly the scalar MCML tallies.

use reconverge_backend::Launch;
use reconverge_cpu::CpuBackend;
use reconverge_mcml::builtin::builtin;
use reconverge_mcml::{run_on_backend, run_with};
use reconverge_transforms::{Assignment, Decision, Kernel, Strategy};
use reconverge_workloads::mcml::McmlKernel;

/// MCML's listed strategies and a few other parameters.
fn strategies() -> Vec<Strategy> {
    let mut s = <McmlKernel<f32> as Kernel>::STRATEGIES.to_vec();
    s.extend([
        Strategy::iteration_delaying(Decision::round_robin(3, 1, false)).over(Assignment::Dynamic),
        Strategy::iteration_delaying(Decision::majority_vote(16, false)),
        Strategy::iteration_delaying(Decision::round_robin(3, 1, true)),
    ]);
    s
}

#[test]
fn every_strategy_reproduces_scalar_mcml_bit_for_bit() {
    let input = builtin("skin").expect("built-in skin input");
    let photons = 3_000;
    let scalar = run_with::<f32>(&input, photons, 7, None).expect("scalar run");
    let cpu = CpuBackend::new();
    // Persistent threads: fewer threads than photons, so lanes run several photons each.
    let launch = Launch::new(64, 8).expect("launch");
    for strategy in strategies() {
        let run = run_on_backend::<f32, _>(&cpu, &input, photons, 7, strategy, launch, None)
            .expect("backend run");
        assert_eq!(run.result.tally, scalar.tally, "{}", strategy.name());
        let eff = run.counters.map(|c| c.simd_efficiency()).unwrap_or(0.0);
        assert!(
            eff > 0.0 && eff <= 1.0,
            "{}: SIMD efficiency {eff}",
            strategy.name()
        );
    }
}

#[test]
fn strategies_that_do_not_apply_are_errors() {
    let input = builtin("skin").expect("built-in skin input");
    let cpu = CpuBackend::new();
    let launch = Launch::new(32, 1).expect("launch");
    let err = run_on_backend::<f32, _>(&cpu, &input, 10, 1, Strategy::PREDICATION, launch, None)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(err.contains("predication"), "{err}");
}

/// The plain per-thread photon loop (what the CUDA backend runs for the baseline and dynamic
/// work assignment, `Kernel::plain_items`) adds exactly the scalar MCML tallies.
#[test]
fn the_plain_per_thread_loop_reproduces_scalar_mcml_bit_for_bit() {
    use reconverge_cpu::block::SliceTally;
    use reconverge_workloads::mcml::McmlLoop;
    let input = builtin("skin").expect("built-in skin input");
    let photons = 3_000u32;
    let scalar = run_with::<f32>(&input, u64::from(photons), 7, None).expect("scalar run");
    let kernel = McmlKernel(McmlLoop {
        params: input.params::<f32>().expect("parameters"),
        seed: 7,
        first_photon: 0,
    });
    let mut tally = vec![0u64; kernel.tally_len()];
    let (mut items, mut finished) = (0..photons, 0u32);
    let plain = kernel.plain_items(
        || items.next(),
        |_, ()| finished += 1,
        &mut SliceTally(&mut tally),
    );
    assert!(plain, "MCML has a plain per-thread loop");
    assert_eq!(finished, photons);
    assert_eq!(tally, scalar.tally);
}

/// MCML's iteration delaying and speculative reconvergence as each thread's photon loop with a
/// warp vote (what the CUDA backend runs for the delaying strategies, branch distribution with
/// delaying and speculative reconvergence: `Kernel::delayed_items`,
/// `Kernel::speculative_items`), run by 32 threads as one warp: every form, dealt by stride and
/// from a counter, adds exactly the scalar MCML tallies, and every lane votes as often.
#[test]
fn the_per_thread_voted_loops_reproduce_scalar_mcml_bit_for_bit() {
    use reconverge_cpu::thread_warp::{Dealing, VotedLoop, run_voted_warp};
    use reconverge_workloads::mcml::McmlLoop;
    let input = builtin("skin").expect("built-in skin input");
    let photons = 400u32;
    let scalar = run_with::<f32>(&input, u64::from(photons), 11, None).expect("scalar run");
    let kernel = McmlKernel(McmlLoop {
        params: input.params::<f32>().expect("parameters"),
        seed: 11,
        first_photon: 0,
    });
    let speculative = |threshold, max_wait| VotedLoop::SpeculativeReconvergence {
        threshold,
        max_wait,
    };
    for (form, dealing) in [
        (
            VotedLoop::Delaying(Decision::majority_vote(16, true)),
            Dealing::Stride,
        ),
        (
            VotedLoop::Delaying(Decision::round_robin(3, 1, true)),
            Dealing::Counter,
        ),
        (
            VotedLoop::Delaying(Decision::CostBalanced),
            Dealing::Counter,
        ),
        // Speculative reconvergence: lanes at a face wait for others (`Kernel::speculative_items`).
        (speculative(4, 1), Dealing::Counter),
        // Released only when every live lane waits or by the bound.
        (speculative(32, 64), Dealing::Stride),
    ] {
        let run = run_voted_warp(&kernel, form, photons, dealing).expect("voted form");
        assert!(
            run.outputs.iter().all(Option::is_some),
            "{form:?}: a photon never finished"
        );
        assert_eq!(run.tally, scalar.tally, "{form:?} {dealing:?}");
        assert!(
            run.votes.iter().all(|&v| v == run.votes[0] && v > 0),
            "{form:?}"
        );
    }
}
