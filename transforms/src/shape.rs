//! The code shapes the papers target, as workload traits.
//!
//! A workload is a type whose methods are the pieces of its kernel; a strategy decides how a
//! warp runs those pieces. Items are numbered `0..n` and a workload derives each item's input
//! from its index (and its own parameters), so that no backend needs input buffers and dynamic
//! strategies can hand any item to any lane.

use reconverge_simt::Region;

use crate::io::Tally;

/// Declares a shape's region rows: an enum whose variants, in the order of the shape's regions
/// struct, are the counter rows of those regions. A workload builds its regions from these
/// (`LoopRegion::Taken.region("boundary", 90)`) and never writes an id, so two regions of a
/// workload cannot share a row, nor share one with the strategies' own regions, whose rows come
/// after [`reconverge_simt::MAX_REGIONS`].
macro_rules! region_rows {
    (
        $(#[$doc:meta])*
        $rows:ident for $regions:ident { $($(#[$row_doc:meta])* $row:ident => $field:ident,)* }
    ) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(u8)]
        pub enum $rows {
            $($(#[$row_doc])* $row,)*
        }

        impl $rows {
            /// This row's region: a name for reports and the instructions of one issue.
            pub const fn region(self, name: &'static str, cost: u32) -> Region {
                Region::new(self as u8, name, cost)
            }
        }

        impl $regions {
            /// The regions in the order of the fields, each built on its field's row, so that
            /// a workload's `regions` is one expression over its region constants.
            ///
            /// # Panics
            /// In debug builds, if a region is not on its field's row (at compile time in a
            /// `const`). Release builds skip the check, so device code (built in release) is
            /// the same as with the struct written out field by field.
            pub const fn new(regions: [Region; [$($rows::$row),*].len()]) -> Self {
                let [$($field),*] = regions;
                $(debug_assert!($field.id == $rows::$row as u8, "a region on another field's row");)*
                Self { $($field),* }
            }
        }
    };
}

/// Declares a shape trait and its implementation for `&L`, which forwards every method to `L`:
/// kernels hand their programs a borrow, so a program never copies the workload's parameters
/// (on the GPU they stay in global memory, where a by-value copy would spill dynamically
/// indexed tables to local memory). The forwarding is generated from the trait's own item
/// list, so no method can be declared and not forwarded.
macro_rules! shape_trait {
    ($(#[$attr:meta])* pub trait $shape:ident { $($item:tt)* }) => {
        $(#[$attr])*
        pub trait $shape { $($item)* }

        shape_trait!(@forward $shape [] $($item)*);
    };
    // Each rule below takes the trait's next item and adds its forwarding to the list.
    (@forward $shape:ident [$($done:tt)*]) => {
        impl<L: $shape + ?Sized> $shape for &L { $($done)* }
    };
    (@forward $shape:ident [$($done:tt)*] #[$attr:meta] $($rest:tt)*) => {
        shape_trait!(@forward $shape [$($done)*] $($rest)*);
    };
    (@forward $shape:ident [$($done:tt)*]
        type $assoc:ident: $bound:ident $(+ $more:ident)*; $($rest:tt)*) => {
        shape_trait!(@forward $shape [$($done)* type $assoc = L::$assoc;] $($rest)*);
    };
    // An associated constant with a default: forwarded as `L`'s.
    (@forward $shape:ident [$($done:tt)*]
        const $name:ident: $ty:ty = $default:expr; $($rest:tt)*) => {
        shape_trait!(@forward $shape [$($done)* const $name: $ty = L::$name;] $($rest)*);
    };
    // A method with a default body: the body is not forwarded, the call is.
    (@forward $shape:ident [$($done:tt)*] $(#[$attr:meta])*
        fn $method:ident $(<$generic:ident: $generic_bound:ident>)? (&self $(, $arg:ident: $ty:ty)*)
            $(-> $ret:ty)? { $($default:tt)* } $($rest:tt)*) => {
        shape_trait!(@forward $shape [$($done)*] fn $method $(<$generic: $generic_bound>)?
            (&self $(, $arg: $ty)*) $(-> $ret)?; $($rest)*);
    };
    (@forward $shape:ident [$($done:tt)*]
        fn $method:ident $(<$generic:ident: $generic_bound:ident>)? (&self $(, $arg:ident: $ty:ty)*)
            $(-> $ret:ty)?; $($rest:tt)*) => {
        shape_trait!(@forward $shape [$($done)*
            #[inline(always)]
            fn $method $(<$generic: $generic_bound>)? (&self $(, $arg: $ty)*) $(-> $ret)? {
                (**self).$method($($arg),*)
            }
        ] $($rest)*);
    };
}

region_rows!(
    /// The counter rows of a [`BranchLoop`]'s regions ([`LoopRegions`]' fields, in order).
    LoopRegion for LoopRegions {
        /// [`LoopRegions::condition`].
        Condition => condition,
        /// [`LoopRegions::taken`].
        Taken => taken,
        /// [`LoopRegions::not_taken`].
        NotTaken => not_taken,
        /// [`LoopRegions::after_branch`].
        AfterBranch => after_branch,
        /// [`LoopRegions::item`].
        Item => item,
    }
);

region_rows!(
    /// The counter rows of a [`TwoPath`]'s regions ([`TwoPathRegions`]' fields, in order).
    TwoPathRegion for TwoPathRegions {
        /// [`TwoPathRegions::decide`].
        Decide => decide,
        /// [`TwoPathRegions::path_a`].
        PathA => path_a,
        /// [`TwoPathRegions::path_b`].
        PathB => path_b,
        /// [`TwoPathRegions::item`].
        Item => item,
    }
);

region_rows!(
    /// The counter rows of an [`ItemLoop`]'s regions ([`ItemLoopRegions`]' fields, in order).
    ItemLoopRegion for ItemLoopRegions {
        /// [`ItemLoopRegions::body`].
        Body => body,
        /// [`ItemLoopRegions::item`].
        Item => item,
    }
);

region_rows!(
    /// The counter rows of a [`FactoredBranchLoop`]'s regions ([`FactoredRegions`]' fields, in
    /// order).
    FactoredRegion for FactoredRegions {
        /// [`FactoredRegions::condition`].
        Condition => condition,
        /// [`FactoredRegions::prologue_taken`].
        PrologueTaken => prologue_taken,
        /// [`FactoredRegions::prologue_not_taken`].
        PrologueNotTaken => prologue_not_taken,
        /// [`FactoredRegions::factored`].
        Factored => factored,
        /// [`FactoredRegions::epilogue_taken`].
        EpilogueTaken => epilogue_taken,
        /// [`FactoredRegions::epilogue_not_taken`].
        EpilogueNotTaken => epilogue_not_taken,
        /// [`FactoredRegions::after_branch`].
        AfterBranch => after_branch,
        /// [`FactoredRegions::item`].
        Item => item,
    }
);

region_rows!(
    /// The counter rows of a [`SplitLoop`]'s regions ([`SplitLoopRegions`]' fields, in order).
    SplitLoopRegion for SplitLoopRegions {
        /// [`SplitLoopRegions::part_a`].
        PartA => part_a,
        /// [`SplitLoopRegions::part_b`].
        PartB => part_b,
        /// [`SplitLoopRegions::item`].
        Item => item,
    }
);

/// The regions of a [`BranchLoop`], with the costs the workload declares; each field's row is
/// the [`LoopRegion`] of the same name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoopRegions {
    /// Computing the branch condition (seed 002 fig. 5a line 5).
    pub condition: Region,
    /// The taken path ("code segment 1").
    pub taken: Region,
    /// The not-taken path ("code segment 2").
    pub not_taken: Region,
    /// The non-branch code of the loop body.
    pub after_branch: Region,
    /// Starting and finishing items (loads, stores, the next-item bookkeeping).
    pub item: Region,
}

shape_trait! {
/// A loop whose body holds one divergent two-path branch and non-branch code:
///
/// ```text
/// state = start(item)
/// while running(state) {
///     if condition(state) { taken(state) } else { not_taken(state) }
///     after_branch(state)
/// }
/// output = finish(state)
/// ```
///
/// Seed 002 fig. 4 (the pattern iteration delaying targets); MCML's photon loop (seed 002
/// fig. 8: boundary hit vs. drop-and-spin) has this shape. The condition is computed once per
/// executed iteration and may change the state (draw a random number).
pub trait BranchLoop {
    /// What a lane carries through the loop.
    type State: Copy;
    /// What an item produces. Backends allocate one per item with `Default` and fill them
    /// from several threads, hence the bounds.
    type Output: Copy + Default + Send + Sync;

    /// The regions and their costs.
    fn regions(&self) -> LoopRegions;
    /// Accumulators the workload adds to through its [`Tally`]; 0 for none.
    fn tally_len(&self) -> usize {
        0
    }
    /// The state of a fresh item.
    fn start(&self, item: u32) -> Self::State;
    /// Whether the item still has iterations to run.
    fn running(&self, state: &Self::State) -> bool;
    /// The branch condition of the next iteration.
    fn condition(&self, state: &mut Self::State) -> bool;
    /// The taken path.
    fn taken<T: Tally>(&self, state: &mut Self::State, tally: &mut T);
    /// The not-taken path.
    fn not_taken<T: Tally>(&self, state: &mut Self::State, tally: &mut T);
    /// The code after the branch, in every executed iteration.
    fn after_branch<T: Tally>(&self, state: &mut Self::State, tally: &mut T);
    /// The output of a finished item.
    fn finish(&self, state: &Self::State) -> Self::Output;

    /// How many values [`BranchLoop::remap_key`] takes (at most
    /// [`crate::strategies::thread_data_remapping::MAX_BUCKETS`]): thread-data remapping
    /// ([`crate::Assignment::Remapped`]) groups a block's items by key. 0, the default, for a
    /// workload that cannot predict its items' paths: it refuses remapping with
    /// [`crate::StrategyError::NoRemapKey`]. A constant, so that a kernel's
    /// [`crate::Kernel::STRATEGIES`] lists remapping exactly for the workloads that have a key.
    const REMAP_BUCKETS: u32 = 0;
    /// A cheap prediction of item `item`'s path or cost, `0..REMAP_BUCKETS` (a larger key
    /// counts as the last bucket): items with equal keys should run alike. Computed once per
    /// item in the permutation pass (twice: to count, then to place), from the index alone.
    fn remap_key(&self, item: u32) -> u32 {
        let _ = item;
        0
    }

    /// Item `item` start to finish as one plain loop, no warp and no tally: `while running {
    /// if condition { taken } else { not_taken }; after_branch }`. What the plain GPU kernels
    /// run per item, and the reference every strategy's output equals.
    #[inline(always)]
    fn run_item(&self, item: u32) -> Self::Output {
        let mut tally = crate::io::NoTally;
        let mut state = self.start(item);
        while self.running(&state) {
            if self.condition(&mut state) {
                self.taken(&mut state, &mut tally);
            } else {
                self.not_taken(&mut state, &mut tally);
            }
            self.after_branch(&mut state, &mut tally);
        }
        self.finish(&state)
    }
}
}

/// The regions of a [`TwoPath`] workload, with the costs the workload declares; each field's
/// row is the [`TwoPathRegion`] of the same name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TwoPathRegions {
    /// Computing an item's decision (`branch(i)` of seed 004 fig. 9, the decision mask of
    /// seed 001 fig. 6).
    pub decide: Region,
    /// Path A, the if path (`functionA`, the if-branch kernel).
    pub path_a: Region,
    /// Path B, the else path (`functionB`, the else-branch kernel).
    pub path_b: Region,
    /// Per-item bookkeeping: storing the output, moving to the next item.
    pub item: Region,
}

shape_trait! {
/// A per-item two-path branch, with no loop around it:
///
/// ```text
/// output = if decide(item) { path_a(item) } else { path_b(item) }
/// ```
///
/// Seed 004 fig. 6 and fig. 9 (the code branch path unification targets), seed 001 fig. 6a
/// (the single kernel of branch splitting) and GPU Gems 2 ch. 34 (`if (c) f() else g()`).
///
/// Supported strategies ([`crate::TwoPathKernel`]):
/// - [`Strategy::BASELINE`](crate::Strategy::BASELINE): each lane runs its items block-stride,
///   both paths issued with masks;
/// - [`Strategy::PREDICATION`](crate::Strategy::PREDICATION) (Gems 34.2.1): every lane runs
///   both paths and selects, so `path_a` and `path_b` must be total (callable on any item);
/// - [`Strategy::BRANCH_SPLITTING`](crate::Strategy::BRANCH_SPLITTING) (seed 001 fig. 6b): two
///   passes, path A then path B, each a kernel of its own;
/// - [`Strategy::STATIC_BRANCH_RESOLUTION`](crate::Strategy::STATIC_BRANCH_RESOLUTION) (Gems
///   34.2.2–34.2.3, read as stream compaction by predicate inside the warp);
/// - [`Strategy::branch_path_unification`](crate::Strategy::branch_path_unification) (seed 004
///   fig. 10).
///
/// Outputs never depend on the strategy: `decide`, `path_a` and `path_b` must be pure
/// functions of the item (and the workload's parameters).
pub trait TwoPath {
    /// What an item produces. Backends allocate one per item with `Default` and fill them
    /// from several threads, hence the bounds.
    type Output: Copy + Default + Send + Sync;

    /// The regions and their costs.
    fn regions(&self) -> TwoPathRegions;
    /// Which path item `item` takes: `true` is path A (the if path).
    fn decide(&self, item: u32) -> bool;
    /// Path A's output for `item`.
    fn path_a(&self, item: u32) -> Self::Output;
    /// Path B's output for `item`.
    fn path_b(&self, item: u32) -> Self::Output;

    /// Item `item` as one plain branch, `if decide { path_a } else { path_b }`: what
    /// [`plain_items`](crate::Kernel::plain_items) runs per item, and the reference every
    /// strategy's output equals.
    #[inline(always)]
    fn run_item(&self, item: u32) -> Self::Output {
        if self.decide(item) {
            self.path_a(item)
        } else {
            self.path_b(item)
        }
    }
}
}

/// The regions of an [`ItemLoop`]; each field's row is the [`ItemLoopRegion`] of the same name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ItemLoopRegions {
    /// One iteration of the loop body (`function()` of seed 004 fig. 4, `// work` of seed 002
    /// fig. 1c).
    pub body: Region,
    /// Starting and finishing items (`preparation()`, `settlement()`, the next-item
    /// bookkeeping).
    pub item: Region,
}

shape_trait! {
/// A loop with a data-dependent trip count and no branch inside:
///
/// ```text
/// state = start(item)          // preparation()
/// while running(state) {       // while (branch(i))
///     body(state)              //     function(); i = next(i);
/// }
/// output = finish(state)       // settlement()
/// ```
///
/// Seed 004 fig. 1 and fig. 4 (the code dynamic work assignment targets), seed 002 fig. 1c
/// (a loop with variable trip count: a warp issues the body `max` of its lanes' trip counts
/// times).
///
/// Supported strategies ([`crate::ItemLoopKernel`]): [`Strategy::BASELINE`](crate::Strategy::BASELINE)
/// (each lane runs its items block-stride, taking its next item as soon as one finishes),
/// [`Strategy::DYNAMIC_WORK_ASSIGNMENT`](crate::Strategy::DYNAMIC_WORK_ASSIGNMENT) (seed 004
/// fig. 5) and [`Strategy::occlusion_query_loop`](crate::Strategy::occlusion_query_loop) (GPU
/// Gems 2 §34.3: the loop as repeated passes). Iteration delaying needs a branch inside the
/// loop and does not apply.
pub trait ItemLoop {
    /// What a lane carries through the loop.
    type State: Copy;
    /// What an item produces. Backends allocate one per item with `Default` and fill them
    /// from several threads, hence the bounds.
    type Output: Copy + Default + Send + Sync;

    /// The regions and their costs.
    fn regions(&self) -> ItemLoopRegions;
    /// Accumulators the workload adds to through its [`Tally`]; 0 for none.
    fn tally_len(&self) -> usize {
        0
    }
    /// The state of a fresh item.
    fn start(&self, item: u32) -> Self::State;
    /// Whether the item still has iterations to run.
    fn running(&self, state: &Self::State) -> bool;
    /// One iteration of the body.
    fn body<T: Tally>(&self, state: &mut Self::State, tally: &mut T);
    /// The output of a finished item.
    fn finish(&self, state: &Self::State) -> Self::Output;

    /// `while running { body }` for item `item` alone, as [`BranchLoop::run_item`] does for a
    /// branch loop.
    #[inline(always)]
    fn run_item(&self, item: u32) -> Self::Output {
        let mut tally = crate::io::NoTally;
        let mut state = self.start(item);
        while self.running(&state) {
            self.body(&mut state, &mut tally);
        }
        self.finish(&state)
    }
}
}

/// The regions of a [`FactoredBranchLoop`] (seed 002 fig. 7); each field's row is the
/// [`FactoredRegion`] of the same name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FactoredRegions {
    /// Computing the branch condition (fig. 7 lines 2–3).
    pub condition: Region,
    /// `code_segment_1`: the taken path's prologue.
    pub prologue_taken: Region,
    /// `code_segment_2`: the not-taken path's prologue.
    pub prologue_not_taken: Region,
    /// `code_factored_out`: the code both paths share in structure.
    pub factored: Region,
    /// `code_segment_3`: the taken path's epilogue.
    pub epilogue_taken: Region,
    /// `code_segment_4`: the not-taken path's epilogue.
    pub epilogue_not_taken: Region,
    /// The non-branch code of the loop body.
    pub after_branch: Region,
    /// Starting and finishing items.
    pub item: Region,
}

shape_trait! {
/// A loop whose two branch paths share a factorable middle (seed 002 fig. 7a, SYN-BRDIS):
///
/// ```text
/// state = start(item)
/// while running(state) {
///     let c = condition(state);
///     if c { prologue(true, state); factored(state); epilogue(true, state) }
///     else { prologue(false, state); factored(state); epilogue(false, state) }
///     after_branch(state)
/// }
/// output = finish(state)
/// ```
///
/// Branch distribution (fig. 7b) runs the prologues divergently, `factored` once for every
/// live lane, and the epilogues divergently. `factored` must therefore be the same code on both
/// paths: whatever differs between the paths is passed through the state by the prologue
/// (fig. 6b's `a = a1; b = b1`).
///
/// Supported strategies ([`crate::FactoredBranchLoopKernel`]):
/// [`Strategy::BASELINE`](crate::Strategy::BASELINE) (the factored code issued once per path),
/// [`Strategy::BRANCH_DISTRIBUTION`](crate::Strategy::BRANCH_DISTRIBUTION),
/// [`Strategy::DYNAMIC_WORK_ASSIGNMENT`](crate::Strategy::DYNAMIC_WORK_ASSIGNMENT), and
/// [`Strategy::iteration_delaying`](crate::Strategy::iteration_delaying) through the
/// [`crate::Unfactored`] adapter onto [`BranchLoop`].
pub trait FactoredBranchLoop {
    /// What a lane carries through the loop.
    type State: Copy;
    /// What an item produces. Backends allocate one per item with `Default` and fill them
    /// from several threads, hence the bounds.
    type Output: Copy + Default + Send + Sync;

    /// The regions and their costs.
    fn regions(&self) -> FactoredRegions;
    /// Accumulators the workload adds to through its [`Tally`]; 0 for none.
    fn tally_len(&self) -> usize {
        0
    }
    /// The state of a fresh item.
    fn start(&self, item: u32) -> Self::State;
    /// Whether the item still has iterations to run.
    fn running(&self, state: &Self::State) -> bool;
    /// The branch condition of the next iteration (may change the state).
    fn condition(&self, state: &mut Self::State) -> bool;
    /// The prologue of the path `taken` (`code_segment_1` or `code_segment_2`).
    fn prologue<T: Tally>(&self, taken: bool, state: &mut Self::State, tally: &mut T);
    /// The factored code, the same on both paths (`code_factored_out`).
    fn factored<T: Tally>(&self, state: &mut Self::State, tally: &mut T);
    /// The epilogue of the path `taken` (`code_segment_3` or `code_segment_4`).
    fn epilogue<T: Tally>(&self, taken: bool, state: &mut Self::State, tally: &mut T);
    /// The code after the branch, in every executed iteration.
    fn after_branch<T: Tally>(&self, state: &mut Self::State, tally: &mut T);
    /// The output of a finished item.
    fn finish(&self, state: &Self::State) -> Self::Output;

    /// Item `item` start to finish as one plain loop, no warp and no tally: fig. 7a, each path
    /// in full with the factored code inside it, which is the [`BranchLoop::run_item`] of the
    /// [`Unfactored`](crate::Unfactored) loop.
    #[inline(always)]
    fn run_item(&self, item: u32) -> Self::Output {
        crate::Unfactored(self).run_item(item)
    }
}
}

/// The regions of a [`SplitLoop`] (seed 001 fig. 5); each field's row is the
/// [`SplitLoopRegion`] of the same name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SplitLoopRegions {
    /// One iteration of the body's first part (fig. 5a: the operations on `ptr1`, `ptr2`).
    pub part_a: Region,
    /// One iteration of the body's second part (the operations on `ptr3`, `ptr4`).
    pub part_b: Region,
    /// Starting and finishing items.
    pub item: Region,
}

shape_trait! {
/// A loop of `trips(item)` iterations whose body has two independent parts (seed 001 fig. 5a):
///
/// ```text
/// (a, b) = (start_a(item), start_b(item))
/// for i in 0..trips(item) { part_a(a, i); part_b(b, i) }
/// output = finish(finish_a(a), b)
/// ```
///
/// The parts are independent by construction: each sees only its own state, so loop
/// splitting (fig. 5b) computes the same output:
///
/// ```text
/// a = start_a(item); for i in 0..trips(item) { part_a(a, i) }
/// carry = finish_a(a)
/// b = start_b(item); for i in 0..trips(item) { part_b(b, i) }
/// output = finish(carry, b)
/// ```
///
/// **Why a carry.** Loop splitting saves registers only if part A's state is dead during
/// the second loop. An output computed from both whole states (`finish(a, b)`) would keep all
/// of `a` live through loop B, and the split loops would need as many registers as the fused
/// one. [`finish_a`](Self::finish_a) reduces part A's state to what the output needs of it
/// ([`Carry`](Self::Carry), ideally a few words) as soon as loop A ends, so only the carry
/// stays live through loop B. In the fused loop both states are live until the loop ends
/// whatever the carry is.
///
/// Likewise keep in a part's state only what the output needs (a running result); derive
/// inputs such as the paper's pointers from the item and the workload's parameters inside the
/// part, so that on the GPU they are live only in their own loop.
///
/// Supported strategies ([`crate::SplitLoopKernel`]): [`Strategy::BASELINE`](crate::Strategy::BASELINE)
/// (the fused loop) and [`Strategy::LOOP_SPLITTING`](crate::Strategy::LOOP_SPLITTING).
pub trait SplitLoop {
    /// Part A's state.
    type A: Copy;
    /// Part B's state.
    type B: Copy;
    /// What the output needs of part A's finished state ([`finish_a`](Self::finish_a)): the
    /// only part of A that stays live during loop B.
    type Carry: Copy;
    /// What an item produces. Backends allocate one per item with `Default` and fill them
    /// from several threads, hence the bounds.
    type Output: Copy + Default + Send + Sync;

    /// The regions and their costs.
    fn regions(&self) -> SplitLoopRegions;
    /// Iterations of the loop for `item`.
    fn trips(&self, item: u32) -> u32;
    /// Part A's state before the first iteration.
    fn start_a(&self, item: u32) -> Self::A;
    /// Part B's state before the first iteration.
    fn start_b(&self, item: u32) -> Self::B;
    /// Iteration `i` of part A.
    fn part_a(&self, a: &mut Self::A, i: u32);
    /// Iteration `i` of part B.
    fn part_b(&self, b: &mut Self::B, i: u32);
    /// What the output needs of part A's state after the last iteration.
    fn finish_a(&self, a: &Self::A) -> Self::Carry;
    /// The output of a finished item, from part A's carry and part B's final state.
    fn finish(&self, carry: &Self::Carry, b: &Self::B) -> Self::Output;

    /// Item `item` as the fused loop of fig. 5a in plain code: what
    /// [`plain_items`](crate::Kernel::plain_items) runs per item, and the reference every
    /// strategy's output equals.
    #[inline(always)]
    fn run_item(&self, item: u32) -> Self::Output {
        let (mut a, mut b) = (self.start_a(item), self.start_b(item));
        for i in 0..self.trips(item) {
            self.part_a(&mut a, i);
            self.part_b(&mut b, i);
        }
        self.finish(&self.finish_a(&a), &b)
    }
}
}
