//! The two scans of second-order working-set selection (Fan, Chen and Lin 2005, WSS 3,
//! as in LIBSVM's `select_working_set`), the solver's hottest loops.
//!
//! Each scan has a scalar version, the reference, and an AVX2 version used when the CPU
//! has it. They return identical results: the AVX2 scans evaluate the same IEEE
//! expressions per element (no fused multiply-add) and keep LIBSVM's tie rule, the
//! *last* index reaching the extreme, by tracking per lane the last index that reached
//! the lane's extreme and taking the largest such index among the lanes that reach the
//! overall extreme.

use super::solver::Status;
use super::vector::add_two_rows;
use crate::simd::{avx2, avx512};

/// Replacement for a non-positive curvature `Q_ii + Q_jj − 2 y_i y_j Q_ij` (LIBSVM's TAU).
pub(crate) const TAU: f64 = 1e-12;

/// The variables of one scan, in the solver's current order (the active set).
#[derive(Clone, Copy)]
pub(crate) struct Vars<'a> {
    pub y: &'a [i8],
    pub status: &'a [Status],
    pub grad: &'a [f64],
}

impl<'a> Vars<'a> {
    /// The variables from index `start` on (the tail a vector scan leaves to the scalar one).
    fn tail(&self, start: usize) -> Vars<'a> {
        Vars {
            y: &self.y[start..],
            status: &self.status[start..],
            grad: &self.grad[start..],
        }
    }
}

/// Result of the second scan: the partner `j` minimising the second-order objective
/// decrease (`None` when no variable of `I_low` has a positive gradient difference), that
/// minimum (`+∞` without partner), and `max_{t ∈ I_low} y_t ∇f_t`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Partner {
    pub j: Option<usize>,
    pub obj_diff: f64,
    pub gmax2: f64,
}

/// `i = argmax_{t ∈ I_up} −y_t ∇f_t` (last index on ties) and the maximum, where
/// `I_up = {t : y_t = +1, α_t < C_t} ∪ {t : y_t = −1, α_t > 0}`.
pub(crate) fn max_violation_up(v: Vars) -> (Option<usize>, f64) {
    #[cfg(target_arch = "x86_64")]
    if avx512() {
        // SAFETY: the CPU supports AVX-512 F/BW/VL/DQ (checked above).
        return unsafe { avx512_impl::max_violation_up(v) };
    }
    #[cfg(target_arch = "x86_64")]
    if avx2() {
        // SAFETY: the CPU supports AVX2 (checked above).
        return unsafe { avx2_impl::max_violation_up(v) };
    }
    max_violation_up_scalar(v)
}

/// The first scan, as LIBSVM writes it.
pub(crate) fn max_violation_up_scalar(v: Vars) -> (Option<usize>, f64) {
    let mut gmax = f64::NEG_INFINITY;
    let mut gmax_idx = None;
    for (t, ((&y, &status), &g)) in v.y.iter().zip(v.status).zip(v.grad).enumerate() {
        if y == 1 {
            if status != Status::Upper && -g >= gmax {
                gmax = -g;
                gmax_idx = Some(t);
            }
        } else if status != Status::Lower && g >= gmax {
            gmax = g;
            gmax_idx = Some(t);
        }
    }
    (gmax_idx, gmax)
}

/// `g_t += a_t·da + b_t·db` (the gradient update of one SMO step, as
/// [`add_two_rows`]) followed by [`max_violation_up`] of the updated variables: the
/// next iteration's first scan, done in the same pass over the gradient where the CPU
/// has AVX-512. Same gradient and same result as the two calls, bit for bit.
pub(crate) fn update_and_max_violation_up(
    y: &[i8],
    status: &[Status],
    grad: &mut [f64],
    (a, da): (&[f32], f64),
    (b, db): (&[f32], f64),
) -> (Option<usize>, f64) {
    #[cfg(target_arch = "x86_64")]
    if avx512() {
        // SAFETY: the CPU supports AVX-512 F/BW/VL/DQ (checked above).
        return unsafe {
            avx512_impl::update_and_max_violation_up(y, status, grad, (a, da), (b, db))
        };
    }
    add_two_rows(grad, a, da, b, db);
    max_violation_up(Vars { y, status, grad })
}

