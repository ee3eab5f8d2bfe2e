//! A run killed with SIGKILL mid-way and resumed from its checkpoint gives the tallies of an
//! uninterrupted run, bit for bit.
//!
//! The run to kill is this test binary itself, started again as a child process that runs only
//! the ignored test `child_run_to_be_killed`; the parent kills it (`Child::kill` is SIGKILL on
//! Unix) once its checkpoint holds a few batches, then resumes the run in-process.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use reconverge_backend::Launch;
use reconverge_cpu::CpuBackend;
use reconverge_mcml::builtin::builtin;
use reconverge_mcml::checkpoint::{CheckpointPolicy, RunKey, load};
use reconverge_mcml::{BackendRun, Batching, RunOptions, Streams, run_on_backend_streams};
use reconverge_transforms::Strategy;

const PHOTONS: u64 = 12_000;
const BATCH: u64 = 500;
const CHILD_ENV: &str = "RECONVERGE_CHECKPOINT_CHILD";

fn run(checkpoint: Option<&Path>, strategy: Strategy, slow: bool) -> BackendRun {
    let input = builtin("skin").expect("skin");
    let cpu = CpuBackend::with_threads(1).expect("cpu");
    let launch = Launch::new(64, 4).expect("launch");
    // The child slows down after each batch so that the parent can kill it mid-way.
    let pause = |_done: u64| {
        if slow {
            std::thread::sleep(Duration::from_millis(40));
        }
    };
    let options = RunOptions {
        batching: Batching::Fixed(BATCH),
        progress: Some(&pause),
        checkpoint: checkpoint.map(|path| CheckpointPolicy {
            path: path.to_path_buf(),
            every: Duration::ZERO,
        }),
    };
    run_on_backend_streams::<f32, _>(
        &cpu,
        &input,
        PHOTONS,
        Streams::new(3),
        strategy,
        launch,
        &options,
    )
    .expect("run")
}

/// The run the parent kills: only when started by the parent, with the checkpoint path in
/// the environment.
#[test]
#[ignore = "started as a child process by sigkill_mid_run_then_resume_is_bit_for_bit"]
fn child_run_to_be_killed() {
    if let Some(path) = std::env::var_os(CHILD_ENV) {
        run(Some(Path::new(&path)), Strategy::BASELINE, true);
    }
}

#[test]
fn sigkill_mid_run_then_resume_is_bit_for_bit() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path: PathBuf = dir.path().join("skin.ckpt");
    let mut child = Command::new(std::env::current_exe().expect("test binary"))
        .args(["--exact", "child_run_to_be_killed", "--ignored", "--quiet"])
        .env(CHILD_ENV, &path)
        .stdout(Stdio::null())
        .spawn()
        .expect("start the child run");
    let input = builtin("skin").expect("skin");
    let key = RunKey::new(&input, PHOTONS, Streams::new(3), 32);
    let len = input.params::<f32>().expect("params").layout().len();
    // Wait until the checkpoint holds at least three batches, then kill.
    let started = Instant::now();
    let done_before_kill = loop {
        if let Ok(Some(c)) = load(&path, &key, len)
            && c.photons_done >= 3 * BATCH
        {
            break c.photons_done;
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the child wrote no checkpoint"
        );
        std::thread::sleep(Duration::from_millis(5));
    };
    child.kill().expect("SIGKILL the child");
    child.wait().expect("reap the child");
    let saved = load(&path, &key, len)
        .expect("the checkpoint survives the kill")
        .expect("a checkpoint");
    assert!(saved.photons_done >= done_before_kill);
    assert!(
        saved.photons_done < PHOTONS,
        "the child finished before it was killed"
    );

    // Resumed under another strategy: a checkpoint does not depend on it.
    let resumed = run(Some(&path), Strategy::DYNAMIC_WORK_ASSIGNMENT, false);
    assert_eq!(resumed.resumed_photons, saved.photons_done);
    // Only the photons left were run, in batches of BATCH.
    assert_eq!(
        u64::from(resumed.batches),
        (PHOTONS - saved.photons_done).div_ceil(BATCH)
    );
    let whole = run(None, Strategy::BASELINE, false);
    assert_eq!(u64::from(whole.batches), PHOTONS.div_ceil(BATCH));
    assert!(whole.backend_time >= whole.kernel_time);
    assert!(whole.backend_time <= whole.result.elapsed);
    assert_eq!(resumed.result.tally, whole.result.tally);
    assert_eq!(resumed.result.rd, whole.result.rd);

    // A finished run's checkpoint resumes to the same result with nothing left to run.
    let again = run(Some(&path), Strategy::BASELINE, false);
    assert_eq!(again.resumed_photons, PHOTONS);
    assert_eq!(again.batches, 0);
    assert_eq!(again.result.tally, whole.result.tally);
}
