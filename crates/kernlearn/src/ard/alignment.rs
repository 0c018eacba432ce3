//! Per-feature widths of the ARD Gaussian `k(x, x') = exp(−Σ_k γ_k (x_k − x'_k)²)` by
//! maximising its centered kernel-target alignment (Cortes, Mohri and Rostamizadeh 2012,
//! §2 and §4.2):
//!
//! `A(γ) = ⟨K̃, T⟩_F / (‖K̃‖_F ‖T‖_F)`,  `K̃ = HKH`, `H = I − 11ᵀ/n`, `T = ỸỸᵀ`,
//!
//! where `Ỹ` holds the centered one-hot class indicators (a classifier) or the centered
//! target (a regressor). Since `T` is centered, `⟨K̃, T⟩ = ⟨K, T⟩`. With
//! `∂K_ij/∂γ_k = −K_ij (x_ik − x_jk)²`,
//!
//! `∂A/∂γ_k = −Σ_ij W_ij (x_ik − x_jk)²`,
//! `W = K ⊙ (T/‖K̃‖ − ⟨K,T⟩ K̃/‖K̃‖³) / ‖T‖`,
//!
//! and `Σ_ij W_ij (x_ik − x_jk)² = 2 (Σ_i w_i x_ik² − (XᵀWX)_kk)` with `w = W1` (W is
//! symmetric): two `n × n × d` products per evaluation. The ascent (L-BFGS, Nocedal and
//! Wright 2006, with Armijo backtracking) runs on `ρ = log γ`, so the widths stay
//! positive and an irrelevant feature's width can fall towards 0 geometrically.
//! A feature whose differences carry no information about the labels only adds noise to
//! the distances, which lowers the alignment: its width shrinks.

use crate::data::Features;
use crate::predictor::Task;
use crate::{Error, Result};
use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, Par};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// How the widths are learned.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct AlignmentSettings {
    /// Most L-BFGS steps.
    pub(crate) max_iter: usize,
    /// Most rows the alignment is computed on (a seeded random subset beyond it): each
    /// step costs `O(n² d)`.
    pub(crate) sample: usize,
    /// The width each feature takes: `groups[k]` indexes the learned widths, so that
    /// the columns of one block (a one-hot attribute, [`super::groups`]) share one;
    /// empty: one width per feature.
    pub(crate) groups: Vec<usize>,
    /// Seed of the subset.
    pub(crate) seed: u64,
}

/// Relative improvement of the alignment below which the ascent stops.
const TOLERANCE: f64 = 1e-7;

/// Curvature pairs kept by the L-BFGS ascent.
const MEMORY: usize = 10;

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The L-BFGS memory (Nocedal and Wright 2006, Algorithm 7.4) of the minimisation of
/// `−A`: the last steps `s = ρ' − ρ` and gradient changes `y = −(g' − g)`.
#[derive(Default)]
struct Memory {
    pairs: std::collections::VecDeque<(Vec<f64>, Vec<f64>)>,
}

impl Memory {
    fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// Records a step when its curvature `sᵀy` is positive (else the pair would break
    /// the positive definiteness of the inverse-Hessian approximation).
    fn push(&mut self, rho: &[f64], next: &[f64], g: &[f64], next_g: &[f64]) {
        let s: Vec<f64> = next.iter().zip(rho).map(|(a, b)| a - b).collect();
        let y: Vec<f64> = g.iter().zip(next_g).map(|(a, b)| a - b).collect();
        if dot(&s, &y) > 1e-12 * dot(&y, &y).sqrt() * dot(&s, &s).sqrt() {
            if self.pairs.len() == MEMORY {
                self.pairs.pop_front();
            }
            self.pairs.push_back((s, y));
        }
    }

