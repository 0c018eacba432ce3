//! Sequential minimal optimisation for the SVM duals (the LIBSVM design).
//!
//! Solves `min_α ½ αᵀQα + pᵀα` subject to `yᵀα = Δ` and `0 ≤ α_t ≤ C_t`, with
//! `y_t = ±1`. Working pairs are chosen by second-order information (Fan, Chen and Lin,
//! JMLR 2005, WSS 3); variables that stay at a bound are shrunk away from the active set
//! and the gradient is reconstructed before the final optimality check (Chang and Lin,
//! LIBSVM §5). The ν-formulations add a second equality `Σ_{y_t=±1} α_t` and pick pairs
//! within one class ([`Variant::Nu`]).
//!
//! Stopping rule: `m(α) − M(α) < ε` where `m`/`M` are the maximal/minimal `−y_t ∇f(α)_t`
//! over the up/low index sets (LIBSVM's `eps`, default 1e-3).

use super::batch::likely_rows;
use super::qmatrix::QMatrix;
use super::vector::{add_row, add_two_rows};
use super::wss::{best_partner, max_violation_up, update_and_max_violation_up, Vars, TAU};
use crate::kernel::MAX_ROWS;

/// Which dual the solver handles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Variant {
    /// One equality constraint `yᵀα = Δ` (C-SVC, ε-SVR, one-class).
    Standard,
    /// Two equalities, one per sign of `y` (ν-SVC, ν-SVR).
    Nu,
}

/// Settings of one solve.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SolverOptions {
    pub eps: f64,
    pub shrinking: bool,
    pub max_iter: usize,
}

/// Result of one solve, as LIBSVM's `SolutionInfo`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Solution {
    /// Dual variables in the original order.
    pub alpha: Vec<f64>,
    /// Dual objective `½ αᵀQα + pᵀα`.
    pub obj: f64,
    /// Offset: the decision function is `Σ … − rho`.
    pub rho: f64,
    /// ν-variants: the second multiplier `r`.
    pub r: f64,
    /// Iterations (pair updates).
    pub iterations: usize,
    /// True when `max_iter` stopped the solver before the tolerance was reached.
    pub hit_max_iter: bool,
}

/// Where a variable is in its box (a byte, so that the selection scans load four at once).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Status {
    Lower = 0,
    Upper = 1,
    Free = 2,
}

/// Solver state, kept apart from `Q` so rows of `Q` can be borrowed while it changes.
#[derive(Clone)]
struct State {
    l: usize,
    active_size: usize,
    y: Vec<i8>,
    grad: Vec<f64>,
    status: Vec<Status>,
    alpha: Vec<f64>,
    p: Vec<f64>,
    upper: Vec<f64>,
    active_set: Vec<usize>,
    grad_bar: Vec<f64>,
    eps: f64,
    unshrink: bool,
    variant: Variant,
    /// The first scan of the next selection (`i` and `m(α)`), when the last step's
    /// gradient update computed it ([`update_and_max_violation_up`]); cleared by
    /// anything else that changes the gradient, the statuses or the active set.
    next_up: Option<(Option<usize>, f64)>,
    /// Variables whose rows are likely read soon, best last ([`State::fill_with_likely`]);
    /// cleared when positions change.
    likely: Vec<usize>,
    /// Batches filled from `likely` since it was scanned.
    likely_uses: usize,
}

/// Batches that one scan for likely rows serves at most.
const LIKELY_REUSE: usize = 4;

/// Most candidates one scan keeps.
const LIKELY: usize = 32;

impl State {
    #[inline]
    fn is_upper(&self, i: usize) -> bool {
        self.status[i] == Status::Upper
    }

    #[inline]
    fn is_lower(&self, i: usize) -> bool {
        self.status[i] == Status::Lower
    }

    #[inline]
    fn is_free(&self, i: usize) -> bool {
        self.status[i] == Status::Free
    }

    /// Dual objective `½ αᵀQα + pᵀα = ½ Σ α_t (∇f_t + p_t)`.
    fn objective(&self) -> f64 {
        self.alpha
            .iter()
            .zip(self.grad.iter().zip(&self.p))
            .map(|(a, (g, p))| a * (g + p))
            .sum::<f64>()
            / 2.0
    }

