//! Exact nearest-neighbour search in Euclidean distance.
//!
//! KNPL and DANK extend their learned matrix to a new point through its nearest training
//! point (DANK section 3.3: the test column is `F[:, j] ⊙ k(X, x')` for the nearest
//! `x_j`); scalable DANK routes points the same way. The search is a parallel blocked
//! brute force: for a block of queries, `‖q − x_j‖² = ‖q‖² − 2 q·x_j + ‖x_j‖²` with the
//! dot products from one matrix product (faer), so its cost is one `m × n × d` product
//! split across threads instead of a scalar loop per query.

use crate::data::Features;
use crate::kernel::Kernel;
use crate::{Error, Result};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Queries per block: bounds the temporary `block × n` distance matrix.
const BLOCK_BYTES: usize = 64 << 20;

/// The training points of a nearest-neighbour search, with their squared norms.
/// Reading one back checks at least one point and one finite squared norm per point.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawNearestNeighbors")]
pub(crate) struct NearestNeighbors {
    points: Features,
    sq_norms: Vec<f64>,
}

/// [`NearestNeighbors`] as stored, before it is checked.
#[derive(Deserialize)]
struct RawNearestNeighbors {
    points: Features,
    sq_norms: Vec<f64>,
}

impl TryFrom<RawNearestNeighbors> for NearestNeighbors {
    type Error = String;

    fn try_from(raw: RawNearestNeighbors) -> std::result::Result<Self, String> {
        let n = raw.points.n_rows();
        if n == 0 {
            return Err("nearest-neighbour `points` has no rows".to_string());
        }
        if raw.sq_norms.len() != n {
            return Err(format!(
                "nearest-neighbour `sq_norms` has {} values, `points` has {n} rows",
                raw.sq_norms.len()
            ));
        }
        if let Some(i) = raw.sq_norms.iter().position(|v| !v.is_finite()) {
            return Err(format!(
                "nearest-neighbour `sq_norms[{i}]` is not finite ({})",
                raw.sq_norms[i]
            ));
        }
        Ok(Self {
            points: raw.points,
            sq_norms: raw.sq_norms,
        })
    }
}

impl NearestNeighbors {
    /// Indexes `points` (at least one row, finite values).
    pub(crate) fn new(points: Features) -> Result<Self> {
        if points.n_rows() == 0 {
            return Err(Error::data(
                "nearest-neighbour search needs at least one point",
            ));
        }
        points.check_finite("training")?;
        let sq_norms = (0..points.n_rows())
            .into_par_iter()
            .with_min_len(512)
            .map(|i| points.row(i).iter().map(|v| v * v).sum())
            .collect();
        Ok(Self { points, sq_norms })
    }

    /// The indexed points.
    pub(crate) fn points(&self) -> &Features {
        &self.points
    }

    /// Index of the nearest indexed point for every row of `queries` (the smallest index
    /// among equally near points). Non-finite queries are an error naming the row.
    pub(crate) fn nearest(&self, queries: &Features) -> Result<Vec<usize>> {
        if queries.n_cols() != self.points.n_cols() {
            return Err(Error::data(format!(
                "nearest-neighbour search: points have {} features, queries {}",
                self.points.n_cols(),
                queries.n_cols()
            )));
        }
        queries.check_finite("query")?;
        let n = self.points.n_rows();
        let block = (BLOCK_BYTES / (8 * n)).clamp(1, 4096);
        let mut out = Vec::with_capacity(queries.n_rows());
        let rows: Vec<usize> = (0..queries.n_rows()).collect();
        for chunk in rows.chunks(block) {
            let q = queries.select_rows(chunk);
            let dots = Kernel::Linear.cross(&q, &self.points)?;
            let best: Vec<usize> = (0..chunk.len())
                .into_par_iter()
                .map(|r| {
                    // ‖q‖² is the same for every candidate: compare ‖x_j‖² − 2 q·x_j.
                    let mut best = (f64::INFINITY, 0);
                    for j in 0..n {
                        let d = self.sq_norms[j] - 2.0 * dots[(r, j)];
                        if d < best.0 {
                            best = (d, j);
                        }
                    }
                    best.1
                })
                .collect();
            out.extend(best);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn random(n: usize, d: usize, seed: u64) -> Features {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        Features::new(
            n,
            d,
            (0..n * d).map(|_| rng.random_range(-1.0..1.0)).collect(),
        )
        .unwrap()
    }

    fn brute(points: &Features, q: &[f64]) -> usize {
        let dist = |j: usize| -> f64 {
            points
                .row(j)
                .iter()
                .zip(q)
                .map(|(a, b)| (a - b) * (a - b))
                .sum()
        };
        (0..points.n_rows())
            .min_by(|&a, &b| dist(a).total_cmp(&dist(b)))
            .unwrap()
    }

    #[test]
    fn matches_brute_force() {
        let points = random(300, 5, 1);
        let queries = random(200, 5, 2);
        let nn = NearestNeighbors::new(points.clone()).unwrap();
        let got = nn.nearest(&queries).unwrap();
        for (r, &j) in got.iter().enumerate() {
            assert_eq!(j, brute(&points, queries.row(r)), "query {r}");
        }
    }

    #[test]
    fn training_points_map_to_themselves() {
        let points = random(500, 3, 3);
        let nn = NearestNeighbors::new(points.clone()).unwrap();
        let got = nn.nearest(&points).unwrap();
        assert_eq!(got, (0..500).collect::<Vec<_>>());
    }

    #[test]
    fn bad_queries_are_named() {
        let nn = NearestNeighbors::new(random(10, 2, 4)).unwrap();
        let q = Features::new(2, 2, vec![0.0, 0.0, f64::NAN, 1.0]).unwrap();
        let e = nn.nearest(&q).unwrap_err().to_string();
        assert!(e.contains("feature 1 of query row 2"), "{e}");
        assert!(nn.nearest(&random(1, 3, 5)).is_err());
        assert!(NearestNeighbors::new(Features::new(0, 2, vec![]).unwrap()).is_err());
    }
}
