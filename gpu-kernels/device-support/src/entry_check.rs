//! Why an entry of a list cannot become an entry point, as the one message the compiler prints
//! where the list is written ([`entries_from_data!`](crate::entries_from_data)).
//!
//! The check runs in a constant, where a panic can print a single `&str` but no formatted
//! arguments; so the message is composed here, byte by byte, from the entry's name, the
//! shape's type (both `stringify!`ed by the macro), the index evaluated, and what the shape's
//! [`Kernel::STRATEGIES`](reconverge_transforms::Kernel::STRATEGIES) and
//! [`PathSchedule::pairs_with`] say instead.

use reconverge_transforms::{Assignment, PathSchedule, Strategy};

/// Bytes a message can hold. The fixed text is under 500 bytes; the rest is the user's names.
const CAPACITY: usize = 2048;

/// A message composed in a constant.
#[doc(hidden)]
pub struct EntryMessage {
    bytes: [u8; CAPACITY],
    len: usize,
}

impl EntryMessage {
    const fn new() -> Self {
        Self {
            bytes: [0; CAPACITY],
            len: 0,
        }
    }

    /// Appends `s`, cut at the capacity (names that long would be a message nobody reads to
    /// the end; `as_str` drops a character cut in half).
    const fn push(&mut self, s: &str) {
        let s = s.as_bytes();
        let mut i = 0;
        while i < s.len() && self.len < CAPACITY {
            self.bytes[self.len] = s[i];
            self.len += 1;
            i += 1;
        }
    }

