//! The papers' entry-point list as the host reads it: names, passes, lookups.

use reconverge_gpu::DeviceKernel;
use reconverge_paper_kernels::{
    KERNELS, PAPER_ENTRY_NAMES, PLAIN_KERNELS, SELFTESTS, entry_points, mcml_kernels,
};
use reconverge_transforms::{
    Assignment, BranchLoopKernel, Decision, FactoredBranchLoopKernel, ItemLoopKernel, Strategy,
    TwoPathKernel,
};
use reconverge_workloads::mcml::{FastF32, McmlKernel};
use reconverge_workloads::synthetic::{
    BranchSplitBench, DynamicWork, Gems34Branch, PathUnification, SynBrDis, SynItDelay,
};

#[test]
fn names_are_unique_and_every_entry_is_in_kernels() {
    for (i, a) in KERNELS.iter().enumerate() {
        assert!(!KERNELS[..i].contains(a), "{a} twice");
    }
    for e in entry_points() {
        assert!(KERNELS.contains(&e.name), "{}", e.name);
    }
    // The kernel types' tables hold the whole list, in its order: none is left without impl.
    let names: Vec<&str> = entry_points().map(|e| e.name).collect();
    assert_eq!(names, PAPER_ENTRY_NAMES);
    assert_eq!(
        KERNELS.len(),
        SELFTESTS.len() + PLAIN_KERNELS.len() + PAPER_ENTRY_NAMES.len()
    );
}

/// Each listed entry runs its own strategy with its numbers compiled in; other numbers of a
/// technique run on the technique's `_any` twin, which the device compiles for the first
/// entry of the technique (`reconverge_device::twin_numbers`).
#[test]
fn listed_numbers_have_their_own_entry_and_others_the_techniques_twin() {
    use reconverge_gpu::EntryNumbers;
    let mut launch_twins = 0;
    for e in entry_points() {
        let twin = e.name.ends_with("_any");
        let expected = if twin {
            e.numbers != EntryNumbers::Listed
        } else {
            e.numbers == EntryNumbers::Listed
        };
        assert!(expected, "{}: {:?}", e.name, e.numbers);
        if e.numbers == EntryNumbers::Launch {
            launch_twins += 1;
            assert!(e.strategy.has_parameters(), "{}", e.name);
        }
    }
    assert!(launch_twins > 0);
    fn check<K: DeviceKernel>() {
        for e in K::ENTRY_POINTS
            .iter()
            .filter(|e| e.numbers == EntryNumbers::Listed)
        {
            // The listed strategy: an entry listed with exactly it (the first, if several).
            let own = K::entry_point(&e.strategy, e.pass).unwrap_or_default();
            let first = K::ENTRY_POINTS.iter().find(|x| {
                x.numbers == EntryNumbers::Listed && x.strategy == e.strategy && x.pass == e.pass
            });
            assert_eq!(Some(own), first.map(|x| x.name));
            if !e.strategy.has_parameters() {
                continue;
            }
            // Numbers no list names: the twin that takes them from the launch.
            let mut words = e.strategy.parameters().words;
            words[0] += 1000;
            let other = e
                .strategy
                .with_parameters(reconverge_transforms::StrategyParameters { words });
            let twin = K::entry_point(&other, e.pass).unwrap_or_default();
            let runs = K::ENTRY_POINTS.iter().find(|x| x.name == twin);
            assert!(
                runs.is_some_and(
                    |x| x.numbers == EntryNumbers::Launch && x.strategy.same_technique(&other)
                ),
                "{} with other numbers: {twin}",
                e.name
            );
        }
    }
    check::<BranchLoopKernel<SynItDelay>>();
    check::<FactoredBranchLoopKernel<SynBrDis>>();
    check::<TwoPathKernel<PathUnification>>();
    check::<ItemLoopKernel<DynamicWork>>();
    check::<McmlKernel<FastF32>>();
}

