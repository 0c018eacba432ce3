//! Dense embeddings of one kernel (DKMO paper, §III-A): Nyström maps `L = E W^{-1/2}`
//! computed from the Gram matrix alone, so they work with or without features.
//!
//! - **Conventional Nyström**, eq. (2)–(3): `s` training columns drawn at random (the
//!   ensemble's sets are disjoint where `n` allows), `W` their intersection,
//!   `L = E U_r Λ_r^{-1/2}` with the top `r` eigenpairs of `W`.
//! - **Clustered Nyström**, eq. (4): landmarks are cluster centres. A centre of a
//!   partition is the RKHS mean of its cluster, `φ(c_a) = mean_{i∈a} φ(x_i)`, so
//!   `k(x, c_a) = mean_{i∈a} k(x, x_i)` and `W_ab = mean_{i∈a, j∈b} K_ij` need only
//!   kernel values (the paper takes the input-space mean of a partition's features; the
//!   RKHS mean is the same idea where there are no features). k-medoids gives training
//!   points (medoids) as landmarks. The partitions come from k-means, k-medians,
//!   agglomerative (Ward) and spectral (k-nearest-neighbour graph) clustering run on a
//!   base conventional Nyström embedding of the kernel (`4 × landmarks` columns), and
//!   k-medoids on the kernel distance `K_ii + K_jj − 2K_ij` itself.
//!
//! An embedding keeps only its landmark description (column indices or a cluster label
//! per training point) and the `s × r` map `U Λ^{-1/2}`; embedding a sample needs its
//! kernel row against the training points.

use super::cluster::{agglomerative_ward, kernel_kmedoids, kmedians, spectral_knn};
use crate::cluster::KMeans;
use crate::data::Features;
use crate::linalg::symmetric_eigen;
use crate::{Error, Result};
use faer::Mat;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Eigenvalues of `W` below this fraction of the largest are dropped (as LIBLINEAR+'s
/// Nyström features do): `Λ^{-1/2}` would amplify rounding noise.
const EIG_TOL: f64 = 1e-10;

/// How the landmarks of one embedding are chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LandmarkMethod {
    /// Random training columns (conventional Nyström, eq. 3).
    Random,
    /// k-means centres (clustered Nyström, eq. 4).
    KMeans,
    /// k-medians (L1 Lloyd) partition means.
    KMedians,
    /// k-medoids medoids on kernel distances.
    KMedoids,
    /// Agglomerative (Ward) partition means.
    Agglomerative,
    /// Spectral clustering (kNN graph) partition means.
    Spectral,
}

/// The paper's clustered ensemble (§III-A.2, `P = 5`).
pub const CLUSTERED: [LandmarkMethod; 5] = [
    LandmarkMethod::KMeans,
    LandmarkMethod::KMedians,
    LandmarkMethod::KMedoids,
    LandmarkMethod::Agglomerative,
    LandmarkMethod::Spectral,
];

/// Which ensemble of embeddings DKMO builds from a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EmbeddingScheme {
    /// `P` conventional Nyström embeddings of varying subset size and rank (the paper's
    /// kernel-only setting, §V-B: 6 of them).
    Nystrom,
    /// The five clustered Nyström embeddings (the paper's setting with features, §V-A).
    Clustered,
}

impl std::str::FromStr for EmbeddingScheme {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "nystrom" => Ok(Self::Nystrom),
            "clustered" => Ok(Self::Clustered),
            _ => Err(Error::param(
                "dkmo-embedding",
                format!("unknown embedding scheme `{s}`; expected nystrom or clustered"),
            )),
        }
    }
}

/// Names of [`EmbeddingScheme`] for the option table.
pub const SCHEME_NAMES: [&str; 2] = ["nystrom", "clustered"];

/// Landmarks of one embedding.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Landmarks {
    /// Training columns.
    Columns(Vec<usize>),
    /// A cluster label per training point; landmark `a` is cluster `a`'s RKHS mean.
    Clusters {
        /// Number of clusters.
        k: usize,
        /// Cluster of every training point.
        labels: Vec<usize>,
    },
}

impl Landmarks {
    /// Number of landmarks `s`.
    pub(crate) fn len(&self) -> usize {
        match self {
            Landmarks::Columns(c) => c.len(),
            Landmarks::Clusters { k, .. } => *k,
        }
    }

