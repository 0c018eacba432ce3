//! Helpers shared by the CLI tests: run the binary, read its JSON or its error.
#![allow(dead_code)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs `kernlearn` with `args`.
pub fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kernlearn"))
        .args(args)
        .output()
        .expect("runs")
}

/// The one JSON object a successful run printed.
pub fn json_of(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

/// The error message of a run that must fail.
pub fn stderr_of(out: &Output) -> String {
    assert!(!out.status.success(), "should have failed");
    String::from_utf8_lossy(&out.stderr).into_owned()
}