#[test]
fn every_entry_runs_a_pass_its_kernel_has() {
    fn check<K: DeviceKernel>(kernel: K) {
        for e in K::ENTRY_POINTS {
            let passes = kernel.passes(&e.strategy);
            assert!(
                passes.is_ok_and(|p| e.pass < p),
                "{}: {:?} pass {}",
                e.name,
                e.strategy,
                e.pass
            );
            // Every pass of a listed strategy has its entry point.
            for p in 0..passes.unwrap_or(0) {
                assert!(
                    K::entry_point(&e.strategy, p).is_some(),
                    "{} pass {p}",
                    e.name
                );
            }
        }
    }
    check(BranchLoopKernel(SynItDelay::new(2, 8, 0.5, 1)));
    check(FactoredBranchLoopKernel(SynBrDis::new(2, 2, 8, 1)));
    check(TwoPathKernel(BranchSplitBench::new(
        64,
        0.5,
        reconverge_workloads::synthetic::MaskLayout::Random,
        1,
    )));
    check(ItemLoopKernel(DynamicWork::new(4, 8, 1)));
    check(TwoPathKernel(PathUnification::new(4, 1)));
    check(TwoPathKernel(Gems34Branch::random(0.5, 1)));
}

#[test]
fn lookup_finds_passes_and_rejects_the_unknown() {
    type B = TwoPathKernel<BranchSplitBench>;
    assert_eq!(
        B::entry_point(&Strategy::BRANCH_SPLITTING, 1),
        Some("bsplit_split_b")
    );
    assert_eq!(B::entry_point(&Strategy::BRANCH_SPLITTING, 2), None);
    type M = McmlKernel<f32>;
    assert_eq!(
        M::entry_point(&Strategy::BASELINE, 0),
        Some("mcml_baseline")
    );
    // A threshold no list names runs on its technique's twin, which takes the numbers as a
    // kernel argument; a vote without the stop is another technique, which MCML's list lacks.
    let vote = |threshold, stop_when_a_lane_finishes| {
        Strategy::iteration_delaying(Decision::MajorityVote {
            threshold,
            stop_when_a_lane_finishes,
        })
    };
    assert_eq!(M::entry_point(&vote(3, true), 0), Some("mcml_mv16_any"));
    assert_eq!(M::entry_point(&vote(16, true), 0), Some("mcml_mv16"));
    assert_eq!(M::entry_point(&vote(16, false), 0), None);
    // The entry listed with exactly the strategy comes first.
    assert_eq!(
        M::entry_point(
            &Strategy::iteration_delaying(Decision::majority_vote(8, true))
                .over(Assignment::Dynamic),
            0
        ),
        Some("mcml_mv8_dynamic")
    );
    assert_eq!(<BranchLoopKernel<SynItDelay>>::strategies().len(), 19);
    // Kernel names as reports print them.
    assert_eq!(M::KERNEL_NAME, "McmlKernel<f32>");
    assert_eq!(
        <BranchLoopKernel<SynItDelay>>::KERNEL_NAME,
        "BranchLoopKernel<SynItDelay>"
    );
}

