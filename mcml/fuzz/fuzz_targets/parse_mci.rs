//! Any bytes: the parser returns an input or a line-numbered error, never panics; an input it
//! accepts prints back to text that parses to the same input, and its runs pass or fail the
//! run checks without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use reconverge_mcml::limits::check_run;
use reconverge_mcml::mci::parse_mci_bytes;

fuzz_target!(|data: &[u8]| {
    match parse_mci_bytes(data, "fuzz.mci") {
        Ok(input) => {
            let printed = input.to_mci();
            let back = parse_mci_bytes(printed.as_bytes(), "printed.mci")
                .expect("printed input parses");
            assert_eq!(back.runs.len(), input.runs.len());
            for (a, b) in back.runs.iter().zip(&input.runs) {
                assert_eq!(
                    (&a.output_file, a.photons, a.grid, &a.layers, a.n_above, a.n_below),
                    (&b.output_file, b.photons, b.grid, &b.layers, b.n_above, b.n_below)
                );
                let _ = check_run::<f32>(b);
                let _ = check_run::<f64>(b);
            }
        }
        Err(e) => assert!(e.line > 0, "{e}"),
    }
});
