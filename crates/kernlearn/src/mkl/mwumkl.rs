//! MWUMKL: multiple kernel learning by matrix multiplicative weight updates (Moeller
//! 2017, section 3.2, Algorithms 4–6).
//!
//! The MKL problem (2.9) is the QCQP (3.1): find `α ≥ 0`, `yᵀα = 0`, `1ᵀα = 1` that
//! minimises `max_i αᵀĜ_iα` with `Ĝ_i = Y K_i Y / tr K_i` — the largest (over kernel
//! combinations) shortest distance between the two classes' convex hulls. Algorithm 6
//! plays it as a game for `T = ⌈4ρ ln(n)/ε⌉` rounds:
//!
//! - **forward step** (Algorithm 5): with `g = Σ_i p_i Ĝ_iα`, add `½` to `α` at the most
//!   violating point of each class (`argmin_j g_j`, i.e. the smallest `y_j f(x_j)`);
//! - **backward step** (Algorithm 4, Lemma 1): the event matrices are almost diagonal,
//!   so `exp(ε' Σ_t M_i^(t))` has the closed form of Lemma 1 and its off-diagonal block
//!   weight is `sinh(x_i)` with `x_i = (ln 2 / 2ρ) ‖A_iα‖`, `‖A_iα‖ = (αᵀĜ_iα)^½`
//!   (`ε' = ln ½`); dividing by `‖A_iα‖` (the unit vector `û_i`) gives
//!   `g ∝ Σ_i sinhc(x_i) Ĝ_iα` with `sinhc(x) = sinh(x)/x`.
//!
//! The kernel weights of section 3.2.6, `μ_i ∝ p_i^12 / ‖A_iα‖ ∝ sinhc(x_i)`, are exactly
//! the combination the forward step follows; they are normalised to `Σ μ_i = 1` (the
//! common factors of Algorithm 4 — `e^a`, the trace `S` — cancel, so they are never
//! computed; `sinhc` is evaluated in log space, which is Algorithm 4's "quashing", for the
//! final weights and for `x_i ≥ 20`; below, a round's weight is `sinhc(x_i)·e^(−l_ref)`).
//!
//! Memory is `O(mn)`: `Ĝ_iα` is kept for every kernel and, since a round changes two
//! coordinates of `α`, updated with two kernel columns per kernel computed on demand
//! (in parallel over kernels, fused with the weighted sum that gives the next `g`). In a
//! selection, whose kernel table holds the fit's points, it is `O(mN)` on the table's `N`
//! rows, the columns read in place ([`KernelBank::table_space`]).
//!
//! **Soft margin.** (3.1) is the hard-margin problem; the thesis's footnote 1 allows the
//! 2-norm soft margin by adding a multiple of `I` to each `G_i`. With `c = Some(C)` every
//! normalised kernel `K̄_i` (mean diagonal 1) gets `I/C`, the L2-SVM of trade-off `C`.
//!
//! **Sparse MWUMKL** (not in the thesis; on by default, `prune`). The weights
//! `μ_i ∝ sinhc(x_i)` move off uniform slowly: `x_i` grows with the accumulated `α` by
//! `‖A_iα‖ = (αᵀĜ_iα)^½` with `Ĝ_i` trace-normalised to `1/n`, so on `n` points and `m`
//! kernels it takes `T ≫ √n ln m` rounds before irrelevant kernels lose their share (on
//! pima with 30 noise columns, 456 kernels, 7,000 rounds at ε = 0.005 left 26 % of the
//! weight on the real columns' kernels, 21 % being uniform). Their *order* is informative
//! much earlier, and it is the order of `αᵀĜ_iα`, the gradient of the MKL objective
//! `D(μ) = min_α αᵀĜ_μα` (the squared half-distance of the hulls, which MKL maximises
//! over `μ`). So the game is played again on the kernels weighted at least evenly
//! (`μ_i ≥ 1/m`; at most the heavier half of the game's kernels, so that all games
//! together cost at most twice the first), a backward elimination in that order, until
//! a game drops no kernel (down to one kernel at most), and the game of largest value
//! `s = ᾱᵀĜ_μᾱ` is kept:
//! a restriction of the simplex cannot raise the optimum `D*`, so a larger value after
//! a restriction means the smaller game was solved closer to its optimum within the
//! same rounds, while dropping a kernel the optimum needs lowers it. Each game has `T`
//! rounds on fewer kernels (the sets shrank about fivefold per game on most shared sets).
//!
//! **Bias** (the thesis leaves it open). The final `ᾱ = α/T` has half its mass on each
//! class, so `p₊ = Σ_{y_j=+1} 2ᾱ_j φ(x_j)` and `p₋` are points of the two hulls and
//! `w = Σ_j ᾱ_j y_j φ(x_j) = (p₊ − p₋)/2`. The hyperplane through the midpoint of `p₊`
//! and `p₋` perpendicular to `w` — which at the optimum *is* the hard-margin SVM's — is
//! `⟨w, φ(x)⟩ − Σ_j ᾱ_j y_j (Ḡ_μ ᾱ)_j`. Dividing by `s = ᾱᵀḠ_μᾱ = ‖w‖²` puts it on
//! the SVM's scale (`w_SVM = w/‖w‖²`, margin points at `±1`):
//! `coef_j = ᾱ_j y_j / s`, `rho = Σ_j ᾱ_j y_j (Ḡ_μᾱ)_j / s`.