/// Each kernel type's entry points run the strategies of its slice in the list, in order, each
/// with every pass: what the names were written against.
#[test]
fn entry_points_follow_the_strategy_data() {
    use reconverge_transforms::{Kernel, SplitLoopKernel};
    use reconverge_workloads::gpu_entries::{
        BRANCH_SPLIT_STRATEGIES, DYNAMIC_WORK_STRATEGIES, GEMS34_STRATEGIES,
        MCML_FAST_MATH_STRATEGIES, MCML_GPU_STRATEGIES, PATH_UNIFICATION_STRATEGIES,
        SYN_BR_DIS_STRATEGIES, SYN_IT_DELAY_STRATEGIES,
    };
    use reconverge_workloads::synthetic::LoopSplitBench;
    fn check<K: DeviceKernel>(data: &[Strategy]) {
        assert_eq!(K::strategies(), data, "{}", K::KERNEL_NAME);
    }
    check::<BranchLoopKernel<SynItDelay>>(SYN_IT_DELAY_STRATEGIES);
    check::<FactoredBranchLoopKernel<SynBrDis>>(SYN_BR_DIS_STRATEGIES);
    check::<TwoPathKernel<BranchSplitBench>>(BRANCH_SPLIT_STRATEGIES);
    check::<SplitLoopKernel<LoopSplitBench>>(<SplitLoopKernel<LoopSplitBench>>::STRATEGIES);
    check::<ItemLoopKernel<DynamicWork>>(DYNAMIC_WORK_STRATEGIES);
    check::<TwoPathKernel<PathUnification>>(PATH_UNIFICATION_STRATEGIES);
    check::<TwoPathKernel<Gems34Branch>>(GEMS34_STRATEGIES);
    check::<McmlKernel<f32>>(MCML_GPU_STRATEGIES);
    check::<McmlKernel<reconverge_workloads::mcml::FastF32>>(MCML_FAST_MATH_STRATEGIES);
    assert_eq!(
        <McmlKernel<reconverge_workloads::mcml::FastF32>>::entry_point(
            &Strategy::BRANCH_DISTRIBUTION.over(Assignment::Dynamic),
            0
        ),
        Some("mcml_fast_distribution_dynamic")
    );
    // MCML on the GPU runs every strategy its benchmarks run.
    for s in <McmlKernel<f32>>::STRATEGIES {
        assert!(MCML_GPU_STRATEGIES.contains(s), "{s}");
    }
    // A few names against the parameters behind them.
    type B = BranchLoopKernel<SynItDelay>;
    assert_eq!(
        B::entry_point(
            &Strategy::iteration_delaying(Decision::MajorityVote {
                threshold: 24,
                stop_when_a_lane_finishes: true
            }),
            0
        ),
        Some("itdelay_mv24")
    );
    assert_eq!(
        B::entry_point(
            &Strategy::iteration_delaying(Decision::RoundRobin {
                num_zeros: 3,
                num_ones: 7,
                remove_idle: true
            }),
            0
        ),
        Some("itdelay_rr30_idle")
    );
    assert_eq!(
        <TwoPathKernel<Gems34Branch>>::entry_point(&Strategy::Z_CULL_MASKING, 2),
        Some("gems34_zcull_b")
    );
    assert_eq!(
        <ItemLoopKernel<DynamicWork>>::entry_point(&Strategy::occlusion_query_loop(32), 1),
        Some("dwa_occlusion32_next")
    );
}

/// The MCML-only module's kernels (`mcml.ptx`, chosen by name when it is built) are exactly
/// the entry points of MCML's two kernel types: none missing (a strategy that would fail to
/// launch in the `mcml` program) and none of another workload.
#[test]
fn mcml_module_holds_every_mcml_entry_and_nothing_else() {
    let mut tables: Vec<&str> = <McmlKernel<f32> as DeviceKernel>::ENTRY_POINTS
        .iter()
        .chain(<McmlKernel<FastF32> as DeviceKernel>::ENTRY_POINTS)
        .map(|e| e.name)
        .collect();
    let mut module = mcml_kernels();
    tables.sort_unstable();
    module.sort_unstable();
    assert!(module.len() >= 2, "{module:?}");
    assert_eq!(module, tables);
}

/// Both modules keep `reconverge-device`'s kernel that adds tally copies up on the GPU (the
/// build keeps it by the name build-support lists; the runtime launches it by the name
/// reconverge-device gives it): without it every run downloads all copies of the tally.
#[cfg(feature = "cuda")]
#[test]
fn both_modules_keep_the_tally_copies_kernel() {
    use reconverge_device::tally_copies::ADD_UP_TALLY_COPIES;
    let entry = format!(".entry {ADD_UP_TALLY_COPIES}(");
    for (module, ptx) in [
        ("kernels.ptx", reconverge_paper_kernels::PTX),
        ("mcml.ptx", reconverge_paper_kernels::MCML_PTX),
    ] {
        assert!(ptx.contains(&entry), "{module} lacks {ADD_UP_TALLY_COPIES}");
        assert!(!ptx.contains(".extern .func"), "{module}");
    }
    assert_eq!(
        reconverge_gpu_build::SUPPORT_KERNELS,
        [ADD_UP_TALLY_COPIES].as_slice()
    );
}