    /// `E` for one kernel row `k(x, x_1..x_n)`: the row's values at the landmarks.
    fn at(&self, row: &[f64], out: &mut [f64]) {
        match self {
            Landmarks::Columns(cols) => cols.iter().zip(out).for_each(|(&c, o)| *o = row[c]),
            Landmarks::Clusters { k, labels } => {
                let mut count = vec![0usize; *k];
                out.fill(0.0);
                for (&v, &a) in row.iter().zip(labels) {
                    out[a] += v;
                    count[a] += 1;
                }
                out.iter_mut()
                    .zip(&count)
                    .for_each(|(o, &c)| *o /= c.max(1) as f64);
            }
        }
    }

    /// Checks indices and labels against `n` training points.
    fn validate(&self, n: usize) -> Result<()> {
        let ok = match self {
            Landmarks::Columns(c) => !c.is_empty() && c.iter().all(|&i| i < n),
            Landmarks::Clusters { k, labels } => {
                *k > 0 && labels.len() == n && labels.iter().all(|&a| a < *k)
            }
        };
        crate::validate::ensure(ok, || {
            format!("embedding landmarks do not fit {n} training points")
        })
    }
}

/// One dense embedding `z(x) = E(x) U Λ^{-1/2}` of a kernel.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Embedding {
    /// How the landmarks were chosen.
    pub method: LandmarkMethod,
    /// The landmarks.
    pub landmarks: Landmarks,
    /// Output dimension `r` (kept eigenpairs).
    pub rank: usize,
    /// `s × r` map `U_r Λ_r^{-1/2}`, row-major.
    pub map: Vec<f64>,
}

impl Embedding {
    /// The embedding with `landmarks` on the Gram matrix `k`, keeping at most `rank`
    /// eigenpairs of `W`.
    pub(crate) fn fit(
        k: &Mat<f64>,
        method: LandmarkMethod,
        landmarks: Landmarks,
        rank: usize,
    ) -> Result<Self> {
        let w = landmark_gram(k, &landmarks);
        let eig = symmetric_eigen(w.as_ref())?;
        let s = w.nrows();
        let top = eig.values.last().copied().unwrap_or(0.0);
        if top.is_nan() || top <= 0.0 {
            return Err(Error::numerical(
                "the kernel on the Nyström landmarks has no positive eigenvalue",
            ));
        }
        let kept: Vec<usize> = (0..s)
            .rev()
            .filter(|&j| eig.values[j] > EIG_TOL * top)
            .take(rank.max(1))
            .collect();
        let r = kept.len();
        let mut map = vec![0.0; s * r];
        for i in 0..s {
            for (c, &j) in kept.iter().enumerate() {
                map[i * r + c] = eig.vectors[(i, j)] / eig.values[j].sqrt();
            }
        }
        Ok(Self {
            method,
            landmarks,
            rank: r,
            map,
        })
    }

    /// Embeds kernel rows (`t × n`, row `i` = `k(x_i, training points)`): `t × r`,
    /// row-major.
    pub(crate) fn transform(&self, rows: &Features) -> Vec<f64> {
        let (s, r) = (self.landmarks.len(), self.rank);
        let mut out = vec![0.0; rows.n_rows() * r];
        out.par_chunks_mut(r)
            .zip(rows.as_slice().par_chunks(rows.n_cols().max(1)))
            .for_each_init(
                || vec![0.0; s],
                |e, (z, row)| {
                    self.landmarks.at(row, e);
                    for (i, &ei) in e.iter().enumerate() {
                        let m = &self.map[i * r..(i + 1) * r];
                        z.iter_mut().zip(m).for_each(|(a, v)| *a += ei * v);
                    }
                },
            );
        out
    }

    /// Checks the map's size and values against `n` training points.
    pub(crate) fn validate(&self, n: usize) -> Result<()> {
        self.landmarks.validate(n)?;
        let want = self.landmarks.len().checked_mul(self.rank);
        crate::validate::ensure(want == Some(self.map.len()) && self.rank > 0, || {
            format!(
                "embedding map has {} values, {} landmarks × rank {} need {}",
                self.map.len(),
                self.landmarks.len(),
                self.rank,
                want.map_or("more than fit in memory".to_string(), |w| w.to_string())
            )
        })?;
        crate::validate::finite("embedding map", &self.map)
    }
}

