//! The advisor's predictions against the papers' numbers and models, its statistics against
//! the CPU backend's counters, and its recommendations where the best strategy is known.

use reconverge_advisor::{AdviseError, Options, Registers, SlotAdvice, advise_strategies};
use reconverge_backend::{Backend, Launch};
use reconverge_cpu::CpuBackend;
use reconverge_cpu::block::{RunInOrder, run_in_order};
use reconverge_occupancy::Device;
use reconverge_occupancy::models::{
    BranchProfile, branch_distribution_speedup, branch_splitting_speedup,
};
use reconverge_simt::{Counters, Region};
use reconverge_transforms::{
    BranchLoopKernel, Decision, FactoredBranchLoopKernel, ItemLoopKernel, Kernel, Strategy,
    StrategyError, TwoPathKernel,
};
use reconverge_workloads::synthetic::{
    BranchSplitBench, DynamicWork, MaskLayout, SynBrDis, brdis, fig2,
};

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// Issue slots of `regions` only.
fn slots_of(c: &Counters, regions: &[Region]) -> u64 {
    regions
        .iter()
        .map(|r| c.region(*r).map_or(0, |row| row.issue_slots))
        .sum()
}

/// The issue-slot model over the kernel's own strategy list, on one launch.
fn advise<K: Kernel + ?Sized>(
    kernel: &K,
    items: u32,
    launch: Launch,
    options: &Options,
) -> Result<SlotAdvice, AdviseError> {
    advise_strategies(kernel, items, launch, K::STRATEGIES, options)
}

#[test]
fn seed002_fig2_speedups_from_issue_slots_are_1_5_and_1_2() -> TestResult {
    let majority = Strategy::iteration_delaying(Decision::MajorityVote {
        threshold: 2,
        stop_when_a_lane_finishes: false,
    });
    let round_robin = Strategy::iteration_delaying(Decision::RoundRobin {
        num_zeros: 1,
        num_ones: 1,
        remove_idle: false,
    });
    // Three items in one 32-lane warp: the other 29 lanes have no item, as in the figure's
    // three-thread warp, and a threshold of 2 is "at least half of the threads".
    let advice = advise_strategies(
        &BranchLoopKernel(fig2::FIG2),
        3,
        Launch::new(32, 1)?,
        &[majority, round_robin],
        &Options::default(),
    )?;
    let paths = [fig2::TAKEN, fig2::NOT_TAKEN];
    assert_eq!(slots_of(&advice.baseline.counters, &paths), 600);
    let mv = advice.prediction(&majority).ok_or("majority vote ran")?;
    let rr = advice.prediction(&round_robin).ok_or("round robin ran")?;
    assert_eq!(slots_of(&mv.profile.counters, &paths), 400);
    assert_eq!(slots_of(&rr.profile.counters, &paths), 500);
    // The prediction also pays the strategies' votes (one instruction each), so it lies just
    // under the paper's 600/400 and 600/500, and exactly at all slots' ratio.
    let base = advice.baseline.counters.issue_slots() as f64;
    for (p, paper) in [(mv, 1.5), (rr, 1.2)] {
        assert_eq!(p.speedup, base / p.issue_slots as f64);
        assert!(
            p.speedup <= paper && p.speedup > paper * 0.95,
            "{}",
            p.speedup
        );
    }
    assert_eq!(advice.recommended().strategy, majority);
    eprintln!("{advice}");
    Ok(())
}

