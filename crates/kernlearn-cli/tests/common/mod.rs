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

/// Splits a README command line into arguments: blanks separate, single quotes group,
/// `#` starts a comment.
pub fn shell_words(line: &str) -> Vec<String> {
    let (mut words, mut word, mut quoted, mut started) = (Vec::new(), String::new(), false, false);
    for ch in line.chars() {
        match ch {
            '\'' => {
                quoted = !quoted;
                started = true;
            }
            '#' if !quoted => break,
            c if c.is_whitespace() && !quoted => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            c => {
                word.push(c);
                started = true;
            }
        }
    }
    if started {
        words.push(word);
    }
    words
}

/// The `kernlearn …` command lines of the README's ```sh blocks, in order, as words.
pub fn readme_commands() -> Vec<Vec<String>> {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let mut in_sh = false;
    let mut commands = Vec::new();
    for line in readme.lines().map(str::trim) {
        if line.starts_with("```") {
            in_sh = line == "```sh" && !in_sh;
            continue;
        }
        let words = shell_words(line);
        if in_sh && words.first().map(String::as_str) == Some("kernlearn") {
            commands.push(words[1..].to_vec());
        }
    }
    commands
}

/// A file of `tests/fixtures/`, as a string path.
pub fn fixture(name: &str) -> String {
    repo()
        .join("tests/fixtures")
        .join(name)
        .display()
        .to_string()
}

/// A fresh scratch directory for one test (`prefix`-`name`, unique per process).
pub fn scratch_dir(prefix: &str, name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("{prefix}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}