/// `W`: the kernel between landmarks (`s × s`).
fn landmark_gram(k: &Mat<f64>, landmarks: &Landmarks) -> Mat<f64> {
    match landmarks {
        Landmarks::Columns(c) => Mat::from_fn(c.len(), c.len(), |a, b| k[(c[a], c[b])]),
        Landmarks::Clusters { k: m, labels } => {
            let n = labels.len();
            let mut count = vec![0.0f64; *m];
            labels.iter().for_each(|&a| count[a] += 1.0);
            // K A (n × m): column sums per cluster, then Aᵀ (K A).
            let mut ka = Mat::<f64>::zeros(n, *m);
            for j in 0..n {
                let a = labels[j];
                for i in 0..n {
                    ka[(i, a)] += k[(i, j)];
                }
            }
            let mut w = Mat::<f64>::zeros(*m, *m);
            for i in 0..n {
                let a = labels[i];
                for b in 0..*m {
                    w[(a, b)] += ka[(i, b)];
                }
            }
            Mat::from_fn(*m, *m, |a, b| w[(a, b)] / (count[a] * count[b]).max(1.0))
        }
    }
}

/// Sizes of one ensemble: `landmarks` (the paper's `s`) and `rank` (its `r`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EnsembleSize {
    /// Number of embeddings `P` (conventional scheme; the clustered one has 5).
    pub embeddings: usize,
    /// Landmarks per embedding.
    pub landmarks: usize,
}

/// The ensemble of embeddings of the Gram matrix `k` (§III-A).
pub fn fit_ensemble(
    k: &Mat<f64>,
    scheme: EmbeddingScheme,
    size: EnsembleSize,
    seed: u64,
) -> Result<Vec<Embedding>> {
    let n = k.nrows();
    let s = size.landmarks.min(n);
    match scheme {
        EmbeddingScheme::Nystrom => random_column_sets(n, s, size.embeddings, seed)
            .into_iter()
            .map(|(cols, rank)| {
                Embedding::fit(k, LandmarkMethod::Random, Landmarks::Columns(cols), rank)
            })
            .collect(),
        EmbeddingScheme::Clustered => {
            let base = base_coordinates(k, s, seed)?;
            CLUSTERED
                .iter()
                .enumerate()
                .map(|(p, &method)| {
                    let seed = seed.wrapping_add(p as u64 + 1);
                    let landmarks = clustered_landmarks(k, &base, method, s, seed)?;
                    Embedding::fit(k, method, landmarks, usize::MAX)
                })
                .collect()
        }
    }
}

/// `P` random column sets of sizes `s·{1, 1, 1.5, 1.5, 2, 2, …}` (capped at `n`) with
/// ranks alternating `s` and `s/2` ("varying subset sizes and approximation ranks",
/// §V): disjoint while `n` allows, as the paper's one draw of `s × P` columns.
fn random_column_sets(n: usize, s: usize, p: usize, seed: u64) -> Vec<(Vec<usize>, usize)> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let sizes: Vec<usize> = (0..p)
        .map(|i| ((s as f64 * (1.0 + 0.5 * (i / 2) as f64)) as usize).clamp(1, n))
        .collect();
    let total: usize = sizes.iter().sum();
    let mut pool = rand::seq::index::sample(&mut rng, n, total.min(n)).into_vec();
    sizes
        .iter()
        .enumerate()
        .map(|(i, &size)| {
            if pool.len() < size {
                pool = rand::seq::index::sample(&mut rng, n, n).into_vec();
            }
            let mut cols = pool.split_off(pool.len() - size);
            cols.sort_unstable();
            let rank = if i % 2 == 0 { s } else { (s / 2).max(1) };
            (cols, rank)
        })
        .collect()
}

/// Coordinates to cluster in: a conventional Nyström embedding with `4s` columns.
fn base_coordinates(k: &Mat<f64>, s: usize, seed: u64) -> Result<Features> {
    let n = k.nrows();
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x9e37_79b9);
    let mut cols = rand::seq::index::sample(&mut rng, n, (4 * s).min(n)).into_vec();
    cols.sort_unstable();
    let e = Embedding::fit(
        k,
        LandmarkMethod::Random,
        Landmarks::Columns(cols),
        usize::MAX,
    )?;
    let rows = Features::new(
        n,
        n,
        (0..n)
            .flat_map(|i| (0..n).map(move |j| k[(i, j)]))
            .collect(),
    )?;
    Features::new(n, e.rank, e.transform(&rows))
}

