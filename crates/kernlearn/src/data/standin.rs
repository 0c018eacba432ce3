//! Seeded stand-ins of the papers' large data sets, for time and memory.
//!
//! The real ijcnn1, covtype and Year-Prediction files (DANK's Table 3, the thesis's
//! Table 5.4) cannot be downloaded everywhere. A stand-in has the real set's shape: its
//! number of rows, its continuous columns and its groups of one-hot columns, its class
//! balance (or, for a regression set, its target's range), unscaled columns of different
//! ranges as real data has, and a learnable, nonlinear, noisy boundary. Its accuracies
//! are not the papers'; its times and memory are those of a set of that shape.
//!
//! The label function is a sum of `CENTRES` Gaussian bumps over a random projection of
//! the continuous columns to `PROJECTED` dimensions, plus a random effect per one-hot
//! category, plus noise; a classifier's threshold is that sum's quantile at the class
//! balance, estimated on a pilot sample. Rows are drawn in blocks of `BLOCK`, each from
//! its own seeded stream, so a file is the same whatever the thread count, and a longer
//! file of one seed starts with the shorter one's rows.

use super::Format;
use crate::{Error, Result};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};
use rayon::prelude::*;
use std::fmt::Write as _;
use std::path::Path;

/// The shape of one of the papers' large sets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shape {
    /// Its name (`covtype`, `ijcnn1`, …).
    pub name: &'static str,
    /// Rows of the real set (train and test together).
    pub rows: usize,
    /// Continuous columns (first in each row).
    pub continuous: usize,
    /// Sizes of the one-hot groups that follow them (one column per category).
    pub one_hot: &'static [usize],
    /// A regression set (a year-like target) rather than a classification one (±1).
    pub regression: bool,
    /// Share of positive labels (classification).
    pub positive_share: f64,
    /// Where the shape comes from.
    pub about: &'static str,
}

impl Shape {
    /// Number of feature columns.
    pub fn n_features(&self) -> usize {
        self.continuous + self.one_hot.iter().sum::<usize>()
    }
}

/// The shapes the papers' large-scale experiments use.
pub static SHAPES: &[Shape] = &[
    Shape {
        name: "covtype",
        rows: 581_012,
        continuous: 10,
        one_hot: &[4, 40],
        regression: false,
        positive_share: 0.488,
        about: "covtype.binary (DANK Table 3: 464,810 train / 116,202 test): 10 continuous, 4 wilderness and 40 soil one-hot columns, 48.8 % positives",
    },
    Shape {
        name: "ijcnn1",
        rows: 141_691,
        continuous: 12,
        one_hot: &[10],
        regression: false,
        positive_share: 0.097,
        about: "ijcnn1 (DANK Table 3: 49,990 train / 91,701 test): 10 one-hot and 12 continuous columns, 9.7 % positives",
    },
    Shape {
        name: "year",
        rows: 515_345,
        continuous: 90,
        one_hot: &[],
        regression: true,
        positive_share: 0.0,
        about: "YearPredictionMSD (thesis Table 5.4): 90 continuous timbre columns, a year target in 1922–2011",
    },
    Shape {
        name: "cod-rna",
        rows: 59_535,
        continuous: 8,
        one_hot: &[],
        regression: false,
        positive_share: 0.333,
        about: "cod-rna (thesis Table 5.4): 8 continuous columns, one third positives",
    },
];

/// The shape called `name`; an error listing the known ones.
pub fn shape(name: &str) -> Result<&'static Shape> {
    SHAPES.iter().find(|s| s.name == name).ok_or_else(|| {
        let known: Vec<&str> = SHAPES.iter().map(|s| s.name).collect();
        Error::param(
            "shape",
            format!("unknown stand-in `{name}`; known: {}", known.join(", ")),
        )
    })
}

/// Rows drawn from one seeded stream.
const BLOCK: usize = 8192;
/// Dimensions of the projection the label function reads.
const PROJECTED: usize = 4;
/// Gaussian bumps of the label function.
const CENTRES: usize = 12;
/// Rows of the pilot sample that sets a classifier's threshold.
const PILOT: usize = 20_000;
/// Standard deviation of the label noise, relative to the label function's.
const NOISE: f64 = 0.25;

