//! The `mcml` command line: MCML photon simulation, `.mci` in, `.mco` out, MCML's own formats.
//!
//! `cargo install reconverge-mcml-cli` installs it as `mcml` (features `cuda` and `mpi` as
//! below); in a checkout, `cargo run --release --example mcml` runs the same code (the apps
//! crate's example calls [`main`]).
//!
//! With no arguments, runs the built-in 7-layer skin model in f32 on the CPU with MCML's own
//! per-photon loop on every core (`--strategy scalar`, the default: the fastest on the CPU);
//! `--f64` runs it in f64. `--strategy` picks a divergence strategy instead, whose warps of 32
//! lanes are emulated in lockstep on the CPU, and `--backend cuda` (built with feature `cuda`)
//! runs one on GPU 0 (f32 only), for the strategies that have compiled entry points. Prints
//! Rsp, Rd, A, Tt and photons per second (and, under a warp strategy, the share of the lanes'
//! steps that did photon work); exits non-zero with the error message on bad input.
//!
//! Every run of an input is checked (values, grid, output files) before the first photon;
//! each run's `.mco` is written as soon as it is done. Runs of one `.mci` file continue one
//! sequence of random streams (see `reconverge_mcml::Streams`).
//!
//! Features: `cuda` (`--backend cuda`: reconverge-gpu with the papers' kernels; building needs
//! the nightly toolchain with rust-src and llvm-tools), `mpi` (one run over the processes
//! `mpirun` starts; needs an MPI library and libclang).

use std::cell::{Cell, RefCell};
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use indicatif::{ProgressBar, ProgressStyle};
use reconverge_backend::Launch;
use reconverge_cpu::CpuBackend;
use reconverge_mcml::batch::{PlanOptions, PlannedRun, plan, run_planned};
use reconverge_mcml::builtin::{BUILTIN_NAMES, builtin};
#[cfg(feature = "mpi")]
use reconverge_mcml::distributed::combine;
use reconverge_mcml::distributed::share_of_run;
use reconverge_mcml::finite_beam::{Beam, beam_label};
use reconverge_mcml::limits::check_launch;
use reconverge_mcml::mci::read_mci;
use reconverge_mcml::mco_file::McoFile;
use reconverge_mcml::plot::{RunPlots, Scale, check_plot_files, plot_stem, write_plots};
use reconverge_mcml::{RunInput, RunResult, run_on_backend_streams, run_streams};
use reconverge_workloads::mcml::{FastF32, McmlFloat};

mod args;
mod choose;
mod convolve;
#[cfg(feature = "cuda")]
mod on_gpus;
mod timings;

use args::{Args, BackendArg, ScaleArg, StrategyArg};
use choose::{auto_strategy, tuned_strategy};
use convolve::{check_beams, convolved_stem, interpolation, write_convolutions};
#[cfg(feature = "cuda")]
use on_gpus::simulate_cuda;
use timings::PhaseClock;

pub(crate) type DynError = Box<dyn std::error::Error + Send + Sync>;

/// Says how much of a run came from its checkpoint.
fn report_resumed(photons: u64) {
    if photons > 0 {
        println!("  resumed from the checkpoint after {photons} photons");
    }
}