    /// The ascent direction `H g` by the two-loop recursion (`g` itself without memory).
    fn direction(&self, g: &[f64]) -> Vec<f64> {
        let mut q = g.to_vec();
        let mut alphas = Vec::with_capacity(self.pairs.len());
        for (s, y) in self.pairs.iter().rev() {
            let a = dot(s, &q) / dot(y, s);
            q.iter_mut().zip(y).for_each(|(qi, yi)| *qi -= a * yi);
            alphas.push(a);
        }
        if let Some((s, y)) = self.pairs.back() {
            let scale = dot(s, y) / dot(y, y);
            q.iter_mut().for_each(|v| *v *= scale);
        }
        for ((s, y), a) in self.pairs.iter().zip(alphas.iter().rev()) {
            let b = dot(y, &q) / dot(y, s);
            q.iter_mut().zip(s).for_each(|(qi, si)| *qi += (a - b) * si);
        }
        q
    }
}

/// Learned widths and what the ascent reached.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct LearnedWidths {
    /// `γ_k`, one per feature.
    pub(crate) gammas: Vec<f64>,
    /// Each feature's spread `E[(x_k − x'_k)²]` over pairs of the sample's rows.
    spread: Vec<f64>,
    /// Centered alignment at the start (equal widths) and at the
    /// end.
    pub(crate) alignment: (f64, f64),
    /// L-BFGS steps taken.
    pub(crate) iterations: usize,
}

impl LearnedWidths {
    /// Widths `gammas` on features of spreads `spread`, refused unless finite with a
    /// positive, finite mean exponent.
    fn checked(
        gammas: Vec<f64>,
        spread: Vec<f64>,
        alignment: (f64, f64),
        iterations: usize,
    ) -> Result<Self> {
        let w = Self {
            gammas,
            spread,
            alignment,
            iterations,
        };
        let sum = w.mean_exponent();
        if !(sum > 0.0 && sum.is_finite() && w.gammas.iter().all(|g| g.is_finite())) {
            return Err(Error::data(format!(
                "ard: the learned widths are not finite and positive (share sum {sum}); the \
                 features' ranges differ too much to learn widths from: scale them \
                 («scale=01» or «scale=standard»)"
            )));
        }
        Ok(w)
    }

    /// The same features at new widths `gammas` (checked as the alignment's are).
    pub(crate) fn with_gammas(self, gammas: Vec<f64>) -> Result<Self> {
        Self::checked(gammas, self.spread, self.alignment, self.iterations)
    }

    /// `Σ_k γ_k E[(x_k − x'_k)²]`, the kernel's mean exponent over pairs of rows (1 at
    /// the start of the ascent).
    pub(crate) fn mean_exponent(&self) -> f64 {
        self.gammas
            .iter()
            .zip(&self.spread)
            .map(|(g, s)| g * s)
            .sum()
    }

    /// Each feature's share of the kernel's exponent, `γ_k E[(x_k − x'_k)²]` normalised
    /// to sum 1 over the features (scale-free: the relevance of feature `k`).
    pub(crate) fn relevance(&self) -> Vec<f64> {
        let sum = self.mean_exponent();
        (self.gammas.iter().zip(&self.spread))
            .map(|(g, s)| g * s / sum)
            .collect()
    }
}

/// The centered alignment's target factor `Ỹ` (n × c, centered columns) for `task`.
fn target_factor(y: &[f64], task: Task) -> Result<Mat<f64>> {
    let n = y.len();
    let columns: Vec<Vec<f64>> = match task {
        Task::Regression => vec![y.to_vec()],
        _ => {
            let classes = crate::data::class_labels(y);
            if classes.len() < 2 {
                return Err(Error::data("ard: the labels have a single class"));
            }
            (classes.iter())
                .map(|&c| y.iter().map(|&v| f64::from(u8::from(v == c))).collect())
                .collect()
        }
    };
    let mut t = Mat::<f64>::zeros(n, columns.len());
    for (c, col) in columns.iter().enumerate() {
        let mean = col.iter().sum::<f64>() / n as f64;
        for (i, v) in col.iter().enumerate() {
            t[(i, c)] = v - mean;
        }
    }
    Ok(t)
}

