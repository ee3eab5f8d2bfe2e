//! The schedule model: how long a launch takes once its warps' work is placed on the GPU.
//!
//! Issue slots alone (the throughput bound) say how much work a launch issues, not when its
//! last warp finishes. Here each warp's work (its issue slots, plus the costs the model cannot
//! count, from a per-device [`Calibration`]) is placed on the GPU's resident-warp slots:
//!
//! - `sms` multiprocessors, each holding up to `blocks_per_sm` blocks (the occupancy
//!   calculator's answer for the launch's block size and the kernel's registers);
//! - blocks start in launch order, the first `sms × blocks_per_sm` at once (block `i` on SM
//!   `i mod sms`), then each on the multiprocessor where a block has just finished; a block
//!   holds its slot until its slowest warp finishes, as a GPU frees a block's resources;
//! - a multiprocessor issues at most [`SCHEDULERS_PER_SM`] warp instructions per cycle,
//!   shared evenly by its running warps, and one warp issues at most one instruction every
//!   [`Calibration::warp_issue_interval`] cycles (its dependent instructions' latency): with
//!   few warps resident a multiprocessor idles, with many they wait their turn.
//!
//! The launch's time is its makespan (in issue cycles, times [`Calibration::ns_per_slot`]) plus
//! the per-launch overhead. The makespan is never below the throughput bound (all slots
//! spread evenly over every scheduler of the GPU), and it exceeds it where warps or blocks are
//! unevenly loaded, where the last wave leaves multiprocessors idle, or where too few warps are
//! resident to hide latency: the load imbalance and the tail that issue slots cannot show.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::AdviseError;
use crate::profile::WarpWork;

/// Warp schedulers per multiprocessor (every architecture since Maxwell): warp instructions a
/// multiprocessor issues per cycle at most.
pub const SCHEDULERS_PER_SM: f64 = 4.0;

/// The costs the model cannot count, for one device, fitted to a short calibration run on it
/// (see the crate docs and `advisor/calibration/`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// The device, in words.
    pub device: String,
    /// Compute capability, major and minor.
    pub compute_capability: [u32; 2],
    /// Multiprocessors.
    pub sms: u32,
    /// Nanoseconds per issue cycle of one scheduler: converts a makespan in issue slots to time.
    pub ns_per_slot: f64,
    /// Cycles between two instructions of one warp, at least 1: the latency of a warp's
    /// dependent instructions, which other warps hide.
    pub warp_issue_interval: f64,
    /// Each launch's fixed cost, microseconds (a launch, and the host's read-back of a
    /// multi-pass strategy's query word).
    pub launch_overhead_us: f64,
    /// Extra issue slots per warp step of a warp-level strategy (one that is not
    /// `Strategy::runs_per_thread`): the warp program's bookkeeping (votes' results, lane
    /// masks, the decision's state) beyond the regions it declares.
    pub warp_step_slots: f64,
    /// Extra issue slots per exchange (shuffle) beyond the one the model counts.
    pub exchange_slots: f64,
    /// Nanoseconds per claim on the launch's one work counter (grid-wide dynamic work
    /// assignment): atomics to one address are served one after another by the memory system,
    /// so a launch takes at least its claims times this, however little work each claim
    /// brings. On an H100 every grid-wide run of the claims probe and of the held-out binary
    /// search (2^20 items, 32,768 claims) took 0.032-0.034 ms at every launch that fills the
    /// GPU, twice their work's time, while loops with more work per claim ran as fast as
    /// per-block dealing: a bound, not a cost added to the work. Fitted on the probe alone
    /// ([`crate::calibrate::fit_grid_claims`]); 0 where not fitted.
    #[serde(default)]
    pub grid_claim_ns: f64,
    /// Registers per thread assumed where none are given.
    pub default_registers: u32,
    /// What the calibration was fitted on, and how well (for the record).
    pub fitted_on: String,
    /// Root mean square of `ln(predicted / measured)` over the calibration run (`None`:
    /// not fitted).
    pub rms_log_error: Option<f64>,
}

