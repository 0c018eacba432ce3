//! `fit --weight-file` / `--weight-column` for the learned kernels that honour per-sample
//! weights (the catalogue's `takes`): integer weights fit what the file with each row
//! repeated that often fits, and a method without a weighted form refuses them, naming
//! itself; `methods` says which methods take them.

mod common;

use common::{fixture, json_of, run, scratch_dir, stderr_of};

/// UNIFORM and SPG-GMKL with integer weights (0 to 3) reach the dual objective of the
/// same fit on the rows repeated as often as their weights (rows of weight 0 dropped);
/// with `--select grid` the weighted fit runs; MWUMKL refuses weights, naming itself.
#[test]
fn weighted_learned_kernels_fit_what_repeated_rows_fit() {
    let dir = scratch_dir("weights", "copies");
    let text = std::fs::read_to_string(fixture("wine.train.csv")).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let (mut weights, mut repeated) = (String::new(), format!("{header}\n"));
    for (i, line) in lines.enumerate() {
        let w = (i * 7 + i / 5) % 4;
        weights.push_str(&format!("{w}\n"));
        (0..w).for_each(|_| repeated.push_str(&format!("{line}\n")));
    }
    let (weight_file, repeated_csv) = (dir.join("w.txt"), dir.join("repeated.csv"));
    std::fs::write(&weight_file, weights).unwrap();
    std::fs::write(&repeated_csv, repeated).unwrap();
    let (wine, wf) = (fixture("wine.train.csv"), weight_file.display().to_string());
    let repeated = repeated_csv.display().to_string();
    let model = dir.join("m.json").display().to_string();
    let fit = |method: &str, extra: &[&str]| {
        let mut args = vec!["fit", "--json", "--force", "--scale", "none", "-o", &model];
        args.extend_from_slice(&[
            "--method",
            method,
            "--kernels",
            "linear@all;rbf(gamma=1)@all",
        ]);
        args.extend_from_slice(extra);
        run(&args)
    };
    for (method, tol) in [("uniform", "1e-10"), ("spg-gmkl", "1e-10")] {
        let objective = |extra: &[&str]| {
            let out = fit(method, extra);
            assert!(out.status.success(), "{method}: {}", stderr_of(&out));
            json_of(&out)["objective"].as_f64().unwrap()
        };
        let weighted = objective(&["--data", &wine, "--weight-file", &wf, "--tol", tol]);
        let copies = objective(&["--data", &repeated, "--tol", tol]);
        let gap = (weighted - copies).abs() / copies.abs();
        assert!(gap < 1e-6, "{method}: {weighted} vs {copies}");
        let plain = objective(&["--data", &wine, "--tol", tol]);
        assert!((plain - weighted).abs() > 1e-3 * plain.abs(), "{method}");
    }
    let out = fit(
        "uniform",
        &["--data", &wine, "--weight-file", &wf, "--select", "grid"],
    );
    assert!(out.status.success(), "{}", stderr_of(&out));
    let out = fit("mwumkl", &["--data", &wine, "--weight-file", &wf]);
    assert!(!out.status.success());
    let message = stderr_of(&out);
    assert!(
        message.contains("MWUMKL cannot honour per-sample weights"),
        "{message}"
    );
}

/// `methods` has a `takes` column, `methods METHOD` a line on weights and sparse rows,
/// and `methods --json` both flags.
#[test]
fn methods_say_which_take_weights() {
    let out = run(&["methods"]);
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(text.contains("takes"), "{text}");
    let row = |name: &str| {
        (text.lines())
            .find(|l| l.split('|').nth(1).map(str::trim) == Some(name))
            .unwrap_or_else(|| panic!("no row {name} in {text}"))
            .to_string()
    };
    assert!(row("svc").contains("weights, sparse"), "{}", row("svc"));
    assert!(row("spg-gmkl").contains("weights"), "{}", row("spg-gmkl"));
    assert!(!row("mwumkl").contains("weights"), "{}", row("mwumkl"));
    let one = |name: &str| String::from_utf8_lossy(&run(&["methods", name]).stdout).to_string();
    assert!(one("uniform").contains("per-sample weights (--weight-file, --weight-column): yes"));
    assert!(one("dank").contains("per-sample weights (--weight-file, --weight-column): refused"));
    let v = json_of(&run(&["methods", "--json"]));
    let entry = |name: &str| {
        (v["methods"].as_array().unwrap().iter())
            .find(|m| m["name"] == name)
            .unwrap()
            .clone()
    };
    assert_eq!(entry("uniform")["sample_weights"], true);
    assert_eq!(entry("easymkl")["sample_weights"], false);
    assert_eq!(entry("svr")["sparse"], true);
}
