//! `--strategy tune` and `--strategy auto`: the strategy a run takes when the user lets the
//! program pick.

use reconverge_backend::Launch;
use reconverge_mcml::batch::PlannedRun;
use reconverge_transforms::Strategy;

use crate::DynError;

/// Photons of all `--strategy tune` runs together, as a share of the run's.
const TUNE_SHARE: f64 = 0.05;

/// The shortest run `--strategy tune` times; a run of fewer than 20 times this many photons is
/// too short to tune, and `--strategy tune` falls back to the advisor's model (`auto`).
const TUNE_MIN_PHOTONS: u32 = 1 << 16;

/// `--strategy tune` on `backend`: the measured tuner's pick for `run` among `candidates`
/// (timed with `launch`), said on stdout; the advisor's model pick for a run too short to tune.
pub(crate) fn tuned_strategy<F, B>(
    backend: &B,
    run: &PlannedRun,
    candidates: &[Strategy],
    launch: impl Fn(Strategy, u32) -> Result<Launch, reconverge_backend::BackendError>,
) -> Result<Strategy, DynError>
where
    F: reconverge_workloads::mcml::McmlFloat,
    B: reconverge_backend::Backend<reconverge_workloads::mcml::McmlKernel<F>>,
{
    use reconverge_advisor::{Halving, backend_time, tune_measured};
    use reconverge_workloads::mcml::{McmlKernel, McmlLoop};
    let photons = u32::try_from(run.input.photons).unwrap_or(u32::MAX);
    if photons / 20 < TUNE_MIN_PHOTONS {
        println!(
            "  --strategy tune: {photons} photons are too few to time strategies on; the advisor's model picks"
        );
        return auto_strategy(run, candidates);
    }
    let kernel = McmlKernel(McmlLoop {
        params: run.input.params::<F>().map_err(|e| e.to_string())?,
        seed: run.streams.seed,
        first_photon: run.streams.first_photon,
    });
    let halving = Halving {
        keep: 3,
        budget: TUNE_SHARE / candidates.len().max(1) as f64,
        min_items: TUNE_MIN_PHOTONS,
    };
    let t = std::time::Instant::now();
    let tuned = tune_measured(
        candidates,
        photons,
        &halving,
        backend_time(backend, &kernel, launch),
    )?;
    println!(
        "  --strategy tune: {} (fastest of {} strategies timed on {} photons in all, {:.1} % of the run; {:.2} s)",
        tuned.best,
        candidates.len(),
        tuned.item_runs(),
        100.0 * tuned.item_runs() as f64 / f64::from(photons),
        t.elapsed().as_secs_f64()
    );
    Ok(tuned.best)
}

/// Photons of the sample `--strategy auto` advises on.
const AUTO_SAMPLE_PHOTONS: u32 = 2048;

/// `--strategy auto`: the advisor's pick for `run` among `candidates`, said on stdout.
pub(crate) fn auto_strategy(
    run: &PlannedRun,
    candidates: &[Strategy],
) -> Result<Strategy, DynError> {
    use reconverge_advisor::{Options, advise_strategies};
    use reconverge_workloads::mcml::{McmlKernel, McmlLoop};
    let kernel = McmlKernel(McmlLoop {
        params: run.input.params::<f32>().map_err(|e| e.to_string())?,
        seed: run.streams.seed,
        first_photon: run.streams.first_photon,
    });
    let sample = u32::try_from(run.input.photons)
        .unwrap_or(u32::MAX)
        .clamp(1, AUTO_SAMPLE_PHOTONS);
    // Persistent lanes running a few photons each, as the real run's lanes do.
    let launch = Launch::new(64, 4)?;
    let advice = advise_strategies(&kernel, sample, launch, candidates, &Options::default())?;
    let pick = advice.recommended();
    println!(
        "  --strategy auto: {} (predicted {:.2}x the baseline on {sample} photons of the model: {})",
        pick.strategy,
        pick.speedup,
        pick.reason()
    );
    Ok(pick.strategy)
}