impl Calibration {
    /// Uncalibrated defaults for an H100 (132 SMs at 1.755 GHz boost): one cycle per slot, a
    /// warp issuing every 4 cycles, 5 µs per launch, no hidden costs. Use the committed
    /// [`Calibration::H100_JSON`] instead where you can.
    pub fn uncalibrated_h100() -> Self {
        Self {
            device: "NVIDIA H100 (uncalibrated defaults)".into(),
            compute_capability: [9, 0],
            sms: 132,
            ns_per_slot: 1.0 / 1.755,
            warp_issue_interval: 4.0,
            launch_overhead_us: 5.0,
            warp_step_slots: 0.0,
            exchange_slots: 0.0,
            grid_claim_ns: 0.0,
            default_registers: 32,
            fitted_on: "nothing: defaults".into(),
            rms_log_error: None,
        }
    }

    /// The committed calibration of an NVIDIA H100 80GB HBM3 (`advisor/calibration/h100.json`).
    pub const H100_JSON: &'static str = include_str!("../calibration/h100.json");

    /// The committed H100 calibration ([`Calibration::H100_JSON`]).
    ///
    /// # Errors
    /// [`AdviseError::Calibration`] if the committed file does not parse (a build problem).
    pub fn h100() -> Result<Self, AdviseError> {
        Self::from_json(Self::H100_JSON, "advisor/calibration/h100.json")
    }

    /// Parses a calibration; `path` names it in errors.
    ///
    /// # Errors
    /// [`AdviseError::Calibration`] on malformed JSON or an out-of-range value.
    pub fn from_json(json: &str, path: &str) -> Result<Self, AdviseError> {
        let c: Self = serde_json::from_str(json).map_err(|e| AdviseError::Calibration {
            path: path.into(),
            reason: e.to_string(),
        })?;
        c.validate(path)?;
        Ok(c)
    }

    /// Reads a calibration file.
    ///
    /// # Errors
    /// [`AdviseError::Calibration`] if it cannot be read or parsed.
    pub fn load(path: &Path) -> Result<Self, AdviseError> {
        let text = std::fs::read_to_string(path).map_err(|e| AdviseError::Calibration {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        Self::from_json(&text, &path.display().to_string())
    }

    /// Writes the calibration as pretty JSON.
    ///
    /// # Errors
    /// [`AdviseError::Calibration`] if the file cannot be written.
    pub fn save(&self, path: &Path) -> Result<(), AdviseError> {
        let err = |reason: String| AdviseError::Calibration {
            path: path.display().to_string(),
            reason,
        };
        let json = serde_json::to_string_pretty(self).map_err(|e| err(e.to_string()))?;
        std::fs::write(path, json + "\n").map_err(|e| err(e.to_string()))
    }

    fn validate(&self, path: &str) -> Result<(), AdviseError> {
        let bad = |what: &str| {
            Err(AdviseError::Calibration {
                path: path.into(),
                reason: what.into(),
            })
        };
        if self.sms == 0 {
            return bad("sms must be at least 1");
        }
        if !(self.ns_per_slot.is_finite() && self.ns_per_slot > 0.0) {
            return bad("ns_per_slot must be finite and positive");
        }
        if !(self.warp_issue_interval.is_finite() && self.warp_issue_interval >= 1.0) {
            return bad("warp_issue_interval must be finite and at least 1");
        }
        for (name, v) in [
            ("launch_overhead_us", self.launch_overhead_us),
            ("warp_step_slots", self.warp_step_slots),
            ("exchange_slots", self.exchange_slots),
            ("grid_claim_ns", self.grid_claim_ns),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(AdviseError::Calibration {
                    path: path.into(),
                    reason: format!("{name} = {v} must be finite and at least 0"),
                });
            }
        }
        Ok(())
    }

    /// One warp's work in issue cycles: its issue slots plus the calibrated costs the model
    /// cannot count (`warp_level`: the strategy runs as a warp program, not per thread).
    pub fn warp_cycles(&self, w: &WarpWork, warp_level: bool) -> f64 {
        let mut cycles = w.slots as f64 + w.exchanges as f64 * self.exchange_slots;
        if warp_level {
            cycles += w.steps as f64 * self.warp_step_slots;
        }
        cycles
    }
}

/// A launch's time and its two bounds, in issue cycles.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Makespan {
    /// When the last block finished: the schedule's length.
    pub schedule: f64,
    /// Every cycle of work spread evenly over all schedulers of the GPU.
    pub throughput: f64,
}