    const fn push_number(&mut self, mut n: usize) {
        let mut digits = [0u8; 20];
        let mut count = 0;
        loop {
            digits[count] = b'0' + (n % 10) as u8;
            count += 1;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        while count > 0 && self.len < CAPACITY {
            count -= 1;
            self.bytes[self.len] = digits[count];
            self.len += 1;
        }
    }

    /// The message.
    pub const fn as_str(&self) -> &str {
        let (text, _) = self.bytes.split_at(self.len);
        match core::str::from_utf8(text) {
            Ok(s) => s,
            Err(e) => match core::str::from_utf8(text.split_at(e.valid_up_to()).0) {
                Ok(s) => s,
                Err(_) => "",
            },
        }
    }
}

/// The message for `slice[index]`, listed as entry point `entry` of kernel type `kernel`
/// (`Shape<Workload>`) whose shape runs `supported`, or `None` if the shape runs it: some
/// listed strategy has its kind of path schedule, some program pairs its assignment with that
/// schedule ([`Strategy::pairing`]), and some listed strategy has its assignment. Each of the
/// three is a message of its own, checked in that order: a schedule of another shape is the
/// mistake to report even where its assignment is wrong too. An index past `slice` is left to
/// the list's length check.
#[doc(hidden)]
pub const fn entry_error(
    entry: &str,
    kernel: &str,
    slice_name: &str,
    supported: &[Strategy],
    slice: &[Strategy],
    index: usize,
) -> Option<EntryMessage> {
    if index >= slice.len() {
        return None;
    }
    let wanted = slice[index];
    let (mut schedule, mut assignment) = (false, false);
    let mut k = 0;
    while k < supported.len() {
        schedule |= supported[k].paths.same_kind(&wanted.paths);
        assignment |= supported[k].items as u8 == wanted.items as u8;
        k += 1;
    }
    let mut m = EntryMessage::new();
    m.push("GPU entry point `");
    m.push(entry);
    m.push("` (");
    m.push(slice_name);
    m.push("[");
    m.push_number(index);
    m.push("]): ");
    if !schedule {
        m.push(kernel);
        m.push(" does not run the path schedule ");
        push_schedule(&mut m, &wanted.paths);
        m.push(". It runs ");
        push_schedules(&mut m, supported);
        m.push(" over ");
        push_assignments(&mut m, supported);
        m.push(" (<");
        m.push(kernel);
        m.push(" as Kernel>::STRATEGIES); ");
        m.push(schedule_prose(&wanted.paths));
        m.push(" is ");
        m.push(shapes_running(&wanted.paths));
        m.push(". Write the strategy as Strategy::new(assignment, schedule) with one of those, or drop the entry and its strategy.");
        return Some(m);
    }
    if let Err(refused) = wanted.pairing() {
        m.push("no program pairs ");
        push_schedule(&mut m, &refused.paths);
        m.push(" with ");
        m.push(assignment_code(refused.items));
        m.push(": ");
        m.push(schedule_prose(&refused.paths));
        m.push(" pairs only with ");
        push_list(&mut m, refused.pairs_with);
        if refused.pairs_with.len() == 1 && matches!(refused.pairs_with[0], Assignment::Static) {
            m.push(" (per-item and multi-pass techniques fix which items a warp holds, and keep an item in its slot between passes)");
        }
        m.push(". Write Strategy::new(");
        m.push(match refused.pairs_with.first() {
            Some(items) => assignment_code(*items),
            None => "Assignment::Static",
        });
        m.push(", ");
        m.push(schedule_code(&refused.paths));
        m.push("), or drop the entry and its strategy.");
        return Some(m);
    }
    if !assignment {
        m.push(kernel);
        m.push(" does not deal items by ");
        m.push(assignment_code(wanted.items));
        m.push(": it deals them by ");
        push_assignments(&mut m, supported);
        m.push(" (<");
        m.push(kernel);
        m.push(" as Kernel>::STRATEGIES). Write Strategy::new(");
        m.push(match supported.first() {
            Some(s) => assignment_code(s.items),
            None => "Assignment::Static",
        });
        m.push(", ");
        m.push(schedule_code(&wanted.paths));
        m.push("), or drop the entry and its strategy.");
        return Some(m);
    }
    None
}

/// `prose (code)`.
const fn push_schedule(m: &mut EntryMessage, paths: &PathSchedule) {
    m.push(schedule_prose(paths));
    m.push(" (");
    m.push(schedule_code(paths));
    m.push(")");
}

/// Each kind of schedule in `strategies` once, as `prose (code)`, joined with commas and "and".
const fn push_schedules(m: &mut EntryMessage, strategies: &[Strategy]) {
    let mut kinds = 0;
    let mut i = 0;
    while i < strategies.len() {
        if first_of_kind(strategies, i) {
            kinds += 1;
        }
        i += 1;
    }
    let mut written = 0;
    let mut i = 0;
    while i < strategies.len() {
        if first_of_kind(strategies, i) {
            push_separator(m, written, kinds, " and ");
            push_schedule(m, &strategies[i].paths);
            written += 1;
        }
        i += 1;
    }
}

/// Whether `strategies[i]` is the first of its kind of schedule.
const fn first_of_kind(strategies: &[Strategy], i: usize) -> bool {
    let mut j = 0;
    while j < i {
        if strategies[j].paths.same_kind(&strategies[i].paths) {
            return false;
        }
        j += 1;
    }
    true
}

/// The assignments of `strategies`, each once, in [`Assignment`]'s order, joined with "or".
const fn push_assignments(m: &mut EntryMessage, strategies: &[Strategy]) {
    const ALL: [Assignment; 4] = Assignment::ALL;
    let mut used = [Assignment::Static; 4];
    let mut count = 0;
    let mut a = 0;
    while a < ALL.len() {
        let mut i = 0;
        while i < strategies.len() {
            if strategies[i].items as u8 == ALL[a] as u8 {
                used[count] = ALL[a];
                count += 1;
                break;
            }
            i += 1;
        }
        a += 1;
    }
    push_list(m, used.split_at(count).0);
}

/// Assignments as code, joined with commas and "or".
const fn push_list(m: &mut EntryMessage, assignments: &[Assignment]) {
    let mut i = 0;
    while i < assignments.len() {
        push_separator(m, i, assignments.len(), " or ");
        m.push(assignment_code(assignments[i]));
        i += 1;
    }
}

/// What goes before item `i` of `count`: nothing, a comma, or `last` before the last one.
const fn push_separator(m: &mut EntryMessage, i: usize, count: usize, last: &str) {
    if i == 0 {
        return;
    }
    m.push(if i + 1 == count { last } else { ", " });
}

/// How the user writes `items`.
pub(crate) const fn assignment_code(items: Assignment) -> &'static str {
    match items {
        Assignment::Static => "Assignment::Static",
        Assignment::Dynamic => "Assignment::Dynamic",
        Assignment::GridWide => "Assignment::GridWide",
        Assignment::Remapped => "Assignment::Remapped",
    }
}

