//! The advisor's model on collaborative context collection's workloads (Khorasani et al.,
//! MICRO 2015): on the rare costly body it predicts the technique faster than the code as
//! written and recommends it; with every iteration taking the body it predicts a loss (the
//! context moves, nothing gathered) and keeps the baseline. The CUDA C++ twin measured the same
//! directions on an H200: 3.13x and 0.95x the plain kernel (`docs/results/techniques/`).

use reconverge_advisor::{Options, advise_strategies};
use reconverge_backend::Launch;
use reconverge_transforms::{BranchLoopKernel, Strategy};
use reconverge_workloads::synthetic::RareCostlyBody;

const CCC: Strategy = Strategy::COLLABORATIVE_CONTEXT_COLLECTION;

fn advice(w: RareCostlyBody) -> (f64, Strategy) {
    let launch = Launch::new(128, 2).expect("launch");
    let advice = advise_strategies(
        &BranchLoopKernel(w),
        8192,
        launch,
        &[Strategy::BASELINE, CCC],
        &Options::default(),
    )
    .expect("advice");
    let ccc = advice.prediction(&CCC).expect("predicted").speedup;
    (ccc, advice.recommended().strategy)
}

#[test]
fn the_model_predicts_the_favourable_and_the_unfavourable_workload() {
    // Rare body: issued with ~1.6 lanes as written, ~32 collected; the 448-slot body dominates
    // the baseline's issue slots, so the prediction is well over 2x.
    let (favourable, pick) = advice(RareCostlyBody::FAVOURABLE);
    assert!(favourable > 2.0, "{favourable}");
    assert_eq!(pick, CCC);
    // Every iteration: the same body issues, plus the saves and restores: a loss.
    let (every, pick) = advice(RareCostlyBody::EVERY_ITERATION);
    assert!(every < 1.0, "{every}");
    assert_eq!(pick, Strategy::BASELINE);
}

/// `RareCostlyBody` carrying 48 bytes more per context: a state of 64 bytes, whose stacks
/// (64 contexts per warp) bound a multiprocessor's blocks before its registers do.
#[derive(Clone, Copy, Debug)]
struct BigContexts(RareCostlyBody);

impl reconverge_transforms::BranchLoop for BigContexts {
    type State = (
        <RareCostlyBody as reconverge_transforms::BranchLoop>::State,
        [u32; 12],
    );
    type Output = u32;
    fn regions(&self) -> reconverge_transforms::LoopRegions {
        self.0.regions()
    }
    fn start(&self, item: u32) -> Self::State {
        (self.0.start(item), [item; 12])
    }
    fn running(&self, s: &Self::State) -> bool {
        self.0.running(&s.0)
    }
    fn condition(&self, s: &mut Self::State) -> bool {
        self.0.condition(&mut s.0)
    }
    fn taken<T: reconverge_transforms::Tally>(&self, s: &mut Self::State, t: &mut T) {
        self.0.taken(&mut s.0, t)
    }
    fn not_taken<T: reconverge_transforms::Tally>(&self, s: &mut Self::State, t: &mut T) {
        self.0.not_taken(&mut s.0, t)
    }
    fn after_branch<T: reconverge_transforms::Tally>(&self, s: &mut Self::State, t: &mut T) {
        self.0.after_branch(&mut s.0, t)
    }
    fn finish(&self, s: &Self::State) -> u32 {
        self.0.finish(&s.0) ^ s.1[11]
    }
}

/// The launches the advisor ranks, and the resident blocks its schedule model places, count
/// the dynamic shared memory of the stacks, as the CUDA backend's launches do: with 64-byte
/// contexts a warp's stacks take 64 x 4 + 64 x 64 = 4,352 bytes. On an H100 (228 KB of shared
/// memory per multiprocessor, 1 KB of it reserved per block, at most 48 KB of dynamic shared
/// memory per block without opting in: NVIDIA's occupancy rules) a 128-thread block
/// (17,408 + 1,024 bytes) fits 12 times, a 256-thread block (34,816 + 1,024) 6 times, a
/// 512-thread block (69,632) not at all; the registers alone (32 per thread) would let 16, 8
/// and 4 in.
#[test]
fn launches_and_resident_blocks_count_the_stacks_shared_memory() {
    use reconverge_advisor::{
        Gpu, candidate_launches, launch_time, profile, shared_bytes_per_warp,
    };
    let kernel = BranchLoopKernel(BigContexts(RareCostlyBody::FAVOURABLE));
    let gpu = Gpu::h100().expect("the committed H100 calibration");
    let sms = gpu.calibration.sms;
    assert_eq!(shared_bytes_per_warp(&kernel, &CCC), 4_352);
    assert_eq!(shared_bytes_per_warp(&kernel, &Strategy::BASELINE), 0);
    let items = 1 << 20;
    let waves = |shared: u32| {
        let launches = candidate_launches(&CCC, items, &gpu, 32, shared);
        [128, 256, 512].map(|threads| {
            launches
                .iter()
                .filter(|(l, _)| l.threads_per_block == threads)
                .map(|(l, _)| l.blocks)
                .min()
        })
    };
    assert_eq!(waves(4_352), [Some(12 * sms), Some(6 * sms), None]);
    assert_eq!(waves(0), [Some(16 * sms), Some(8 * sms), Some(4 * sms)]);

    // The same model run priced with and without the stacks: a launch of 8 blocks per
    // multiprocessor runs in one wave without them and in two with them.
    let launch = Launch::new(256, 8 * sms).expect("launch");
    let run = profile(&kernel, CCC, 8 * sms * 256, launch, 1 << 24).expect("model run");
    assert_eq!(run.dynamic_shared_bytes(256), 8 * 4_352);
    let mut without = run.clone();
    without.shared_bytes_per_warp = 0;
    let with_stacks = launch_time(&run, launch, &gpu, &[32]).expect("fits").ns;
    let without_stacks = launch_time(&without, launch, &gpu, &[32]).expect("fits").ns;
    assert!(
        with_stacks > without_stacks,
        "{with_stacks} against {without_stacks}"
    );
}