/// A vector first scan's result over its lanes, `(index, maximum)` (the maximum counts
/// only with an index), continued over the variables from `start` with the scalar rule:
/// the same result as the scalar scan of all of them.
fn up_with_tail(v: Vars, start: usize, (idx, max): (Option<usize>, f64)) -> (Option<usize>, f64) {
    let mut best = (
        idx,
        if idx.is_some() {
            max
        } else {
            f64::NEG_INFINITY
        },
    );
    if let (Some(t), t_max) = max_violation_up_scalar(v.tail(start)) {
        if t_max >= best.1 {
            best = (Some(start + t), t_max);
        }
    }
    best
}

/// A vector second scan's result over its lanes (`obj_diff` counts only with a
/// partner) continued over the variables from `start` with the scalar scan
/// ([`best_partner_scalar`], same arguments), merged by the scalar rule.
fn partner_with_tail(
    lanes: Partner,
    start: usize,
    v: Vars,
    (q_i, qd): (&[f32], &[f64]),
    (qd_i, yi, gmax): (f64, f64, f64),
) -> Partner {
    let n = v.grad.len();
    let rest = best_partner_scalar(v.tail(start), &q_i[start..], &qd[start..n], qd_i, yi, gmax);
    let mut out = Partner {
        j: lanes.j,
        obj_diff: if lanes.j.is_some() {
            lanes.obj_diff
        } else {
            f64::INFINITY
        },
        gmax2: lanes.gmax2.max(rest.gmax2),
    };
    if let Some(t) = rest.j {
        if rest.obj_diff <= out.obj_diff {
            out.obj_diff = rest.obj_diff;
            out.j = Some(start + t);
        }
    }
    out
}

/// The second scan for the chosen `i` (row `q_i` of `Q`, diagonal `qd`, `qd_i = Q_ii`,
/// label `yi`, `gmax` from the first scan): over `t ∈ I_low = {y_t = +1, α_t > 0} ∪
/// {y_t = −1, α_t < C_t}` with `b = gmax + y_t ∇f_t > 0`, the last index minimising
/// `−b² / a` with `a = Q_ii + Q_tt − 2 y_i y_t Q_it` (or TAU when `a ≤ 0`).
pub(crate) fn best_partner(
    v: Vars,
    q_i: &[f32],
    qd: &[f64],
    qd_i: f64,
    yi: f64,
    gmax: f64,
) -> Partner {
    #[cfg(target_arch = "x86_64")]
    if avx512() {
        // SAFETY: the CPU supports AVX-512 F/BW/VL/DQ (checked above).
        return unsafe { avx512_impl::best_partner(v, q_i, qd, qd_i, yi, gmax) };
    }
    #[cfg(target_arch = "x86_64")]
    if avx2() {
        // SAFETY: the CPU supports AVX2 (checked above).
        return unsafe { avx2_impl::best_partner(v, q_i, qd, qd_i, yi, gmax) };
    }
    best_partner_scalar(v, q_i, qd, qd_i, yi, gmax)
}