#[test]
fn branch_distribution_on_syn_brdis_follows_the_papers_model() -> TestResult {
    for (m, n) in [(4, 5), (10, 8), (20, 16)] {
        let w = SynBrDis::new(m, n, 4, 7);
        let advice = advise_strategies(
            &FactoredBranchLoopKernel(w),
            256,
            Launch::new(64, 4)?,
            &[Strategy::BRANCH_DISTRIBUTION],
            &Options::default(),
        )?;
        let p = advice
            .prediction(&Strategy::BRANCH_DISTRIBUTION)
            .ok_or("branch distribution ran")?;
        let model = branch_distribution_speedup(w.r())?;
        // On the divergent code alone (two 20-instruction segments per path and the factored
        // code), the issue-slot ratio is the paper's model exactly.
        let divergent = [
            brdis::SEG1,
            brdis::SEG2,
            brdis::SEG3,
            brdis::SEG4,
            brdis::FACTORED.with_cost(2 * n * m),
        ];
        let ratio = slots_of(&advice.baseline.counters, &divergent) as f64
            / slots_of(&p.profile.counters, &divergent) as f64;
        assert!(
            (ratio - model).abs() < 1e-9,
            "R = {}: {ratio} vs {model}",
            w.r()
        );
        // The whole prediction also pays the 21 RNG and condition instructions per iteration
        // that the model leaves out: lower, as the paper's measurement (about 10 % lower).
        assert!(
            p.speedup < model && p.speedup > 0.85 * model,
            "R = {}: {} vs {model}",
            w.r(),
            p.speedup
        );
    }
    Ok(())
}

#[test]
fn branch_splitting_with_registers_is_equation_1() -> TestResult {
    // Seed 001's G80 setting: the branched kernel needs 13 registers (two thirds occupancy at
    // 256 threads); split, the light path needs 10 (full occupancy).
    let arch = *Device::lookup("8800gtx")?.limits()?;
    let kernel = TwoPathKernel(BranchSplitBench::new(4096, 0.5, MaskLayout::Random, 3));
    let launch = Launch::new(256, 4)?;
    let options = Options {
        launch_overhead: 0.02,
        registers: Some(Registers {
            arch,
            baseline: 13,
            strategies: vec![(Strategy::BRANCH_SPLITTING, vec![10, 13])],
        }),
        ..Options::default()
    };
    // Branch splitting's advice under each occupancy model.
    let advise_split = |options: &Options| {
        advise_strategies(
            &kernel,
            4096,
            launch,
            &[Strategy::BRANCH_SPLITTING],
            options,
        )
    };
    let advice = advise_split(&options)?;
    let p = advice
        .prediction(&Strategy::BRANCH_SPLITTING)
        .ok_or("branch splitting ran")?;
    let occupancy = p.occupancy.clone().ok_or("occupancy known")?;
    assert_eq!(advice.baseline_occupancy, Some(16.0 / 24.0));
    assert_eq!(occupancy, vec![1.0, 16.0 / 24.0]);
    let t = advice.baseline.counters.issue_slots() as f64;
    let branches: Vec<BranchProfile> = p
        .profile
        .launches
        .iter()
        .zip(&occupancy)
        .map(|((_, c), &o)| BranchProfile {
            runtime: c.issue_slots() as f64,
            occupancy: o,
        })
        .collect();
    let eq1 = branch_splitting_speedup(t, &branches, 16.0 / 24.0, 0.02 * t)?;
    assert!((p.speedup - eq1).abs() < 1e-12, "{} vs {eq1}", p.speedup);
    assert_eq!(p.extra_launches, 1);
    // Saturating at half occupancy, both kernels (2/3 and 1) count as 1/2: eq. 1 with every
    // ρ equal, the split paying only its slots and its launch.
    let saturating = Options {
        saturating_occupancy: Some(0.5),
        ..options.clone()
    };
    let s = advise_split(&saturating)?;
    let ps = s
        .prediction(&Strategy::BRANCH_SPLITTING)
        .ok_or("branch splitting ran")?;
    let flat: Vec<BranchProfile> = branches
        .iter()
        .map(|b| BranchProfile {
            occupancy: 0.5,
            ..*b
        })
        .collect();
    let eq1_flat = branch_splitting_speedup(t, &flat, 0.5, 0.02 * t)?;
    assert!(
        (ps.speedup - eq1_flat).abs() < 1e-12,
        "{} vs {eq1_flat}",
        ps.speedup
    );
    assert!(ps.speedup < p.speedup);
    // The same model runs re-predicted under the saturating options give the same advice as
    // running the model again.
    let again = advice.with_options(&saturating)?;
    let pa = again
        .prediction(&Strategy::BRANCH_SPLITTING)
        .ok_or("branch splitting ran")?;
    assert_eq!(pa.speedup, ps.speedup);
    assert_eq!(pa.occupancy, ps.occupancy);
    assert_eq!(again.baseline_occupancy, s.baseline_occupancy);
    assert_eq!(again.recommended().strategy, s.recommended().strategy);
    assert!(matches!(
        again.with_options(&Options {
            saturating_occupancy: Some(1.5),
            ..options.clone()
        }),
        Err(AdviseError::InvalidOption { .. })
    ));
    // At 0.9 only the split's full-occupancy pass is capped.
    let capped = Options {
        saturating_occupancy: Some(0.9),
        ..options.clone()
    };
    let c = advise_split(&capped)?;
    let pc = c.prediction(&Strategy::BRANCH_SPLITTING).ok_or("ran")?;
    assert!(ps.speedup < pc.speedup && pc.speedup < p.speedup);
    for bad in [0.0, -0.5, 1.5, f64::NAN] {
        let o = Options {
            saturating_occupancy: Some(bad),
            ..options.clone()
        };
        assert!(matches!(
            advise_strategies(&kernel, 64, launch, &[Strategy::BASELINE], &o),
            Err(AdviseError::InvalidOption { .. })
        ));
    }
    // Without registers, the same split only pays: a second launch and the decision twice.
    let plain = advise_split(&Options::default())?;
    let p = plain
        .prediction(&Strategy::BRANCH_SPLITTING)
        .ok_or("branch splitting ran")?;
    assert!(p.speedup < 1.0, "{}", p.speedup);
    assert_eq!(plain.recommended().strategy, Strategy::BASELINE);
    Ok(())
}