    fn update_status(&mut self, i: usize) {
        self.status[i] = if self.alpha[i] >= self.upper[i] {
            Status::Upper
        } else if self.alpha[i] <= 0.0 {
            Status::Lower
        } else {
            Status::Free
        };
    }

    fn swap_index(&mut self, q: &mut dyn QMatrix, i: usize, j: usize) {
        self.next_up = None;
        self.likely.clear();
        q.swap_index(i, j);
        self.y.swap(i, j);
        self.grad.swap(i, j);
        self.status.swap(i, j);
        self.alpha.swap(i, j);
        self.p.swap(i, j);
        self.upper.swap(i, j);
        self.active_set.swap(i, j);
        self.grad_bar.swap(i, j);
    }

    /// Recomputes the gradient of the inactive variables from `grad_bar` and the free α.
    fn reconstruct_gradient(&mut self, q: &mut dyn QMatrix) {
        self.next_up = None;
        let (l, active) = (self.l, self.active_size);
        if active == l {
            return;
        }
        for j in active..l {
            self.grad[j] = self.grad_bar[j] + self.p[j];
        }
        let n_free = (0..active).filter(|&j| self.is_free(j)).count();
        if n_free * l > 2 * active * (l - active) {
            // The free variables listed once: the same sums in the same order, without a
            // test per entry.
            let free: Vec<(usize, f64)> = (0..active)
                .filter(|&j| self.is_free(j))
                .map(|j| (j, self.alpha[j]))
                .collect();
            for i in active..l {
                fill_ahead(q, i, i + 1..l, active);
                let (q_i, _) = q.row(i, active);
                let mut g = self.grad[i];
                for &(j, a) in &free {
                    g += a * q_i[j] as f64;
                }
                self.grad[i] = g;
            }
        } else {
            for i in 0..active {
                if self.is_free(i) {
                    let free_after = (i + 1..active).filter(|&t| self.is_free(t));
                    fill_ahead(q, i, free_after, l);
                    let (q_i, _) = q.row(i, l);
                    add_row(&mut self.grad[active..l], &q_i[active..l], self.alpha[i]);
                }
            }
        }
    }

    /// Second-order working-set selection; `None` when optimal within `eps`.
    fn select_working_set(&mut self, q: &mut dyn QMatrix) -> Option<(usize, usize)> {
        match self.variant {
            Variant::Standard => self.select_standard(q),
            Variant::Nu => self.select_nu(q),
        }
    }

    fn select_standard(&mut self, q: &mut dyn QMatrix) -> Option<(usize, usize)> {
        let active = self.active_size;
        let vars = Vars {
            y: &self.y[..active],
            status: &self.status[..active],
            grad: &self.grad[..active],
        };
        let (i, gmax) = match self.next_up.take() {
            Some(up) => {
                debug_assert_eq!(up, max_violation_up(vars));
                up
            }
            None => max_violation_up(vars),
        };
        let i = i?;
        self.fill_with_likely(q, i, active);
        let vars = Vars {
            y: &self.y[..active],
            status: &self.status[..active],
            grad: &self.grad[..active],
        };
        let (q_i, qd) = q.row(i, active);
        let partner = best_partner(vars, q_i, qd, qd[i], self.y[i] as f64, gmax);
        let j = partner.j?;
        if gmax + partner.gmax2 < self.eps {
            return None;
        }
        Some((i, j))
    }

    /// When row `i` (columns `0..len`) is missing and `q` computes rows in batches:
    /// computes it together with the missing rows likeliest to be read next
    /// ([`likely_rows`]).
    ///
    /// The candidates come from one scan for several batches (the ranking changes little
    /// in a few steps; a scan per batch cost a tenth of a fit on large sets).
    fn fill_with_likely(&mut self, q: &mut dyn QMatrix, i: usize, len: usize) {
        let width = q.batch_width(len);
        if width < 2 || q.has_row(i, len) {
            return;
        }
        let active = self.active_size;
        let mut rows = [i; MAX_ROWS];
        let mut count = 1;
        for pass in 0..2 {
            if pass == 1 || self.likely_uses >= LIKELY_REUSE {
                // Stale or used up: scan again.
                let vars = Vars {
                    y: &self.y[..active],
                    status: &self.status[..active],
                    grad: &self.grad[..active],
                };
                let held: &dyn QMatrix = q;
                let skip = |t: usize| t == i || held.has_row(t, 1);
                let mut found = [0usize; LIKELY];
                let wanted = (width - 1) * LIKELY_REUSE;
                let k = likely_rows(vars, wanted / 2, skip, &mut found[..wanted.min(LIKELY)]);
                self.likely.clear();
                self.likely.extend(found[..k].iter().rev());
                self.likely_uses = 0;
            }
            while count < width {
                let Some(t) = self.likely.pop() else { break };
                if t < active && t != i && !q.has_row(t, 1) && !rows[..count].contains(&t) {
                    rows[count] = t;
                    count += 1;
                }
            }
            if count == width {
                break;
            }
        }
        self.likely_uses += 1;
        q.fill_rows(&rows[..count], len);
    }

