//! GPU Gems 2 ch. 34's hand-written twins (`gems34_twin`: what the `zcull_twin!` and
//! `occlusion_twin!` kernels run per thread), run with 32 OS threads voting as each warp
//! (`reconverge_cpu::thread_warp::ThreadBallot`) and the host's launches in order: every item
//! gets exactly one output, its plain scalar one; z-cull's path passes run no lane of a warp
//! whose mask word for the path is 0 and cull exactly the warps with no item on the path; the
//! occlusion loop's host relaunches until the counter reads 0, which takes ceil(longest trip
//! count / iterations per launch) launches.

use std::sync::Mutex;

use reconverge_cpu::thread_warp::ThreadBallot;
use reconverge_device::gems34_twin::{
    PassMemory, occlusion_scratch_bytes, occlusion_thread, warp_lanes, zcull_mask_thread,
    zcull_path_thread,
};
use reconverge_transforms::{ItemLoop, TwoPath};
use reconverge_workloads::synthetic::{DynamicWork, Gems34Branch};

type DwaState = <DynamicWork as ItemLoop>::State;

/// Runs `thread(g, ballot)` for every thread of `warps` warps, each warp as 32 OS threads.
fn launch(warps: u32, thread: impl Fn(u32, &mut dyn FnMut(bool) -> u32) + Sync) {
    for warp in 0..warps {
        let ballot = ThreadBallot::default();
        std::thread::scope(|scope| {
            for lane in 0..32u32 {
                let (ballot, thread) = (&ballot, &thread);
                scope.spawn(move || {
                    let mut round = 0;
                    thread(warp * 32 + lane, &mut |p| ballot.vote(&mut round, lane, p));
                });
            }
        });
    }
}

fn zcull(w: Gems34Branch, items: u32) {
    let warps = items.div_ceil(32);
    let words = Mutex::new(vec![u32::MAX; warps as usize]);
    launch(warps + 1, |g, ballot| {
        if let Some(word) = zcull_mask_thread(&w, g, items, ballot) {
            words.lock().unwrap()[(g / 32) as usize] = word;
        }
    });
    let words = words.into_inner().unwrap();
    for (k, word) in words.iter().enumerate() {
        let want = (0..32u32)
            .filter(|l| k as u32 * 32 + l < items && w.decide(k as u32 * 32 + l))
            .fold(0, |m, l| m | 1 << l);
        assert_eq!(*word, want, "warp {k}'s mask word");
    }
    let mut out = vec![None; items as usize];
    for a in [true, false] {
        let mut ran_warps = 0;
        for warp in 0..=warps {
            let mut ran = false;
            for g in warp * 32..warp * 32 + 32 {
                let word = || words[(g / 32) as usize];
                if let Some(v) = zcull_path_thread(&w, g, items, a, word) {
                    assert!(out[g as usize].is_none(), "item {g} written twice");
                    out[g as usize] = Some(v);
                    ran = true;
                }
            }
            ran_warps += u32::from(ran);
        }
        // Exactly the warps with an item on the path run it; the others are culled whole.
        let on_path = (0..warps)
            .filter(|&k| {
                let m = if a {
                    words[k as usize]
                } else {
                    !words[k as usize] & warp_lanes(k * 32, items)
                };
                m != 0
            })
            .count() as u32;
        assert_eq!(ran_warps, on_path, "path A: {a}");
    }
    for (i, o) in out.iter().enumerate() {
        assert_eq!(*o, Some(w.run_item(i as u32)), "item {i}");
    }
}

#[test]
fn zcull_twin_runs_each_item_once_and_culls_whole_warps() {
    // Random and coherent conditions, with a partial last warp; p = 0 and 1 cull one whole pass.
    for p in [0.0, 0.05, 0.5, 1.0] {
        zcull(Gems34Branch::random(p, 3), 1000);
        zcull(Gems34Branch::coherent(p, 3).with_run(64), 1000);
    }
    // Coherent runs of 64 items: at p = 0.5 some warps are culled in each pass.
    let w = Gems34Branch::coherent(0.5, 3).with_run(64);
    assert!((0..32).any(|k| (0..32).all(|l| !w.decide(k * 32 + l))));
    assert!((0..32).any(|k| (0..32).all(|l| w.decide(k * 32 + l))));
}

struct Memory<'a> {
    shared: &'a Mutex<Shared>,
}

struct Shared {
    words: Vec<u32>,
    states: Vec<Option<DwaState>>,
    out: Vec<Option<u32>>,
    counter: u32,
}

impl PassMemory<DynamicWork> for Memory<'_> {
    fn word(&mut self, warp: u32) -> u32 {
        self.shared.lock().unwrap().words[warp as usize]
    }
    fn set_word(&mut self, warp: u32, word: u32) {
        self.shared.lock().unwrap().words[warp as usize] = word;
    }
    fn state(&mut self, item: u32) -> DwaState {
        self.shared.lock().unwrap().states[item as usize].expect("a stored state")
    }
    fn set_state(&mut self, item: u32, state: DwaState) {
        self.shared.lock().unwrap().states[item as usize] = Some(state);
    }
    fn put(&mut self, item: u32, output: u32) {
        let mut s = self.shared.lock().unwrap();
        assert!(s.out[item as usize].is_none(), "item {item} finished twice");
        s.out[item as usize] = Some(output);
    }
    fn count(&mut self, n: u32) {
        self.shared.lock().unwrap().counter += n;
    }
}

#[test]
fn occlusion_twin_relaunches_until_the_query_reads_zero() {
    let items: u32 = 150;
    for (w, iterations) in [
        (DynamicWork::new(3, 32, 1), 1),
        (DynamicWork::new(3, 32, 1), 4),
        (DynamicWork::new(2, 13, 5), 8),
        (DynamicWork::new(2, 13, 5), 32),
    ] {
        let warps = items.div_ceil(32);
        let shared = Mutex::new(Shared {
            words: vec![0; warps as usize],
            states: vec![None; items as usize],
            out: vec![None; items as usize],
            counter: 0,
        });
        let mut launches = 0;
        loop {
            shared.lock().unwrap().counter = 0;
            let first = launches == 0;
            launch(warps + 1, |g, ballot| {
                let mut memory = Memory { shared: &shared };
                occlusion_thread(&w, g, items, iterations, first, ballot, &mut memory);
            });
            launches += 1;
            if shared.lock().unwrap().counter == 0 {
                break;
            }
            assert!(launches < 1000);
        }
        let longest = (0..items).map(|i| w.trips(i)).max().unwrap();
        assert_eq!(
            launches,
            longest.div_ceil(iterations),
            "{iterations} iterations a launch"
        );
        let shared = shared.into_inner().unwrap();
        for i in 0..items {
            assert_eq!(shared.out[i as usize], Some(w.reference(i)), "item {i}");
        }
    }
    // The scratch keeps the states, then the words 8-aligned.
    assert_eq!(
        occlusion_scratch_bytes::<DwaState>(150),
        (1200, 1200 + 5 * 4)
    );
    assert_eq!(occlusion_scratch_bytes::<u32>(3), (16, 20));
}