/// The seeded label function and column ranges of a stand-in.
struct Generator {
    shape: Shape,
    seed: u64,
    /// Projection of the continuous columns (`PROJECTED × continuous`).
    projection: Vec<f64>,
    /// Bump centres (`CENTRES × PROJECTED`) and signed heights.
    centres: Vec<f64>,
    heights: Vec<f64>,
    /// Effect of each one-hot category, group after group.
    effects: Vec<f64>,
    /// Each continuous column's scale and offset (unscaled, as real data).
    scales: Vec<(f64, f64)>,
    /// The label function's threshold (classification) or its mean and spread
    /// (regression).
    threshold: f64,
    spread: f64,
    /// Standard deviation of the label noise: `NOISE` times the noise-free score's.
    noise: f64,
}

impl Generator {
    fn new(shape: &Shape, seed: u64) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed_57a0_d1a5_0001);
        let normal = |rng: &mut ChaCha8Rng| -> f64 { StandardNormal.sample(rng) };
        let c = shape.continuous;
        let projection = (0..PROJECTED * c)
            .map(|_| normal(&mut rng) / (c as f64).sqrt())
            .collect();
        let centres = (0..CENTRES * PROJECTED).map(|_| normal(&mut rng)).collect();
        let heights = (0..CENTRES)
            .map(|k| if k % 2 == 0 { 1.0 } else { -1.0 } * (0.5 + rng.random::<f64>()))
            .collect();
        let categories: usize = shape.one_hot.iter().sum();
        let effects = (0..categories).map(|_| 0.3 * normal(&mut rng)).collect();
        let scales = (0..c)
            .map(|_| {
                (
                    10f64.powf(rng.random_range(-1.0..3.0)),
                    100.0 * normal(&mut rng),
                )
            })
            .collect();
        let mut g = Generator {
            shape: *shape,
            seed,
            projection,
            centres,
            heights,
            effects,
            scales,
            threshold: 0.0,
            spread: 1.0,
            noise: 0.0,
        };
        g.calibrate();
        g
    }

    /// The threshold at the class balance, or the target's mean and spread, from a
    /// pilot sample drawn from its own stream.
    fn calibrate(&mut self) {
        let pilot = |g: &Self| -> Vec<f64> {
            let mut rng = ChaCha8Rng::seed_from_u64(g.seed ^ 0x9170_7000_0000_0002);
            (0..PILOT)
                .map(|_| g.draw(&mut rng, &mut Vec::new()))
                .collect()
        };
        let clean = pilot(self);
        let mean = clean.iter().sum::<f64>() / PILOT as f64;
        let var = clean.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / PILOT as f64;
        self.noise = NOISE * var.sqrt();
        let mut scores = pilot(self);
        scores.sort_by(f64::total_cmp);
        if !self.shape.regression {
            let at = ((1.0 - self.shape.positive_share) * PILOT as f64) as usize;
            self.threshold = scores[at.min(PILOT - 1)];
        } else {
            let mean = scores.iter().sum::<f64>() / PILOT as f64;
            let var = scores.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / PILOT as f64;
            (self.threshold, self.spread) = (mean, var.sqrt().max(1e-12));
        }
    }

    /// Draws one row's standardised continuous values and categories into `row`
    /// (continuous values, then the chosen category of each group) and returns its
    /// noisy label score.
    fn draw(&self, rng: &mut ChaCha8Rng, row: &mut Vec<f64>) -> f64 {
        row.clear();
        let c = self.shape.continuous;
        for _ in 0..c {
            row.push(StandardNormal.sample(rng));
        }
        let mut z = [0.0; PROJECTED];
        for (k, zk) in z.iter_mut().enumerate() {
            let p = &self.projection[k * c..(k + 1) * c];
            *zk = p.iter().zip(row.iter()).map(|(a, b)| a * b).sum();
        }
        let mut score = 0.0;
        for (centre, h) in self.centres.chunks(PROJECTED).zip(&self.heights) {
            let d2: f64 = centre.iter().zip(&z).map(|(a, b)| (a - b).powi(2)).sum();
            score += h * (-d2 / 2.0).exp();
        }
        let mut first = 0;
        for &size in self.shape.one_hot {
            let category = rng.random_range(0..size);
            score += self.effects[first + category];
            row.push(category as f64);
            first += size;
        }
        let noise: f64 = StandardNormal.sample(rng);
        score + self.noise * noise
    }

    /// The label or target of a score.
    fn label(&self, score: f64) -> f64 {
        match self.shape.regression {
            false => {
                if score > self.threshold {
                    1.0
                } else {
                    -1.0
                }
            }
            true => (1998.0 + 10.9 * (score - self.threshold) / self.spread)
                .round()
                .clamp(1922.0, 2011.0),
        }
    }

    /// Block `b` of `rows` rows as text in `format`.
    fn block(&self, b: usize, rows: usize, format: Format) -> String {
        let stream = self
            .seed
            .wrapping_add(0x9e37_79b9_7f4a_7c15u64.wrapping_mul(b as u64 + 1));
        let mut rng = ChaCha8Rng::seed_from_u64(stream);
        let mut row = Vec::new();
        let mut out = String::with_capacity(rows * self.shape.n_features() * 8);
        for _ in 0..rows {
            let label = self.label(self.draw(&mut rng, &mut row));
            self.write_row(&row, label, format, &mut out);
        }
        out
    }

    fn write_row(&self, row: &[f64], label: f64, format: Format, out: &mut String) {
        let c = self.shape.continuous;
        let values = (row[..c].iter().zip(&self.scales)).map(|(v, (s, o))| v * s + o);
        if format == Format::Libsvm {
            let _ = write!(out, "{label}");
            for (j, v) in values.enumerate() {
                let _ = write!(out, " {}:{v:.5}", j + 1);
            }
            let mut column = c + 1;
            for (&category, &size) in row[c..].iter().zip(self.shape.one_hot) {
                let _ = write!(out, " {}:1", column + category as usize);
                column += size;
            }
        } else {
            for v in values {
                let _ = write!(out, "{v:.5},");
            }
            for (&category, &size) in row[c..].iter().zip(self.shape.one_hot) {
                for k in 0..size {
                    out.push_str(if k == category as usize { "1," } else { "0," });
                }
            }
            let _ = write!(out, "{label}");
        }
        out.push('\n');
    }

    /// The CSV header: `x1..xd`, then `label` or `target`.
    fn header(&self) -> String {
        let mut names: Vec<String> = (1..=self.shape.n_features())
            .map(|j| format!("x{j}"))
            .collect();
        names.push(
            if !self.shape.regression {
                "label"
            } else {
                "target"
            }
            .into(),
        );
        names.join(",") + "\n"
    }
}

