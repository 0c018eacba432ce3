//! The clusterings behind the clustered Nyström ensemble (DKMO paper, §III-A.2) that
//! [`crate::cluster`] (k-means) does not provide: k-medians, k-medoids on kernel
//! distances, agglomerative (Ward) and spectral clustering. Each returns a partition
//! (a label per point) or, for k-medoids, the medoids' indices.

use crate::cluster::{Centres, KMeans};
use crate::data::Features;
use crate::linalg::symmetric_eigen;
use crate::Result;
use faer::Mat;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Iteration cap of the Lloyd-style alternations (k-medians, k-medoids).
const MAX_ALTERNATIONS: usize = 50;
/// Neighbours per point of the spectral affinity graph (scikit-learn's default).
const SPECTRAL_NEIGHBOURS: usize = 10;
/// Spectral clustering runs on at most this many points; the rest join the nearest
/// cluster mean (the eigendecomposition is cubic in the sample).
const SPECTRAL_SAMPLE: usize = 1000;

/// `k` distinct rows of `x` at random.
fn random_rows(n: usize, k: usize, rng: &mut ChaCha8Rng) -> Vec<usize> {
    rand::seq::index::sample(rng, n, k.min(n)).into_vec()
}

/// k-medians: Lloyd iterations with the L1 distance and coordinate-wise medians.
pub(crate) fn kmedians(x: &Features, k: usize, seed: u64) -> Vec<usize> {
    let (n, d) = (x.n_rows(), x.n_cols());
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut centres: Vec<Vec<f64>> = random_rows(n, k, &mut rng)
        .into_iter()
        .map(|i| x.row(i).to_vec())
        .collect();
    let mut labels = vec![usize::MAX; n];
    for _ in 0..MAX_ALTERNATIONS {
        let mut changed = false;
        for (i, label) in labels.iter_mut().enumerate() {
            let l1 =
                |c: &Vec<f64>| -> f64 { c.iter().zip(x.row(i)).map(|(a, b)| (a - b).abs()).sum() };
            let best = (0..centres.len())
                .min_by(|&a, &b| l1(&centres[a]).total_cmp(&l1(&centres[b])))
                .unwrap_or(0);
            changed |= *label != best;
            *label = best;
        }
        if !changed {
            break;
        }
        for (c, centre) in centres.iter_mut().enumerate() {
            let members: Vec<usize> = (0..n).filter(|&i| labels[i] == c).collect();
            if members.is_empty() {
                continue;
            }
            for (j, v) in centre.iter_mut().enumerate().take(d) {
                let mut col: Vec<f64> = members.iter().map(|&i| x.row(i)[j]).collect();
                col.sort_unstable_by(f64::total_cmp);
                *v = col[col.len() / 2];
            }
        }
    }
    labels
}