#[test]
fn statistics_equal_the_reference_models_counters() -> TestResult {
    let kernel = ItemLoopKernel(DynamicWork::new(4, 32, 9));
    let launch = Launch::new(64, 3)?;
    let advice = advise(&kernel, 500, launch, &Options::default())?;
    let cpu = CpuBackend::with_threads(1)?;
    for p in &advice.predictions {
        // Grid-wide dealing hands items to blocks in the order they run: its counters are not
        // reproducible from one run to the next (its outputs are).
        if p.strategy.deals_across_blocks() {
            continue;
        }
        let run = cpu.run(&kernel, p.strategy, 500, launch)?;
        assert_eq!(Some(p.profile.counters), run.counters, "{}", p.strategy);
        let reference = run_in_order(&kernel, &p.strategy, 500, launch, RunInOrder::default())?;
        let per_launch: Vec<Counters> = p.profile.launches.iter().map(|(_, c)| *c).collect();
        assert_eq!(per_launch, reference.pass_counters, "{}", p.strategy);
        // run_in_order keeps the busiest warp's steps of any one launch.
        if p.profile.launches.len() == 1 {
            let max = p.profile.warp_steps.iter().copied().max();
            assert_eq!(max, Some(reference.max_steps), "{}", p.strategy);
        }
    }
    let b = &advice.baseline;
    assert_eq!(b.simd_efficiency, b.counters.simd_efficiency());
    assert_eq!(b.warp_steps.count, 6);
    assert!(b.warp_steps.min <= b.warp_steps.mean && b.warp_steps.mean <= b.warp_steps.max);
    assert!(b.warp_steps.min >= 1.0);
    // 500 items on 192 threads: each lane runs at most 3 items of at most 32 trips.
    assert!(
        b.warp_steps.max <= 96.0 && b.warp_steps.min >= 32.0,
        "{:?}",
        b.warp_steps
    );
    let region_slots: u64 = b.regions.iter().map(|r| r.issue_slots).sum();
    assert_eq!(region_slots, b.counters.issue_slots());
    Ok(())
}

