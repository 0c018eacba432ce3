//! Times C-SVC fits (RBF) on a training CSV and checks the model on a test CSV, to compare
//! solver changes on one machine: best-of-R fit time, SMO iterations, dual objective,
//! support vectors and the test predictions' agreement with the labels.
//!
//! ```text
//! cargo run --release -p kernlearn --example svm_fit_bench -- TRAIN TEST C GAMMA [REPEATS]
//! ```
//! The features are used as given (no scaling); classes in ascending order (as the Python
//! package). Prints one JSON line.

use kernlearn::data::read_dataset;
use kernlearn::kernel::Kernel;
use kernlearn::multiclass::ClassOrder;
use kernlearn::svm::{SvmModel, SvmParams};
use std::path::Path;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: svm_fit_bench TRAIN TEST C GAMMA [REPEATS]";
    if args.len() < 4 {
        return Err(usage.into());
    }
    let train = read_dataset(Path::new(&args[0]), None, None)?;
    let test = read_dataset(Path::new(&args[1]), None, None)?;
    let c: f64 = args[2].parse()?;
    let gamma: f64 = args[3].parse()?;
    let repeats: usize = args.get(4).map_or(Ok(3), |r| r.parse())?;
    let mut params = SvmParams::default();
    params.kernel = Kernel::Rbf { gamma };
    params.c = c;
    params.class_order = ClassOrder::Sorted;
    let mut times = Vec::new();
    let mut model = None;
    for _ in 0..repeats.max(1) {
        let start = Instant::now();
        let m = SvmModel::fit(&params, &train.x, &train.y)?;
        times.push(start.elapsed().as_secs_f64());
        model = Some(m);
    }
    let model = model.ok_or("no fit")?;
    let pred = model.predict(&test.x)?;
    let correct = pred.iter().zip(&test.y).filter(|(p, y)| p == y).count();
    let checksum = pred.iter().enumerate().fold(0u64, |h, (t, &p)| {
        h.wrapping_mul(31)
            .wrapping_add((t as u64) * (p > 0.0) as u64)
    });
    println!(
        "{{\"fit_s\": {:.4}, \"all_s\": {:?}, \"iterations\": {}, \"objective\": {:.12e}, \"n_sv\": {}, \"accuracy\": {:.5}, \"pred_hash\": {}}}",
        times.iter().cloned().fold(f64::INFINITY, f64::min),
        times.iter().map(|t| (t * 1000.0).round() / 1000.0).collect::<Vec<_>>(),
        model.info.iterations,
        model.info.objectives.iter().sum::<f64>(),
        model.n_support(),
        correct as f64 / test.y.len() as f64,
        checksum
    );
    Ok(())
}
