//! The example's command line, as a new user first tries it.

use std::process::Command;

fn user_workload(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_user-workload"))
        .args(args)
        .output()
        .expect("the example's binary runs")
}

#[test]
fn help_says_what_it_runs_and_its_options() {
    for flag in ["--help", "-h"] {
        let out = user_workload(&[flag]);
        assert!(out.status.success(), "{flag}: {out:?}");
        let help = String::from_utf8(out.stdout).expect("UTF-8");
        assert!(help.contains("every strategy its"), "{help}");
        assert!(help.contains("--compare <DIR>"), "{help}");
        assert!(help.contains("--advise [<ITEMS>]"), "{help}");
    }
}

#[test]
fn an_unknown_argument_is_refused_with_the_usage() {
    let out = user_workload(&["--frobnicate"]);
    // clap's code for a usage error, before any work.
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let said = String::from_utf8(out.stderr).expect("UTF-8");
    assert!(
        said.contains("unexpected argument '--frobnicate'"),
        "{said}"
    );
    assert!(said.contains("Usage: user-workload"), "{said}");
}