#[test]
fn dynamic_work_is_recommended_for_unequal_trip_counts_and_baseline_for_equal() -> TestResult {
    let launch = Launch::new(128, 4)?;
    // The advice on 2048 elements of LOOP_NUM 8, each 1 to `max_trips` trips.
    let advise_trips = |max_trips| {
        let kernel = ItemLoopKernel(DynamicWork::new(8, max_trips, 1));
        advise(&kernel, 2048, launch, &Options::default())
    };
    let unequal = advise_trips(64)?;
    // Dynamic work from the block's counter or from the launch's one counter.
    assert!(
        unequal.recommended().strategy.deals_dynamically(),
        "{unequal}"
    );
    // Slower lanes no longer hold their warps: the model predicts about 1.2x here (the H100
    // measured 1.25-1.53x for MCML, whose trip counts vary as much).
    assert!(unequal.recommended().speedup > 1.15, "{unequal}");
    // One trip each: nothing to rebalance, and the atomics only cost.
    let equal = advise_trips(1)?;
    assert_eq!(equal.recommended().strategy, Strategy::BASELINE, "{equal}");
    assert_eq!(equal.baseline.simd_efficiency, 1.0);
    Ok(())
}

#[test]
fn report_names_every_strategy_and_the_recommendation() -> TestResult {
    let kernel = ItemLoopKernel(DynamicWork::new(8, 64, 1));
    let advice = advise(&kernel, 1024, Launch::new(128, 2)?, &Options::default())?;
    let text = advice.to_string();
    // Each strategy by its id, which parses back to it.
    for s in <ItemLoopKernel<DynamicWork>>::STRATEGIES {
        let id = s.id().to_string();
        assert!(text.contains(&id), "{s} missing:\n{text}");
        assert_eq!(id.parse::<Strategy>(), Ok(*s));
    }
    assert!(
        text.contains("recommended: dynamic work assignment"),
        "{text}"
    );
    assert!(
        text.contains("+"),
        "the occlusion-query loop's extra launches:\n{text}"
    );
    Ok(())
}

#[test]
fn bad_input_is_an_error_not_a_panic() -> TestResult {
    let kernel = ItemLoopKernel(DynamicWork::new(8, 4, 1));
    let launch = Launch::new(64, 1)?;
    assert!(matches!(
        advise(&kernel, 0, launch, &Options::default()),
        Err(AdviseError::NoItems)
    ));
    let nan = Options {
        launch_overhead: f64::NAN,
        ..Options::default()
    };
    assert!(matches!(
        advise(&kernel, 64, launch, &nan),
        Err(AdviseError::InvalidOption { .. })
    ));
    let arch = *Device::lookup("h100")?.limits()?;
    let too_many = Options {
        registers: Some(Registers {
            arch,
            baseline: 4096,
            strategies: Vec::new(),
        }),
        ..Options::default()
    };
    assert!(advise(&kernel, 64, launch, &too_many).is_err());
    let bad_launch = Launch {
        threads_per_block: 48,
        blocks: 1,
    };
    assert!(matches!(
        advise(&kernel, 64, bad_launch, &Options::default()),
        Err(AdviseError::Launch(_))
    ));
    // A strategy of another shape is skipped with its reason; a bad parameter is an error.
    let other_shape = [Strategy::BRANCH_DISTRIBUTION];
    let advice = advise_strategies(&kernel, 64, launch, &other_shape, &Options::default())?;
    assert!(matches!(
        advice.skipped.as_slice(),
        [(
            Strategy::BRANCH_DISTRIBUTION,
            StrategyError::NotApplicable { .. }
        )]
    ));
    let zero = Strategy::occlusion_query_loop(0);
    assert!(matches!(
        advise_strategies(&kernel, 64, launch, &[zero], &Options::default()),
        Err(AdviseError::Strategy { .. })
    ));
    Ok(())
}