/// The alignment problem on one sample: rows `x` (n × d) and target factor `ỹ`.
struct Problem {
    x: Mat<f64>,
    /// `T = ỸỸᵀ` (n × n), fixed over the ascent.
    target: Mat<f64>,
    /// `‖T‖_F = ‖ỸᵀỸ‖_F`.
    target_norm: f64,
}

impl Problem {
    fn new(x: &Features, y: &[f64], task: Task) -> Result<Self> {
        let (n, d) = (x.n_rows(), x.n_cols());
        let x = Mat::from_fn(n, d, |i, k| x.row(i)[k]);
        let factor = target_factor(y, task)?;
        let mut gram = Mat::<f64>::zeros(factor.ncols(), factor.ncols());
        let par = Par::Seq;
        matmul(
            gram.as_mut(),
            Accum::Replace,
            factor.transpose(),
            &factor,
            1.0,
            par,
        );
        let target_norm = gram.norm_l2();
        let mut target = Mat::<f64>::zeros(n, n);
        let par = Par::rayon(0);
        matmul(
            target.as_mut(),
            Accum::Replace,
            &factor,
            factor.transpose(),
            1.0,
            par,
        );
        if target_norm.is_nan() || target_norm <= 0.0 {
            return Err(Error::data("ard: the target has no variance"));
        }
        Ok(Self {
            x,
            target,
            target_norm,
        })
    }

    /// The kernel matrix at widths `gammas`.
    fn kernel(&self, gammas: &[f64]) -> Mat<f64> {
        ard_gram(&self.x, gammas)
    }

    /// The alignment at `ρ = log γ` and its gradient in `ρ`.
    fn value_and_gradient(&self, rho: &[f64]) -> (f64, Vec<f64>) {
        let gammas: Vec<f64> = rho.iter().map(|r| r.exp()).collect();
        let (n, d) = (self.x.nrows(), self.x.ncols());
        let k = self.kernel(&gammas);
        // K̃ = HKH from the row means (K is symmetric) and the grand mean.
        let row_mean: Vec<f64> = (0..n)
            .map(|i| (0..n).map(|j| k[(i, j)]).sum::<f64>() / n as f64)
            .collect();
        let mean = row_mean.iter().sum::<f64>() / n as f64;
        let centred = Mat::from_fn(n, n, |i, j| k[(i, j)] - row_mean[i] - row_mean[j] + mean);
        let norm = centred.norm_l2();
        let inner: f64 = (0..n)
            .map(|j| (0..n).map(|i| k[(i, j)] * self.target[(i, j)]).sum::<f64>())
            .sum();
        if norm.is_nan() || norm <= 0.0 {
            // Every kernel value equal (all widths 0, or all points one): no alignment.
            return (0.0, vec![0.0; d]);
        }
        let alignment = inner / (norm * self.target_norm);
        let t = &self.target;
        let scale = 1.0 / self.target_norm;
        let w = Mat::from_fn(n, n, |i, j| {
            k[(i, j)] * (t[(i, j)] / norm - inner * centred[(i, j)] / norm.powi(3)) * scale
        });
        let mut wx = Mat::<f64>::zeros(n, d);
        matmul(wx.as_mut(), Accum::Replace, &w, &self.x, 1.0, Par::rayon(0));
        let row_sum: Vec<f64> = (0..n).map(|i| (0..n).map(|j| w[(i, j)]).sum()).collect();
        let gradient = (0..d)
            .map(|kk| {
                let s: f64 = (0..n)
                    .map(|i| {
                        let v = self.x[(i, kk)];
                        row_sum[i] * v * v - v * wx[(i, kk)]
                    })
                    .sum();
                -2.0 * s * gammas[kk]
            })
            .collect();
        (alignment, gradient)
    }

