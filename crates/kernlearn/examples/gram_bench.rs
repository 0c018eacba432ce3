//! Times the RBF Gram matrix beside faer's matrix product `X Xᵀ` (DGEMM) of the same
//! shape, in GFLOP/s, on one machine in one run.
//!
//! ```text
//! cargo run --release -p kernlearn --example gram_bench -- FILE [--rows N] [--gamma G] [--repeats R]
//! ```
//! The features are scaled to [0, 1]; the first `N` rows are used (default: half the file,
//! a training half). Both rates count `2 n² d` floating-point operations, the work of the
//! full product `X Xᵀ`: the Gram matrix computes its lower triangle by a triangular product
//! and mirrors it, then applies `exp` to every entry, so its rate is "DGEMM-equivalent"
//! (the work a plain DGEMM-then-map would do). Also timed: the same Gram as `f32` (the
//! precision of a solver's cache). DGEMM is timed twice: into a preallocated matrix, and
//! into a new one (allocation and first touch of its pages included, as for the Gram
//! matrix, which returns a new matrix); the ratios are against the first, the faster.
//! Prints one JSON line; median of `R` repeats (default 5).

use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, MatRef, Par};
use kernlearn::data::{read_dataset, ScaleMode, Scaler};
use kernlearn::kernel::Kernel;
use std::path::Path;
use std::time::Instant;

fn median_seconds(repeats: usize, mut run: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..repeats)
        .map(|_| {
            let start = Instant::now();
            run();
            start.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: gram_bench FILE [--rows N] [--gamma G] [--repeats R]";
    let file = args.first().ok_or(usage)?;
    let (mut rows, mut gamma, mut repeats) = (None, 0.5f64, 5usize);
    let mut rest = args[1..].iter();
    while let Some(a) = rest.next() {
        let value = rest.next().ok_or(usage)?;
        match a.as_str() {
            "--rows" => rows = Some(value.parse::<usize>()?),
            "--gamma" => gamma = value.parse()?,
            "--repeats" => repeats = value.parse::<usize>()?.max(1),
            other => return Err(format!("unknown option {other}; {usage}").into()),
        }
    }
    let data = read_dataset(Path::new(file), None, None)?;
    let n = rows.unwrap_or(data.x.n_rows() / 2).min(data.x.n_rows());
    let idx: Vec<usize> = (0..n).collect();
    let x = Scaler::fit(ScaleMode::ZeroOne, &data.x)
        .transform(&data.x)?
        .select_rows(&idx);
    let d = x.n_cols();
    let kernel = Kernel::Rbf { gamma };
    let flops = 2.0 * (n as f64) * (n as f64) * d as f64;

    let xm = MatRef::from_row_major_slice(x.as_slice(), n, d);
    let mut product = Mat::<f64>::zeros(n, n);
    let dgemm = median_seconds(repeats, || {
        matmul(
            product.as_mut(),
            Accum::Replace,
            xm,
            xm.transpose(),
            1.0,
            Par::rayon(0),
        );
    });
    // The Gram matrix returns a new matrix; so does this product (allocation and first
    // touch of its pages included).
    let mut checksum = 0.0;
    let dgemm_fresh = median_seconds(repeats, || {
        let mut fresh = Mat::<f64>::zeros(n, n);
        matmul(
            fresh.as_mut(),
            Accum::Replace,
            xm,
            xm.transpose(),
            1.0,
            Par::rayon(0),
        );
        checksum += fresh[(n - 1, 0)];
    });
    let gram = median_seconds(repeats, || {
        let g = kernel.gram(&x).expect("the Gram matrix of finite features");
        checksum = g[(n - 1, 0)];
    });
    let gram_f32 = median_seconds(repeats, || {
        let g = kernel.gram_f32(&x).expect("the f32 Gram matrix");
        checksum += f64::from(g[n * n - 1]);
    });
    // Into storage kept from one run to the next, as the warm DGEMM above.
    let mut kept = vec![0f32; n * n];
    let gram_f32_warm = median_seconds(repeats, || {
        kernel
            .gram_f32_into(&x, &mut kept)
            .expect("the f32 Gram matrix");
        checksum += f64::from(kept[n * n - 1]);
    });
    let gflops = |s: f64| flops / s / 1e9;
    println!(
        "{{\"file\": \"{file}\", \"n\": {n}, \"d\": {d}, \"threads\": {}, \"repeats\": {repeats}, \
         \"dgemm_s\": {dgemm:.4}, \"dgemm_gflops\": {:.2}, \"dgemm_fresh_s\": {dgemm_fresh:.4}, \
         \"dgemm_fresh_gflops\": {:.2}, \"gram_s\": {gram:.4}, \
         \"gram_gflops\": {:.2}, \"gram_over_dgemm\": {:.3}, \"gram_f32_s\": {gram_f32:.4}, \
         \"gram_f32_gflops\": {:.2}, \"gram_f32_over_dgemm\": {:.3}, \
         \"gram_f32_warm_s\": {gram_f32_warm:.4}, \"gram_f32_warm_gflops\": {:.2}, \
         \"gram_f32_warm_over_dgemm\": {:.3}, \"checksum\": {checksum:.6}}}",
        rayon::current_num_threads(),
        gflops(dgemm),
        gflops(dgemm_fresh),
        gflops(gram),
        dgemm / gram,
        gflops(gram_f32),
        dgemm / gram_f32,
        gflops(gram_f32_warm),
        dgemm / gram_f32_warm,
    );
    Ok(())
}
