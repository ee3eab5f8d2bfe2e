//! `FastF32` off the GPU is f32 bit for bit: a CPU fast-math run equals the exact f32 run, and
//! its checkpoints are still kept apart from f32's (a GPU fast-math run's tallies differ).

use reconverge_backend::Launch;
use reconverge_cpu::CpuBackend;
use reconverge_mcml::builtin::builtin;
use reconverge_mcml::checkpoint::{CheckpointError, CheckpointPolicy};
use reconverge_mcml::{
    BackendRun, BackendRunError, RunInput, RunOptions, Streams, run_on_backend,
    run_on_backend_streams, run_with,
};
use reconverge_transforms::Strategy;
use reconverge_workloads::gpu_entries::MCML_FAST_MATH_STRATEGIES;
use reconverge_workloads::mcml::{FastF32, McmlFloat};

#[test]
fn fast_math_on_the_cpu_equals_f32_bit_for_bit() {
    for name in ["skin", "slab"] {
        let input = builtin(name).expect("built-in input");
        let photons = 4_000;
        let exact = run_with::<f32>(&input, photons, 3, None).expect("f32 run");
        let fast = run_with::<FastF32>(&input, photons, 3, None).expect("fast-math run");
        assert_eq!(fast.tally, exact.tally, "{name}: scalar loop");
        assert_eq!((fast.rd, fast.a, fast.tt), (exact.rd, exact.a, exact.tt));
        let cpu = CpuBackend::new();
        let launch = Launch::new(64, 8).expect("launch");
        for &strategy in MCML_FAST_MATH_STRATEGIES {
            let run =
                run_on_backend::<FastF32, _>(&cpu, &input, photons, 3, strategy, launch, None)
                    .expect("backend run");
            assert_eq!(run.result.tally, exact.tally, "{name}: {}", strategy.name());
        }
    }
}

#[test]
fn fast_math_checkpoints_are_not_resumed_by_f32_runs() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let path = dir.path().join("run.ckpt");
    let input = builtin("slab").expect("built-in input");
    let cpu = CpuBackend::new();
    let launch = Launch::new(32, 2).expect("launch");
    let options = RunOptions {
        checkpoint: Some(CheckpointPolicy {
            path: path.clone(),
            every: std::time::Duration::ZERO,
        }),
        ..RunOptions::default()
    };
    // The same run in both float types: only the checkpoint key's float field differs.
    fn run<F: McmlFloat>(
        cpu: &CpuBackend,
        input: &RunInput,
        launch: Launch,
        options: &RunOptions<'_>,
    ) -> Result<BackendRun, BackendRunError> {
        let baseline = Strategy::BASELINE;
        run_on_backend_streams::<F, _>(cpu, input, 500, Streams::new(1), baseline, launch, options)
    }
    run::<FastF32>(&cpu, &input, launch, &options).expect("fast-math run with a checkpoint");
    let err = run::<f32>(&cpu, &input, launch, &options)
        .expect_err("an f32 run must refuse a fast-math checkpoint");
    match err {
        BackendRunError::Checkpoint(e @ CheckpointError::Foreign { .. }) => {
            assert!(e.to_string().contains("f32 fast math"), "{e}");
        }
        other => panic!("unexpected error: {other}"),
    }
}
