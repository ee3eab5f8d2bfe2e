//! MCML under every loop strategy on the CPU backend gives exactly the scalar MCML tallies.

use reconverge_backend::Launch;
use reconverge_cpu::CpuBackend;
use reconverge_mcml::builtin::builtin;
use reconverge_mcml::{run_on_backend, run_with};
use reconverge_transforms::{Decision, Kernel, Strategy};
use reconverge_workloads::mcml::McmlKernel;

/// MCML's listed strategies and a few other parameters.
fn strategies() -> Vec<Strategy> {
    let mut s = <McmlKernel<f32> as Kernel>::STRATEGIES.to_vec();
    s.extend([
        Strategy::IterationDelayingWithDynamicWork(Decision::round_robin(3, 1, false)),
        Strategy::IterationDelaying(Decision::majority_vote(16, false)),
        Strategy::IterationDelaying(Decision::round_robin(3, 1, true)),
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
    let err = run_on_backend::<f32, _>(&cpu, &input, 10, 1, Strategy::Predication, launch, None)
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

/// The hot tally window as the CUDA backend keeps it (each block's window in shared memory,
/// added in by slot at the end): every hot add names the slot whose accumulator it is, the
/// window takes a large share of skin's adds (40 % with this seed), and adding it in gives
/// scalar MCML's tallies.
#[test]
fn the_hot_tally_window_adds_up_to_scalar_mcml() {
    use reconverge_transforms::Tally;
    use reconverge_workloads::mcml::McmlLoop;
    struct Windowed<'k> {
        kernel: &'k McmlKernel<f32>,
        tally: Vec<u64>,
        window: Vec<u64>,
        hot_adds: u64,
        other_adds: u64,
    }
    impl Tally for Windowed<'_> {
        fn add(&mut self, index: u32, amount: u64) {
            self.other_adds += u64::from(amount != 0);
            self.tally[index as usize] = self.tally[index as usize].wrapping_add(amount);
        }
        fn add_hot(&mut self, index: u32, slot: u32, amount: u64) {
            assert_eq!(self.kernel.hot_tally_index(slot), Some(index), "slot {slot}");
            self.hot_adds += u64::from(amount != 0);
            self.window[slot as usize] = self.window[slot as usize].wrapping_add(amount);
        }
    }
    let input = builtin("skin").expect("built-in skin input");
    let photons = 2_000u32;
    let scalar = run_with::<f32>(&input, u64::from(photons), 7, None).expect("scalar run");
    let kernel = McmlKernel(McmlLoop {
        params: input.params::<f32>().expect("parameters"),
        seed: 7,
        first_photon: 0,
    });
    let mut windowed = Windowed {
        kernel: &kernel,
        tally: vec![0; kernel.tally_len()],
        window: vec![0; kernel.hot_tally_slots() as usize],
        hot_adds: 0,
        other_adds: 0,
    };
    let mut items = 0..photons;
    assert!(kernel.plain_items(|| items.next(), |_, ()| {}, &mut windowed));
    assert!(
        3 * windowed.hot_adds > windowed.hot_adds + windowed.other_adds,
        "the window takes over a third of the adds: {} hot, {} others",
        windowed.hot_adds,
        windowed.other_adds
    );
    let mut tally = windowed.tally.clone();
    for (slot, &sum) in windowed.window.iter().enumerate() {
        match kernel.hot_tally_index(slot as u32) {
            Some(index) => tally[index as usize] = tally[index as usize].wrapping_add(sum),
            None => assert_eq!(sum, 0, "slot {slot} stands for no bin"),
        }
    }
    assert_eq!(tally, scalar.tally);
}
