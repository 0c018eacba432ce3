//! Times k-means on a dataset file (features scaled to [0, 1], as before a kernel method).
//!
//! ```text
//! cargo run --release -p kernlearn --example kmeans_bench -- FILE K [K ...] [--seed S] [--n-init R]
//! ```
//! Prints one JSON line per k: n, d, k, seconds, iterations, inertia, converged.

use kernlearn::cluster::KMeans;
use kernlearn::data::{read_dataset, ScaleMode, Scaler};
use std::path::Path;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: kmeans_bench FILE K [K ...] [--seed S] [--n-init R]";
    let file = args.first().ok_or(usage)?;
    let mut ks = Vec::new();
    let (mut seed, mut n_init) = (0u64, 1usize);
    let mut rest = args[1..].iter();
    while let Some(a) = rest.next() {
        match a.as_str() {
            "--seed" => seed = rest.next().ok_or(usage)?.parse()?,
            "--n-init" => n_init = rest.next().ok_or(usage)?.parse()?,
            k => ks.push(k.parse::<usize>()?),
        }
    }
    if ks.is_empty() {
        return Err(usage.into());
    }
    let data = read_dataset(Path::new(file), None, None)?;
    let x = Scaler::fit(ScaleMode::ZeroOne, &data.x).transform(&data.x)?;
    for k in ks {
        let start = Instant::now();
        let fit = KMeans::new(k).seed(seed).n_init(n_init).fit(&x)?;
        let secs = start.elapsed().as_secs_f64();
        println!(
            "{{\"file\": \"{file}\", \"n\": {}, \"d\": {}, \"k\": {k}, \"seconds\": {secs:.4}, \
             \"iterations\": {}, \"inertia\": {:.6}, \"converged\": {}}}",
            x.n_rows(),
            x.n_cols(),
            fit.iterations,
            fit.inertia,
            fit.converged
        );
    }
    Ok(())
}