/// Runs one planned run with the chosen strategy; returns MCML's result and the SIMD
/// efficiency.
fn simulate<F: McmlFloat>(
    args: &Args,
    run: &PlannedRun,
    progress: &(dyn Fn(u64) + Sync),
    clock: &PhaseClock,
) -> Result<(RunResult, Option<f64>), DynError> {
    let photons = run.input.photons;
    match args.strategy()? {
        None if args.checkpoint.is_some() => Err(
            "--checkpoint needs a warp strategy: the scalar loop (--strategy scalar) keeps none"
                .into(),
        ),
        None => Ok((
            run_streams::<F>(&run.input, photons, run.streams, Some(progress))?,
            None,
        )),
        Some(strategy) => {
            use reconverge_transforms::Kernel;
            use reconverge_workloads::mcml::McmlKernel;
            let launch = Launch::new(args.threads_per_block(), args.blocks.unwrap_or(64))?;
            let cpu = CpuBackend::new();
            let candidates = <McmlKernel<f32> as Kernel>::STRATEGIES;
            let strategy = match args.strategy {
                StrategyArg::Auto => auto_strategy(run, candidates)?,
                StrategyArg::Tune => {
                    tuned_strategy::<F, _>(&cpu, run, candidates, |_, _| Ok(launch))?
                }
                _ => strategy,
            };
            let out = run_on_backend_streams::<F, _>(
                &cpu,
                &run.input,
                photons,
                run.streams,
                strategy,
                launch,
                &args.run_options(run, progress),
            )?;
            report_resumed(out.resumed_photons);
            clock.part(
                format!("{} backend calls (parallel passes)", out.batches),
                out.backend_time,
            );
            Ok((out.result, out.counters.map(|c| c.simd_efficiency())))
        }
    }
}

/// A run's name in the header: its `.mco` where one is written (a file's run, or `--output`),
/// with the built-in's name beside it; the built-in's name alone when nothing is written.
fn run_label(from_file: bool, run: &RunInput, builtin: &str, output: bool) -> String {
    match (from_file, output) {
        (true, _) => run.output_file.clone(),
        (false, true) => format!("{} ({builtin}, built-in)", run.output_file),
        (false, false) => format!("{builtin} (built-in)"),
    }
}

/// What a warp strategy's SIMD efficiency means, for a reader who knows MCML and not GPUs.
fn warp_note(efficiency: f64, strategy: &str) -> String {
    format!(
        "warps ({strategy}, emulated on the CPU): {:.1} % of the lanes' steps did photon work (SIMD efficiency; the rest waited for other photons of their warp of 32)",
        100.0 * efficiency
    )
}

fn threads_label(n: usize) -> String {
    if n == 1 {
        "1 thread".into()
    } else {
        format!("{n} threads")
    }
}