    /// Mean squared difference of each feature over the pairs of rows,
    /// `E[(x_k − x'_k)²] = 2 Var(x_k)`.
    fn mean_square_differences(&self) -> Vec<f64> {
        let n = self.x.nrows() as f64;
        (0..self.x.ncols())
            .map(|k| {
                let col = self.x.col(k);
                let mean = col.iter().sum::<f64>() / n;
                2.0 * col.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n
            })
            .collect()
    }
}

/// The ARD Gaussian's matrix `exp(−Σ_k γ_k (x_ik − x_jk)²)` on the rows of `x`.
pub(super) fn ard_gram(x: &Mat<f64>, gammas: &[f64]) -> Mat<f64> {
    let (n, d) = (x.nrows(), x.ncols());
    let z = Mat::from_fn(n, d, |i, k| x[(i, k)] * gammas[k].sqrt());
    let sq: Vec<f64> = (0..n)
        .map(|i| (0..d).map(|k| z[(i, k)] * z[(i, k)]).sum())
        .collect();
    let mut k = Mat::<f64>::zeros(n, n);
    matmul(
        k.as_mut(),
        Accum::Replace,
        &z,
        z.transpose(),
        1.0,
        Par::rayon(0),
    );
    for j in 0..n {
        for i in 0..n {
            let dist = (sq[i] + sq[j] - 2.0 * k[(i, j)]).max(0.0);
            k[(i, j)] = (-dist).exp();
        }
    }
    k
}

/// How the learned widths map onto the features: `of[k]` is feature `k`'s width.
pub(super) struct Widths {
    of: Vec<usize>,
    count: usize,
}

impl Widths {
    /// From a feature → width map (empty: one width per feature of `d`).
    pub(super) fn new(groups: &[usize], d: usize) -> Result<Self> {
        if groups.is_empty() {
            return Ok(Self {
                of: (0..d).collect(),
                count: d,
            });
        }
        let count = groups.iter().max().map_or(0, |m| m + 1);
        if groups.len() != d || (0..count).any(|g| !groups.contains(&g)) {
            return Err(Error::param(
                "ard-groups",
                format!(
                    "a width map of {} columns for {d} features, or a width no column takes",
                    groups.len()
                ),
            ));
        }
        Ok(Self {
            of: groups.to_vec(),
            count,
        })
    }

    /// Per-feature `log γ` from per-width values.
    pub(super) fn per_feature(&self, theta: &[f64]) -> Vec<f64> {
        self.of.iter().map(|&g| theta[g]).collect()
    }

    /// Per-width values from per-feature ones that agree within each width.
    pub(super) fn of_features(&self, values: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; self.count];
        self.of.iter().zip(values).for_each(|(&g, &v)| out[g] = v);
        out
    }

    /// The gradient in the per-width values: a shared `log γ` moves every feature of
    /// its group, so its derivative is the sum of theirs.
    pub(super) fn per_width(&self, gradient: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; self.count];
        self.of.iter().zip(gradient).for_each(|(&g, v)| out[g] += v);
        out
    }
}

/// The rows of the alignment sample: all of them, or `sample` chosen at random.
pub(super) fn sample_rows(n: usize, settings: &AlignmentSettings) -> Vec<usize> {
    let mut rows: Vec<usize> = (0..n).collect();
    if n > settings.sample {
        rows.shuffle(&mut ChaCha8Rng::seed_from_u64(settings.seed));
        rows.truncate(settings.sample);
        rows.sort_unstable();
    }
    rows
}

