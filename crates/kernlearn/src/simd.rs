//! Loops compiled twice, for the default x86-64 target (SSE2) and with AVX2, the version
//! chosen at run time; and the vectorisable `exp` of kernel rows.
//!
//! The loops are plain Rust that the compiler vectorises. Neither version fuses multiply
//! and add (Rust never contracts `a * b + c`), so both give bit-identical results.

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

/// Defines `$name` calling the inlined `$body` compiled with AVX2 when the CPU has it.
macro_rules! with_avx2 {
    ($(#[$doc:meta])* fn $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty = $body:ident) => {
        $(#[$doc])*
        pub(crate) fn $name($($arg: $ty),*) -> $ret {
            #[cfg(target_arch = "x86_64")]
            if $crate::simd::avx2() {
                #[target_feature(enable = "avx2")]
                fn wide($($arg: $ty),*) -> $ret {
                    $body($($arg),*)
                }
                // SAFETY: the CPU supports AVX2 (checked above).
                return unsafe { wide($($arg),*) };
            }
            $body($($arg),*)
        }
    };
}
pub(crate) use with_avx2;

with_avx2! {
    /// `out_t = exp(x_t)` rounded to `f32` (a kernel row of the cache). See [`exp_lanes`].
    fn exp_to_f32(x: &[f64], out: &mut [f32]) -> () = exp_to_f32_body
}

with_avx2! {
    /// `x_t ← exp(x_t)`. See [`exp_lanes`].
    fn exp_in_place(x: &mut [f64]) -> () = exp_in_place_body
}

with_avx2! {
    /// `acc_t += w·v_t`.
    fn add_scaled(acc: &mut [f64], w: f64, v: &[f64]) -> () = add_scaled_body
}

#[inline(always)]
fn add_scaled_body(acc: &mut [f64], w: f64, v: &[f64]) {
    for (a, &x) in acc.iter_mut().zip(v) {
        *a += w * x;
    }
}

with_avx2! {
    /// `acc_t += w·(f·v_t)`.
    fn add_scaled_product(acc: &mut [f64], w: f64, f: f64, v: &[f64]) -> () = add_scaled_product_body
}

#[inline(always)]
fn add_scaled_product_body(acc: &mut [f64], w: f64, f: f64, v: &[f64]) {
    for (a, &x) in acc.iter_mut().zip(v) {
        *a += w * (f * x);
    }
}

#[inline(always)]
fn exp_to_f32_body(x: &[f64], out: &mut [f32]) {
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
