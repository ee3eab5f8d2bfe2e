//! MCML photon simulation: `.mci` in, `.mco` out, MCML's own formats; the README's main job.
//!
//! The command line lives in the publishable crate `reconverge-mcml-cli` (`mcml/cli`), whose
//! binary `cargo install reconverge-mcml-cli` installs as `mcml`; this example runs the same
//! code, so that `cargo run --release --example mcml -- ARGS` in a checkout is that program.
//! Features `cuda` and `mpi` of this crate turn on the CLI's features of the same names.

fn main() -> std::process::ExitCode {
    reconverge_mcml_cli::main()
}