    fn select_nu(&self, q: &mut dyn QMatrix) -> Option<(usize, usize)> {
        let (mut gmaxp, mut gmaxp2) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
        let (mut gmaxn, mut gmaxn2) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
        let (mut ip, mut in_) = (None, None);
        for t in 0..self.active_size {
            if self.y[t] == 1 {
                if !self.is_upper(t) && -self.grad[t] >= gmaxp {
                    gmaxp = -self.grad[t];
                    ip = Some(t);
                }
            } else if !self.is_lower(t) && self.grad[t] >= gmaxn {
                gmaxn = self.grad[t];
                in_ = Some(t);
            }
        }
        let active = self.active_size;
        // Rows of the two candidates; an absent one is never read (its gmax is -inf).
        let (q_ip, q_in, qd): (&[f32], &[f32], &[f64]) = match (ip, in_) {
            (Some(a), Some(b)) => q.two_rows(a, b, active),
            (Some(a), None) => {
                let (r, d) = q.row(a, active);
                (r, &[], d)
            }
            (None, Some(b)) => {
                let (r, d) = q.row(b, active);
                (&[], r, d)
            }
            (None, None) => return None,
        };
        let mut gmin_idx = None;
        let mut obj_diff_min = f64::INFINITY;
        for j in 0..active {
            let (grad_diff, quad) = if self.y[j] == 1 {
                if self.is_lower(j) {
                    continue;
                }
                gmaxp2 = gmaxp2.max(self.grad[j]);
                let Some(ip) = ip else { continue };
                (gmaxp + self.grad[j], qd[ip] + qd[j] - 2.0 * q_ip[j] as f64)
            } else {
                if self.is_upper(j) {
                    continue;
                }
                gmaxn2 = gmaxn2.max(-self.grad[j]);
                let Some(in_) = in_ else { continue };
                (gmaxn - self.grad[j], qd[in_] + qd[j] - 2.0 * q_in[j] as f64)
            };
            if grad_diff > 0.0 {
                let obj_diff = -(grad_diff * grad_diff) / if quad > 0.0 { quad } else { TAU };
                if obj_diff <= obj_diff_min {
                    gmin_idx = Some(j);
                    obj_diff_min = obj_diff;
                }
            }
        }
        let j = gmin_idx?;
        if (gmaxp + gmaxp2).max(gmaxn + gmaxn2) < self.eps {
            return None;
        }
        let i = if self.y[j] == 1 { ip? } else { in_? };
        Some((i, j))
    }

    /// Whether variable `i` can leave the active set (LIBSVM's `be_shrunk`).
    fn be_shrunk(&self, i: usize, g: &[f64; 4]) -> bool {
        let pos = self.y[i] == 1;
        match (self.status[i], self.variant) {
            (Status::Upper, Variant::Standard) => -self.grad[i] > if pos { g[0] } else { g[1] },
            (Status::Lower, Variant::Standard) => self.grad[i] > if pos { g[1] } else { g[0] },
            (Status::Upper, Variant::Nu) => -self.grad[i] > if pos { g[0] } else { g[3] },
            (Status::Lower, Variant::Nu) => self.grad[i] > if pos { g[1] } else { g[2] },
            (Status::Free, _) => false,
        }
    }