/// The second scan, as LIBSVM writes it.
pub(crate) fn best_partner_scalar(
    v: Vars,
    q_i: &[f32],
    qd: &[f64],
    qd_i: f64,
    yi: f64,
    gmax: f64,
) -> Partner {
    let mut gmax2 = f64::NEG_INFINITY;
    let mut gmin_idx = None;
    let mut obj_diff_min = f64::INFINITY;
    // Zipped slices of equal length: no bounds checks in the loop.
    let vars = v.y.iter().zip(v.status).zip(v.grad).zip(q_i.iter().zip(qd));
    for (j, (((&y, &status), &g), (&q_ij, &qd_j))) in vars.enumerate() {
        let (grad_diff, quad) = if y == 1 {
            if status == Status::Lower {
                continue;
            }
            if g >= gmax2 {
                gmax2 = g;
            }
            (gmax + g, qd_i + qd_j - 2.0 * yi * q_ij as f64)
        } else {
            if status == Status::Upper {
                continue;
            }
            if -g >= gmax2 {
                gmax2 = -g;
            }
            (gmax - g, qd_i + qd_j + 2.0 * yi * q_ij as f64)
        };
        if grad_diff > 0.0 {
            let obj_diff = -(grad_diff * grad_diff) / if quad > 0.0 { quad } else { TAU };
            if obj_diff <= obj_diff_min {
                gmin_idx = Some(j);
                obj_diff_min = obj_diff;
            }
        }
    }
    Partner {
        j: gmin_idx,
        obj_diff: obj_diff_min,
        gmax2,
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2_impl {
    use super::{Partner, Status, Vars, TAU};
    use std::arch::x86_64::*;

    /// Lanes of 64-bit masks from four `i8`/`u8` values equal to `value`.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn bytes_eq(p: *const u8, value: i8) -> __m256i {
        // SAFETY (caller): four bytes readable at `p`.
        let four = _mm_cvtsi32_si128(unsafe { (p as *const i32).read_unaligned() });
        _mm256_cmpeq_epi64(_mm256_cvtepi8_epi64(four), _mm256_set1_epi64x(value as i64))
    }

    /// Masks of the four variables at `t`: `y = +1`, status Upper, status Lower.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn lane_masks(v: &Vars, t: usize) -> (__m256d, __m256d, __m256d) {
        let status = v.status.as_ptr() as *const u8;
        // SAFETY (caller): t + 4 <= len; Status is a fieldless #[repr(u8)] enum.
        unsafe {
            let pos = bytes_eq(v.y.as_ptr().add(t) as *const u8, 1);
            let upper = bytes_eq(status.add(t), Status::Upper as i8);
            let lower = bytes_eq(status.add(t), Status::Lower as i8);
            (
                _mm256_castsi256_pd(pos),
                _mm256_castsi256_pd(upper),
                _mm256_castsi256_pd(lower),
            )
        }
    }

    /// Largest lane index among lanes whose value equals `best` and that were set.
    fn last_index(values: [f64; 4], idx: [i64; 4], best: f64) -> Option<usize> {
        (0..4)
            .filter(|&k| idx[k] >= 0 && values[k] == best)
            .map(|k| idx[k] as usize)
            .max()
    }

    #[target_feature(enable = "avx2")]
    pub(super) fn max_violation_up(v: Vars) -> (Option<usize>, f64) {
        let n = v.grad.len();
        assert!(v.y.len() == n && v.status.len() == n);
        let chunks = n / 4;
        let mut best = _mm256_set1_pd(f64::NEG_INFINITY);
        let mut best_idx = _mm256_set1_epi64x(-1);
        let mut idx = _mm256_setr_epi64x(0, 1, 2, 3);
        let four = _mm256_set1_epi64x(4);
        let sign_bit = _mm256_set1_pd(-0.0);
        for c in 0..chunks {
            let t = 4 * c;
            // SAFETY: t + 4 <= n for every slice (asserted lengths).
            let (g, (pos, upper, lower)) =
                unsafe { (_mm256_loadu_pd(v.grad.as_ptr().add(t)), lane_masks(&v, t)) };
            // −y g: flip the sign of g where y = +1 (exact).
            let value = _mm256_xor_pd(g, _mm256_and_pd(pos, sign_bit));
            // In I_up: not at the bound that blocks the ascent of −y∇f.
            let blocked = _mm256_blendv_pd(lower, upper, pos);
            let ge = _mm256_cmp_pd::<_CMP_GE_OQ>(value, best);
            let take = _mm256_andnot_pd(blocked, ge);
            best = _mm256_blendv_pd(best, value, take);
            best_idx = _mm256_castpd_si256(_mm256_blendv_pd(
                _mm256_castsi256_pd(best_idx),
                _mm256_castsi256_pd(idx),
                take,
            ));
            idx = _mm256_add_epi64(idx, four);
        }
        let mut values = [0.0; 4];
        let mut lanes = [0i64; 4];
        // SAFETY: four f64 / i64 written into arrays of four.
        unsafe {
            _mm256_storeu_pd(values.as_mut_ptr(), best);
            _mm256_storeu_si256(lanes.as_mut_ptr() as *mut __m256i, best_idx);
        }
        let gmax = values.iter().fold(f64::NEG_INFINITY, |m, &x| m.max(x));
        let lanes = (last_index(values, lanes, gmax), gmax);
        super::up_with_tail(v, 4 * chunks, lanes)
    }

    #[target_feature(enable = "avx2")]
    pub(super) fn best_partner(
        v: Vars,
        q_i: &[f32],
        qd: &[f64],
        qd_i: f64,
        yi: f64,
        gmax: f64,
    ) -> Partner {
        let n = v.grad.len();
        assert!(v.y.len() == n && v.status.len() == n && q_i.len() == n && qd.len() >= n);
        let chunks = n / 4;
        let mut gmax2 = _mm256_set1_pd(f64::NEG_INFINITY);
        let mut best = _mm256_set1_pd(f64::INFINITY);
        let mut best_idx = _mm256_set1_epi64x(-1);
        let mut idx = _mm256_setr_epi64x(0, 1, 2, 3);
        let four = _mm256_set1_epi64x(4);
        let sign_bit = _mm256_set1_pd(-0.0);
        let neg_inf = _mm256_set1_pd(f64::NEG_INFINITY);
        let zero = _mm256_setzero_pd();
        let tau = _mm256_set1_pd(TAU);
        let gmax_v = _mm256_set1_pd(gmax);
        let qd_i_v = _mm256_set1_pd(qd_i);
        // 2 y_i y_t is ±2: 2 y_i with its sign flipped where y_t = −1.
        let two_yi = _mm256_set1_pd(2.0 * yi);
        for c in 0..chunks {
            let t = 4 * c;
            // SAFETY: t + 4 <= n for every slice (asserted lengths).
            let (g, q, qd_t, (pos, upper, lower)) = unsafe {
                (
                    _mm256_loadu_pd(v.grad.as_ptr().add(t)),
                    _mm256_cvtps_pd(_mm_loadu_ps(q_i.as_ptr().add(t))),
                    _mm256_loadu_pd(qd.as_ptr().add(t)),
                    lane_masks(&v, t),
                )
            };
            let neg = _mm256_andnot_pd(pos, sign_bit);
            // y_t ∇f_t, exactly (a sign flip where y_t = −1).
            let yg = _mm256_xor_pd(g, neg);
            // In I_low: not at the bound that blocks the descent of y∇f.
            let blocked = _mm256_blendv_pd(upper, lower, pos);
            let yg_low = _mm256_blendv_pd(yg, neg_inf, blocked);
            gmax2 = _mm256_max_pd(yg_low, gmax2);
            let grad_diff = _mm256_add_pd(gmax_v, yg);
            let k = _mm256_xor_pd(two_yi, neg);
            let quad = _mm256_sub_pd(_mm256_add_pd(qd_i_v, qd_t), _mm256_mul_pd(k, q));
            let quad = _mm256_blendv_pd(tau, quad, _mm256_cmp_pd::<_CMP_GT_OQ>(quad, zero));
            let square = _mm256_mul_pd(grad_diff, grad_diff);
            let obj_diff = _mm256_div_pd(_mm256_xor_pd(square, sign_bit), quad);
            let valid = _mm256_andnot_pd(blocked, _mm256_cmp_pd::<_CMP_GT_OQ>(grad_diff, zero));
            let le = _mm256_cmp_pd::<_CMP_LE_OQ>(obj_diff, best);
            let take = _mm256_and_pd(valid, le);
            best = _mm256_blendv_pd(best, obj_diff, take);
            best_idx = _mm256_castpd_si256(_mm256_blendv_pd(
                _mm256_castsi256_pd(best_idx),
                _mm256_castsi256_pd(idx),
                take,
            ));
            idx = _mm256_add_epi64(idx, four);
        }
        let mut values = [0.0; 4];
        let mut lanes = [0i64; 4];
        let mut maxes = [0.0; 4];
        // SAFETY: four f64 / i64 written into arrays of four.
        unsafe {
            _mm256_storeu_pd(values.as_mut_ptr(), best);
            _mm256_storeu_si256(lanes.as_mut_ptr() as *mut __m256i, best_idx);
            _mm256_storeu_pd(maxes.as_mut_ptr(), gmax2);
        }
        let min = values.iter().fold(f64::INFINITY, |m, &x| m.min(x));
        let lanes = Partner {
            j: last_index(values, lanes, min),
            obj_diff: min,
            gmax2: maxes.iter().fold(f64::NEG_INFINITY, |m, &x| m.max(x)),
        };
        super::partner_with_tail(lanes, 4 * chunks, v, (q_i, qd), (qd_i, yi, gmax))
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512_impl {
    use super::{Partner, Status, Vars, TAU};
    use std::arch::x86_64::*;

    /// Relative error bound of `_mm512_rcp14_pd` (2⁻¹⁴), doubled for the product's
    /// rounding: `|b²·rcp14(a) − fl(b²/a)| ≤ 2⁻¹³ |fl(b²/a)|`.
    const RCP_SLACK: f64 = 1.0 + 1.0 / 4096.0;

    /// Masks of the eight variables at `t`: `y = +1`, status Upper, status Lower.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
    unsafe fn lane_masks(y: &[i8], status: &[Status], t: usize) -> (__mmask8, __mmask8, __mmask8) {
        // SAFETY (caller): t + 8 <= len; Status is a fieldless #[repr(u8)] enum.
        unsafe {
            let y = _mm_loadl_epi64(y.as_ptr().add(t) as *const __m128i);
            let st = _mm_loadl_epi64((status.as_ptr() as *const u8).add(t) as *const __m128i);
            let pos = _mm_cmpeq_epi8_mask(y, _mm_set1_epi8(1)) as __mmask8;
            let upper = _mm_cmpeq_epi8_mask(st, _mm_set1_epi8(Status::Upper as i8)) as __mmask8;
            let lower = _mm_cmpeq_epi8_mask(st, _mm_set1_epi8(Status::Lower as i8)) as __mmask8;
            (pos, upper, lower)
        }
    }

    /// Per-lane extremes and the last index reaching each, reduced to the overall
    /// extreme (`min` or max) and the largest index among the lanes reaching it.
    fn reduce(values: __m512d, lanes: __m512i, min: bool) -> (Option<usize>, f64) {
        let mut v = [0.0; 8];
        let mut idx = [0i64; 8];
        // SAFETY: eight f64 / i64 written into arrays of eight.
        unsafe {
            _mm512_storeu_pd(v.as_mut_ptr(), values);
            _mm512_storeu_si512(idx.as_mut_ptr() as *mut __m512i, lanes);
        }
        let set = (0..8).filter(|&k| idx[k] >= 0);
        let best = if min {
            set.clone().map(|k| v[k]).fold(f64::INFINITY, f64::min)
        } else {
            set.clone().map(|k| v[k]).fold(f64::NEG_INFINITY, f64::max)
        };
        let at = set.filter(|&k| v[k] == best).max_by_key(|&k| idx[k]);
        // The lane's own value: the same zero sign as the scalar scan's.
        at.map_or((None, best), |k| (Some(idx[k] as usize), v[k]))
    }

    /// The first scan's state: per lane, the largest `−y_t ∇f_t` over `I_up` so far and
    /// the last index reaching it, and the indices of the next eight variables.
    struct UpLanes {
        best: __m512d,
        best_idx: __m512i,
        idx: __m512i,
    }

    impl UpLanes {
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
        fn new() -> Self {
            Self {
                best: _mm512_set1_pd(f64::NEG_INFINITY),
                best_idx: _mm512_set1_epi64(-1),
                idx: _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7),
            }
        }

        /// The next eight variables: gradient `g` (its bits) and their [`lane_masks`].
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
        fn step(&mut self, g: __m512i, (pos, upper, lower): (__mmask8, __mmask8, __mmask8)) {
            // −y g: flip the sign of g where y = +1 (exact).
            let sign_bit = _mm512_set1_epi64(i64::MIN);
            let value = _mm512_castsi512_pd(_mm512_mask_xor_epi64(g, pos, g, sign_bit));
            // In I_up: not at the bound that blocks the ascent of −y∇f.
            let blocked = (pos & upper) | (!pos & lower);
            let take = _mm512_mask_cmp_pd_mask::<_CMP_GE_OQ>(!blocked, value, self.best);
            self.best = _mm512_mask_mov_pd(self.best, take, value);
            self.best_idx = _mm512_mask_mov_epi64(self.best_idx, take, self.idx);
            self.idx = _mm512_add_epi64(self.idx, _mm512_set1_epi64(8));
        }

        /// The lanes' result continued over the variables from `start` (the tail).
        fn finish(&self, v: Vars, start: usize) -> (Option<usize>, f64) {
            super::up_with_tail(v, start, reduce(self.best, self.best_idx, false))
        }
    }

    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
    pub(super) fn max_violation_up(v: Vars) -> (Option<usize>, f64) {
        let n = v.grad.len();
        assert!(v.y.len() == n && v.status.len() == n);
        let chunks = n / 8;
        let mut scan = UpLanes::new();
        for c in 0..chunks {
            let t = 8 * c;
            // SAFETY: t + 8 <= n for every slice (asserted lengths).
            let (g, masks) = unsafe {
                (
                    _mm512_loadu_si512(v.grad.as_ptr().add(t) as *const _),
                    lane_masks(v.y, v.status, t),
                )
            };
            scan.step(g, masks);
        }
        scan.finish(v, 8 * chunks)
    }

    /// [`super::update_and_max_violation_up`]: the update of [`super::add_two_rows`]
    /// (`g + (a·da + b·db)`, no fused multiply-add) and the scan of
    /// [`max_violation_up`] on each chunk while it is in registers.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
    pub(super) fn update_and_max_violation_up(
        y: &[i8],
        status: &[Status],
        grad: &mut [f64],
        (a, da): (&[f32], f64),
        (b, db): (&[f32], f64),
    ) -> (Option<usize>, f64) {
        let n = grad.len();
        assert!(y.len() == n && status.len() == n && a.len() >= n && b.len() >= n);
        let chunks = n / 8;
        let mut scan = UpLanes::new();
        let (da_v, db_v) = (_mm512_set1_pd(da), _mm512_set1_pd(db));
        for c in 0..chunks {
            let t = 8 * c;
            // SAFETY: t + 8 <= n for every slice (asserted lengths).
            let (g, masks) = unsafe {
                let at = _mm512_cvtps_pd(_mm256_loadu_ps(a.as_ptr().add(t)));
                let bt = _mm512_cvtps_pd(_mm256_loadu_ps(b.as_ptr().add(t)));
                let step = _mm512_add_pd(_mm512_mul_pd(at, da_v), _mm512_mul_pd(bt, db_v));
                let g = _mm512_add_pd(_mm512_loadu_pd(grad.as_ptr().add(t)), step);
                _mm512_storeu_pd(grad.as_mut_ptr().add(t), g);
                (_mm512_castpd_si512(g), lane_masks(y, status, t))
            };
            scan.step(g, masks);
        }
        let start = 8 * chunks;
        super::add_two_rows(&mut grad[start..], &a[start..n], da, &b[start..n], db);
        scan.finish(Vars { y, status, grad }, start)
    }

    /// The second scan, eight lanes at a time. The exact quotient `−b²/a` is computed
    /// only for lanes whose approximation (`b²` times a 14-bit reciprocal of `a`) could
    /// reach the lane's current minimum: the others cannot be taken, whatever the
    /// rounding, so the result is the scalar scan's while most chunks skip the divider.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
    pub(super) fn best_partner(
        v: Vars,
        q_i: &[f32],
        qd: &[f64],
        qd_i: f64,
        yi: f64,
        gmax: f64,
    ) -> Partner {
        let n = v.grad.len();
        assert!(v.y.len() == n && v.status.len() == n && q_i.len() == n && qd.len() >= n);
        let chunks = n / 8;
        let mut gmax2 = _mm512_set1_pd(f64::NEG_INFINITY);
        let mut best = _mm512_set1_pd(f64::INFINITY);
        let mut best_idx = _mm512_set1_epi64(-1);
        let mut idx = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
        let eight = _mm512_set1_epi64(8);
        let sign_bit = _mm512_set1_epi64(i64::MIN);
        let zero = _mm512_setzero_pd();
        let tau = _mm512_set1_pd(TAU);
        let slack = _mm512_set1_pd(-RCP_SLACK);
        let tiny_v = _mm512_set1_pd(-(2f64).powi(-1000));
        let gmax_v = _mm512_set1_pd(gmax);
        let qd_i_v = _mm512_set1_pd(qd_i);
        let two_yi = _mm512_castpd_si512(_mm512_set1_pd(2.0 * yi));
        for c in 0..chunks {
            let t = 8 * c;
            // SAFETY: t + 8 <= n for every slice (asserted lengths).
            let (g, q, qd_t, (pos, upper, lower)) = unsafe {
                (
                    _mm512_loadu_si512(v.grad.as_ptr().add(t) as *const _),
                    _mm512_cvtps_pd(_mm256_loadu_ps(q_i.as_ptr().add(t))),
                    _mm512_loadu_pd(qd.as_ptr().add(t)),
                    lane_masks(v.y, v.status, t),
                )
            };
            let neg = !pos;
            // y_t ∇f_t, exactly (a sign flip where y_t = −1).
            let yg = _mm512_castsi512_pd(_mm512_mask_xor_epi64(g, neg, g, sign_bit));
            // In I_low: not at the bound that blocks the descent of y∇f.
            let open = !((pos & lower) | (neg & upper));
            gmax2 = _mm512_mask_max_pd(gmax2, open, yg, gmax2);
            let grad_diff = _mm512_add_pd(gmax_v, yg);
            let valid = _mm512_mask_cmp_pd_mask::<_CMP_GT_OQ>(open, grad_diff, zero);
            if valid == 0 {
                idx = _mm512_add_epi64(idx, eight);
                continue;
            }
            let k = _mm512_castsi512_pd(_mm512_mask_xor_epi64(two_yi, neg, two_yi, sign_bit));
            let quad = _mm512_sub_pd(_mm512_add_pd(qd_i_v, qd_t), _mm512_mul_pd(k, q));
            let positive = _mm512_cmp_pd_mask::<_CMP_GT_OQ>(quad, zero);
            let quad = _mm512_mask_mov_pd(tau, positive, quad);
            let square = _mm512_mul_pd(grad_diff, grad_diff);
            // −b²·(1 + 2⁻¹²)/a ≤ −b²/a: a lane failing this cannot beat its minimum.
            // The bound is relative, so lanes near the subnormal range (absolute
            // rounding) and NaN estimates (0·∞) are always divided.
            let approx = _mm512_mul_pd(_mm512_mul_pd(square, slack), _mm512_rcp14_pd(quad));
            let tiny = _mm512_mask_cmp_pd_mask::<_CMP_GE_OQ>(valid, approx, tiny_v);
            let may = _mm512_mask_cmp_pd_mask::<_CMP_NGT_UQ>(valid, approx, best) | tiny;
            if may != 0 {
                let negated =
                    _mm512_castsi512_pd(_mm512_xor_si512(_mm512_castpd_si512(square), sign_bit));
                let obj_diff = _mm512_maskz_div_pd(may, negated, quad);
                let take = _mm512_mask_cmp_pd_mask::<_CMP_LE_OQ>(may, obj_diff, best);
                best = _mm512_mask_mov_pd(best, take, obj_diff);
                best_idx = _mm512_mask_mov_epi64(best_idx, take, idx);
            }
            idx = _mm512_add_epi64(idx, eight);
        }
        let (j, min) = reduce(best, best_idx, true);
        let mut maxes = [0.0; 8];
        // SAFETY: eight f64 written into an array of eight.
        unsafe { _mm512_storeu_pd(maxes.as_mut_ptr(), gmax2) };
        let lanes = Partner {
            j,
            obj_diff: min,
            gmax2: maxes.iter().fold(f64::NEG_INFINITY, |m, &x| m.max(x)),
        };
        super::partner_with_tail(lanes, 8 * chunks, v, (q_i, qd), (qd_i, yi, gmax))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random scans, half with many ties (few distinct values), half with continuous
    /// values, of every length mod 4: the dispatched versions agree with the scalar
    /// reference.
    #[test]
    fn vector_scans_equal_scalar_ones() {
        let mut state: u64 = 11;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as u32
        };
        for case in 0..3000 {
            let n = case % 37 + if case % 7 == 0 { 500 } else { 0 };
            // Few levels (ties), or about 2^20 of them.
            let levels = if case % 2 == 0 {
                1 + next() % 5
            } else {
                1 << 20
            };
            let y: Vec<i8> = (0..n)
                .map(|_| if next() % 2 == 0 { 1 } else { -1 })
                .collect();
            let status: Vec<Status> = (0..n)
                .map(|_| match next() % 3 {
                    0 => Status::Lower,
                    1 => Status::Upper,
                    _ => Status::Free,
                })
                .collect();
            // Some cases at magnitudes whose quotients are subnormal (absolute rounding).
            let magnitude = if case % 5 == 3 { 1e-160 } else { 1.0 };
            let grad: Vec<f64> = (0..n)
                .map(|_| ((next() % levels) as f64 * 2.0 / levels as f64 - 1.0) * magnitude)
                .collect();
            let q_i: Vec<f32> = (0..n)
                .map(|_| (next() % levels) as f32 / levels as f32 - 0.5)
                .collect();
            let qd: Vec<f64> = (0..n).map(|_| (next() % 3) as f64 * 0.5).collect();
            let v = Vars {
                y: &y,
                status: &status,
                grad: &grad,
            };
            let up = max_violation_up(v);
            assert_eq!(up, max_violation_up_scalar(v), "case {case}");
            let (gmax, yi) = (up.1.max(-2.0), if next() % 2 == 0 { 1.0 } else { -1.0 });
            let qd_i = (next() % 3) as f64 * 0.5;
            let fast = best_partner(v, &q_i, &qd, qd_i, yi, gmax);
            let slow = best_partner_scalar(v, &q_i, &qd, qd_i, yi, gmax);
            assert_eq!(fast, slow, "case {case}");
            // The fused step: the gradient of `add_two_rows` and the scan of it.
            let q_j: Vec<f32> = q_i.iter().rev().copied().collect();
            let (da, db) = (next() as f64 / 7e9, -(next() as f64) / 3e9);
            let mut fused = grad.clone();
            let up = update_and_max_violation_up(&y, &status, &mut fused, (&q_i, da), (&q_j, db));
            let mut apart = grad.clone();
            add_two_rows(&mut apart, &q_i, da, &q_j, db);
            let bits = |g: &[f64]| g.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&fused), bits(&apart), "case {case}");
            let v = Vars {
                y: &y,
                status: &status,
                grad: &apart,
            };
            assert_eq!(up, max_violation_up_scalar(v), "case {case}");
        }
    }
}
