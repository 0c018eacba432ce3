//! Times the grid search with and without alpha seeding across folds (each σ's other
//! folds start from its first fold's solutions at the smallest C), interleaved so that
//! both see the same machine load, and checks that they pick the same point.
//!
//! ```text
//! cargo run --release -p kernlearn --example grid_seeding_bench -- FILE [--repeats R]
//! ```
//! The grid is the papers' 11 × 11 (σ and C in 2⁻⁵ … 2⁵), 5 folds, seed 0, LIBSVM's
//! tolerance 10⁻³, features as in the file (scale them first, as `bench_select.py`'s
//! sample is). Prints one JSON line: the median seconds of each, the picks, and the
//! largest difference of one grid point's CV score.

use kernlearn::data::read_dataset;
use kernlearn::select::{powers_of_two, Grid, GridSearch, Selection};
use kernlearn::svm::SvmParams;
use std::path::Path;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: grid_seeding_bench FILE [--repeats R]";
    let file = args.first().ok_or(usage)?;
    let repeats: usize = match args.iter().position(|a| a == "--repeats") {
        Some(i) => args.get(i + 1).ok_or(usage)?.parse()?,
        None => 3,
    };
    let data = read_dataset(Path::new(file), None, None)?;
    let mut search = GridSearch::new(SvmParams::default());
    search.grid = Grid {
        sigmas: powers_of_two(-5, 5),
        cs: powers_of_two(-5, 5),
        epsilons: vec![],
    };
    let mut times = [Vec::new(), Vec::new()];
    let mut picks: [Option<Selection>; 2] = [None, None];
    for _ in 0..repeats {
        for (k, seeding) in [true, false].into_iter().enumerate() {
            search.fold_seeding = seeding;
            let start = Instant::now();
            let sel = search.run(&data.x, &data.y, &|| {})?;
            times[k].push(start.elapsed().as_secs_f64());
            picks[k] = Some(sel);
        }
    }
    let median = |t: &mut Vec<f64>| {
        t.sort_by(f64::total_cmp);
        t[t.len() / 2]
    };
    let (seeded, cold) = (picks[0].take().ok_or(usage)?, picks[1].take().ok_or(usage)?);
    let max_diff = seeded
        .points
        .iter()
        .zip(&cold.points)
        .map(|(a, b)| (a.score - b.score).abs())
        .fold(0.0, f64::max);
    println!(
        "{}",
        serde_json::json!({
            "file": file,
            "rows": data.x.n_rows(),
            "seeded_seconds": median(&mut times[0]),
            "cold_seconds": median(&mut times[1]),
            "seeded_pick": [seeded.best.sigma, seeded.best.c, seeded.best.score],
            "cold_pick": [cold.best.sigma, cold.best.c, cold.best.score],
            "same_pick": (seeded.best.sigma, seeded.best.c) == (cold.best.sigma, cold.best.c),
            "max_score_difference": max_diff,
        })
    );
    Ok(())
}