    /// Maximal violations used by shrinking, and the current optimality gap.
    fn violations(&self) -> ([f64; 4], f64) {
        let mut g = [f64::NEG_INFINITY; 4];
        for i in 0..self.active_size {
            let (pos, gi) = (self.y[i] == 1, self.grad[i]);
            match self.variant {
                Variant::Standard => {
                    // g[0]: max −y∇f over I_up; g[1]: max y∇f over I_low.
                    if !self.is_upper(i) {
                        let k = if pos { 0 } else { 1 };
                        g[k] = g[k].max(-gi);
                    }
                    if !self.is_lower(i) {
                        let k = if pos { 1 } else { 0 };
                        g[k] = g[k].max(gi);
                    }
                }
                Variant::Nu => {
                    if !self.is_upper(i) {
                        let k = if pos { 0 } else { 3 };
                        g[k] = g[k].max(-gi);
                    }
                    if !self.is_lower(i) {
                        let k = if pos { 1 } else { 2 };
                        g[k] = g[k].max(gi);
                    }
                }
            }
        }
        let gap = match self.variant {
            Variant::Standard => g[0] + g[1],
            Variant::Nu => (g[0] + g[1]).max(g[2] + g[3]),
        };
        (g, gap)
    }

    /// Shrinks with the violations `(g, gap)` of the current point ([`State::violations`],
    /// computed once per checkpoint by the caller, which also reports the gap).
    fn do_shrinking(&mut self, q: &mut dyn QMatrix, (g, gap): ([f64; 4], f64)) {
        self.next_up = None;
        if !self.unshrink && gap <= self.eps * 10.0 {
            self.unshrink = true;
            self.reconstruct_gradient(q);
            self.active_size = self.l;
        }
        let mut i = 0;
        while i < self.active_size {
            if self.be_shrunk(i, &g) {
                self.active_size -= 1;
                while self.active_size > i {
                    if !self.be_shrunk(self.active_size, &g) {
                        self.swap_index(q, i, self.active_size);
                        break;
                    }
                    self.active_size -= 1;
                }
            }
            i += 1;
        }
    }

    /// Updates `α_i, α_j` analytically, clipped to the box, then the gradient.
    fn take_step(&mut self, q: &mut dyn QMatrix, i: usize, j: usize) {
        let active = self.active_size;
        let (ci, cj) = (self.upper[i], self.upper[j]);
        let (old_i, old_j) = (self.alpha[i], self.alpha[j]);
        self.fill_with_likely(q, j, active);
        let (q_i, q_j, qd) = q.two_rows(i, j, active);
        let qij = q_i[j] as f64;
        let (qdi, qdj) = (qd[i], qd[j]);
        let (mut ai, mut aj) = (old_i, old_j);
        if self.y[i] != self.y[j] {
            let quad = qdi + qdj + 2.0 * qij;
            let quad = if quad <= 0.0 { TAU } else { quad };
            let delta = (-self.grad[i] - self.grad[j]) / quad;
            let diff = ai - aj;
            ai += delta;
            aj += delta;
            if diff > 0.0 {
                if aj < 0.0 {
                    aj = 0.0;
                    ai = diff;
                }
            } else if ai < 0.0 {
                ai = 0.0;
                aj = -diff;
            }
            if diff > ci - cj {
                if ai > ci {
                    ai = ci;
                    aj = ci - diff;
                }
            } else if aj > cj {
                aj = cj;
                ai = cj + diff;
            }
        } else {
            let quad = qdi + qdj - 2.0 * qij;
            let quad = if quad <= 0.0 { TAU } else { quad };
            let delta = (self.grad[i] - self.grad[j]) / quad;
            let sum = ai + aj;
            ai -= delta;
            aj += delta;
            if sum > ci {
                if ai > ci {
                    ai = ci;
                    aj = sum - ci;
                }
            } else if aj < 0.0 {
                aj = 0.0;
                ai = sum;
            }
            if sum > cj {
                if aj > cj {
                    aj = cj;
                    ai = sum - cj;
                }
            } else if ai < 0.0 {
                ai = 0.0;
                aj = sum;
            }
        }
        self.alpha[i] = ai;
        self.alpha[j] = aj;
        let (dai, daj) = (ai - old_i, aj - old_j);
        let was_upper = [self.is_upper(i), self.is_upper(j)];
        self.update_status(i);
        self.update_status(j);
        let grad = &mut self.grad[..active];
        if self.variant == Variant::Standard {
            let (y, status) = (&self.y[..active], &self.status[..active]);
            let up = update_and_max_violation_up(y, status, grad, (q_i, dai), (q_j, daj));
            self.next_up = Some(up);
        } else {
            add_two_rows(grad, q_i, dai, q_j, daj);
        }
        self.update_bounds_after_step(q, [i, j], was_upper);
    }