use crate::bank::KernelFamily;
use crate::bank::{check_binary, MachineInfo, MklMachine};
use crate::bank::{GramTable, KernelBank};
use crate::check::positive_finite;
use crate::simd::{add_column_difference, add_scaled, Squared};
use crate::{Error, Result};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Parameters of MWUMKL.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct MwumklParams {
    /// Approximation error `ε > 0`: the game runs `T ∝ 1/ε` rounds, and the weights move
    /// off uniform only after many rounds. Chapter 3 chose it by cross-validation (0.2
    /// on most sets, 0.05–0.07 on the large ones); section 5.4.1.2 ran 0.005 "to achieve
    /// high accuracy", the default.
    pub epsilon: f64,
    /// Width `ρ` of the SDP (Lemma 2 bounds it by 3/2).
    pub width: f64,
    /// 2-norm soft margin `C` (`I/C` added to every normalised kernel); `None` solves
    /// the hard-margin problem (3.1).
    pub c: Option<f64>,
    /// Number of rounds; `None` = `T = ⌈4ρ ln(n)/ε⌉` (section 3.2.7.1).
    pub iterations: Option<usize>,
    /// Sparse MWUMKL: play the game again on the kernels weighted at least evenly until a
    /// game drops none, keeping the game of largest value (module docs). Models saved
    /// without it were fitted dense.
    #[serde(default)]
    pub prune: bool,
}

impl Default for MwumklParams {
    /// `ε = 0.005` (the thesis's experiments, section 5.4.1.2), `ρ = 3/2`, hard margin,
    /// sparse.
    fn default() -> Self {
        Self {
            epsilon: 0.005,
            width: 1.5,
            c: None,
            iterations: None,
            prune: true,
        }
    }
}

impl MwumklParams {
    /// Checks `ε > 0`, `ρ > 0`, `C > 0`, `T ≥ 1`.
    pub fn validate(&self) -> Result<()> {
        positive_finite("epsilon", self.epsilon)?;
        positive_finite("width", self.width)?;
        if let Some(c) = self.c {
            positive_finite("C", c)?;
        }
        if self.iterations == Some(0) {
            return Err(Error::param("iterations", "must be >= 1"));
        }
        Ok(())
    }

    /// Rounds for `n` training points: the given `iterations` or `⌈4ρ ln(n)/ε⌉`.
    pub fn rounds(&self, n: usize) -> usize {
        self.iterations.unwrap_or_else(|| {
            (4.0 * self.width * (n.max(2) as f64).ln() / self.epsilon).ceil() as usize
        })
    }
}

/// `ln(sinh(x)/x)` for `x ≥ 0`, without overflow.
fn ln_sinhc(x: f64) -> f64 {
    if x < 1e-4 {
        x * x / 6.0
    } else if x < 20.0 {
        (x.sinh() / x).ln()
    } else {
        x - (2.0 * x).ln() + (-(-2.0 * x).exp()).ln_1p()
    }
}