/// Maximises the centered alignment over the widths by L-BFGS ascent on `log γ` with a
/// backtracking (Armijo) line search, from equal widths with `Σ_k γ_k E[(x_k − x'_k)²] = 1`
/// (the mean squared distance as the width).
pub(crate) fn learn_widths(
    x: &Features,
    y: &[f64],
    task: Task,
    settings: &AlignmentSettings,
) -> Result<LearnedWidths> {
    if x.n_rows() < 4 {
        return Err(Error::data(format!(
            "ard: {} training rows are too few to learn widths from",
            x.n_rows()
        )));
    }
    let rows = sample_rows(x.n_rows(), settings);
    let ys: Vec<f64> = rows.iter().map(|&i| y[i]).collect();
    let problem = Problem::new(&x.select_rows(&rows), &ys, task)?;
    let spread = problem.mean_square_differences();
    if let Some(k) = spread.iter().position(|s| !s.is_finite()) {
        return Err(Error::param(
            "scale",
            format!(
                "ard: feature {} has values so large that their squared differences \
                 overflow; scale the features («scale=01» or «scale=standard»)",
                k + 1
            ),
        ));
    }
    let total: f64 = spread.iter().sum();
    if total.is_nan() || total <= 0.0 {
        return Err(Error::data(
            "ard: every feature is constant on the training rows",
        ));
    }
    // Σ_k γ E[(x_k − x'_k)²] = 1: the mean squared distance is one width.
    let widths = Widths::new(&settings.groups, spread.len())?;
    let eval = |theta: &[f64]| {
        let (value, gradient) = problem.value_and_gradient(&widths.per_feature(theta));
        (value, widths.per_width(&gradient))
    };
    let mut rho = vec![-(total.ln()); widths.count];
    let (start, mut gradient) = eval(&rho);
    let mut value = start;
    let mut memory = Memory::default();
    let mut iterations = 0;
    while iterations < settings.max_iter {
        let mut direction = memory.direction(&gradient);
        let mut slope = dot(&gradient, &direction);
        if slope.is_nan() || slope <= 0.0 {
            // Not an ascent direction (curvature lost): restart from the gradient.
            memory = Memory::default();
            direction = gradient.clone();
            slope = dot(&gradient, &gradient);
        }
        // The first step has no curvature yet: a unit move in the largest coordinate.
        let mut step = if memory.is_empty() {
            1.0 / direction
                .iter()
                .fold(0.0_f64, |m, v| m.max(v.abs()))
                .max(1e-12)
        } else {
            1.0
        };
        let found = loop {
            let next: Vec<f64> = (rho.iter().zip(&direction))
                .map(|(r, d)| r + step * d)
                .collect();
            let (v, g) = eval(&next);
            // Armijo's sufficient rise.
            if v >= value + 1e-4 * step * slope {
                break Some((next, v, g));
            }
            step /= 2.0;
            if step < 1e-10 {
                break None;
            }
        };
        let Some((next, next_value, next_gradient)) = found else {
            break;
        };
        iterations += 1;
        let gain = next_value - value;
        memory.push(&rho, &next, &gradient, &next_gradient);
        (rho, value, gradient) = (next, next_value, next_gradient);
        if gain < TOLERANCE * value.abs() {
            break;
        }
    }
    let gammas: Vec<f64> = widths.per_feature(&rho).iter().map(|r| r.exp()).collect();
    LearnedWidths::checked(gammas, spread, (start, value), iterations)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toy(n: usize, d: usize, seed: u64) -> (Features, Vec<f64>) {
        use rand::Rng;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let values: Vec<f64> = (0..n * d).map(|_| rng.random::<f64>()).collect();
        let x = Features::new(n, d, values).unwrap();
        let y = (0..n)
            .map(|i| {
                if x.row(i)[0] + 0.3 * x.row(i)[1] > 0.65 {
                    1.0
                } else {
                    -1.0
                }
            })
            .collect();
        (x, y)
    }

    /// The analytic gradient is the derivative of the alignment (central differences).
    #[test]
    fn the_gradient_is_the_derivative_of_the_alignment() {
        let (x, y) = toy(30, 4, 1);
        let p = Problem::new(&x, &y, Task::Classification).unwrap();
        let rho = [0.3, -0.5, 1.0, -1.2];
        let (_, g) = p.value_and_gradient(&rho);
        for k in 0..4 {
            let h = 1e-6;
            let (mut up, mut down) = (rho, rho);
            up[k] += h;
            down[k] -= h;
            let fd = (p.value_and_gradient(&up).0 - p.value_and_gradient(&down).0) / (2.0 * h);
            assert!(
                (fd - g[k]).abs() < 1e-6 * (1.0 + fd.abs()),
                "{k}: {fd} vs {}",
                g[k]
            );
        }
    }

    /// The alignment is the brute-force `⟨HKH, T⟩ / (‖HKH‖ ‖T‖)` of its definition.
    #[test]
    fn the_alignment_is_its_definition() {
        let (x, y) = toy(12, 3, 2);
        let p = Problem::new(&x, &y, Task::Classification).unwrap();
        let gammas = [2.0, 0.5, 1.0];
        let (a, _) = p.value_and_gradient(&gammas.map(f64::ln));
        let n = 12;
        let k = |i: usize, j: usize| {
            let s: f64 = (0..3)
                .map(|c| gammas[c] * (x.row(i)[c] - x.row(j)[c]).powi(2))
                .sum();
            (-s).exp()
        };
        let h = |i: usize, j: usize| f64::from(u8::from(i == j)) - 1.0 / n as f64;
        let mut hkh = vec![vec![0.0; n]; n];
        for i in 0..n {
            for j in 0..n {
                for a in 0..n {
                    for b in 0..n {
                        hkh[i][j] += h(i, a) * k(a, b) * h(b, j);
                    }
                }
            }
        }
        let classes = [-1.0, 1.0];
        let t = |i: usize, j: usize| {
            let mut s = 0.0;
            for c in classes {
                let m = y.iter().filter(|&&v| v == c).count() as f64 / n as f64;
                s += (f64::from(u8::from(y[i] == c)) - m) * (f64::from(u8::from(y[j] == c)) - m);
            }
            s
        };
        let (mut inner, mut kk, mut tt) = (0.0, 0.0, 0.0);
        for i in 0..n {
            for j in 0..n {
                inner += hkh[i][j] * t(i, j);
                kk += hkh[i][j].powi(2);
                tt += t(i, j).powi(2);
            }
        }
        let want = inner / (kk.sqrt() * tt.sqrt());
        assert!((a - want).abs() < 1e-12, "{a} vs {want}");
    }

    /// On two informative features among eight, the ascent raises the alignment and
    /// puts most of the relevance on them.
    #[test]
    fn the_widths_find_the_informative_features() {
        let (x, y) = toy(200, 8, 3);
        let settings = AlignmentSettings {
            max_iter: 100,
            sample: 1000,
            seed: 0,
            groups: Vec::new(),
        };
        let w = learn_widths(&x, &y, Task::Classification, &settings).unwrap();
        assert!(w.alignment.1 > w.alignment.0, "{:?}", w.alignment);
        let real = w.relevance()[0] + w.relevance()[1];
        assert!(real > 0.8, "relevance {:?}", w.relevance());
        assert!(w.relevance()[0] > w.relevance()[1]);
        assert!((w.relevance().iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }

    /// A column whose squared differences overflow (values near 1e160, unscaled) is a
    /// clear error naming it and the way out, never widths of zero and a null relevance.
    #[test]
    fn overflowing_features_are_refused() {
        let (x, y) = toy(60, 3, 1);
        let rows: Vec<Vec<f64>> = (x.rows()).map(|r| vec![r[0], r[1] * 1e160, r[2]]).collect();
        let x = Features::from_rows(&rows).unwrap();
        let settings = AlignmentSettings {
            max_iter: 10,
            sample: 1000,
            seed: 0,
            groups: Vec::new(),
        };
        let e = learn_widths(&x, &y, Task::Classification, &settings)
            .unwrap_err()
            .to_string();
        assert!(e.contains("feature 2") && e.contains("scale"), "{e}");
    }
}