    /// Keeps `grad_bar = Σ_{α_t = C_t} C_t Q_t` current when a variable entered or left
    /// its upper bound in the step (`was_upper`: before it).
    fn update_bounds_after_step(
        &mut self,
        q: &mut dyn QMatrix,
        ij: [usize; 2],
        was_upper: [bool; 2],
    ) {
        for (k, was_upper) in ij.into_iter().zip(was_upper) {
            if was_upper != self.is_upper(k) {
                let c = if was_upper {
                    -self.upper[k]
                } else {
                    self.upper[k]
                };
                let (q_k, _) = q.row(k, self.l);
                add_row(&mut self.grad_bar, q_k, c);
            }
        }
    }

    fn calculate_rho(&self) -> (f64, f64) {
        match self.variant {
            Variant::Standard => (self.rho_of(|_| true), 0.0),
            Variant::Nu => {
                let r1 = self.rho_of(|y| y == 1);
                let r2 = self.rho_of(|y| y == -1);
                ((r1 - r2) / 2.0, (r1 + r2) / 2.0)
            }
        }
    }

    /// Average of `y_t ∇f_t` over free variables of the selected class(es), or the
    /// midpoint of the feasible interval when none is free. In the ν-variant the
    /// classes are taken one at a time and `y ∇f` is read as `∇f`.
    fn rho_of(&self, in_class: impl Fn(i8) -> bool) -> f64 {
        let (mut ub, mut lb) = (f64::INFINITY, f64::NEG_INFINITY);
        let (mut n_free, mut sum_free) = (0usize, 0.0);
        let nu = self.variant == Variant::Nu;
        for i in 0..self.active_size {
            let y = self.y[i];
            if !in_class(y) {
                continue;
            }
            let yg = if nu {
                self.grad[i]
            } else {
                y as f64 * self.grad[i]
            };
            let pos = nu || y == 1;
            match self.status[i] {
                Status::Upper if pos => lb = lb.max(yg),
                Status::Upper => ub = ub.min(yg),
                Status::Lower if pos => ub = ub.min(yg),
                Status::Lower => lb = lb.max(yg),
                Status::Free => {
                    n_free += 1;
                    sum_free += yg;
                }
            }
        }
        if n_free > 0 {
            sum_free / n_free as f64
        } else {
            (ub + lb) / 2.0
        }
    }
}

/// Solves the dual from the feasible starting point `alpha` (see module docs).
pub(crate) fn solve(
    q: &mut dyn QMatrix,
    p: &[f64],
    y: &[i8],
    alpha: Vec<f64>,
    upper: Vec<f64>,
    variant: Variant,
    opts: SolverOptions,
) -> Solution {
    Solver::new(q, p, y, alpha, upper, variant, opts.eps).run(q, opts)
}

/// A solver whose state (variables, gradient, `grad_bar`, the permutation left by
/// shrinking) outlives one solve, so that a sequence of related problems on the same `Q`
/// (grid search along growing C) starts each from the last one's state: only the
/// variables that change need a row of `Q` ([`Solver::restart`]). Its first
/// [`Solver::run`] is exactly [`solve`].
#[derive(Clone)]
pub(crate) struct Solver {
    st: State,
    /// Started from another solve's state ([`Solver::restart`], [`Solver::scale`]).
    warm: bool,
}

impl Solver {
    /// State at the feasible point `alpha` with bounds `upper`; computes `∇f` and
    /// `grad_bar` (one row of `Q` per non-zero `α_t`).
    pub(crate) fn new(
        q: &mut dyn QMatrix,
        p: &[f64],
        y: &[i8],
        alpha: Vec<f64>,
        upper: Vec<f64>,
        variant: Variant,
        eps: f64,
    ) -> Self {
        let l = p.len();
        let mut st = State {
            l,
            active_size: l,
            y: y.to_vec(),
            grad: p.to_vec(),
            status: vec![Status::Free; l],
            alpha,
            p: p.to_vec(),
            upper,
            active_set: (0..l).collect(),
            grad_bar: vec![0.0; l],
            eps,
            unshrink: false,
            variant,
            next_up: None,
            likely: Vec::new(),
            likely_uses: 0,
        };
        for i in 0..l {
            st.update_status(i);
        }
        initialise_gradient(&mut st, q);
        Self { st, warm: false }
    }