/// Most violating point of each class: `argmin_{y_j = +1} g_j`, `argmin_{y_j = −1} g_j`
/// (Algorithm 5; ties go to the lower index).
pub(crate) fn most_violating(g: &[f64], y: &[f64]) -> (usize, usize) {
    let (mut p, mut q) = (usize::MAX, usize::MAX);
    for (j, (&v, &l)) in g.iter().zip(y).enumerate() {
        let best = if l > 0.0 { &mut p } else { &mut q };
        if *best == usize::MAX || v < g[*best] {
            *best = j;
        }
    }
    (p, q)
}

/// What Algorithm 6 found, before it is packed into a machine.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct MwumklSolution {
    /// Kernel weights (section 3.2.6), summing to one.
    pub weights: Vec<f64>,
    /// `s = ᾱᵀḠ_μᾱ`: the squared half-distance of the hulls under the learned kernel.
    pub objective: f64,
    /// Decision coefficients `ᾱ_j y_j / s` (SVM scale).
    pub coef: Vec<f64>,
    /// Offset (midpoint bias, SVM scale).
    pub rho: f64,
    /// Rounds run.
    pub rounds: usize,
}

/// One round's contribution of a set of kernels to the next forward step.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RoundPart {
    /// `Σ_i exp(l_i − l_ref) Ḡ_iα` over the set's kernels (the unnormalised `g`).
    pub g: Vec<f64>,
    /// `max_i l_i`, `l_i = ln sinhc(x_i)`: the next round's `l_ref`.
    pub l_max: f64,
}

/// What stays fixed during one fit: the bank, the labels and the constants of the game.
struct Game<'a> {
    bank: &'a KernelBank,
    /// `1/C` added to every normalised kernel (0: hard margin).
    ridge: f64,
    /// `ln 2 / 2ρ` (Lemma 1).
    rate: f64,
    /// Where the per-kernel vectors `Ḡ_iα` live: with a kernel table in which the bank's
    /// points are distinct rows ([`KernelBank::table_space`]), on every row of the table,
    /// so that a round reads each kernel column in place; else on the bank's points.
    table: Option<(&'a GramTable, &'a [usize])>,
    /// Length of those vectors.
    width: usize,
    /// `½ y` on them (0 on table rows that are not the bank's points).
    half_y: Vec<f64>,
}

impl<'a> Game<'a> {
    fn new(bank: &'a KernelBank, y: &'a [f64], params: &MwumklParams) -> Result<Self> {
        params.validate()?;
        check_binary(y, bank.n_points())?;
        bank.base().require_psd("MWUMKL")?;
        let table = bank.table_space();
        let (width, half_y) = match table {
            Some((t, rows)) => {
                let mut half_y = vec![0.0; t.n_points()];
                rows.iter().zip(y).for_each(|(&r, &l)| half_y[r] = 0.5 * l);
                (t.n_points(), half_y)
            }
            None => (y.len(), y.iter().map(|&l| 0.5 * l).collect()),
        };
        Ok(Self {
            bank,
            ridge: params.c.map_or(0.0, |c| 1.0 / c),
            rate: rate(params),
            table,
            width,
            half_y,
        })
    }

    /// The position of the bank's point `p` in the per-kernel vectors.
    fn at(&self, p: usize) -> usize {
        self.table.map_or(p, |(_, rows)| rows[p])
    }

    /// A per-kernel vector's entries at the bank's points.
    fn on_points(&self, v: Vec<f64>) -> Vec<f64> {
        match self.table {
            Some((_, rows)) => rows.iter().map(|&r| v[r]).collect(),
            None => v,
        }
    }
}

fn rate(params: &MwumklParams) -> f64 {
    std::f64::consts::LN_2 / (2.0 * params.width)
}

/// `ln sinhc(x_i)` of a kernel with `αᵀḠ_iα = q_i` on `n` points (Algorithm 4).
fn log_weight(q_i: f64, n: usize, rate: f64) -> f64 {
    ln_sinhc(rate * (q_i.max(0.0) / n as f64).sqrt())
}