/// Writes `rows` rows of the stand-in `shape` (all of the real set's when `None`),
/// seeded by `seed`, to `out` as CSV (header row, last column `label` or `target`) or
/// LIBSVM, calling `progress` with the rows written so far; `path` names the file in
/// errors. Blocks of rows are drawn in parallel and written in order, a few per thread
/// in flight, so memory stays O(threads · block · d) whatever the row count.
pub fn write_standin(
    shape: &Shape,
    rows: Option<usize>,
    seed: u64,
    format: Format,
    (out, path): (&mut dyn std::io::Write, &Path),
    progress: &(dyn Fn(usize) + Sync),
) -> Result<()> {
    if !matches!(format, Format::Csv | Format::Libsvm) {
        return Err(Error::param(
            "format",
            "a stand-in is written as CSV or LIBSVM",
        ));
    }
    let rows = rows.unwrap_or(shape.rows);
    if rows == 0 {
        return Err(Error::param("rows", "need at least 1 row"));
    }
    let generator = Generator::new(shape, seed);
    let blocks = rows.div_ceil(BLOCK);
    let io = |e| Error::io(path, e);
    if format == Format::Csv {
        out.write_all(generator.header().as_bytes()).map_err(io)?;
    }
    let wave = 4 * rayon::current_num_threads();
    for first in (0..blocks).step_by(wave) {
        let texts: Vec<String> = (first..(first + wave).min(blocks))
            .into_par_iter()
            .map(|b| generator.block(b, BLOCK.min(rows - b * BLOCK), format))
            .collect();
        for text in texts {
            out.write_all(text.as_bytes()).map_err(io)?;
        }
        progress(((first + wave) * BLOCK).min(rows));
    }
    out.flush().map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{read_dataset, read_libsvm_sparse, ScaleMode, Scaler};

    fn written(
        shape: &str,
        rows: usize,
        seed: u64,
        format: Format,
        name: &str,
    ) -> std::path::PathBuf {
        let path =
            std::env::temp_dir().join(format!("kernlearn-standin-{}-{name}", std::process::id()));
        let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        let shape = super::shape(shape).unwrap();
        let target = (&mut file as &mut dyn std::io::Write, path.as_path());
        write_standin(shape, Some(rows), seed, format, target, &|_| {}).unwrap();
        drop(file);
        path
    }

    /// A covtype-shaped CSV has the real set's columns, one-hot groups of exactly one 1,
    /// its class balance, and reads back through the loaders; the LIBSVM file of the
    /// same seed holds the same rows.
    #[test]
    fn covtype_shape_balance_and_both_formats() {
        let csv = written("covtype", 10_000, 3, Format::Csv, "cov.csv");
        let data = read_dataset(&csv, Some(Format::Csv), None).unwrap();
        assert_eq!((data.len(), data.n_features()), (10_000, 54));
        for row in data.x.rows() {
            assert_eq!(row[10..14].iter().sum::<f64>(), 1.0);
            assert_eq!(row[14..54].iter().sum::<f64>(), 1.0);
        }
        let positive = data.y.iter().filter(|&&v| v > 0.0).count() as f64 / 1e4;
        assert!((positive - 0.488).abs() < 0.03, "{positive}");
        let svm = written("covtype", 10_000, 3, Format::Libsvm, "cov.libsvm");
        let sparse = read_libsvm_sparse(&svm, Some(54)).unwrap();
        assert_eq!(sparse.y, data.y);
        let dense = sparse.x.to_dense("stand-in").unwrap();
        assert_eq!(dense, data.x);
        std::fs::remove_file(csv).unwrap();
        std::fs::remove_file(svm).unwrap();
    }

    /// The same seed gives the same file; a longer file starts with the shorter one's
    /// rows; another seed gives other rows.
    #[test]
    fn seeded_and_prefix_stable() {
        let a = std::fs::read_to_string(written("ijcnn1", 9000, 1, Format::Csv, "a.csv")).unwrap();
        let b =
            std::fs::read_to_string(written("ijcnn1", 20_000, 1, Format::Csv, "b.csv")).unwrap();
        let c = std::fs::read_to_string(written("ijcnn1", 9000, 2, Format::Csv, "c.csv")).unwrap();
        assert!(b.starts_with(&a));
        assert_ne!(a, c);
        let positive = a.lines().skip(1).filter(|l| l.ends_with(",1")).count() as f64 / 9000.0;
        assert!((positive - 0.097).abs() < 0.02, "{positive}");
    }

    /// The boundary is learnable and nonlinear: an RBF SVM beats the majority class
    /// clearly on a held-out part of a cod-rna-shaped set, a linear one less so; the
    /// year-shaped target stays in its range.
    #[test]
    fn the_boundary_is_learnable_and_the_target_in_range() {
        use crate::svm::{SvmModel, SvmParams};
        let path = written("cod-rna", 3000, 5, Format::Csv, "cod.csv");
        let mut data = read_dataset(&path, Some(Format::Csv), None).unwrap();
        data.x = Scaler::fit(ScaleMode::Standard, &data.x)
            .transform(&data.x)
            .unwrap();
        let (train, test) = (
            data.x.select_rows(&(0..2000).collect::<Vec<_>>()),
            data.x.select_rows(&(2000..3000).collect::<Vec<_>>()),
        );
        let accuracy = |params: &SvmParams| {
            let m = SvmModel::fit(params, &train, &data.y[..2000]).unwrap();
            crate::metrics::accuracy(&m.predict(&test).unwrap(), &data.y[2000..]).unwrap()
        };
        let rbf = accuracy(&SvmParams {
            kernel: crate::kernel::Kernel::Rbf { gamma: 0.25 },
            c: 4.0,
            ..SvmParams::default()
        });
        let linear = accuracy(&SvmParams {
            kernel: crate::kernel::Kernel::Linear,
            ..SvmParams::default()
        });
        assert!(
            rbf > 0.8 && rbf > linear + 0.03,
            "rbf {rbf}, linear {linear}"
        );
        let year = read_dataset(
            &written("year", 2000, 1, Format::Csv, "y.csv"),
            Some(Format::Csv),
            None,
        )
        .unwrap();
        assert_eq!(year.n_features(), 90);
        assert!(year.y.iter().all(|&t| (1922.0..=2011.0).contains(&t)));
        let spread = year
            .y
            .iter()
            .fold((f64::MAX, f64::MIN), |(lo, hi), &t| (lo.min(t), hi.max(t)));
        assert!(spread.1 - spread.0 > 40.0, "{spread:?}");
    }
}