    /// Moves to another feasible point `alpha` with bounds `upper` (both in the original
    /// variable order), keeping `∇f = Qα + p` and `grad_bar = Σ_{α_t = C_t} C_t Q_t`
    /// current.
    ///
    /// When every bound grows by the same factor `r` (C grows; class weights fixed), the
    /// variables at their old upper bound that move to the new one change `∇f` by
    /// `(r − 1)·grad_bar` and `grad_bar` becomes `r·grad_bar`: one pass over `l`. Any
    /// other change (balance repair, a variable leaving or entering its bound) costs one
    /// full row of `Q`.
    pub(crate) fn restart(&mut self, q: &mut dyn QMatrix, alpha: &[f64], upper: &[f64]) {
        self.warm = true;
        let st = &mut self.st;
        let l = st.l;
        // A finished run leaves every variable active (see `run`).
        debug_assert_eq!(st.active_size, l);
        let ratio = common_ratio(&st.upper, &st.active_set, upper);
        if let Some(r) = ratio {
            for (g, gb) in st.grad.iter_mut().zip(st.grad_bar.iter_mut()) {
                *g += (r - 1.0) * *gb;
                *gb *= r;
            }
        }
        for t in 0..l {
            let orig = st.active_set[t];
            let was_upper = st.is_upper(t);
            // The point (α_t, upper-bound term) the gradient and grad_bar stand for now.
            let (alpha_now, bar_now) = match (was_upper, ratio) {
                (true, Some(_)) => (upper[orig], upper[orig]),
                (true, None) => (st.alpha[t], st.upper[t]),
                (false, _) => (st.alpha[t], 0.0),
            };
            st.alpha[t] = alpha[orig];
            st.upper[t] = upper[orig];
            st.update_status(t);
            let bar_new = if st.is_upper(t) { st.upper[t] } else { 0.0 };
            let delta = alpha[orig] - alpha_now;
            let bar_delta = bar_new - bar_now;
            if delta == 0.0 && bar_delta == 0.0 {
                continue;
            }
            let (q_t, _) = q.row(t, l);
            add_row(&mut st.grad, q_t, delta);
            add_row(&mut st.grad_bar, q_t, bar_delta);
        }
    }

    /// Dual objective `½ αᵀQα + pᵀα` of the current state.
    pub(crate) fn objective(&self) -> f64 {
        self.st.objective()
    }

    /// Moves to `r·α` with bounds `upper = r·C` (alpha seeding by scaling, DeCoste and
    /// Wagstaff 2000): `∇f = r(∇f − p) + p` and `grad_bar = r·grad_bar`, no row of `Q`
    /// needed. Returns false (and changes nothing) unless `upper` is exactly one factor
    /// `r` times the current bounds and every variable keeps its status (a rounded
    /// `r·α_t` reaching the new bound would need a row of `Q` for `grad_bar`).
    pub(crate) fn scale(&mut self, upper: &[f64]) -> bool {
        let st = &mut self.st;
        debug_assert_eq!(st.active_size, st.l);
        let Some(r) = common_ratio(&st.upper, &st.active_set, upper) else {
            return false;
        };
        let keeps_status = (0..st.l).all(|t| {
            let (a, u) = (st.alpha[t], upper[st.active_set[t]]);
            st.is_upper(t) || (r * a < u && (a > 0.0) == (r * a > 0.0))
        });
        if !keeps_status {
            return false;
        }
        for t in 0..st.l {
            st.alpha[t] = if st.is_upper(t) {
                upper[st.active_set[t]]
            } else {
                r * st.alpha[t]
            };
            st.upper[t] = upper[st.active_set[t]];
            st.grad[t] = r * (st.grad[t] - st.p[t]) + st.p[t];
            st.grad_bar[t] *= r;
            st.update_status(t);
        }
        self.warm = true;
        true
    }

