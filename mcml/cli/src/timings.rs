//! `--timings`: where a process's time goes, phase by phase.

use std::cell::{Cell, RefCell};
use std::time::Duration;

/// The process's phases for `--timings`: each `lap` names the time since the one before.
pub(crate) struct PhaseClock {
    last: Cell<std::time::Instant>,
    laps: RefCell<Vec<(String, Duration)>>,
    /// Parts of the current phase, printed under it.
    parts: RefCell<Vec<(String, Duration)>>,
}

impl PhaseClock {
    pub(crate) fn new() -> Self {
        Self {
            last: Cell::new(std::time::Instant::now()),
            laps: RefCell::new(Vec::new()),
            parts: RefCell::new(Vec::new()),
        }
    }

    /// Records the time since the last lap as `what`.
    pub(crate) fn lap(&self, what: impl Into<String>) {
        let now = std::time::Instant::now();
        let took = now - self.last.replace(now);
        let mut laps = self.laps.borrow_mut();
        laps.push((what.into(), took));
        laps.extend(
            self.parts
                .borrow_mut()
                .drain(..)
                .map(|(w, t)| (format!("  {w}"), t)),
        );
    }

    /// Records `took` as a part of the current phase, printed under it.
    pub(crate) fn part(&self, what: impl Into<String>, took: Duration) {
        self.parts.borrow_mut().push((what.into(), took));
    }

    pub(crate) fn print(&self) {
        println!("timings:");
        for (what, took) in self.laps.borrow().iter() {
            println!("  {:>8.3} s  {what}", took.as_secs_f64());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--timings`: the phases follow one another (their sum is the time since the clock
    /// started, to the rounding of `Instant`), and a phase's parts are listed under it.
    #[test]
    fn phase_clock_laps_add_up_and_parts_go_under_their_phase() {
        let clock = PhaseClock::new();
        let started = std::time::Instant::now();
        std::thread::sleep(Duration::from_millis(5));
        clock.lap("first");
        clock.part("inside second", Duration::from_millis(1));
        std::thread::sleep(Duration::from_millis(5));
        clock.lap("second");
        let total = started.elapsed();
        let laps = clock.laps.borrow();
        let names: Vec<&str> = laps.iter().map(|(w, _)| w.as_str()).collect();
        assert_eq!(names, ["first", "second", "  inside second"]);
        let phases: Duration = laps
            .iter()
            .filter(|(w, _)| !w.starts_with(' '))
            .map(|l| l.1)
            .sum();
        assert!(phases >= Duration::from_millis(10), "{phases:?}");
        assert!(
            phases <= total + Duration::from_millis(1),
            "{phases:?} > {total:?}"
        );
    }
}