impl Makespan {
    /// The predicted length: the larger of the two.
    pub fn cycles(&self) -> f64 {
        self.schedule.max(self.throughput)
    }
}

/// `Eq`, `Ord` and `PartialOrd` for an entry of a min-heap: `BinaryHeap` is a max-heap, so the
/// entry with the smallest `$time` (then the smallest `$tie`, where one is named) compares
/// greatest and comes out first.
macro_rules! min_heap_order {
    ($entry:ty, $time:ident $(, $tie:ident)?) => {
        impl Eq for $entry {}

        impl Ord for $entry {
            fn cmp(&self, other: &Self) -> Ordering {
                other
                    .$time
                    .total_cmp(&self.$time)
                    $(.then_with(|| other.$tie.cmp(&self.$tie)))?
            }
        }

        impl PartialOrd for $entry {
            fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
                Some(self.cmp(other))
            }
        }
    };
}

/// A multiprocessor's next event in the simulation: a min-heap by time.
#[derive(PartialEq)]
struct Event {
    time: f64,
    sm: usize,
    version: u64,
}

min_heap_order!(Event, time, sm);

/// A warp on a multiprocessor: done once the multiprocessor's per-warp progress reaches
/// `finish`. A min-heap by `finish`.
#[derive(PartialEq)]
struct Running {
    finish: f64,
    block: usize,
}

min_heap_order!(Running, finish);

#[derive(Default)]
struct Sm {
    /// Work every running warp has done since the simulation began (they all run at one rate).
    progress: f64,
    /// Time of `progress`.
    at: f64,
    running: BinaryHeap<Running>,
    version: u64,
}

impl Sm {
    fn rate(&self, interval: f64) -> f64 {
        let n = self.running.len() as f64;
        if n == 0.0 {
            0.0
        } else {
            (1.0 / interval).min(SCHEDULERS_PER_SM / n)
        }
    }

    fn next_event(&self, interval: f64) -> Option<f64> {
        let first = self.running.peek()?;
        let rate = self.rate(interval);
        Some(self.at + ((first.finish - self.progress).max(0.0) / rate))
    }
}

/// Places `blocks` (each a list of its warps' work in cycles, in launch order) on `sms`
/// multiprocessors of `blocks_per_sm` block slots each (see the module docs) and returns the
/// makespan and the throughput bound. `warp_issue_interval` is clamped to at least 1.
pub fn simulate(
    blocks: &[Vec<f64>],
    sms: u32,
    blocks_per_sm: u32,
    warp_issue_interval: f64,
) -> Makespan {
    simulate_dealing(blocks, &[], sms, blocks_per_sm, warp_issue_interval)
}