/// Every shipped cubin is a CUDA ELF for the architecture it is listed under, with every kernel
/// of its module: the runtime loads it instead of the PTX on a GPU of that architecture, so a
/// cubin of another module or architecture would fail there (or, worse, run other code). With
/// no `ptxas` on the build machine none is shipped, and there is nothing to check.
#[cfg(feature = "cuda")]
#[test]
fn shipped_cubins_hold_their_modules_kernels_for_their_architecture() {
    let modules = [
        (reconverge_paper_kernels::MODULE, KERNELS.to_vec()),
        (
            reconverge_paper_kernels::MCML_MODULE,
            reconverge_paper_kernels::mcml_kernels(),
        ),
    ];
    for (module, kernels) in modules {
        if module.cubins.is_empty() {
            eprintln!(
                "{}: no SASS shipped (no ptxas where this was built)",
                module.name
            );
        }
        for (arch, image) in module.cubins {
            let what = format!("{} {arch}", module.name);
            assert_eq!(image.get(..4), Some(&b"\x7fELF"[..]), "{what}: not an ELF");
            // ELFOSABI_CUDA (0x33); in its ABI version 7 (ptxas 12.x) the low byte of e_flags
            // is the SM number.
            assert_eq!(image.get(7), Some(&0x33), "{what}: not a CUDA ELF");
            let sm: u32 = arch
                .trim_start_matches("sm_")
                .trim_end_matches(char::is_alphabetic)
                .parse()
                .expect("an sm_XX name");
            if image.get(8) == Some(&7) {
                assert_eq!(u32::from(image[48]), sm, "{what}: e_flags of another SM");
            }
            for k in &kernels {
                let name = format!("{k}\0");
                assert!(
                    image.windows(name.len()).any(|w| w == name.as_bytes()),
                    "{what} lacks kernel {k}"
                );
            }
        }
    }
}

/// The real-divergence variants run every strategy their reproduce pages time beside the
/// papers' originals (`reconverge_benches::reproduce`, issue 40): seed 002 table 1's thresholds
/// and cycles (the listed ones compiled in, the others on the technique's `_any` twin) and
/// figs. 10-11's round robin with idle removal on SYN-ITDELAY distinct, branch distribution on
/// SYN-BRDIS distinct, both passes of branch splitting on seed 001's float-else benchmark and
/// unification at every DATA_PER_THREAD of tables 2-3 on seed 004's float-path-A kernel.
#[test]
fn the_real_divergence_variants_run_their_pages_strategies() {
    use reconverge_workloads::synthetic::{
        BranchSplitDistinct, PathUnificationDistinct, SynBrDisDistinct, SynItDelayDistinct,
    };
    let vote = |threshold| {
        Strategy::iteration_delaying(Decision::MajorityVote {
            threshold,
            stop_when_a_lane_finishes: true,
        })
    };
    let cycle = |num_zeros, num_ones, remove_idle| {
        Strategy::iteration_delaying(Decision::RoundRobin {
            num_zeros,
            num_ones,
            remove_idle,
        })
    };
    type It = BranchLoopKernel<SynItDelayDistinct>;
    let mut itdelay = vec![Strategy::BASELINE, cycle(1, 1, true)];
    itdelay.extend([1, 8, 16, 24, 32].map(vote));
    itdelay.extend([(9, 1), (7, 3), (1, 1), (3, 7), (1, 9)].map(|(z, o)| cycle(z, o, false)));
    for s in &itdelay {
        let entry = It::entry_point(s, 0);
        assert!(entry.is_some_and(|e| e.starts_with("itdistinct_")), "{s:?}");
    }
    // A threshold no list names runs on the vote's twin.
    assert_eq!(It::entry_point(&vote(1), 0), Some("itdistinct_mv4_any"));
    type Br = FactoredBranchLoopKernel<SynBrDisDistinct>;
    for s in [Strategy::BASELINE, Strategy::BRANCH_DISTRIBUTION] {
        assert!(Br::entry_point(&s, 0).is_some(), "{s:?}");
    }
    type Bs = TwoPathKernel<BranchSplitDistinct>;
    assert!(Bs::entry_point(&Strategy::BASELINE, 0).is_some());
    for pass in 0..2 {
        assert!(Bs::entry_point(&Strategy::BRANCH_SPLITTING, pass).is_some());
    }
    type Bpu = TwoPathKernel<PathUnificationDistinct>;
    for n in [1, 4, 16, 64] {
        let s = Strategy::branch_path_unification(n);
        assert_eq!(
            Bpu::entry_point(&s, 0),
            Some(format!("bpudistinct_unify{n}")).as_deref(),
            "{s:?}"
        );
    }
}
