//! Results are deterministic for a seed, also across thread counts: the same decision
//! values everywhere, and the same model file for the SMO machines and MWUMKL / LD-MKL
//! (KNPL stores its timings, and DANK's learned F can differ in its last bits: parallel
//! sums are grouped by thread).

mod common;

use common::repo;
use std::process::Command;

fn run_with_threads(threads: usize, args: &[&str]) -> Vec<u8> {
    let out = Command::new(env!("CARGO_BIN_EXE_kernlearn"))
        .env("RAYON_NUM_THREADS", threads.to_string())
        .args(args)
        .arg("--quiet")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

#[test]
fn one_and_two_threads_give_the_same_results() {
    let dir = std::env::temp_dir().join(format!("kernlearn-det-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases: &[(&str, &[&str])] = &[
        (
            "heart.csv",
            &["--select", "grid", "--sigmas", "1,2", "--cs", "1,4"],
        ),
        ("heart.csv", &["-m", "dank", "--sigma", "2"]),
        ("heart.csv", &["-m", "mwumkl"]),
        ("wine.csv", &["-m", "ldmkl"]),
        ("sonar.csv", &["-m", "knpl", "--sigma", "2", "-c", "4"]),
    ];
    for (k, (data, method)) in cases.iter().enumerate() {
        let data = repo().join("data").join(data).display().to_string();
        let mut models = Vec::new();
        let mut decisions = Vec::new();
        for threads in [1, 2] {
            let model = dir
                .join(format!("m{k}-{threads}.json"))
                .display()
                .to_string();
            let fit = [&["fit", "-d", &data, "-o", &model, "--force"][..], method].concat();
            run_with_threads(threads, &fit);
            let predict = [
                "predict",
                "--model",
                &model,
                "-d",
                &data,
                "--decision-values",
            ];
            decisions.push(run_with_threads(threads, &predict));
            models.push(std::fs::read_to_string(&model).unwrap());
        }
        assert!(
            decisions[0] == decisions[1],
            "{method:?}: decision values differ"
        );
        let learns_a_matrix = method.contains(&"knpl") || method.contains(&"dank");
        if !learns_a_matrix {
            assert!(models[0] == models[1], "{method:?}: model files differ");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
