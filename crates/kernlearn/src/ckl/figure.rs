//! CKL's figure of itself: the learned spectrum (thesis §5.5, Fig. 5.4), the frequency
//! norms before and after training against the initial distribution.

use super::{CklModel, FeatureMap, FeatureMapKind};
use crate::output::write_atomic_with;
use crate::plot::line_plot;
use crate::predictor::Predictor;
use crate::{Error, Result};
use std::path::Path;

/// Histogram of the frequency norms ‖ω_j‖ before and after CKL's training, with the
/// density of the initial distribution (‖ω‖ = σ·χ_d for ω ~ N(0, σ² I_d)).
pub(super) fn write_spectrum_plot(model: &CklModel, path: &Path) -> Result<()> {
    let (Some(initial), FeatureMap::Fourier(learned)) = (&model.initial, &model.features) else {
        return Err(Error::data("the model has no learned Fourier spectrum"));
    };
    let (before, after) = (initial.norms(), learned.norms());
    let top = before
        .iter()
        .chain(&after)
        .cloned()
        .fold(0.0f64, f64::max)
        .max(1e-12);
    let bins = ((before.len() as f64).sqrt().ceil() as usize).clamp(5, 40);
    let width = top / bins as f64;
    let histogram = |v: &[f64]| -> Vec<(f64, f64)> {
        let mut counts = vec![0usize; bins];
        for x in v {
            counts[((x / width) as usize).min(bins - 1)] += 1;
        }
        let scale = 1.0 / (v.len() as f64 * width);
        counts
            .iter()
            .enumerate()
            .flat_map(|(b, &c)| {
                let h = c as f64 * scale;
                [(b as f64 * width, h), ((b + 1) as f64 * width, h)]
            })
            .collect()
    };
    let mut series = vec![
        ("initial draw".to_string(), histogram(&before)),
        ("after training".to_string(), histogram(&after)),
    ];
    if model.params.feature_map == FeatureMapKind::Gaussian {
        let (s, d) = (model.params.init_variance.sqrt(), model.n_features as f64);
        // log of the χ_d density at r/s, over s.
        let ln_gamma_half_d = ln_gamma(d / 2.0);
        let density = (1..=200)
            .map(|i| {
                let r = top * i as f64 / 200.0;
                let t = r / s;
                let ln = (1.0 - d / 2.0) * 2f64.ln() - ln_gamma_half_d + (d - 1.0) * t.ln()
                    - t * t / 2.0;
                (r, ln.exp() / s)
            })
            .collect();
        series.push(("initial distribution σ·χ_d".to_string(), density));
    }
    write_atomic_with(path, |tmp| {
        line_plot(
            tmp,
            &format!(
                "{}: the learned spectrum\nnorms of the D = {} frequency vectors ω_j (density histogram)",
                model.method().to_uppercase(),
                before.len()
            ),
            "‖ω_j‖",
            "density",
            &series,
            false,
        )
    })
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7, 9 terms; relative error below 1e-13).
fn ln_gamma(x: f64) -> f64 {
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let t = x + 7.5;
    let sum = C[0] + (1..9).map(|i| C[i] / (x + i as f64)).sum::<f64>();
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}