    /// Optimises from the current state until `m(α) − M(α) < ε` (LIBSVM's main loop:
    /// shrinking every `min(l, 1000)` iterations, gradient reconstruction before the
    /// final check) and reports the solution. Every variable is active afterwards.
    pub(crate) fn run(&mut self, q: &mut dyn QMatrix, opts: SolverOptions) -> Solution {
        let st = &mut self.st;
        let l = st.l;
        st.eps = opts.eps;
        st.unshrink = false;
        st.next_up = None;
        let mut iter = 0;
        // LIBSVM shrinks first after min(l, 1000) iterations. A restarted solve starts
        // near its optimum with most variables already at their final bound, so it
        // shrinks ten times sooner: every scan of the path's solves gets shorter
        // (grid searches: 3–9 % less time on magic's sample, banana and page-blocks).
        let mut counter = if self.warm {
            l.min(1000) / 10
        } else {
            l.min(1000)
        } + 1;
        let (mut first_gap, mut share) = (f64::NAN, 0.0);
        while iter < opts.max_iter {
            counter -= 1;
            if counter == 0 {
                if crate::cancel::requested() {
                    // An interrupted fit ends here, reported as stopped early; the front
                    // end that asked discards it.
                    break;
                }
                let violations = st.violations();
                if first_gap.is_nan() {
                    first_gap = violations.1;
                }
                crate::watch::report_gap(first_gap, violations.1, st.eps, &mut share);
                counter = l.min(1000);
                if opts.shrinking {
                    st.do_shrinking(q, violations);
                }
            }
            let (i, j) = match st.select_working_set(q) {
                Some(pair) => pair,
                None => {
                    st.reconstruct_gradient(q);
                    st.active_size = l;
                    match st.select_working_set(q) {
                        Some(pair) => {
                            counter = 1;
                            pair
                        }
                        None => break,
                    }
                }
            };
            iter += 1;
            st.take_step(q, i, j);
        }
        let hit_max_iter = iter >= opts.max_iter || crate::cancel::requested();
        if hit_max_iter && st.active_size < l {
            st.reconstruct_gradient(q);
            st.active_size = l;
        }
        let (rho, r) = st.calculate_rho();
        let obj = st.objective();
        let mut alpha_out = vec![0.0; l];
        for (t, &orig) in st.active_set.iter().enumerate() {
            alpha_out[orig] = st.alpha[t];
        }
        Solution {
            alpha: alpha_out,
            obj,
            rho,
            r,
            iterations: iter,
            hit_max_iter,
        }
    }
}

/// The factor `r` with `new[active_set[t]] = r · old[t]` exactly for every variable,
/// if there is one.
fn common_ratio(old: &[f64], active_set: &[usize], new: &[f64]) -> Option<f64> {
    let r = new[active_set[0]] / old[0];
    let exact = old
        .iter()
        .zip(active_set)
        .all(|(&o, &orig)| o * r == new[orig]);
    exact.then_some(r)
}

/// When row `i` (columns `0..len`) is missing and `q` computes rows in batches: computes
/// it together with the next missing rows of `rest` (rows a loop reads next).
fn fill_ahead(q: &mut dyn QMatrix, i: usize, rest: impl Iterator<Item = usize>, len: usize) {
    let width = q.batch_width(len);
    if width < 2 || q.has_row(i, len) {
        return;
    }
    let mut rows = [i; MAX_ROWS];
    let mut count = 1;
    for t in rest.filter(|&t| !q.has_row(t, 1)).take(width - 1) {
        rows[count] = t;
        count += 1;
    }
    q.fill_rows(&rows[..count], len);
}

/// `∇f = Qα + p` and `grad_bar = Σ_{α_t = C_t} C_t Q_t` from the starting point.
fn initialise_gradient(st: &mut State, q: &mut dyn QMatrix) {
    let l = st.l;
    for i in 0..l {
        if st.is_lower(i) {
            continue;
        }
        let (q_i, _) = q.row(i, l);
        add_row(&mut st.grad, q_i, st.alpha[i]);
        if st.is_upper(i) {
            add_row(&mut st.grad_bar, q_i, st.upper[i]);
        }
    }
}