/// The per-kernel state of Algorithm 6 for the kernels `kernels` of a bank: `Ḡ_iα` and
/// `αᵀḠ_iα` for the accumulated `α`. [`solve`] keeps one state for the kernels still in
/// play; a [`MwumklShard`] keeps one for its slice of the family.
#[derive(Clone, Debug)]
struct KernelState {
    kernels: Vec<usize>,
    /// `Ḡ_iα`, row `k` for kernel `kernels[k]`.
    h: Vec<f64>,
    /// `αᵀḠ_iα`.
    q: Vec<f64>,
}

impl KernelState {
    fn new(kernels: Vec<usize>, n: usize) -> Self {
        Self {
            h: vec![0.0; kernels.len() * n],
            q: vec![0.0; kernels.len()],
            kernels,
        }
    }

    /// Round `t` after the forward step chose points `p` and `r`: `α += ½(e_p + e_r)` in
    /// every kernel's `Ḡ_iα` and `αᵀḠ_iα` (two kernel columns per kernel, in parallel
    /// over kernels), fused, when `with_sum`, with the weighted sum that gives the next
    /// `g` (Algorithm 4, weights `exp(l_i − l_ref)`).
    fn round(
        &mut self,
        game: &Game,
        (t, p, r): (usize, usize, usize),
        l_ref: f64,
        with_sum: bool,
    ) -> Result<RoundPart> {
        let (bank, ridge, rate) = (game.bank, game.ridge, game.rate);
        let (n, width, half_y) = (bank.n_points(), game.width, &game.half_y[..]);
        let (ap, ar) = (game.at(p), game.at(r));
        let kernels = &self.kernels[..];
        let tol = 1e-9 * (t * t) as f64;
        let not_psd = AtomicUsize::new(usize::MAX);
        let scale = (-l_ref).exp();
        // Fixed chunks of kernels, summed in order: the same bits for any thread count.
        let chunk = kernels_per_task(n);
        let parts: Vec<(Vec<f64>, f64)> = self
            .h
            .par_chunks_mut(width * chunk)
            .zip(self.q.par_chunks_mut(chunk))
            .enumerate()
            .map_init(
                // Buffers for computed columns, sized only where the table is not read.
                || (Vec::new(), Vec::new()),
                |(bp, br), (c, (hs, qs))| {
                    let (mut acc, mut l_max, mut sinhc_max) =
                        (vec![0.0; width], f64::NEG_INFINITY, 0.0f64);
                    for (k, (h_i, q_i)) in hs.chunks_mut(width).zip(qs.iter_mut()).enumerate() {
                        let i = kernels[c * chunk + k];
                        // Unnormalised columns of p and r: read from the table (a chained
                        // kernel's squared from its root's as it is read), or computed.
                        let (kp, kr) = match game.table {
                            Some((table, _)) => (table.column(i, ap), table.column(i, ar)),
                            None => {
                                bp.resize(n, 0.0);
                                br.resize(n, 0.0);
                                bank.raw_point_column(i, p, bp);
                                bank.raw_point_column(i, r, br);
                                (Squared::plain(bp), Squared::plain(br))
                            }
                        };
                        let f = bank.factors()[i];
                        // α' = α + ½(e_p + e_r): q' = q + (Ḡα)_p + (Ḡα)_r + ¼ (e_p + e_r)ᵀḠ(e_p + e_r)
                        let [kpp, krr, kpr] = Squared::at_each([(kp, ap), (kr, ar), (kp, ar)]);
                        let pair = f * kpp + f * krr + 2.0 * ridge - 2.0 * (f * kpr);
                        *q_i += h_i[ap] + h_i[ar] + 0.25 * pair;
                        add_column_difference(h_i, half_y, kp, kr, f);
                        h_i[ap] += 0.5 * ridge;
                        h_i[ar] += 0.5 * ridge;
                        if *q_i < -tol {
                            not_psd.fetch_min(i, Ordering::Relaxed);
                        }
                        if with_sum {
                            let (w, l, sinhc) = round_weight(*q_i, n, rate, l_ref, scale);
                            l_max = l_max.max(l);
                            sinhc_max = sinhc_max.max(sinhc);
                            if w > 0.0 {
                                add_scaled(&mut acc, w, h_i);
                            }
                        }
                    }
                    (acc, l_max.max(sinhc_max.ln()))
                },
            )
            .collect();
        let (g, l_max) = sum_parts(parts, width);
        let bad = not_psd.load(Ordering::Relaxed);
        if bad != usize::MAX {
            return Err(Error::param(
                "kernels",
                format!(
                    "base kernel {} ({}) gave αᵀGα < 0: it is not positive semi-definite on this data; MWUMKL needs PSD kernels",
                    bad + 1,
                    bank.base().kernel(bad)
                ),
            ));
        }
        Ok(RoundPart {
            g: game.on_points(g),
            l_max,
        })
    }

