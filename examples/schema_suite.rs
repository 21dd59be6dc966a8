//! Runs the official JSON-Schema-Test-Suite against the crate's validator and prints the
//! counts per dialect.
//!
//! ```text
//! cargo run --example schema_suite -- [SUITE_DIR] [--verbose]
//! ```
//!
//! `SUITE_DIR` is a checkout of json-schema-org/JSON-Schema-Test-Suite (its `tests/` and
//! `remotes/` folders); by default `../shared/spec/json-schema-test-suite` next to the crate.
//! Every folder under `tests/` named after a dialect the validator knows is run. Output:
//!
//! ```text
//! draft2020-12: N passed, N failed
//! draft2020-12 optional: N passed, N failed
//! ```
//!
//! `--verbose` lists each failure under its counts. The exit status is 0 whatever the counts;
//! `tests/json_schema_suite.rs` is the test that holds them.

use modelcontext_polyfill::schema::suite::{self, SuiteCounts};
use modelcontext_polyfill::schema::Dialect;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut verbose = false;
    let mut dir = None;
    for argument in std::env::args().skip(1) {
        match argument.as_str() {
            "--verbose" | "-v" => verbose = true,
            "--help" | "-h" => {
                println!("usage: schema_suite [SUITE_DIR] [--verbose]");
                return ExitCode::SUCCESS;
            }
            _ => dir = Some(PathBuf::from(argument)),
        }
    }
    let dir = dir.unwrap_or_else(|| {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/spec/json-schema-test-suite")
    });
    match run(&dir, verbose) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("schema_suite: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(dir: &Path, verbose: bool) -> Result<(), String> {
    let remotes = suite::read_tree(&dir.join("remotes"))?;
    let tests = dir.join("tests");
    let mut folders: Vec<(Dialect, PathBuf)> = std::fs::read_dir(&tests)
        .map_err(|error| format!("cannot read {}: {error}", tests.display()))?
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name();
            let dialect = Dialect::from_name(name.to_str()?)?;
            Some((dialect, entry.path()))
        })
        .collect();
    if folders.is_empty() {
        return Err(format!("no dialect folders under {}", tests.display()));
    }
    // Newest dialect first.
    folders.sort_by_key(|(dialect, _)| {
        std::cmp::Reverse(Dialect::ALL.iter().position(|d| d == dialect))
    });

    for (dialect, folder) in folders {
        let files = suite::read_tree(&folder)?;
        let report = suite::run_dialect(dialect, &files, &remotes)?;
        print_counts(&dialect.to_string(), &report.required, verbose);
        print_counts(&format!("{dialect} optional"), &report.optional, verbose);
    }
    Ok(())
}

fn print_counts(label: &str, counts: &SuiteCounts, verbose: bool) {
    println!(
        "{label}: {} passed, {} failed",
        counts.passed, counts.failed
    );
    if verbose {
        for failure in &counts.failures {
            println!("  FAIL {}\n       {}", failure.id, failure.detail);
        }
    }
}
