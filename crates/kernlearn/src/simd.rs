//! Loops compiled three times, for the default x86-64 target (SSE2), with AVX2 and with
//! AVX-512, the widest version the CPU runs chosen at run time; and the vectorisable `exp`
//! of kernel rows.
//!
//! The loops are plain Rust that the compiler vectorises. No version fuses multiply and
//! add (Rust never contracts `a * b + c`), and every loop fixes its order of summation in
//! the source, so all versions give bit-identical results: the width changes how many
//! lanes run at once, never the arithmetic.

/// Whether the CPU has AVX2 (cached by the standard library after the first call).
pub(crate) fn avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether the CPU has AVX-512 F, BW, VL and DQ (with AVX2, which every AVX-512 CPU
/// has), unless `KERNLEARN_NO_AVX512` is set in the environment: on some CPUs 512-bit
/// instructions lower the clock for the whole core, and the variable lets a user
/// measure that.
pub(crate) fn avx512() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        static WIDE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *WIDE.get_or_init(|| {
            std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512bw")
                && std::arch::is_x86_feature_detected!("avx512vl")
                && std::arch::is_x86_feature_detected!("avx512dq")
                && avx2()
                && std::env::var_os("KERNLEARN_NO_AVX512").is_none()
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Defines `$name` calling the inlined `$body` compiled with AVX-512 or AVX2, the widest
/// the CPU has, or for the default target.
macro_rules! with_simd {
    ($(#[$doc:meta])* fn $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty = $body:ident) => {
        $(#[$doc])*
        pub(crate) fn $name($($arg: $ty),*) -> $ret {
            #[cfg(target_arch = "x86_64")]
            {
                if $crate::simd::avx512() {
                    #[target_feature(enable = "avx2,avx512f")]
                    fn wide512($($arg: $ty),*) -> $ret {
                        $body($($arg),*)
                    }
                    // SAFETY: the CPU supports AVX-512F and AVX2 (checked above).
                    return unsafe { wide512($($arg),*) };
                }
                if $crate::simd::avx2() {
                    #[target_feature(enable = "avx2")]
                    fn wide($($arg: $ty),*) -> $ret {
                        $body($($arg),*)
                    }
                    // SAFETY: the CPU supports AVX2 (checked above).
                    return unsafe { wide($($arg),*) };
                }
            }
            $body($($arg),*)
        }
    };
}
pub(crate) use with_simd;

with_simd! {
    /// `out_t = exp(x_t)` rounded to `f32` (a kernel row of the cache). See [`exp_lanes`].
    fn exp_to_f32(x: &[f64], out: &mut [f32]) -> () = exp_to_f32_lanes
}

with_simd! {
    /// `x_t ← exp(x_t)`. See [`exp_lanes`].
    fn exp_in_place(x: &mut [f64]) -> () = exp_in_place_body
}

with_simd! {
    /// `acc_t += w·v_t`.
    fn add_scaled(acc: &mut [f64], w: f64, v: &[f64]) -> () = add_scaled_body
}

#[inline(always)]
fn add_scaled_body(acc: &mut [f64], w: f64, v: &[f64]) {
    for (a, &x) in acc.iter_mut().zip(v) {
        *a += w * x;
    }
}

/// A kernel column stored as its chain root's column `root` and a number of squarings
/// (`crate::mkl`'s table of base kernels): the value at `t` is `root_t^(2^squarings)`,
/// `root_t` squared `squarings` times in turn (the bits of computing the chain).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Squared<'a> {
    pub root: &'a [f64],
    pub squarings: u32,
}

impl<'a> Squared<'a> {
    /// A column stored as it is (no squaring).
    pub(crate) fn plain(root: &'a [f64]) -> Self {
        Self { root, squarings: 0 }
    }

    /// The value at `t`.
    #[inline]
    pub(crate) fn at(&self, t: usize) -> f64 {
        pow2k::<DYNAMIC>(self.root[t], self.squarings)
    }

    /// The values of some columns, each at one place, squared side by side (the
    /// squarings of one value depend on each other; of several, they overlap).
    #[inline]
    pub(crate) fn at_each<const K: usize>(places: [(Self, usize); K]) -> [f64; K] {
        let mut v = places.map(|(c, t)| c.root[t]);
        let most = places.iter().map(|(c, _)| c.squarings).max().unwrap_or(0);
        for s in 0..most {
            for (v, (c, _)) in v.iter_mut().zip(&places) {
                if s < c.squarings {
                    *v *= *v;
                }
            }
        }
        v
    }

    /// The values at `rows[t]`.
    pub(crate) fn gather(&self, rows: impl Fn(usize) -> usize, out: &mut [f64]) {
        out.iter_mut()
            .enumerate()
            .for_each(|(t, o)| *o = self.at(rows(t)));
    }
}

/// [`pow2k`]'s const parameter for "the runtime count".
const DYNAMIC: u32 = u32::MAX;

/// `v` squared `S` times (`times` times when `S` is [`DYNAMIC`]): with `S` a constant the
/// loop unrolls, so that a loop over values that calls this vectorises.
#[inline(always)]
fn pow2k<const S: u32>(mut v: f64, times: u32) -> f64 {
    let n = if S == DYNAMIC { times } else { S };
    for _ in 0..n {
        v *= v;
    }
    v
}

/// `$f::<S>(args…)` with the constant `S` = `$times` up to 8 (the thesis's chains), else
/// with [`DYNAMIC`].
macro_rules! by_squarings {
    ($times:expr, $f:ident($($arg:expr),*)) => {
        match $times {
            0 => $f::<0>($($arg),*),
            1 => $f::<1>($($arg),*),
            2 => $f::<2>($($arg),*),
            3 => $f::<3>($($arg),*),
            4 => $f::<4>($($arg),*),
            5 => $f::<5>($($arg),*),
            6 => $f::<6>($($arg),*),
            7 => $f::<7>($($arg),*),
            8 => $f::<8>($($arg),*),
            _ => $f::<DYNAMIC>($($arg),*),
        }
    };
}

with_simd! {
    /// `acc_t += w·v_t` for a [`Squared`] column `v`.
    fn add_scaled_squared(acc: &mut [f64], w: f64, v: Squared) -> () = add_scaled_squared_body
}

#[inline(always)]
fn add_scaled_squared_body(acc: &mut [f64], w: f64, v: Squared) {
    #[inline(always)]
    fn run<const S: u32>(acc: &mut [f64], w: f64, v: Squared) {
        for (a, &x) in acc.iter_mut().zip(v.root) {
            *a += w * pow2k::<S>(x, v.squarings);
        }
    }
    by_squarings!(v.squarings, run(acc, w, v))
}

with_simd! {
    /// `acc_t += w·(f·v_t)` for a [`Squared`] column `v`.
    fn add_scaled_product_squared(acc: &mut [f64], w: f64, f: f64, v: Squared) -> () = add_scaled_product_squared_body
}

#[inline(always)]
fn add_scaled_product_squared_body(acc: &mut [f64], w: f64, f: f64, v: Squared) {
    #[inline(always)]
    fn run<const S: u32>(acc: &mut [f64], w: f64, f: f64, v: Squared) {
        for (a, &x) in acc.iter_mut().zip(v.root) {
            *a += w * (f * pow2k::<S>(x, v.squarings));
        }
    }
    by_squarings!(v.squarings, run(acc, w, f, v))
}

with_simd! {
    /// `h_t += hy_t·(f·p_t − f·r_t)` for two [`Squared`] columns of one kernel (same
    /// squarings): MWUMKL's per-kernel update (`crate::mkl::mwumkl`).
    fn add_column_difference(h: &mut [f64], hy: &[f64], p: Squared, r: Squared, f: f64) -> () = add_column_difference_body
}

#[inline(always)]
fn add_column_difference_body(h: &mut [f64], hy: &[f64], p: Squared, r: Squared, f: f64) {
    #[inline(always)]
    fn run<const S: u32>(h: &mut [f64], hy: &[f64], p: &[f64], r: &[f64], f: f64, times: u32) {
        for (((h, &hy), &vp), &vr) in h.iter_mut().zip(hy).zip(p).zip(r) {
            let (vp, vr) = (pow2k::<S>(vp, times), pow2k::<S>(vr, times));
            *h += hy * (f * vp - f * vr);
        }
    }
    assert_eq!(p.squarings, r.squarings, "two columns of one kernel");
    by_squarings!(p.squarings, run(h, hy, p.root, r.root, f, p.squarings))
}

/// `out_t = exp(x_t)` rounded to `f32`, inlined into the caller (which chooses the
/// instruction set): the body of [`exp_to_f32`].
#[inline(always)]
pub(crate) fn exp_to_f32_lanes(x: &[f64], out: &mut [f32]) {
    for (o, &v) in out.iter_mut().zip(x) {
        *o = exp_lanes(v) as f32;
    }
}

#[inline(always)]
fn exp_in_place_body(x: &mut [f64]) {
    for v in x.iter_mut() {
        *v = exp_lanes(*v);
    }
}

/// `exp(x)` without branches or calls, so that a loop over it vectorises (libm's `exp` is
/// a call per value: a quarter of an RBF fit's time on shuttle). Cody–Waite reduction
/// `x = k·ln 2 + r`, `|r| ≤ ln 2 / 2` (k rounded by the 1.5·2⁵² shift, `ln 2` split in a
/// high part exact for `|k| < 2¹¹` and a low part), the degree-13 Taylor polynomial of
/// `e^r` (truncation error < 4·10⁻¹⁸) by Horner, and `2^k` built in the exponent bits.
/// Relative error ≤ 3·10⁻¹⁶ (test below, against libm); `x` is clamped to
/// `[−708, 709]`, so results below `e^−708 ≈ 3·10⁻³⁰⁸` are that value rather than
/// subnormal or zero (they are 0 once rounded to `f32`, as kernel rows are) and `+∞`
/// is never produced for finite input. NaN propagates.
#[inline(always)]
pub(crate) fn exp_lanes(x: f64) -> f64 {
    const LOG2E: f64 = std::f64::consts::LOG2_E;
    // fdlibm's split of ln 2: the high part has 21 trailing zero bits.
    const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
    const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
    const SHIFT: f64 = 6_755_399_441_055_744.0; // 1.5 · 2^52: adding it rounds to an integer
    const C: [f64; 14] = [
        1.0,
        1.0,
        1.0 / 2.0,
        1.0 / 6.0,
        1.0 / 24.0,
        1.0 / 120.0,
        1.0 / 720.0,
        1.0 / 5_040.0,
        1.0 / 40_320.0,
        1.0 / 362_880.0,
        1.0 / 3_628_800.0,
        1.0 / 39_916_800.0,
        1.0 / 479_001_600.0,
        1.0 / 6_227_020_800.0,
    ];
    let x = x.clamp(-708.0, 709.0);
    let t = x * LOG2E + SHIFT;
    let k = t - SHIFT;
    let r = (x - k * LN2_HI) - k * LN2_LO;
    let mut p = C[13];
    for c in C[..13].iter().rev() {
        p = p * r + c;
    }
    // t's low mantissa bits hold k (t and SHIFT share their exponent): 2^k's exponent
    // field is k + 1023, within [1, 2046] after the clamp.
    let k_bits = t.to_bits().wrapping_sub(SHIFT.to_bits());
    let two_k = f64::from_bits(k_bits.wrapping_add(1023) << 52);
    p * two_k
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel_err(x: f64) -> f64 {
        let (ours, libm) = (exp_lanes(x), x.exp());
        ((ours - libm) / libm).abs()
    }

    #[test]
    fn exp_matches_libm_to_a_few_ulp() {
        let mut worst: f64 = 0.0;
        let n = 400_000;
        for i in 0..=n {
            let x = -708.0 + 1417.0 * i as f64 / n as f64;
            worst = worst.max(rel_err(x));
        }
        // around 0 and the reduction's breakpoints (r near ±ln2/2)
        for i in -2000..=2000 {
            let x = i as f64 * 1e-3 * std::f64::consts::LN_2;
            worst = worst.max(rel_err(x)).max(rel_err(x + 1e-13));
        }
        assert!(worst < 3e-16, "worst relative error {worst:e}");
        assert_eq!(exp_lanes(0.0), 1.0);
        assert_eq!(exp_lanes(-0.0), 1.0);
    }

    #[test]
    fn exp_clamps_and_propagates_nan() {
        assert!(exp_lanes(-1e6) > 0.0 && exp_lanes(-1e6) < 1e-307);
        assert_eq!(exp_lanes(-1e6) as f32, 0.0);
        assert!(exp_lanes(1e6).is_finite());
        assert!(exp_lanes(f64::NAN).is_nan());
        assert_eq!(exp_lanes(f64::NEG_INFINITY) as f32, 0.0);
    }

    #[test]
    fn both_versions_agree_bit_for_bit() {
        let x: Vec<f64> = (0..1000).map(|i| -0.37 * i as f64).collect();
        let mut wide = vec![0f32; x.len()];
        exp_to_f32(&x, &mut wide);
        let narrow: Vec<f32> = x.iter().map(|&v| exp_lanes(v) as f32).collect();
        assert_eq!(wide, narrow);
        let mut inplace = x.clone();
        exp_in_place(&mut inplace);
        for (a, &v) in inplace.iter().zip(&x) {
            assert_eq!(a.to_bits(), exp_lanes(v).to_bits());
        }
    }
}