    /// `Σ_i μ_i Ḡ_iα / T` over this state's kernels, `weights` being their `μ_i`.
    fn weighted_h(&self, game: &Game, weights: &[f64], rounds: usize) -> Vec<f64> {
        let (tf, width) = (rounds as f64, game.width);
        let chunk = kernels_per_task(game.bank.n_points());
        let parts: Vec<(Vec<f64>, f64)> = self
            .h
            .par_chunks(width * chunk)
            .zip(weights.par_chunks(chunk))
            .map(|(hs, ws)| {
                let mut acc = vec![0.0; width];
                for (h_i, &w) in hs.chunks(width).zip(ws) {
                    acc.iter_mut().zip(h_i).for_each(|(a, v)| *a += w * v / tf);
                }
                (acc, 0.0)
            })
            .collect();
        game.on_points(sum_parts(parts, width).0)
    }
}

/// Below it, `x_i` leaves `sinhc(x_i)` far from overflow: the round weight
/// `exp(l_i − l_ref)` is `sinhc(x_i)·exp(−l_ref)`, without a logarithm per kernel.
const DIRECT_SINHC: f64 = 20.0;

/// The weight `exp(l_i − l_ref)` of a kernel with `αᵀḠ_iα = q_i` in the next round's `g`
/// (Algorithm 4; `scale = exp(−l_ref)`), with what the next round's `l_ref = max_i l_i`
/// needs: `(w, l_i, 0)`, or, for `x_i` below [`DIRECT_SINHC`], `(w, −∞, sinhc(x_i))` —
/// there `sinhc` is computed directly and its logarithm is taken once, of the largest.
fn round_weight(q_i: f64, n: usize, rate: f64, l_ref: f64, scale: f64) -> (f64, f64, f64) {
    let x = rate * (q_i.max(0.0) / n as f64).sqrt();
    if x >= DIRECT_SINHC || !scale.is_normal() {
        let l = ln_sinhc(x);
        return ((l - l_ref).exp(), l, 0.0);
    }
    let sinhc = sinhc(x);
    (sinhc * scale, f64::NEG_INFINITY, sinhc)
}

/// `sinh(x)/x` for `0 ≤ x <` [`DIRECT_SINHC`], to a few ulp, without libm's `sinh` (a
/// call per kernel and round was a tenth of MWUMKL's time): below ½ its Taylor series
/// `Σ_k x^2k/(2k+1)!` to `k = 7` (the next term is below 10⁻¹⁸), above it
/// `(eˣ − e⁻ˣ)/2x`, whose subtraction loses at most a factor 1.6 there.
fn sinhc(x: f64) -> f64 {
    if x < 0.5 {
        const C: [f64; 8] = [
            1.0,
            1.0 / 6.0,
            1.0 / 120.0,
            1.0 / 5_040.0,
            1.0 / 362_880.0,
            1.0 / 39_916_800.0,
            1.0 / 6_227_020_800.0,
            1.0 / 1_307_674_368_000.0,
        ];
        let z = x * x;
        return C.iter().rev().fold(0.0, |acc, &c| acc * z + c);
    }
    let e = crate::simd::exp_lanes(x);
    (e - 1.0 / e) / (2.0 * x)
}

/// Kernels per parallel task of a round on `n` points: enough that the per-task buffers
/// are amortised, and independent of the thread count, so that the partial sums (added
/// in order by [`sum_parts`]) give the same bits on any machine.
fn kernels_per_task(n: usize) -> usize {
    (4096 / n.max(1)).max(1)
}

