//! `kernlearn split`: a seeded train/test split of a data file into two files, so the
//! fit / predict examples start from files a command made.

use crate::args::DataArgs;
use crate::out::outln;
use clap::Args;
use kernlearn::data::{to_csv_string, to_keel_string, to_libsvm_string, Dataset, Format};
use kernlearn::output::{write_atomic, Outputs};
use kernlearn::{Error, Result};
use std::path::{Path, PathBuf};

/// Options of `kernlearn split`.
#[derive(Args, Debug, Clone)]
pub struct SplitArgs {
    #[command(flatten)]
    pub data: DataArgs,
    /// Where to write the training part (format from the extension).
    #[arg(long)]
    pub train_out: PathBuf,
    /// Where to write the test part (format from the extension).
    #[arg(long)]
    pub test_out: PathBuf,
    /// Fraction of the rows in the test part.
    #[arg(long, default_value_t = 0.2)]
    pub test_fraction: f64,
    /// Seed of the split.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Replace existing output files.
    #[arg(long)]
    pub force: bool,
}

/// The text of `data` in the format of `path`'s extension.
fn formatted(data: &Dataset, path: &Path) -> Result<String> {
    match Format::from_path(path)? {
        Format::Csv => to_csv_string(data),
        Format::Libsvm => to_libsvm_string(data),
        Format::Keel => {
            let relation = path
                .file_stem()
                .map_or("data".into(), |s| s.to_string_lossy());
            to_keel_string(data, &relation)
        }
        Format::Gram => Err(kernlearn::Error::param(
            "output",
            "gram sets are read-only; write the split as csv, libsvm or keel",
        )),
    }
}

/// `kernlearn split`: stratified by class when the labels are classes (as `evaluate`
/// does), plain random otherwise (a `target` column).
pub fn run(a: &SplitArgs, json: bool) -> Result<()> {
    let mut outputs = Outputs::new(&[&a.data.data], a.force);
    outputs.plan(&a.train_out)?;
    outputs.plan(&a.test_out)?;
    let data = a.data.read()?;
    if data.y.is_empty() {
        return Err(Error::data(format!(
            "{}: no label column to split by",
            a.data.data.display()
        )));
    }
    let classify = data.target_name != "target" && data.validate_classification().is_ok();
    let (train, test) = crate::split(&data, classify, a.test_fraction, a.seed)?;
    write_atomic(&a.train_out, formatted(&train, &a.train_out)?.as_bytes())?;
    write_atomic(&a.test_out, formatted(&test, &a.test_out)?.as_bytes())?;
    if json {
        outln!(
            "{}",
            serde_json::json!({
                "train": a.train_out.display().to_string(), "n_train": train.len(),
                "test": a.test_out.display().to_string(), "n_test": test.len(),
                "stratified": classify,
            })
        );
    } else {
        outln!(
            "wrote {} ({} rows) and {} ({} rows){}",
            a.train_out.display(),
            train.len(),
            a.test_out.display(),
            test.len(),
            if classify {
                ", stratified by class"
            } else {
                ""
            }
        );
    }
    Ok(())
}