/// k-medoids on the kernel distance `d(i, j) = K_ii + K_jj − 2K_ij` (alternating
/// assignment and medoid update, D²-seeded): the medoids' indices, sorted.
pub(crate) fn kernel_kmedoids(k: &Mat<f64>, m: usize, seed: u64) -> Vec<usize> {
    let n = k.nrows();
    let m = m.min(n);
    let dist = |i: usize, j: usize| (k[(i, i)] + k[(j, j)] - 2.0 * k[(i, j)]).max(0.0);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut medoids = vec![rng.random_range(0..n)];
    let mut nearest: Vec<f64> = (0..n).map(|i| dist(i, medoids[0])).collect();
    while medoids.len() < m {
        let total: f64 = nearest.iter().sum();
        let next = if total > 0.0 {
            let mut u = rng.random::<f64>() * total;
            (0..n)
                .find(|&i| {
                    u -= nearest[i];
                    u <= 0.0 && nearest[i] > 0.0
                })
                .unwrap_or(n - 1)
        } else {
            (0..n).find(|i| !medoids.contains(i)).unwrap_or(0)
        };
        if medoids.contains(&next) {
            continue;
        }
        medoids.push(next);
        (0..n).for_each(|i| nearest[i] = nearest[i].min(dist(i, next)));
    }
    for _ in 0..MAX_ALTERNATIONS {
        let labels: Vec<usize> = (0..n)
            .map(|i| {
                (0..m)
                    .min_by(|&a, &b| dist(i, medoids[a]).total_cmp(&dist(i, medoids[b])))
                    .unwrap_or(0)
            })
            .collect();
        let mut changed = false;
        for (c, medoid) in medoids.iter_mut().enumerate() {
            let members: Vec<usize> = (0..n).filter(|&i| labels[i] == c).collect();
            let cost = |j: usize| members.iter().map(|&i| dist(i, j)).sum::<f64>();
            if let Some(best) = members
                .iter()
                .copied()
                .min_by(|&a, &b| cost(a).total_cmp(&cost(b)))
            {
                if cost(best) < cost(*medoid) - 1e-12 {
                    *medoid = best;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    medoids.sort_unstable();
    medoids.dedup();
    medoids
}

/// Agglomerative clustering with Ward's criterion, merging from `4k` k-means
/// micro-clusters (each point joins its micro-cluster's final cluster): Ward's
/// merge cost `n_a n_b/(n_a + n_b) ‖c_a − c_b‖²` on the micro-cluster means.
pub(crate) fn agglomerative_ward(x: &Features, k: usize, seed: u64) -> Result<Vec<usize>> {
    let micro = KMeans::new((4 * k).min(x.n_rows()))
        .seed(seed)
        .max_iter(50)
        .fit(x)?;
    let m = micro.centres.k();
    let mut centre: Vec<Vec<f64>> = (0..m).map(|c| micro.centres.centre(c).to_vec()).collect();
    let mut size: Vec<f64> = micro.cluster_sizes().iter().map(|&s| s as f64).collect();
    let mut alive: Vec<bool> = size.iter().map(|&s| s > 0.0).collect();
    let mut owner: Vec<usize> = (0..m).collect();
    let ward = |a: &[f64], b: &[f64], na: f64, nb: f64| -> f64 {
        na * nb / (na + nb) * a.iter().zip(b).map(|(u, v)| (u - v) * (u - v)).sum::<f64>()
    };
    let mut cost = Mat::<f64>::from_fn(m, m, |a, b| {
        if a == b || !alive[a] || !alive[b] {
            f64::INFINITY
        } else {
            ward(&centre[a], &centre[b], size[a], size[b])
        }
    });
    while alive.iter().filter(|&&a| a).count() > k {
        let (mut best, mut pair) = (f64::INFINITY, (0, 0));
        for a in 0..m {
            for b in a + 1..m {
                if cost[(a, b)] < best {
                    best = cost[(a, b)];
                    pair = (a, b);
                }
            }
        }
        let (a, b) = pair;
        let total = size[a] + size[b];
        let merged: Vec<f64> = centre[a]
            .iter()
            .zip(&centre[b])
            .map(|(u, v)| (size[a] * u + size[b] * v) / total)
            .collect();
        centre[a] = merged;
        size[a] = total;
        alive[b] = false;
        owner.iter_mut().for_each(|o| {
            if *o == b {
                *o = a
            }
        });
        for c in 0..m {
            let v = if c == a || !alive[c] {
                f64::INFINITY
            } else {
                ward(&centre[a], &centre[c], size[a], size[c])
            };
            cost[(a, c)] = v;
            cost[(c, a)] = v;
            cost[(b, c)] = f64::INFINITY;
            cost[(c, b)] = f64::INFINITY;
        }
    }
    let final_ids: Vec<usize> = (0..m).filter(|&c| alive[c]).collect();
    let rank = |c: usize| final_ids.iter().position(|&f| f == owner[c]).unwrap_or(0);
    Ok(micro.assignments.iter().map(|&c| rank(c)).collect())
}

/// Spectral clustering (Ng–Jordan–Weiss) on the symmetrised k-nearest-neighbour graph:
/// the top `k` eigenvectors of `D^{-1/2} A D^{-1/2}`, rows normalised, k-means. Runs on
/// a sample of at most 1,000 points; every point then joins the nearest cluster mean.
pub(crate) fn spectral_knn(x: &Features, k: usize, seed: u64) -> Result<Vec<usize>> {
    let n = x.n_rows();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut sample = random_rows(n, SPECTRAL_SAMPLE.min(n), &mut rng);
    sample.sort_unstable();
    let xs = x.select_rows(&sample);
    let m = xs.n_rows();
    let k = k.min(m);
    let affinity = knn_affinity(&xs, SPECTRAL_NEIGHBOURS.min(m - 1));
    let degree: Vec<f64> = (0..m)
        .map(|i| (0..m).map(|j| affinity[(i, j)]).sum::<f64>().max(1e-12))
        .collect();
    let norm = Mat::<f64>::from_fn(m, m, |i, j| {
        affinity[(i, j)] / (degree[i] * degree[j]).sqrt()
    });
    let eig = symmetric_eigen(norm.as_ref())?;
    let mut coords = Vec::with_capacity(m * k);
    for i in 0..m {
        let row: Vec<f64> = (m - k..m).map(|j| eig.vectors[(i, j)]).collect();
        let len = row.iter().map(|v| v * v).sum::<f64>().sqrt().max(1e-12);
        coords.extend(row.iter().map(|v| v / len));
    }
    let fit = KMeans::new(k)
        .seed(seed)
        .max_iter(100)
        .fit(&Features::new(m, k, coords)?)?;
    // Cluster means in the input coordinates route every point (sampled or not).
    let d = x.n_cols();
    let mut means = vec![0.0; k * d];
    let sizes = fit.cluster_sizes();
    for (s, &c) in fit.assignments.iter().enumerate() {
        for (j, v) in xs.row(s).iter().enumerate() {
            means[c * d + j] += v / sizes[c] as f64;
        }
    }
    let used: Vec<usize> = (0..k).filter(|&c| sizes[c] > 0).collect();
    let kept: Vec<f64> = used
        .iter()
        .flat_map(|&c| means[c * d..(c + 1) * d].to_vec())
        .collect();
    Centres::new(Features::new(used.len(), d, kept)?)?.assign(x)
}

/// Symmetrised connectivity of each point to its `nn` nearest neighbours (0.5 for a
/// one-sided edge, 1 for a mutual one), as scikit-learn's `affinity="nearest_neighbors"`.
fn knn_affinity(x: &Features, nn: usize) -> Mat<f64> {
    let m = x.n_rows();
    let mut a = Mat::<f64>::zeros(m, m);
    for i in 0..m {
        let mut d: Vec<(f64, usize)> = (0..m)
            .filter(|&j| j != i)
            .map(|j| {
                (
                    x.row(i)
                        .iter()
                        .zip(x.row(j))
                        .map(|(u, v)| (u - v) * (u - v))
                        .sum(),
                    j,
                )
            })
            .collect();
        let nth = nn.saturating_sub(1).min(d.len().saturating_sub(1));
        d.select_nth_unstable_by(nth, |p, q| p.0.total_cmp(&q.0));
        for &(_, j) in d.iter().take(nn) {
            a[(i, j)] += 0.5;
            a[(j, i)] += 0.5;
        }
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::synthetic::gaussian_blobs;
    use crate::kernel::Kernel;

    /// Same-partition check up to relabelling: every blob maps to one cluster and the
    /// blobs to different clusters.
    fn recovers(labels: &[usize], truth: &[f64]) -> bool {
        let mut map = std::collections::BTreeMap::new();
        labels
            .iter()
            .zip(truth)
            .all(|(&l, &t)| *map.entry(t as i64).or_insert(l) == l)
            && map
                .values()
                .collect::<std::collections::BTreeSet<_>>()
                .len()
                == map.len()
    }

    #[test]
    fn every_clustering_recovers_well_separated_blobs() {
        let means = vec![vec![0.0, 0.0], vec![10.0, 0.0], vec![0.0, 10.0]];
        let d = gaussian_blobs(&means, 30, 0.5, 4).unwrap();
        assert!(recovers(&kmedians(&d.x, 3, 1), &d.y));
        assert!(recovers(&agglomerative_ward(&d.x, 3, 1).unwrap(), &d.y));
        assert!(recovers(&spectral_knn(&d.x, 3, 1).unwrap(), &d.y));
        let k = Kernel::Rbf { gamma: 0.05 }.gram(&d.x).unwrap();
        let medoids = kernel_kmedoids(&k, 3, 1);
        let blobs: std::collections::BTreeSet<i64> =
            medoids.iter().map(|&i| d.y[i] as i64).collect();
        assert_eq!(blobs.len(), 3, "one medoid per blob: {medoids:?}");
    }
}
