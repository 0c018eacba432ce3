//! `kernlearn generate`: writes a seeded stand-in of one of the papers' large sets
//! (`kernlearn::data::standin`), for time and memory benchmarks.

use crate::out::outln;
use crate::progress;
use clap::Args;
use kernlearn::data::standin::{shape, write_standin};
use kernlearn::data::Format;
use kernlearn::output::{write_atomic_with, Outputs};
use kernlearn::Result;
use serde_json::json;
use std::path::PathBuf;

/// Options of `kernlearn generate`.
#[derive(Args, Debug, Clone)]
pub struct GenerateArgs {
    /// Which set's shape: covtype (581,012 × 54, 44 one-hot columns), ijcnn1 (141,691 ×
    /// 22), year (515,345 × 90, regression) or cod-rna (59,535 × 8). Rows, columns and
    /// class balance are the real set's; the boundary is a seeded nonlinear one, so
    /// accuracies are not the papers'.
    #[arg(long)]
    pub shape: String,
    /// Rows to write (default: the real set's).
    #[arg(long)]
    pub rows: Option<usize>,
    /// Seed of the set.
    #[arg(long, default_value_t = 7)]
    pub seed: u64,
    /// Where to write it: CSV (header, last column `label` or `target`) or LIBSVM, by
    /// the extension.
    #[arg(long, short = 'o')]
    pub out: PathBuf,
    /// Replace an existing file.
    #[arg(long)]
    pub force: bool,
}

/// `kernlearn generate`.
pub fn run(a: &GenerateArgs, json: bool, quiet: bool) -> Result<()> {
    let shape = shape(&a.shape)?;
    let format = Format::from_path(&a.out)?;
    Outputs::new(&[], a.force).plan(&a.out)?;
    let rows = a.rows.unwrap_or(shape.rows);
    let bar = progress::bar(quiet, rows as u64, &format!("{} stand-in", shape.name));
    let start = std::time::Instant::now();
    write_atomic_with(&a.out, |tmp| {
        let file = std::fs::File::create(tmp).map_err(|e| kernlearn::Error::io(tmp, e))?;
        let mut out = std::io::BufWriter::new(file);
        write_standin(
            shape,
            Some(rows),
            a.seed,
            format,
            (&mut out, tmp),
            &|done| bar.set_position(done as u64),
        )
    })?;
    bar.finish_and_clear();
    let seconds = start.elapsed().as_secs_f64();
    if json {
        let report = json!({
            "shape": shape.name,
            "rows": rows,
            "features": shape.n_features(),
            "seed": a.seed,
            "file": a.out.display().to_string(),
            "seconds": seconds,
            "about": shape.about,
        });
        outln!("{report}");
    } else {
        outln!(
            "wrote {rows} rows × {} features of the {} stand-in to {} ({seconds:.1} s)",
            shape.n_features(),
            shape.name,
            a.out.display()
        );
    }
    Ok(())
}
