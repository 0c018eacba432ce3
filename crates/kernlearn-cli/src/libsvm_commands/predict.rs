//! `kernlearn svm-predict`: LIBSVM's `svm-predict` on a LIBSVM model file (written by
//! LIBSVM or by `kernlearn svm-train`), with LIBSVM's arithmetic, output file and
//! printed lines.

use super::{integer, say, value, Fail};
use kernlearn::data::{read_libsvm_sparse, SparseFeatures};
use kernlearn::svm::{printf_g, SvmModel, SvmType};
use std::fmt::Write as _;
use std::path::Path;

pub(crate) const USAGE: &str = "\
Usage: svm-predict [options] test_file model_file output_file
options:
-b probability_estimates: whether to predict probability estimates, 0 or 1 (default 0); for one-class SVM only 0 is supported
-q : quiet mode (no outputs)
The output file is replaced if it exists, as LIBSVM's svm-predict does.
";

/// svm-predict's command line.
#[derive(Debug, PartialEq)]
pub(crate) struct PredictArgs {
    probability: bool,
    quiet: bool,
    test: String,
    model: String,
    output: String,
}

/// Parses svm-predict's arguments (after the command name).
pub(crate) fn parse(args: &[String]) -> Result<PredictArgs, Fail> {
    let (mut probability, mut quiet) = (false, false);
    let mut i = 0;
    while i < args.len() && args[i].starts_with('-') && args[i].len() > 1 {
        match args[i].as_str() {
            "-q" => quiet = true,
            "-b" => {
                let v = integer(value(args, &mut i, "-b")?, "-b")?;
                if v != 0 && v != 1 {
                    return Err(Fail::Usage(Some(format!("option -b: {v} is not 0 or 1"))));
                }
                probability = v == 1;
            }
            opt => return Err(Fail::Usage(Some(format!("Unknown option: {opt}")))),
        }
        i += 1;
    }
    match &args[i..] {
        [test, model, output] => Ok(PredictArgs {
            probability,
            quiet,
            test: test.clone(),
            model: model.clone(),
            output: output.clone(),
        }),
        [] => Err(Fail::Usage(None)),
        rest => Err(Fail::Usage(Some(format!(
            "expected test_file model_file output_file, got {} file argument(s)",
            rest.len()
        )))),
    }
}

/// Reads the test rows: LIBSVM rows, or for a precomputed kernel rows whose `0:serial`
/// column is dropped (kernel values at indices 1..).
fn read_test(path: &Path, model: &SvmModel) -> Result<(Vec<f64>, SparseFeatures), Fail> {
    if model.params.kernel.is_precomputed() {
        let rows = super::train::read_precomputed(path, false)?;
        return Ok((rows.y, rows.x));
    }
    let data = read_libsvm_sparse(path, None)?;
    Ok((data.y, data.x))
}

/// Runs svm-predict.
pub(crate) fn run(args: &[String]) -> Result<(), Fail> {
    let a = parse(args)?;
    let (test, model_path) = (Path::new(&a.test), Path::new(&a.model));
    super::refuse_output_over_input(Path::new(&a.output), &[test, model_path])?;
    let model = SvmModel::load_libsvm_model(Path::new(&a.model))
        .map_err(|e| Fail::Error(format!("can't open model file {}: {e}", a.model)))?;
    let svm_type = model.params.svm_type;
    let regression = svm_type.is_regressor();
    let has_probability = match svm_type {
        SvmType::CSvc | SvmType::NuSvc => !model.prob_a.is_empty() && !model.prob_b.is_empty(),
        SvmType::EpsilonSvr | SvmType::NuSvr => !model.prob_a.is_empty(),
        SvmType::OneClass => false,
    };
    let info = |line: &str| {
        if !a.quiet {
            say!("{line}");
        }
    };
    if a.probability && !has_probability {
        return Err(Fail::Error(
            "Model does not support probabiliy estimates".to_string(),
        ));
    }
    if !a.probability && has_probability {
        info("Model supports probability estimates, but disabled in prediction.");
    }
    let (y, x) = read_test(Path::new(&a.test), &model)?;
    let mut out = String::new();
    let predicted: Vec<f64> = if a.probability && !regression {
        out.push_str("labels");
        for &c in &model.classes {
            let _ = write!(out, " {}", c as i64);
        }
        out.push('\n');
        let rows = model.predict_proba_libsvm(&x)?;
        for (label, p) in &rows {
            out.push_str(&printf_g(*label, 6));
            for &v in p {
                let _ = write!(out, " {}", printf_g(v, 6));
            }
            out.push('\n');
        }
        rows.into_iter().map(|(label, _)| label).collect()
    } else {
        if a.probability {
            info(&format!(
                "Prob. model for test data: target value = predicted value + z,\nz: Laplace \
                 distribution e^(-|z|/sigma)/(2sigma),sigma={}",
                printf_g(model.prob_a[0], 6)
            ));
        }
        let p = model.predict_libsvm(&x)?;
        for &v in &p {
            out.push_str(&printf_g(v, 17));
            out.push('\n');
        }
        p
    };
    kernlearn::output::write_atomic(Path::new(&a.output), out.as_bytes())
        .map_err(|e| Fail::Error(format!("can't open output file {}: {e}", a.output)))?;
    if !a.quiet {
        print_scores(&y, &predicted, regression);
    }
    Ok(())
}

/// The lines svm-predict prints: accuracy, or mean squared error and squared
/// correlation coefficient.
fn print_scores(y: &[f64], predicted: &[f64], regression: bool) {
    let total = y.len();
    let n = total as f64;
    if regression {
        let (mut err, mut sp, mut st, mut spp, mut stt, mut spt) = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
        for (&t, &p) in y.iter().zip(predicted) {
            err += (p - t) * (p - t);
            sp += p;
            st += t;
            spp += p * p;
            stt += t * t;
            spt += p * t;
        }
        say!("Mean squared error = {} (regression)", printf_g(err / n, 6));
        let r2 = ((n * spt - sp * st) * (n * spt - sp * st))
            / ((n * spp - sp * sp) * (n * stt - st * st));
        say!(
            "Squared correlation coefficient = {} (regression)",
            printf_g(r2, 6)
        );
    } else {
        let correct = y.iter().zip(predicted).filter(|(t, p)| t == p).count();
        say!(
            "Accuracy = {}% ({correct}/{total}) (classification)",
            printf_g(correct as f64 / n * 100.0, 6)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::super::words as args;

    #[test]
    fn parses_options_and_three_files() {
        let a = parse(&args("-b 1 -q test m out")).unwrap();
        assert!(a.probability && a.quiet);
        assert_eq!((a.test.as_str(), a.output.as_str()), ("test", "out"));
        assert!(
            matches!(parse(&args("-b 2 t m o")), Err(Fail::Usage(Some(m))) if m.contains("-b"))
        );
        assert!(matches!(parse(&args("t m")), Err(Fail::Usage(Some(_)))));
        assert!(
            matches!(parse(&args("-z 1 t m o")), Err(Fail::Usage(Some(m))) if m.contains("-z"))
        );
    }
}