/// A schedule's kind as the user writes it, its numbers left out.
pub(crate) const fn schedule_code(paths: &PathSchedule) -> &'static str {
    match paths {
        PathSchedule::AsWritten => "PathSchedule::AsWritten",
        PathSchedule::Predication => "PathSchedule::Predication",
        PathSchedule::StaticBranchResolution => "PathSchedule::StaticBranchResolution",
        PathSchedule::BranchSplitting => "PathSchedule::BranchSplitting",
        PathSchedule::ZCullMasking => "PathSchedule::ZCullMasking",
        PathSchedule::LoopSplitting => "PathSchedule::LoopSplitting",
        PathSchedule::IterationDelaying(_) => "PathSchedule::IterationDelaying(..)",
        PathSchedule::BranchDistribution { delaying: None } => {
            "PathSchedule::BranchDistribution { delaying: None }"
        }
        PathSchedule::BranchDistribution { delaying: Some(_) } => {
            "PathSchedule::BranchDistribution { delaying: Some(..) }"
        }
        PathSchedule::OcclusionQueryLoop { .. } => "PathSchedule::OcclusionQueryLoop { .. }",
        PathSchedule::BranchPathUnification { .. } => "PathSchedule::BranchPathUnification { .. }",
        PathSchedule::SpeculativeReconvergence { .. } => {
            "PathSchedule::SpeculativeReconvergence { .. }"
        }
        PathSchedule::CollaborativeContextCollection => {
            "PathSchedule::CollaborativeContextCollection"
        }
    }
}

/// A schedule's kind in words: the start of its `Display`, which is not `const`.
pub(crate) const fn schedule_prose(paths: &PathSchedule) -> &'static str {
    match paths {
        PathSchedule::AsWritten => "paths as written",
        PathSchedule::Predication => "predication",
        PathSchedule::StaticBranchResolution => "static branch resolution",
        PathSchedule::BranchSplitting => "branch splitting",
        PathSchedule::ZCullMasking => "z-cull masking",
        PathSchedule::LoopSplitting => "loop splitting",
        PathSchedule::IterationDelaying(_) => "iteration delaying",
        PathSchedule::BranchDistribution { delaying: None } => "branch distribution",
        PathSchedule::BranchDistribution { delaying: Some(_) } => {
            "branch distribution, iteration delaying"
        }
        PathSchedule::OcclusionQueryLoop { .. } => "occlusion-query loop",
        PathSchedule::BranchPathUnification { .. } => "branch path unification",
        PathSchedule::SpeculativeReconvergence { .. } => "speculative reconvergence",
        PathSchedule::CollaborativeContextCollection => "collaborative context collection",
    }
}

