//! What the apps' command lines share.

use std::fmt::Display;
use std::process::ExitCode;

/// The exit status of a run: success, or the error on stderr and failure.
pub fn exit<E: Display>(run: Result<(), E>) -> ExitCode {
    match run {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
