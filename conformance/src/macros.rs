//! [`conformance_tests!`](crate::conformance_tests).

/// Writes a module of `#[test]`s that check a kernel with the kit: one per (strategy of the
/// kernel's [`Kernel::STRATEGIES`](reconverge_transforms::Kernel::STRATEGIES), launch), each
/// the strategy against the baseline on the backends given, outputs, tallies and counters
/// compared exactly ([`check_listed_strategy`](crate::check_listed_strategy)).
///
/// ```text
/// conformance_tests! {
///     /// optional attributes of the module
///     name:
///         kernel = <expr: a Kernel, built afresh by every test>,
///         items = <expr: u32>,
///         backends = [<expr: a Backend of the kernel>, ...],   // the first is the reference
///         launches = [<ident> = <expr: a Launch>, ...],
///         // optional: backends that may not be here, each an Option (None: left out, and the
///         // test says so on stderr); a GPU's `CudaBackend::with_ptx(..).ok()`, so that the same
///         // tests check the GPU against the CPU on a machine with one
///         optional_backends = [<expr: Option of a Backend of the kernel>, ...],
/// }
/// ```
///
/// A strategy an optional backend has no code for (`BackendError::NotCompiled`: an entry point
/// its module does not hold) is skipped on it, and the report counts it.
///
/// expands to `mod name`, which sees the names of the module it is written in
/// (`use super::*`), holding a module per launch and in it a test per strategy index,
/// `strategy_00` to `strategy_15` ([`MAX_TESTED_STRATEGIES`](crate::MAX_TESTED_STRATEGIES)):
/// `name::<launch>::strategy_NN`. A test whose index is past the kernel's list passes at once;
/// `name::every_strategy_has_a_test` fails if the list is longer than the tests. The
/// expressions are evaluated in each test. The crate docs have an example.
#[macro_export]
macro_rules! conformance_tests {
    (
        $(#[$meta:meta])*
        $name:ident:
            kernel = $kernel:expr,
            items = $items:expr,
            backends = $backends:tt,
            launches = $launches:tt
            $(, optional_backends = [$($optional:tt)*])? $(,)?
    ) => {
        $crate::conformance_tests! {
            @module $(#[$meta])* $name ($kernel) ($items) $backends [$($($optional)*)?] $launches
        }
    };
    (
        @module $(#[$meta:meta])* $name:ident ($kernel:expr) ($items:expr) $backends:tt
        $optional:tt [$($launch:ident = $shape:expr),+ $(,)?]
    ) => {
        $(#[$meta])*
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            #[test]
            fn every_strategy_has_a_test() {
                let listed = $crate::listed_strategies(&$kernel);
                assert!(
                    listed.len() <= $crate::MAX_TESTED_STRATEGIES,
                    "the kernel lists {} strategies, conformance_tests! tests the first {}",
                    listed.len(),
                    $crate::MAX_TESTED_STRATEGIES,
                );
            }

            $(
                mod $launch {
                    #[allow(unused_imports)]
                    use super::*;

                    $crate::__conformance_strategy_tests! {
                        ($kernel) ($items) $backends $optional ($shape)
            strategy_00 = 0,
            strategy_01 = 1,
            strategy_02 = 2,
            strategy_03 = 3,
            strategy_04 = 4,
            strategy_05 = 5,
            strategy_06 = 6,
            strategy_07 = 7,
            strategy_08 = 8,
            strategy_09 = 9,
            strategy_10 = 10,
            strategy_11 = 11,
            strategy_12 = 12,
            strategy_13 = 13,
            strategy_14 = 14,
            strategy_15 = 15,
                    }
                }
            )+
        }
    };
}

/// One test per strategy index, for [`conformance_tests!`](crate::conformance_tests).
#[doc(hidden)]
#[macro_export]
macro_rules! __conformance_strategy_tests {
    (
        ($kernel:expr) ($items:expr) $backends:tt $optional:tt ($shape:expr)
        $($test:ident = $index:literal,)+
    ) => {
        $(
            #[test]
            fn $test() {
                let kernel = $kernel;
                $crate::__conformance_backends!(backends = $backends $optional);
                $crate::assert_listed_strategy(&kernel, $index, $items, $shape, &backends);
            }
        )+
    };
}

/// Binds `$name` to the backends of one test, for [`conformance_tests!`](crate::conformance_tests):
/// the given ones, then each optional one that is here.
#[doc(hidden)]
#[macro_export]
macro_rules! __conformance_backends {
    ($name:ident = [$($backend:expr),+ $(,)?] [$($optional:expr),* $(,)?]) => {
        let mut $name: ::std::vec::Vec<&dyn $crate::reexport::Backend<_>> = ::std::vec::Vec::new();
        $(
            // Each backend lives to the end of the test (shadowing keeps it).
            let backend = $backend;
            $name.push(&backend);
        )+
        $(
            let optional = $optional;
            match &optional {
                Some(backend) => $name.push(backend),
                None => eprintln!(
                    "conformance: {} is not here; checked without it",
                    stringify!($optional)
                ),
            }
        )*
    };
}