/// As [`simulate`], with a queue of further work dealt from one counter in order: a warp whose
/// work ends takes the next `queue` entry (the first warp to finish, the first entry), and its
/// block frees its slot once no entry is left and its last warp has finished. This is
/// grid-wide dynamic work assignment: `blocks` hold each warp's first claim, `queue` the
/// later claims in item order, so that work dealt late finishes late, whatever its size.
pub fn simulate_dealing(
    blocks: &[Vec<f64>],
    queue: &[f64],
    sms: u32,
    blocks_per_sm: u32,
    warp_issue_interval: f64,
) -> Makespan {
    let interval = warp_issue_interval.max(1.0);
    let sms = sms.max(1) as usize;
    let total: f64 = blocks.iter().flatten().sum::<f64>() + queue.iter().sum::<f64>();
    let mut queue = queue.iter();
    let throughput = total / (sms as f64 * SCHEDULERS_PER_SM);
    let mut state: Vec<Sm> = (0..sms).map(|_| Sm::default()).collect();
    let mut left_in_block: Vec<usize> = blocks.iter().map(Vec::len).collect();
    let mut events = BinaryHeap::new();
    let mut next_block = 0usize;
    let mut makespan: f64 = 0.0;
    // Places block `b` on `sm` at the SM's current progress; returns whether it has warps.
    let place = |sm: &mut Sm, b: usize| {
        for &w in &blocks[b] {
            sm.running.push(Running {
                finish: sm.progress + w.max(0.0),
                block: b,
            });
        }
    };
    let first_wave = (sms * blocks_per_sm.max(1) as usize).min(blocks.len());
    while next_block < first_wave {
        let sm = next_block % sms;
        place(&mut state[sm], next_block);
        next_block += 1;
    }
    for (i, sm) in state.iter().enumerate() {
        if let Some(time) = sm.next_event(interval) {
            events.push(Event {
                time,
                sm: i,
                version: sm.version,
            });
        }
    }
    while let Some(Event { time, sm, version }) = events.pop() {
        let s = &mut state[sm];
        if version != s.version {
            continue;
        }
        let rate = s.rate(interval);
        s.progress += rate * (time - s.at);
        s.at = time;
        let mut freed = 0;
        // A warp whose end is within rounding of now has finished.
        let tolerance = 1e-9 * s.progress.abs().max(1.0);
        while let Some(r) = s.running.peek() {
            if r.finish > s.progress + tolerance {
                break;
            }
            let b = r.block;
            s.running.pop();
            if let Some(&w) = queue.next() {
                s.running.push(Running {
                    finish: s.progress + w.max(0.0),
                    block: b,
                });
                continue;
            }
            left_in_block[b] -= 1;
            if left_in_block[b] == 0 {
                freed += 1;
                makespan = makespan.max(time);
            }
        }
        for _ in 0..freed {
            // Empty blocks free their slot at once: keep taking blocks until one has warps.
            while next_block < blocks.len() {
                let b = next_block;
                next_block += 1;
                if blocks[b].is_empty() {
                    continue;
                }
                place(s, b);
                break;
            }
        }
        s.version += 1;
        if let Some(t) = s.next_event(interval) {
            events.push(Event {
                time: t,
                sm,
                version: s.version,
            });
        }
    }
    Makespan {
        schedule: makespan,
        throughput,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_full_wave_of_equal_warps_runs_at_the_issue_rate() {
        // 2 SMs x 2 blocks x 8 warps of 100 cycles: 16 warps share 4 schedulers per SM, so
        // each SM needs 16 * 100 / 4 = 400 cycles, the throughput bound.
        let blocks = vec![vec![100.0; 8]; 4];
        let m = simulate(&blocks, 2, 2, 1.0);
        assert!((m.throughput - 400.0).abs() < 1e-9);
        assert!((m.schedule - 400.0).abs() < 1e-6, "{m:?}");
    }

    #[test]
    fn a_lone_warp_is_latency_bound() {
        // One warp of 100 slots issuing every 4 cycles takes 400 cycles; the throughput bound
        // (100 slots over 4 schedulers) says 25.
        let m = simulate(&[vec![100.0]], 1, 1, 4.0);
        assert!((m.schedule - 400.0).abs() < 1e-6);
        assert!((m.throughput - 25.0).abs() < 1e-9);
        assert_eq!(m.cycles(), m.schedule);
    }

    #[test]
    fn a_block_holds_its_slot_until_its_slowest_warp_finishes() {
        // 1 SM, 1 block slot, interval 1 (a lone warp issues every cycle). Block 0: warps of
        // 100 and 10 cycles, block 1: one warp of 10. Two warps share 4 schedulers at rate 1
        // each: the short one ends at 10, the long one at 100; block 1 starts only then and
        // ends at 110, though a slot for a warp was free from cycle 10 on.
        let blocks = vec![vec![100.0, 10.0], vec![10.0]];
        let m = simulate(&blocks, 1, 1, 1.0);
        assert!((m.schedule - 110.0).abs() < 1e-6, "{m:?}");
        // With two block slots both start at once and the makespan is the long warp's.
        let m = simulate(&blocks, 1, 2, 1.0);
        assert!((m.schedule - 100.0).abs() < 1e-6, "{m:?}");
    }

    #[test]
    fn the_tail_of_an_uneven_launch_shows() {
        // 4 SMs x 1 slot, 5 equal blocks: the fifth runs alone after the first wave, so the
        // makespan is two blocks' length while the throughput bound is 5/4 of one.
        let blocks = vec![vec![40.0; 4]; 5];
        let m = simulate(&blocks, 4, 1, 1.0);
        // One block alone on an SM: 4 warps at min(1, 4/4) = 1 slot per cycle: 40 cycles.
        assert!((m.schedule - 80.0).abs() < 1e-6, "{m:?}");
        assert!((m.throughput - 50.0).abs() < 1e-9);
    }

    #[test]
    fn processor_sharing_matches_a_hand_computed_case() {
        // 1 SM, interval 1, 8 warps in one block: 5 of 10 cycles, 3 of 30. All 8 share 4
        // schedulers (rate 1/2) until the short ones finish at t = 20 (10 / 0.5); then 3
        // warps run at rate 1 (min(1, 4/3)) for their last 20: t = 40.
        let mut block = vec![10.0; 5];
        block.extend([30.0; 3]);
        let m = simulate(&[block], 1, 1, 1.0);
        assert!((m.schedule - 40.0).abs() < 1e-6, "{m:?}");
    }

    #[test]
    fn work_dealt_last_finishes_last() {
        // 1 SM, one block of 2 warps, interval 1 (each warp issues every cycle, 2 of 4
        // schedulers busy). First claims of 10 cycles each, then the queue 10, 10, 100 in that
        // order: both warps take a 10 at t = 10 and finish it at t = 20, when one takes the
        // 100 and ends at t = 120. Spread evenly the same 140 cycles would take 70.
        let m = simulate_dealing(&[vec![10.0, 10.0]], &[10.0, 10.0, 100.0], 1, 1, 1.0);
        assert!((m.schedule - 120.0).abs() < 1e-6, "{m:?}");
        assert!((m.throughput - 35.0).abs() < 1e-9, "{m:?}");
        // The costly claim first: a warp takes it at t = 10 and the other warp the two 10s,
        // so the launch ends at 110.
        let m = simulate_dealing(&[vec![10.0, 10.0]], &[100.0, 10.0, 10.0], 1, 1, 1.0);
        assert!((m.schedule - 110.0).abs() < 1e-6, "{m:?}");
        // Without a queue it is `simulate`.
        assert_eq!(
            simulate_dealing(&[vec![10.0, 30.0]], &[], 1, 1, 1.0),
            simulate(&[vec![10.0, 30.0]], 1, 1, 1.0)
        );
    }

    #[test]
    fn calibration_round_trips_and_rejects_bad_values() {
        let c = Calibration::uncalibrated_h100();
        let json = serde_json::to_string(&c).unwrap_or_default();
        let back = Calibration::from_json(&json, "mem");
        assert!(back.is_ok_and(|b| b.sms == 132 && b.warp_issue_interval == 4.0));
        let bad = json.replace("\"sms\":132", "\"sms\":0");
        assert!(matches!(
            Calibration::from_json(&bad, "mem"),
            Err(AdviseError::Calibration { .. })
        ));
        assert!(Calibration::from_json("{", "mem").is_err());
    }
}