/// The partial `g` vectors added in order, and the largest of their `l_max`.
fn sum_parts(parts: Vec<(Vec<f64>, f64)>, n: usize) -> (Vec<f64>, f64) {
    parts
        .into_iter()
        .fold((vec![0.0; n], f64::NEG_INFINITY), |(mut a, la), (b, lb)| {
            a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
            (a, la.max(lb))
        })
}

/// Algorithm 6 on the normalised kernels of `bank` with labels `y ∈ {±1}`; with
/// `params.prune`, played again on the kernels it weighted at least evenly until no
/// kernel is dropped, keeping the game of largest value (module docs, "Sparse
/// MWUMKL"). The weights of kernels outside the kept game are zero.
pub(super) fn solve(bank: &KernelBank, y: &[f64], params: &MwumklParams) -> Result<MwumklSolution> {
    let game = Game::new(bank, y, params)?;
    let m = bank.n_kernels();
    let mut kernels: Vec<usize> = (0..m).collect();
    let mut game_now = play(&game, y, params, kernels.clone())?;
    let mut rounds = game_now.rounds;
    let mut best = (kernels.clone(), game_now.clone());
    // Backward elimination: until a game drops no kernel (at the latest, one kernel).
    while params.prune && kernels.len() > 1 {
        let kept = heaviest(&kernels, &game_now.weights);
        if kept.len() == kernels.len() {
            break;
        }
        game_now = play(&game, y, params, kept.clone())?;
        rounds += game_now.rounds;
        kernels = kept;
        if game_now.objective > best.1.objective {
            best = (kernels.clone(), game_now.clone());
        }
    }
    let (kernels, best) = best;
    let mut weights = vec![0.0; m];
    (kernels.iter().zip(&best.weights)).for_each(|(&i, &w)| weights[i] = w);
    Ok(MwumklSolution {
        weights,
        rounds,
        ..best
    })
}

/// The kernels of the next game of sparse MWUMKL: those weighted at least evenly
/// (`μ_i ≥ 1/m`), at most the heavier half of them (ties to the lower index), so that
/// the games together cost at most twice the first; in family order.
fn heaviest(kernels: &[usize], weights: &[f64]) -> Vec<usize> {
    let even = 1.0 / kernels.len() as f64;
    let mut kept: Vec<usize> = (0..kernels.len()).filter(|&k| weights[k] >= even).collect();
    kept.sort_by(|&a, &b| weights[b].total_cmp(&weights[a]).then(a.cmp(&b)));
    kept.truncate(kernels.len().div_ceil(2));
    kept.sort_unstable();
    kept.into_iter().map(|k| kernels[k]).collect()
}

/// One game of Algorithm 6 on the kernels `kernels` of the game's bank: `T` rounds of
/// the forward and backward steps, then the weights and the decision function.
fn play(
    game: &Game,
    y: &[f64],
    params: &MwumklParams,
    kernels: Vec<usize>,
) -> Result<MwumklSolution> {
    let n = game.bank.n_points();
    let rounds = params.rounds(n);
    let mut state = KernelState::new(kernels, game.width);
    let mut counts = vec![0u32; n]; // α_j = counts_j / 2
    let mut g = vec![0.0f64; n];
    let mut l_ref = 0.0f64;
    for t in 1..=rounds {
        let (p, r) = most_violating(&g, y);
        counts[p] += 1;
        counts[r] += 1;
        let part = state.round(game, (t, p, r), l_ref, true)?;
        g = part.g;
        l_ref = part.l_max;
    }
    let weights = kernel_weights(&state.q, n, params);
    let h_mu = state.weighted_h(game, &weights, rounds);
    Ok(finish(y, weights, &state.q, &h_mu, &counts, rounds))
}

/// Kernel weights of section 3.2.6 from every kernel's `αᵀḠ_iα` on `n` points:
/// `μ_i ∝ sinhc(x_i)`, normalised to sum to one.
pub(crate) fn kernel_weights(q: &[f64], n: usize, params: &MwumklParams) -> Vec<f64> {
    let logs: Vec<f64> = q
        .iter()
        .map(|&qi| log_weight(qi, n, rate(params)))
        .collect();
    let l_max = logs.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let mut weights: Vec<f64> = logs.iter().map(|l| (l - l_max).exp()).collect();
    let total: f64 = weights.iter().sum();
    weights.iter_mut().for_each(|w| *w /= total);
    weights
}