/// The `mcml` program: parses the process's arguments, runs, and returns the exit status
/// (failure, with the error on stderr, on bad input or a failed run).
pub fn main() -> ExitCode {
    match real_main(Args::parse().resolved()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn real_main(args: Args) -> Result<(), DynError> {
    let clock = PhaseClock::new();
    // Under `mpirun -np N` (feature `mpi`) each process runs its share of every run's photons
    // (`distributed::share`) and rank 0 sums the tallies, reports and writes the `.mco`:
    // the same file, bit for bit, as one process.
    #[cfg(feature = "mpi")]
    let universe = mpi::initialize();
    #[cfg(feature = "mpi")]
    let (rank, ranks) = universe.as_ref().map_or((0, 1), |u| {
        use mpi::traits::Communicator;
        let w = u.world();
        (w.rank().unsigned_abs(), w.size().unsigned_abs())
    });
    #[cfg(not(feature = "mpi"))]
    let (rank, ranks) = (0u32, 1u32);
    let root = rank == 0;
    let (runs, source, from_file): (Vec<RunInput>, String, bool) = match &args.input {
        Some(path) => (read_mci(path)?.runs, path.display().to_string(), true),
        None => {
            let run = builtin(&args.builtin).ok_or_else(|| {
                format!(
                    "unknown built-in input {:?}; choose one of {}",
                    args.builtin,
                    BUILTIN_NAMES.join(", ")
                )
            })?;
            (vec![run], format!("built-in {}", args.builtin), false)
        }
    };
    if root {
        for (k, run) in runs.iter().enumerate() {
            for w in run.warnings() {
                eprintln!("warning: {source}, run {}: {w}", k + 1);
            }
        }
    }
    let f64 = args.f64;
    if args.backend == BackendArg::Cuda && f64 {
        return Err("--backend cuda runs MCML in f32 only: drop --f64".into());
    }
    // Everything that can be refused is refused here, before the first photon.
    args.strategy()?;
    if args.backend == BackendArg::Cpu && args.devices.trim() != "0" {
        return Err("--devices picks GPUs: it needs --backend cuda".into());
    }
    if args.backend == BackendArg::Cpu && args.tally_copies.is_some() {
        return Err("--tally-copies sets the GPU's tally copies: it needs --backend cuda".into());
    }
    if let Some(blocks) = args.blocks {
        check_launch(args.threads_per_block(), blocks)?;
    }
    check_beams(&args, from_file)?;
    let mut runs = runs;
    for (k, run) in runs.iter_mut().enumerate() {
        run.beam = args.beam;
        if args.beam != Beam::Pencil {
            let checked = if f64 {
                run.params::<f64>().map(drop)
            } else {
                run.params::<f32>().map(drop)
            };
            checked.map_err(|e| format!("--beam {}, run {}: {e}", beam_label(args.beam), k + 1))?;
        }
    }
    let options = PlanOptions {
        source: source.clone(),
        photons: args.photons,
        seed: args.seed,
        // Only rank 0 writes (and checks) output files.
        write_outputs: from_file && root,
        output: args.output.clone().filter(|_| root),
    };
    let fast_math = args.fast_math;
    let planned = if f64 {
        plan::<f64>(&runs, &options)?
    } else {
        plan::<f32>(&runs, &options)?
    };
    clock.lap("read and check the input and the output paths");
    // The pictures' files, checked like the .mco files: before the first photon.
    let plot_dir = args.plot.as_ref().filter(|_| root);
    if let Some(dir) = plot_dir {
        let stems: Vec<String> = planned
            .iter()
            .flat_map(|p| {
                let stem = plot_stem(&p.input.output_file);
                let convolved: Vec<String> = args
                    .convolve
                    .iter()
                    .map(|&b| convolved_stem(&stem, b))
                    .collect();
                std::iter::once(stem).chain(convolved)
            })
            .collect();
        check_plot_files(dir, &stems)?;
    }
    // A run whose pictures fail keeps its .mco and the runs after it go on; the error is
    // returned at the end.
    let plot_failed: RefCell<Option<String>> = RefCell::new(None);
    let threads = rayon::current_num_threads();
    // Set by the simulation of a run and read by its report.
    let simd_of_last: Cell<Option<f64>> = Cell::new(None);
    let on_gpu: RefCell<Option<String>> = RefCell::new(None);
    let simulate_one = |whole: &PlannedRun| -> Result<RunResult, DynError> {
        let (input, streams) = share_of_run(&whole.input, whole.streams, rank, ranks);
        let share = PlannedRun {
            input,
            streams,
            output: None,
        };
        let run = &share;
        let name = run_label(
            from_file,
            &whole.input,
            &args.builtin,
            args.output.is_some(),
        );
        if ranks > 1 && root {
            println!(
                "{name}: {} photons over {ranks} processes (mpirun); rank 0's share:",
                whole.input.photons
            );
        }
        if root {
            let beam = match run.input.beam {
                Beam::Pencil => String::new(),
                b => format!(", {} beam sampled", beam_label(b)),
            };
            println!(
                "{name}: {} layer{}, {} photons, {}, seed {} (first stream {}){beam}",
                run.input.layers.len(),
                if run.input.layers.len() == 1 { "" } else { "s" },
                run.input.photons,
                if f64 {
                    "f64"
                } else if fast_math {
                    "f32 fast math (approximate on the GPU)"
                } else {
                    "f32"
                },
                run.streams.seed,
                run.streams.first_photon,
            );
        }
        let bar = if root {
            ProgressBar::new(run.input.photons)
        } else {
            ProgressBar::hidden()
        };
        bar.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} photons  {per_sec}  eta {eta}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar.enable_steady_tick(Duration::from_millis(200));
        let progress = |done: u64| bar.set_position(done);
        let out = match args.backend {
            BackendArg::Cpu if f64 => simulate::<f64>(&args, run, &progress, &clock),
            // FastF32 off the GPU is f32 bit for bit.
            BackendArg::Cpu if fast_math => simulate::<FastF32>(&args, run, &progress, &clock),
            BackendArg::Cpu => simulate::<f32>(&args, run, &progress, &clock),
            #[cfg(feature = "cuda")]
            BackendArg::Cuda => if fast_math {
                simulate_cuda::<FastF32>(&args, run, &progress, &clock)
            } else {
                simulate_cuda::<f32>(&args, run, &progress, &clock)
            }
            .map(|(result, device)| {
                *on_gpu.borrow_mut() = Some(device);
                (result, None)
            }),
            #[cfg(not(feature = "cuda"))]
            BackendArg::Cuda => Err(
                "--backend cuda: this binary was built without feature `cuda` (cargo run --features cuda ...)".into(),
            ),
        };
        bar.finish_and_clear();
        clock.lap(format!("simulate {name}"));
        #[cfg(feature = "mpi")]
        if ranks > 1 {
            use mpi::traits::Communicator;
            let Some(world) = universe.as_ref().map(|u| u.world()) else {
                return Err("MPI is not initialised".into());
            };
            let (part, simd) = match out {
                Ok(part) => part,
                Err(e) => {
                    // The other processes wait for this one's tallies: stop them all.
                    eprintln!("error on MPI rank {rank}: {e}");
                    world.abort(2)
                }
            };
            simd_of_last.set(simd);
            return Ok(combine(&world, &whole.input, &part).unwrap_or(part));
        }
        let (result, simd) = out?;
        simd_of_last.set(simd);
        Ok(result)
    };
    let convolve_failed: RefCell<Option<String>> = RefCell::new(None);
    let report = |_: &PlannedRun, result: &RunResult, written: Option<&std::path::Path>| {
        if let Some(path) = written {
            clock.lap(format!("write {}", path.display()));
        }
        if !root {
            return;
        }
        println!("  Rsp = {:.6}", result.rsp);
        println!("  Rd  = {:.6}", result.rd);
        println!("  A   = {:.6}", result.a);
        println!("  Tt  = {:.6}", result.tt);
        match on_gpu.borrow().as_ref() {
            Some(device) => println!(
                "  {:.0} photons/s ({:.3} s on {device})",
                result.photons_per_second,
                result.elapsed.as_secs_f64(),
            ),
            None => println!(
                "  {:.0} photons/s ({:.3} s, {})",
                result.photons_per_second,
                result.elapsed.as_secs_f64(),
                threads_label(threads)
            ),
        }
        if let Some(eff) = simd_of_last.get() {
            let strategy = match args.strategy_id {
                Some(id) => id.id().to_string(),
                None => format!("{:?}", args.strategy),
            };
            println!("  {}", warp_note(eff, &strategy));
        }
        let mut convolved = Vec::new();
        if let Some(path) = written {
            println!("  wrote {}", path.display());
            match write_convolutions(&args, result, path) {
                Ok(c) => convolved = c,
                Err(e) => {
                    convolve_failed.borrow_mut().get_or_insert(e);
                }
            }
        }
        if let Some(dir) = plot_dir {
            let stem = plot_stem(&result.input.output_file);
            let mco = McoFile::from_result(result);
            let scale = match args.plot_scale {
                ScaleArg::Log => Scale::Log,
                ScaleArg::Linear => Scale::Linear,
            };
            let mut pictures = vec![(stem.clone(), RunPlots::new(&mco, &source))];
            for response in &convolved {
                let plots = RunPlots::convolved(&mco, response, &source, interpolation(&args));
                pictures.push((convolved_stem(&stem, response.beam), plots));
            }
            for (stem, plots) in pictures {
                match write_plots(&plots.with_scale(scale), dir, &stem) {
                    Ok(_) => println!(
                        "  drew {}: Rd(r), Tt(r), A(z), fluence (SVG and PNG)",
                        dir.join(format!("{stem}-*")).display()
                    ),
                    Err(e) => {
                        eprintln!("  error: {e}");
                        plot_failed.borrow_mut().get_or_insert(e.to_string());
                    }
                }
            }
        }
        // Here, not after the last run: a run's pictures and convolutions are made before the
        // next run starts, and would otherwise count as its simulation.
        clock.lap("report, convolutions, pictures");
    };
    let ran = run_planned(&planned, simulate_one, report);
    if args.timings && root {
        clock.print();
    }
    ran?;
    match convolve_failed.into_inner().or(plot_failed.into_inner()) {
        Some(e) => Err(e.into()),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use reconverge_transforms::Strategy;

    use super::*;

    /// `--plot` into a file that is not a folder fails before the first photon: a run of 10^12
    /// photons returns at once.
    #[test]
    fn plot_folders_are_refused_before_any_photon() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a-file");
        std::fs::write(&file, "x").unwrap();
        let bad = file.to_str().unwrap();
        let args = parse(&["--photons", "1000000000000", "--plot", bad]).unwrap();
        let err = real_main(args).unwrap_err().to_string();
        assert!(err.contains("not a folder"), "{err}");
        assert_eq!(
            parse(&["--plot", "pics"]).unwrap().plot,
            Some(PathBuf::from("pics"))
        );
    }

    /// `--output` names everything of the run: the `.mco`, its InParm output name (read back
    /// with the `.mco` reader) and the pictures; a second run drawn into the same folder under
    /// another `--output` keeps the first run's pictures.
    #[test]
    fn output_names_the_mco_its_inparm_and_the_pictures() {
        let dir = tempfile::tempdir().unwrap();
        let pics = dir.path().join("pics");
        let mco = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
        for (name, beam) in [("pencil.mco", "pencil"), ("flat.mco", "flat:0.1")] {
            let out = mco(name);
            let mut argv = vec![
                "--builtin",
                "vandehulst",
                "--photons",
                "300",
                "--beam",
                beam,
                "--output",
                &out,
                "--plot",
                pics.to_str().unwrap(),
            ];
            if beam == "pencil" {
                argv.extend(["--convolve", "flat:0.1"]);
            }
            real_main(parse(&argv).unwrap()).unwrap();
        }
        let read =
            reconverge_mcml::mco_file::read_mco(std::path::Path::new(&mco("flat.mco"))).unwrap();
        assert_eq!(read.input.output_file, mco("flat.mco"));
        // A blank in the name would split MCML's InParm line: it is written as `_` there and
        // in the pictures' names, the file keeps its name.
        let spaced = mco("two words.mco");
        real_main(
            parse(&[
                "--builtin",
                "vandehulst",
                "--photons",
                "100",
                "--output",
                &spaced,
                "--plot",
                pics.to_str().unwrap(),
            ])
            .unwrap(),
        )
        .unwrap();
        let read = reconverge_mcml::mco_file::read_mco(std::path::Path::new(&spaced)).unwrap();
        assert_eq!(read.input.output_file, mco("two_words.mco"));
        let mut drawn: Vec<String> = std::fs::read_dir(&pics)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        drawn.sort();
        for stem in ["pencil", "flat", "pencil.flat_0.1cm", "two_words"] {
            for p in reconverge_mcml::plot::PICTURES {
                for ext in ["svg", "png"] {
                    let f = format!("{stem}-{p}.{ext}");
                    assert!(drawn.contains(&f), "{f} missing from {drawn:?}");
                }
            }
        }
        assert!(
            drawn.iter().all(|f| !f.starts_with("vandehulst")),
            "{drawn:?}"
        );
        // Each picture's caption names its beam and how its responses were made.
        for (stem, words) in [
            ("pencil", "pencil beam"),
            ("flat", "flat beam, radius 0.1 cm (flat:0.1), sampled"),
            (
                "pencil.flat_0.1cm",
                "flat beam, radius 0.1 cm (flat:0.1), convolved",
            ),
        ] {
            for p in reconverge_mcml::plot::PICTURES {
                let svg = std::fs::read_to_string(pics.join(format!("{stem}-{p}.svg"))).unwrap();
                assert!(svg.contains(words), "{stem}-{p}.svg does not say {words:?}");
            }
        }
    }

    /// `--convolve-dr` sets the convolution's output grid: a pencil run on 50 bins of 0.01 cm
    /// convolved onto bins of 0.02 cm writes 25 radii, at 0.01, 0.03, ... cm; a width that is
    /// not finite and > 0, or no bins, is refused while parsing.
    #[test]
    fn convolve_dr_sets_the_output_grid() {
        let dir = tempfile::tempdir().unwrap();
        let mco = dir.path().join("p.mco");
        let run = |dr: &str| {
            real_main(
                parse(&[
                    "--builtin",
                    "vandehulst",
                    "--photons",
                    "200",
                    "--output",
                    mco.to_str().unwrap(),
                    "--convolve",
                    "flat:0.1",
                    "--convolve-dr",
                    dr,
                ])
                .unwrap(),
            )
        };
        run("0.02").unwrap();
        let text = std::fs::read_to_string(dir.path().join("p.flat_0.1cm.Rrc")).unwrap();
        let radii: Vec<f64> = text
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| l.split_whitespace().next().unwrap().parse().unwrap())
            .collect();
        let input = reconverge_mcml::builtin::van_de_hulst().grid;
        assert_eq!((input.dr, input.nr), (0.01, 50));
        assert_eq!(radii.len(), 25);
        assert!((radii[1] - 0.03).abs() < 1e-9, "{radii:?}");
        for bad in [
            "--convolve-dr=0",
            "--convolve-dr=-1",
            "--convolve-dr=inf",
            "--convolve-nr=0",
        ] {
            assert!(parse(&["--convolve", "flat:0.1", bad]).is_err(), "{bad}");
        }
        assert!(
            parse(&["--convolve-dr", "0.02"]).is_err(),
            "needs --convolve"
        );
    }

    /// `--fast-math`'s help names every strategy with a fast-math entry point, as a user types
    /// it (`--strategy` with or without `--dynamic-work`, else `--strategy-id`), and no other:
    /// the list is written by hand in the help and drifted from the entry list once.
    #[test]
    fn fast_math_help_names_exactly_the_fast_math_entry_points() {
        use clap::{CommandFactory, ValueEnum};
        use reconverge_workloads::gpu_entries::MCML_FAST_MATH_STRATEGIES;
        let help = Args::command()
            .get_arguments()
            .find(|a| a.get_id() == "fast_math")
            .and_then(|a| a.get_long_help().or(a.get_help()))
            .expect("--fast-math has help")
            .to_string();
        let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
        // What each `--strategy` value (with and without `--dynamic-work`) runs on the GPU.
        let mut named = Vec::new();
        for value in StrategyArg::value_variants() {
            let name = value
                .to_possible_value()
                .expect("a value")
                .get_name()
                .to_string();
            for dynamic in [false, true] {
                let mut argv = vec!["--backend", "cuda", "--strategy", &name];
                if dynamic {
                    argv.push("--dynamic-work");
                }
                if let Ok(Ok(Some(strategy))) = parse(&argv).map(|a| a.strategy()) {
                    let typed = if dynamic {
                        format!("{name} --dynamic-work")
                    } else {
                        name.clone()
                    };
                    named.push((strategy, typed));
                }
            }
        }
        for strategy in MCML_FAST_MATH_STRATEGIES {
            let id = strategy.id().to_string();
            let mut forms = named.iter().filter(|(s, _)| s == strategy).map(|(_, t)| t);
            assert!(
                forms.any(|t| help.contains(t.as_str())) || help.contains(&id),
                "--fast-math's help does not name {id}"
            );
        }
        // The other way: each `--strategy` value the help lists (with `--dynamic-work` where it
        // says so) has a fast-math entry point.
        let listed = help
            .split("entry points exist for")
            .nth(1)
            .and_then(|rest| rest.split(". ").next())
            .expect("the help lists the entry points");
        for (strategy, typed) in &named {
            let word = typed.split(' ').next().unwrap_or_default();
            let mentioned = listed.split([',', ' ']).any(|w| w == word);
            let with_dynamic = listed.contains(&format!("{word} --dynamic-work"));
            if mentioned && typed.contains(' ') == with_dynamic {
                assert!(
                    MCML_FAST_MATH_STRATEGIES.contains(strategy),
                    "--fast-math's help names {typed}, which has no fast-math entry point"
                );
            }
        }
    }

    fn parse(args: &[&str]) -> Result<Args, clap::Error> {
        Args::try_parse_from(std::iter::once("mcml").chain(args.iter().copied()))
            .map(Args::resolved)
    }

    #[test]
    fn the_main_job_runs_in_f32_as_the_readme_quotes() {
        let a = parse(&[]).unwrap();
        assert!(!a.f64, "the default is f32");
        assert!(!parse(&["--f32"]).unwrap().f64, "--f32 is still accepted");
        assert!(parse(&["--f64"]).unwrap().f64);
        assert!(parse(&["--f32", "--f64"]).is_err());
    }

    /// `--strategy-id` runs any strategy by the id the advisor prints, with its numbers; a text
    /// that is no id is refused with what it lacked, and it cannot be given with `--strategy`.
    #[test]
    fn a_strategy_id_runs_the_strategy_it_names() {
        use reconverge_transforms::{Assignment, Decision, Strategy};
        let vote = Strategy::iteration_delaying(Decision::majority_vote(8, true));
        for strategy in [
            vote,
            vote.over(Assignment::Dynamic),
            Strategy::GRID_WIDE_DYNAMIC_WORK,
        ] {
            let id = strategy.id().to_string();
            let args = parse(&["--strategy-id", &id]).unwrap();
            assert_eq!(args.strategy().unwrap(), Some(strategy), "{id}");
        }
        let bad = parse(&["--strategy-id", "delaying-majority-vote"]).unwrap_err();
        assert!(bad.to_string().contains("expected"), "{bad}");
        assert!(parse(&["--strategy-id", "baseline", "--strategy", "dynamic"]).is_err());
    }

    /// The CPU's default is the plain loop (measured the fastest there, scripts/main-job-timing.sh)
    /// and the GPU's the plain loop over one grid-wide counter (the fastest there, the MCML
    /// page), both the same as the Python package's.
    #[test]
    fn the_default_strategy_is_the_plain_loop_on_the_cpu_and_the_grid_wide_loop_on_the_gpu() {
        assert_eq!(parse(&[]).unwrap().strategy, StrategyArg::Scalar);
        assert_eq!(parse(&[]).unwrap().strategy().unwrap(), None);
        let gpu = parse(&["--backend", "cuda"]).unwrap();
        assert_eq!(gpu.strategy, StrategyArg::GridDynamic);
        assert_eq!(
            gpu.strategy().unwrap(),
            Some(reconverge_transforms::Strategy::GRID_WIDE_DYNAMIC_WORK)
        );
        let given = parse(&["--strategy", "dynamic"]).unwrap();
        assert_eq!(given.strategy, StrategyArg::Dynamic);
    }

    #[test]
    fn fast_math_is_f32_only() {
        assert!(parse(&["--fast-math"]).unwrap().fast_math);
        assert!(parse(&["--fast-math", "--f32"]).is_ok());
        assert!(parse(&["--fast-math", "--f64"]).is_err());
    }

    #[test]
    fn header_names_no_file_for_a_built_in_and_counts_threads_in_english() {
        let skin = reconverge_mcml::builtin::skin();
        assert_eq!(run_label(false, &skin, "skin", false), "skin (built-in)");
        assert_eq!(run_label(true, &skin, "skin", false), "skin.mco");
        assert_eq!(threads_label(1), "1 thread");
        assert_eq!(threads_label(2), "2 threads");
    }

    #[test]
    fn devices_name_existing_gpus_once() {
        let devices = |d: &str, count| parse(&["--devices", d]).unwrap().device_ordinals(count);
        assert_eq!(devices("all", 2), Ok(vec![0, 1]));
        assert_eq!(devices("1, 0", 2), Ok(vec![1, 0]));
        assert!(devices("0,2", 2).unwrap_err().contains("no GPU 2"));
        assert!(devices("0,0", 2).is_err());
        assert!(devices("all", 0).is_err());
        assert!(devices("gpu0", 2).is_err());
    }

    /// `--strategy auto` picks one of MCML's strategies from the advisor, and on the skin
    /// model not the baseline: dynamic work assignment's gain is large there (1.25x on an
    /// H100, docs/results/mcml).
    #[test]
    fn auto_picks_a_listed_strategy_that_beats_the_baseline_on_skin() {
        use reconverge_transforms::Kernel;
        use reconverge_workloads::mcml::McmlKernel;
        let mut input = reconverge_mcml::builtin::skin();
        input.photons = 512;
        let run = PlannedRun {
            input,
            streams: reconverge_mcml::Streams::new(1),
            output: None,
        };
        let list = <McmlKernel<f32> as Kernel>::STRATEGIES;
        let pick = auto_strategy(&run, list).unwrap();
        assert!(list.contains(&pick));
        assert_ne!(pick, Strategy::BASELINE);
        assert!(
            parse(&["--strategy", "auto", "--dynamic-work"])
                .unwrap()
                .strategy()
                .is_err()
        );
    }

    #[test]
    fn beams_parse_and_convolution_needs_a_pencil_run_with_an_mco() {
        let a = parse(&["--beam", "gaussian:0.1"]).unwrap();
        assert_eq!(a.beam, Beam::Gaussian { radius: 0.1 });
        assert_eq!(parse(&[]).unwrap().beam, Beam::Pencil);
        assert!(parse(&["--beam", "flat:-1"]).is_err());
        assert!(parse(&["--beam", "disk:1"]).is_err());
        let c = parse(&["--convolve", "flat:0.2", "--convolve", "gaussian:0.1"]).unwrap();
        assert_eq!(c.convolve.len(), 2);
        assert!(check_beams(&c, false).is_err(), "no .mco to write next to");
        let c = parse(&["--convolve", "flat:0.2", "--output", "x.mco"]).unwrap();
        assert!(check_beams(&c, false).is_ok());
        let both = parse(&[
            "--convolve",
            "flat:0.2",
            "--beam",
            "flat:0.2",
            "--output",
            "x.mco",
        ]);
        assert!(check_beams(&both.unwrap(), false).is_err());
        let pencil = parse(&["--convolve", "pencil", "--output", "x.mco"]).unwrap();
        assert!(check_beams(&pencil, false).is_err());
    }

    #[test]
    fn bad_values_are_refused_while_parsing_arguments() {
        assert!(parse(&["--threshold", "100"]).is_err());
        assert!(parse(&["--cycle", "0:0"]).is_err());
        let a = parse(&["--cycle", "3:1", "--threshold", "8"]).unwrap();
        assert_eq!((a.cycle, a.threshold), ((3, 1), 8));
    }
}