/// The landmarks of one clustering method (`s` clusters).
fn clustered_landmarks(
    k: &Mat<f64>,
    base: &Features,
    method: LandmarkMethod,
    s: usize,
    seed: u64,
) -> Result<Landmarks> {
    let partition = |labels: Vec<usize>| Landmarks::Clusters { k: s, labels };
    Ok(match method {
        LandmarkMethod::Random => unreachable!("not a clustering method"),
        LandmarkMethod::KMeans => {
            let fit = KMeans::new(s).seed(seed).max_iter(100).fit(base)?;
            partition(fit.assignments)
        }
        LandmarkMethod::KMedians => partition(kmedians(base, s, seed)),
        LandmarkMethod::KMedoids => Landmarks::Columns(kernel_kmedoids(k, s, seed)),
        LandmarkMethod::Agglomerative => partition(agglomerative_ward(base, s, seed)?),
        LandmarkMethod::Spectral => partition(spectral_knn(base, s, seed)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::synthetic::gaussian_blobs;
    use crate::kernel::Kernel;

    fn gram(n: usize) -> (Features, Mat<f64>) {
        let means = vec![vec![0.0; 4], vec![3.0; 4], vec![-3.0, 3.0, 0.0, 1.0]];
        let d = gaussian_blobs(&means, n / 3 + 1, 1.0, 7).unwrap();
        let d = d.subset(&(0..n).collect::<Vec<_>>());
        let k = Kernel::Rbf { gamma: 0.1 }.gram(&d.x).unwrap();
        let rows = Features::new(
            n,
            n,
            (0..n)
                .flat_map(|i| (0..n).map(|j| k[(i, j)]).collect::<Vec<_>>())
                .collect(),
        )
        .unwrap();
        (rows, k)
    }

    /// With every training point a landmark, `Z Zᵀ = K` (eq. 3 is exact).
    #[test]
    fn all_points_as_landmarks_reproduce_the_gram_matrix() {
        let n = 40;
        let (rows, k) = gram(n);
        let e = Embedding::fit(
            &k,
            LandmarkMethod::Random,
            Landmarks::Columns((0..n).collect()),
            n,
        )
        .unwrap();
        let zf = e.transform(&rows);
        let r = e.rank;
        for i in 0..n {
            for j in 0..n {
                let v: f64 = (0..r).map(|c| zf[i * r + c] * zf[j * r + c]).sum();
                assert!(
                    (v - k[(i, j)]).abs() < 1e-8,
                    "({i},{j}): {v} vs {}",
                    k[(i, j)]
                );
            }
        }
    }

    /// With singleton clusters the cluster means are the points: again `Z Zᵀ = K`.
    #[test]
    fn singleton_clusters_reproduce_the_gram_matrix() {
        let n = 30;
        let (rows, k) = gram(n);
        let labels: Vec<usize> = (0..n).rev().collect();
        let e = Embedding::fit(
            &k,
            LandmarkMethod::KMeans,
            Landmarks::Clusters { k: n, labels },
            n,
        )
        .unwrap();
        let z = e.transform(&rows);
        let r = e.rank;
        for i in 0..n {
            for j in 0..n {
                let v: f64 = (0..r).map(|c| z[i * r + c] * z[j * r + c]).sum();
                assert!((v - k[(i, j)]).abs() < 1e-8);
            }
        }
    }

    /// The five clustered embeddings and six Nyström ones come out with their sizes.
    #[test]
    fn ensembles_have_the_papers_sizes() {
        let n = 80;
        let (rows, k) = gram(n);
        let size = EnsembleSize {
            embeddings: 6,
            landmarks: 10,
        };
        let c = fit_ensemble(&k, EmbeddingScheme::Clustered, size, 3).unwrap();
        assert_eq!(
            c.iter().map(|e| e.method).collect::<Vec<_>>(),
            CLUSTERED.to_vec()
        );
        let r = fit_ensemble(&k, EmbeddingScheme::Nystrom, size, 3).unwrap();
        assert_eq!(r.len(), 6);
        assert_eq!(r[2].landmarks.len(), 15);
        for e in c.iter().chain(&r) {
            e.validate(n).unwrap();
            assert!(e.transform(&rows).iter().all(|v| v.is_finite()));
        }
    }
}