/// `ᾱ` and the decision function with the midpoint bias (module docs), from the weights,
/// every kernel's `αᵀḠ_iα`, `h_mu = Ḡ_μᾱ = Σ_i μ_i Ḡ_iα / T` and the forward-step counts.
pub(crate) fn finish(
    y: &[f64],
    weights: Vec<f64>,
    q: &[f64],
    h_mu: &[f64],
    counts: &[u32],
    rounds: usize,
) -> MwumklSolution {
    let n = y.len();
    let tf = rounds as f64;
    let alpha: Vec<f64> = counts.iter().map(|&c| c as f64 / (2.0 * tf)).collect();
    let kernel_objectives: Vec<f64> = q.iter().map(|v| v / (tf * tf)).collect();
    let s: f64 = weights
        .iter()
        .zip(&kernel_objectives)
        .map(|(w, v)| w * v)
        .sum();
    let coef: Vec<f64> = alpha.iter().zip(y).map(|(a, l)| a * l / s).collect();
    let rho = (0..n).map(|j| alpha[j] * y[j] * h_mu[j]).sum::<f64>() / s;
    MwumklSolution {
        weights,
        objective: s,
        coef,
        rho,
        rounds,
    }
}

/// A slice `range` of a kernel family's MWUMKL state, for fits spread over processes or
/// machines (`kernlearn.ray.mwumkl` keeps one per Ray actor): the driver runs the forward
/// step ([`most_violating`]) on the sum of the shards' [`RoundPart`]s, and at the end
/// [`kernel_weights`] on all shards' [`MwumklShard::objectives`] and [`finish`] on the
/// sum of their [`MwumklShard::weighted_sum`]s — the same arithmetic as the
/// single-process fit, up to the order of the sums.
pub(crate) struct MwumklShard {
    bank: KernelBank,
    y: Vec<f64>,
    params: MwumklParams,
    state: KernelState,
    rounds_done: usize,
}

impl MwumklShard {
    /// The kernels `range` of `family`, trace-normalised on `x`, with labels `y ∈ {±1}`.
    pub(crate) fn new(
        family: &KernelFamily,
        x: &crate::data::Features,
        y: &[f64],
        params: &MwumklParams,
        range: std::ops::Range<usize>,
    ) -> Result<Self> {
        let bank = KernelBank::new(family, x)?;
        let width = Game::new(&bank, y, params)?.width;
        if range.start >= range.end || range.end > bank.n_kernels() {
            return Err(Error::param(
                "range",
                format!(
                    "kernels {}..{} are not a non-empty slice of the family's {} kernels",
                    range.start,
                    range.end,
                    bank.n_kernels()
                ),
            ));
        }
        let state = KernelState::new(range.collect(), width);
        Ok(Self {
            bank,
            y: y.to_vec(),
            params: *params,
            state,
            rounds_done: 0,
        })
    }

    /// Round `rounds_done + 1` with the forward step's points `p`, `r` and the previous
    /// round's `l_ref`: this shard's part of the next `g`.
    pub(crate) fn round(&mut self, p: usize, r: usize, l_ref: f64) -> Result<RoundPart> {
        let n = self.bank.n_points();
        if p >= n || r >= n {
            return Err(Error::param(
                "points",
                format!("forward step points {p}, {r} out of 0..{n}"),
            ));
        }
        let game = Game::new(&self.bank, &self.y, &self.params)?;
        let t = self.rounds_done + 1;
        let part = self.state.round(&game, (t, p, r), l_ref, true)?;
        self.rounds_done = t;
        Ok(part)
    }

    /// `αᵀḠ_iα` of the shard's kernels (for [`kernel_weights`]).
    pub(crate) fn objectives(&self) -> &[f64] {
        &self.state.q
    }

