//! The `mcml` program (`cargo install reconverge-mcml-cli`): see the library's docs.

fn main() -> std::process::ExitCode {
    reconverge_mcml_cli::main()
}