/// Which of `reconverge_transforms`' shapes run a kind of schedule (what their
/// `Kernel::STRATEGIES` list; the tests hold the two together), for a strategy listed under the
/// wrong shape.
pub(crate) const fn shapes_running(paths: &PathSchedule) -> &'static str {
    match paths {
        PathSchedule::AsWritten => "every shape's",
        PathSchedule::Predication
        | PathSchedule::StaticBranchResolution
        | PathSchedule::BranchSplitting
        | PathSchedule::ZCullMasking
        | PathSchedule::BranchPathUnification { .. } => "the two-path shape's (TwoPathKernel)",
        PathSchedule::LoopSplitting => "the split-loop shape's (SplitLoopKernel)",
        PathSchedule::IterationDelaying(_) | PathSchedule::SpeculativeReconvergence { .. } => {
            "the branch-loop shapes' (BranchLoopKernel, FactoredBranchLoopKernel)"
        }
        PathSchedule::BranchDistribution { delaying: None } => {
            "the factored branch-loop shape's (FactoredBranchLoopKernel)"
        }
        PathSchedule::BranchDistribution { delaying: Some(_) } => {
            "no shape's of reconverge_transforms, only a workload's with a Kernel of its own (McmlKernel)"
        }
        PathSchedule::OcclusionQueryLoop { .. } => "the item-loop shape's (ItemLoopKernel)",
        PathSchedule::CollaborativeContextCollection => {
            "the branch-loop shapes' (BranchLoopKernel, FactoredBranchLoopKernel)"
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::format;

    use super::*;
    use reconverge_transforms::{
        BranchLoopKernel, FactoredBranchLoopKernel, ItemLoopKernel, Kernel, SplitLoopKernel,
        TwoPathKernel,
    };
    use reconverge_workloads::reference::Collatz;
    use reconverge_workloads::synthetic::{DynamicWork, LoopSplitBench, PathUnification, SynBrDis};

    const LOOP: &[Strategy] = <BranchLoopKernel<Collatz> as Kernel>::STRATEGIES;
    const TWO_PATH: &[Strategy] = <TwoPathKernel<PathUnification> as Kernel>::STRATEGIES;

    fn message(
        supported: &[Strategy],
        slice: &[Strategy],
        index: usize,
    ) -> Option<std::string::String> {
        entry_error("my_entry", "Shape<Mine>", "MINE", supported, slice, index)
            .map(|m| m.as_str().into())
    }

    #[test]
    fn a_schedule_of_another_shape_names_the_entry_what_the_shape_runs_and_whose_it_is() {
        let slice = [Strategy::BASELINE, Strategy::BRANCH_DISTRIBUTION];
        assert_eq!(
            message(LOOP, &slice, 1).as_deref(),
            Some(
                "GPU entry point `my_entry` (MINE[1]): Shape<Mine> does not run the path schedule \
                 branch distribution (PathSchedule::BranchDistribution { delaying: None }). It \
                 runs paths as written (PathSchedule::AsWritten), iteration delaying \
                 (PathSchedule::IterationDelaying(..)), speculative reconvergence \
                 (PathSchedule::SpeculativeReconvergence { .. }) and collaborative context \
                 collection (PathSchedule::CollaborativeContextCollection) over Assignment::Static, \
                 Assignment::Dynamic or Assignment::GridWide (<Shape<Mine> as \
                 Kernel>::STRATEGIES); branch distribution is the factored branch-loop shape's \
                 (FactoredBranchLoopKernel). Write the strategy as Strategy::new(assignment, \
                 schedule) with one of those, or drop the entry and its strategy."
            )
        );
        assert_eq!(message(LOOP, &slice, 0), None);
    }

    #[test]
    fn an_index_past_ten_is_printed_as_its_value() {
        let mut slice = [Strategy::BASELINE; 14];
        slice[13] = Strategy::BRANCH_SPLITTING;
        let m = message(LOOP, &slice, 13).unwrap();
        assert!(
            m.starts_with("GPU entry point `my_entry` (MINE[13]): "),
            "{m}"
        );
        // Past the slice is the length check's error, not this one.
        assert_eq!(message(LOOP, &slice, 14), None);
    }

    #[test]
    fn a_pairing_no_program_implements_says_what_pairs_instead() {
        let grid_split = Strategy::BRANCH_SPLITTING.over(Assignment::GridWide);
        assert_eq!(
            message(TWO_PATH, &[grid_split], 0).as_deref(),
            Some(
                "GPU entry point `my_entry` (MINE[0]): no program pairs branch splitting \
                 (PathSchedule::BranchSplitting) with Assignment::GridWide: branch splitting \
                 pairs only with Assignment::Static (per-item and multi-pass techniques fix \
                 which items a warp holds, and keep an item in its slot between passes). Write \
                 Strategy::new(Assignment::Static, PathSchedule::BranchSplitting), or drop the \
                 entry and its strategy."
            )
        );
    }

    #[test]
    fn an_assignment_the_shape_does_not_deal_by_is_its_own_message() {
        let dynamic = Strategy::BASELINE.over(Assignment::Dynamic);
        assert_eq!(
            message(TWO_PATH, &[dynamic], 0).as_deref(),
            Some(
                "GPU entry point `my_entry` (MINE[0]): Shape<Mine> does not deal items by \
                 Assignment::Dynamic: it deals them by Assignment::Static (<Shape<Mine> as \
                 Kernel>::STRATEGIES). Write Strategy::new(Assignment::Static, \
                 PathSchedule::AsWritten), or drop the entry and its strategy."
            )
        );
    }

    #[test]
    fn every_listed_strategy_of_every_shape_passes() {
        for supported in [
            LOOP,
            TWO_PATH,
            <FactoredBranchLoopKernel<SynBrDis> as Kernel>::STRATEGIES,
            <ItemLoopKernel<DynamicWork> as Kernel>::STRATEGIES,
            <SplitLoopKernel<LoopSplitBench> as Kernel>::STRATEGIES,
        ] {
            for i in 0..supported.len() {
                assert_eq!(message(supported, supported, i), None, "{:?}", supported[i]);
            }
        }
    }

    #[test]
    fn a_long_name_is_cut_on_a_character() {
        let name = "é".repeat(CAPACITY);
        let m = entry_error(&name, "S<W>", "L", LOOP, &[Strategy::LOOP_SPLITTING], 0).unwrap();
        // The first byte of the name takes the odd byte: the message holds whole characters.
        assert_eq!(m.as_str().len() % 2, 1);
        assert!(m.as_str().len() >= CAPACITY - 1);
    }

    /// The names in the messages are the ones the user writes and reads: a renamed variant or
    /// a reworded `Display` fails here, not in a user's error message.
    #[test]
    fn names_follow_the_types_debug_and_display() {
        for paths in PathSchedule::EVERY_KIND {
            let code = schedule_code(&paths).trim_start_matches("PathSchedule::");
            let variant = code.split([' ', '(']).next().unwrap();
            assert!(
                format!("{paths:?}").starts_with(variant),
                "{paths:?} / {code}"
            );
            assert!(
                format!("{paths}").starts_with(schedule_prose(&paths)),
                "{paths} / {}",
                schedule_prose(&paths)
            );
        }
        for items in [
            Assignment::Static,
            Assignment::Dynamic,
            Assignment::GridWide,
            Assignment::Remapped,
        ] {
            assert_eq!(assignment_code(items), format!("Assignment::{items:?}"));
        }
    }

    /// `shapes_running` names exactly the shapes whose `STRATEGIES` list the kind.
    #[test]
    fn whose_schedule_it_is_agrees_with_the_shapes_lists() {
        let shapes: [(&str, &[Strategy]); 5] = [
            ("BranchLoopKernel", LOOP),
            (
                "FactoredBranchLoopKernel",
                <FactoredBranchLoopKernel<SynBrDis> as Kernel>::STRATEGIES,
            ),
            ("TwoPathKernel", TWO_PATH),
            (
                "SplitLoopKernel",
                <SplitLoopKernel<LoopSplitBench> as Kernel>::STRATEGIES,
            ),
            (
                "ItemLoopKernel",
                <ItemLoopKernel<DynamicWork> as Kernel>::STRATEGIES,
            ),
        ];
        for paths in PathSchedule::EVERY_KIND {
            let said = shapes_running(&paths);
            for (shape, strategies) in shapes {
                let runs = strategies.iter().any(|s| s.paths.same_kind(&paths));
                // The shapes named are those in the parentheses.
                let names = said.split(['(', ')']).nth(1).unwrap_or("");
                let named = names.split(", ").any(|n| n == shape) || said == "every shape's";
                assert_eq!(runs, named, "{shape} and {paths:?}: {said}");
            }
        }
    }
}