    /// `Σ_i μ_i Ḡ_iα / T` over the shard's kernels with their weights `weights`.
    pub(crate) fn weighted_sum(&self, weights: &[f64]) -> Result<Vec<f64>> {
        if weights.len() != self.state.kernels.len() {
            return Err(Error::param(
                "weights",
                format!(
                    "{} weights for the shard's {} kernels",
                    weights.len(),
                    self.state.kernels.len()
                ),
            ));
        }
        let game = Game::new(&self.bank, &self.y, &self.params)?;
        let rounds = self.rounds_done.max(1);
        Ok(self.state.weighted_h(&game, weights, rounds))
    }
}

/// MWUMKL on one class pair: the trace-normalised `family` on `x`, labels `y ∈ {±1}`.
pub(super) fn fit_binary(
    family: &KernelFamily,
    bank: &KernelBank,
    y: &[f64],
    params: &MwumklParams,
) -> Result<MklMachine> {
    params.validate()?;
    let sol = solve(bank, y, params)?;
    let info = MachineInfo {
        iterations: sol.rounds,
        objective: sol.objective,
        ..MachineInfo::default()
    };
    Ok(MklMachine::new(
        family,
        bank,
        sol.weights,
        &sol.coef,
        sol.rho,
        info,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ln_sinhc_is_continuous_and_exact() {
        for &x in &[0.0f64, 1e-6, 1e-4, 0.3, 5.0, 19.999, 20.0, 400.0] {
            let e = if x == 0.0 {
                0.0
            } else if x < 700.0 && x > 1e-3 {
                (x.sinh() / x).ln()
            } else if x <= 1e-3 {
                x * x / 6.0
            } else {
                x - (2.0 * x).ln()
            };
            assert!((ln_sinhc(x) - e).abs() < 1e-12 * e.abs().max(1.0), "{x}");
        }
        assert!(ln_sinhc(1e5).is_finite());
    }

    #[test]
    fn sinhc_agrees_with_libm() {
        for k in 0..=4000 {
            let x = k as f64 * DIRECT_SINHC / 4000.0;
            let exact = if x == 0.0 { 1.0 } else { x.sinh() / x };
            let got = sinhc(x);
            assert!(
                (got - exact).abs() <= 1e-15 * exact,
                "{x}: {got} vs {exact}"
            );
        }
    }

    #[test]
    fn round_weights_are_those_of_the_log_space_formula() {
        let (n, rate) = (50, std::f64::consts::LN_2 / 3.0);
        // The previous round's l_ref is the largest log weight then: near this one's.
        for &q in &[0.0, 1e-9, 0.3, 80.0, 5e3, 3e5, 1e9] {
            let exact_l = log_weight(q, n, rate);
            for l_ref in [exact_l - 30.0, exact_l - 1.0, exact_l, exact_l + 3.0] {
                let (w, l, s) = round_weight(q, n, rate, l_ref, (-l_ref).exp());
                let exact_w = (exact_l - l_ref).exp();
                assert!(
                    (w - exact_w).abs() <= 1e-13 * exact_w,
                    "q {q}: {w} vs {exact_w}"
                );
                // Either the log weight itself, or sinhc for the largest-of's logarithm.
                let l = if s > 0.0 { s.ln() } else { l };
                assert!(
                    (l - exact_l).abs() <= 1e-13 * exact_l.abs().max(1.0),
                    "q {q}"
                );
            }
        }
    }

    #[test]
    fn forward_step_picks_the_smallest_margin_per_class() {
        let g = [0.5, -1.0, 0.2, -3.0, 0.2];
        let y = [1.0, 1.0, -1.0, 1.0, -1.0];
        assert_eq!(most_violating(&g, &y), (3, 2));
        assert_eq!(most_violating(&[0.0; 4], &[-1.0, 1.0, 1.0, -1.0]), (1, 0));
    }

    #[test]
    fn rounds_follow_the_thesis() {
        let p = MwumklParams::default();
        // 4 · 1.5 · ln(100) / 0.005 = 5526.2…
        assert_eq!(p.rounds(100), 5527);
        assert!(MwumklParams { epsilon: 0.0, ..p }.validate().is_err());
        assert!(MwumklParams { epsilon: -1.0, ..p }.validate().is_err());
        assert!(MwumklParams { c: Some(0.0), ..p }.validate().is_err());
    }
}
