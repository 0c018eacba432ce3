//! LIBSVM's model file format (`svm_save_model` / `svm_load_model` of LIBSVM 3.x): a
//! header of `keyword value...` lines (`svm_type`, `kernel_type`, `degree`, `gamma`,
//! `coef0`, `nr_class`, `total_sv`, `rho`, `label`, `probA`, `probB`, `nr_sv`), then `SV`
//! and one line per support vector: its `nr_class − 1` coefficients and its sparse
//! `index:value` features. Numbers are written with LIBSVM's `printf` formats (`%.17g`
//! for coefficients and parameters, `%.8g` for feature values, `%d` for labels), so a
//! model written here reads back in LIBSVM and the other way round.
//!
//! [`SvmModel::predict_libsvm`] predicts with LIBSVM's own arithmetic (`svm_predict_values`
//! and `k_function`: scalar sums in LIBSVM's order, libm's `exp` and `tanh`), so that
//! the predictions of a model file agree to the bit with LIBSVM's `svm-predict`.

use super::model::{SvmModel, SvmParams, SvmType};
use crate::data::{read_text_bounded, Features, SparseFeatures};
use crate::kernel::{merge_sum, powi, Kernel};
use crate::multiclass::ClassOrder;
use crate::{Error, Result};
use std::fmt::Write as _;
use std::path::Path;

/// `value` as C's `printf("%.{precision}g", value)` prints it (glibc): `precision`
/// significant digits, fixed or exponent notation by the exponent, trailing zeros
/// dropped, `nan`/`-nan`/`inf`/`-inf` for non-finite values.
pub fn printf_g(value: f64, precision: usize) -> String {
    if value.is_nan() {
        return if value.is_sign_negative() {
            "-nan"
        } else {
            "nan"
        }
        .to_string();
    }
    if value.is_infinite() {
        return if value < 0.0 { "-inf" } else { "inf" }.to_string();
    }
    let p = precision.max(1);
    if value == 0.0 {
        return if value.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    let sci = format!("{:.*e}", p - 1, value);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let x: i64 = exp.parse().unwrap_or(0);
    if x < -4 || x >= p as i64 {
        let sign = if x < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", strip_zeros(mantissa), x.abs())
    } else {
        strip_zeros(&format!("{:.*}", (p as i64 - 1 - x) as usize, value)).to_string()
    }
}

/// Drops the trailing zeros of a fraction (and its point when nothing is left).
fn strip_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// LIBSVM's names of the formulations, in `-s` order.
const SVM_TYPES: [(&str, SvmType); 5] = [
    ("c_svc", SvmType::CSvc),
    ("nu_svc", SvmType::NuSvc),
    ("one_class", SvmType::OneClass),
    ("epsilon_svr", SvmType::EpsilonSvr),
    ("nu_svr", SvmType::NuSvr),
];

/// LIBSVM's name of a kernel (`None`: a kernel LIBSVM does not have).
fn kernel_name(kernel: &Kernel) -> Option<&'static str> {
    Some(match kernel {
        Kernel::Linear => "linear",
        Kernel::Polynomial { .. } => "polynomial",
        Kernel::Rbf { .. } => "rbf",
        Kernel::Sigmoid { .. } => "sigmoid",
        Kernel::Precomputed => "precomputed",
        _ => return None,
    })
}

/// Appends ` %.17g` of each value.
fn push_values(out: &mut String, key: &str, values: &[f64]) {
    out.push_str(key);
    for &v in values {
        out.push(' ');
        out.push_str(&printf_g(v, 17));
    }
    out.push('\n');
}

impl SvmModel {
    /// The model in LIBSVM's model file format, byte for byte as LIBSVM's
    /// `svm_save_model` writes it. For ε-SVR / ν-SVR a one-element `prob_a` is written as
    /// LIBSVM's `probA` (the scale σ of its Laplace noise model). Fails for kernels
    /// LIBSVM does not have and for class labels that are not integers (LIBSVM stores
    /// labels as `int`).
    pub fn to_libsvm_model(&self) -> Result<String> {
        let p = &self.params;
        let name = kernel_name(&p.kernel).ok_or_else(|| {
            Error::param(
                "kernel",
                format!(
                    "LIBSVM's model format has no {} kernel (it has linear, polynomial, rbf, \
                     sigmoid and precomputed)",
                    p.kernel.name()
                ),
            )
        })?;
        let svm_type = SVM_TYPES.iter().find(|(_, t)| *t == p.svm_type);
        let mut out = String::new();
        let _ = writeln!(out, "svm_type {}", svm_type.map_or("c_svc", |(n, _)| n));
        let _ = writeln!(out, "kernel_type {name}");
        match p.kernel {
            Kernel::Polynomial {
                gamma,
                coef0,
                degree,
            } => {
                let _ = writeln!(out, "degree {degree}");
                let _ = writeln!(out, "gamma {}", printf_g(gamma, 17));
                let _ = writeln!(out, "coef0 {}", printf_g(coef0, 17));
            }
            Kernel::Rbf { gamma } => {
                let _ = writeln!(out, "gamma {}", printf_g(gamma, 17));
            }
            Kernel::Sigmoid { gamma, coef0 } => {
                let _ = writeln!(out, "gamma {}", printf_g(gamma, 17));
                let _ = writeln!(out, "coef0 {}", printf_g(coef0, 17));
            }
            _ => {}
        }
        let nr_class = self.classes.len().max(2);
        let _ = writeln!(out, "nr_class {nr_class}");
        let _ = writeln!(out, "total_sv {}", self.n_support());
        push_values(&mut out, "rho", &self.rho);
        if !self.classes.is_empty() {
            out.push_str("label");
            for &c in &self.classes {
                let _ = write!(out, " {}", integer_label(c)?);
            }
            out.push('\n');
        }
        if !self.prob_a.is_empty() {
            push_values(&mut out, "probA", &self.prob_a);
        }
        if !self.prob_b.is_empty() {
            push_values(&mut out, "probB", &self.prob_b);
        }
        if !self.classes.is_empty() {
            out.push_str("nr_sv");
            for n in &self.n_sv_per_class {
                let _ = write!(out, " {n}");
            }
            out.push('\n');
        }
        out.push_str("SV\n");
        self.push_support_vectors(&mut out)?;
        Ok(out)
    }

    /// The `SV` lines: coefficients (`%.17g `), then `index:value ` (`%.8g`) pairs, or
    /// `0:serial ` (the 1-based training row) for a precomputed kernel.
    fn push_support_vectors(&self, out: &mut String) -> Result<()> {
        let sparse = match (&self.sparse_support_vectors, &self.params.kernel) {
            (_, Kernel::Precomputed) => None,
            (Some(sv), _) => Some(sv.clone()),
            (None, _) => Some(SparseFeatures::from_dense(&self.support_vectors)?),
        };
        for s in 0..self.n_support() {
            for coef in &self.sv_coef {
                out.push_str(&printf_g(coef[s], 17));
                out.push(' ');
            }
            match &sparse {
                None => {
                    let _ = write!(out, "0:{} ", self.sv_indices[s] + 1);
                }
                Some(sv) => {
                    let (idx, vals) = sv.row(s);
                    for (&j, &v) in idx.iter().zip(vals) {
                        let _ = write!(out, "{}:{} ", j as u64 + 1, printf_g(v, 8));
                    }
                }
            }
            out.push('\n');
        }
        Ok(())
    }

    /// Writes [`SvmModel::to_libsvm_model`] to `path` (replacing the file, as LIBSVM's
    /// `svm-train` does), through a temporary file renamed into place.
    pub fn save_libsvm_model(&self, path: &Path) -> Result<()> {
        crate::output::write_atomic(path, self.to_libsvm_model()?.as_bytes())
    }

    /// Reads a model file written by LIBSVM's `svm-train` (or
    /// [`SvmModel::save_libsvm_model`]); see [`SvmModel::parse_libsvm_model`].
    pub fn load_libsvm_model(path: &Path) -> Result<Self> {
        Self::parse_libsvm_model(&read_text_bounded(path)?, &path.display().to_string())
    }

    /// Parses LIBSVM's model format. The support vectors are kept sparse
    /// (`sparse_support_vectors`) with as many features as the largest index they use;
    /// `sv_indices` are their positions in the file (for a precomputed kernel: the
    /// 0-based training rows their `0:serial` names). Training-only parameters (C, ν, ε,
    /// weights) are not in the file and keep their defaults. Errors name `source_name`,
    /// the line and what is wrong.
    pub fn parse_libsvm_model(text: &str, source_name: &str) -> Result<Self> {
        let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
        let header = parse_header(&mut lines, source_name)?;
        let mut model = header.into_model(source_name)?;
        let l = model.sv_indices.len();
        let m = model.sv_coef.len();
        let precomputed = model.params.kernel.is_precomputed();
        let (mut indptr, mut indices, mut values) = (vec![0], Vec::new(), Vec::new());
        let mut max_index = 0usize;
        for s in 0..l {
            let Some((ln, line)) = lines.next() else {
                return Err(Error::parse(
                    source_name,
                    0,
                    0,
                    format!("the file ends after {s} of the total_sv {l} support vectors"),
                ));
            };
            let err = |msg: String| Error::parse(source_name, ln, 0, msg);
            let mut tokens = line.split_ascii_whitespace();
            for k in 0..m {
                let tok = tokens
                    .next()
                    .ok_or_else(|| err(format!("expected {m} coefficients, found {k}")))?;
                model.sv_coef[k][s] = parse_number(tok).map_err(&err)?;
            }
            let mut prev = 0;
            for tok in tokens {
                let (i, v) = tok
                    .split_once(':')
                    .ok_or_else(|| err(format!("`{tok}`: expected `index:value`")))?;
                let i: usize = i
                    .parse()
                    .map_err(|_| err(format!("`{tok}`: index `{i}` is not an integer")))?;
                let v = parse_number(v).map_err(&err)?;
                if precomputed {
                    if i != 0 || v < 1.0 || v.fract() != 0.0 {
                        return Err(err(format!(
                            "`{tok}`: a precomputed kernel's support vector is `0:serial` with \
                             serial its training row, from 1"
                        )));
                    }
                    model.sv_indices[s] = v as usize - 1;
                    max_index = max_index.max(v as usize);
                    continue;
                }
                if i == 0 || i <= prev || i > u32::MAX as usize {
                    return Err(err(format!(
                        "`{tok}`: feature indices start at 1 and increase along the line"
                    )));
                }
                prev = i;
                indices.push((i - 1) as u32);
                values.push(v);
            }
            max_index = max_index.max(prev);
            indptr.push(indices.len());
        }
        model.n_features = max_index;
        if !precomputed {
            let sv = SparseFeatures::new(l, max_index, indptr, indices, values)
                .map_err(|e| Error::data(format!("{source_name}: {e}")))?;
            model.support_vectors = Features::new(0, max_index, Vec::new())?;
            model.sparse_support_vectors = Some(sv);
        }
        Ok(model)
    }
}

/// A class label as LIBSVM's `%d`.
fn integer_label(c: f64) -> Result<i64> {
    if c.fract() == 0.0 && c.abs() < 2f64.powi(31) {
        Ok(c as i64)
    } else {
        Err(Error::data(format!(
            "class label {c} is not an integer: LIBSVM's model format stores labels as integers"
        )))
    }
}

fn parse_number(tok: &str) -> std::result::Result<f64, String> {
    match tok.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(format!("`{tok}` is not a finite number")),
    }
}

/// The header of a model file as read.
#[derive(Default)]
struct Header {
    svm_type: Option<SvmType>,
    kernel: Option<String>,
    degree: Option<u32>,
    gamma: Option<f64>,
    coef0: Option<f64>,
    nr_class: Option<usize>,
    total_sv: Option<usize>,
    rho: Vec<f64>,
    label: Vec<f64>,
    prob_a: Vec<f64>,
    prob_b: Vec<f64>,
    nr_sv: Vec<usize>,
}

/// Reads the header lines up to and including `SV`.
fn parse_header<'a>(
    lines: &mut impl Iterator<Item = (usize, &'a str)>,
    source_name: &str,
) -> Result<Header> {
    let mut h = Header::default();
    for (ln, line) in lines.by_ref() {
        let err = |msg: String| Error::parse(source_name, ln, 0, msg);
        let mut tokens = line.split_ascii_whitespace();
        let Some(key) = tokens.next() else {
            continue;
        };
        let rest: Vec<&str> = tokens.collect();
        let one = || {
            rest.first()
                .copied()
                .ok_or_else(|| err(format!("`{key}` has no value")))
        };
        let numbers = |n: usize| -> Result<Vec<f64>> {
            if rest.len() != n {
                return Err(err(format!(
                    "`{key}` needs {n} values (from nr_class), found {}",
                    rest.len()
                )));
            }
            rest.iter().map(|t| parse_number(t).map_err(&err)).collect()
        };
        let pairs = h.nr_class.map(|k| k * k.saturating_sub(1) / 2);
        let need = |n: Option<usize>| n.ok_or_else(|| err(format!("`{key}` before nr_class")));
        let count = |t: &str| {
            t.parse::<usize>()
                .map_err(|_| err(format!("`{key}`: `{t}` is not a count")))
        };
        match key {
            "svm_type" => {
                let name = one()?;
                let t = SVM_TYPES.iter().find(|(n, _)| *n == name);
                h.svm_type = Some(
                    t.ok_or_else(|| err(format!("unknown svm_type `{name}`")))?
                        .1,
                );
            }
            "kernel_type" => h.kernel = Some(one()?.to_string()),
            "degree" => {
                let d = one()?;
                h.degree = Some(d.parse().map_err(|_| err(format!("degree `{d}`")))?);
            }
            "gamma" => h.gamma = Some(parse_number(one()?).map_err(&err)?),
            "coef0" => h.coef0 = Some(parse_number(one()?).map_err(&err)?),
            "nr_class" => h.nr_class = Some(count(one()?)?),
            "total_sv" => h.total_sv = Some(count(one()?)?),
            "rho" => h.rho = numbers(need(pairs)?)?,
            "label" => h.label = numbers(need(h.nr_class)?)?,
            "probA" => h.prob_a = numbers(need(pairs)?)?,
            "probB" => h.prob_b = numbers(need(pairs)?)?,
            "nr_sv" => {
                h.nr_sv = numbers(need(h.nr_class)?)?
                    .iter()
                    .map(|&v| v as usize)
                    .collect()
            }
            "SV" => return Ok(h),
            other => return Err(err(format!("unknown text `{other}` in the model header"))),
        }
    }
    Err(Error::parse(
        source_name,
        0,
        0,
        "no `SV` line: not a LIBSVM model file",
    ))
}

impl Header {
    /// The model the header describes, with room for `total_sv` support vectors.
    fn into_model(self, source_name: &str) -> Result<SvmModel> {
        let missing = |what: &str| {
            Error::parse(
                source_name,
                0,
                0,
                format!("the model header has no `{what}` line"),
            )
        };
        let svm_type = self.svm_type.ok_or_else(|| missing("svm_type"))?;
        let name = self.kernel.ok_or_else(|| missing("kernel_type"))?;
        let nr_class = self.nr_class.ok_or_else(|| missing("nr_class"))?;
        let l = self.total_sv.ok_or_else(|| missing("total_sv"))?;
        if self.rho.is_empty() {
            return Err(missing("rho"));
        }
        let gamma = || self.gamma.ok_or_else(|| missing("gamma"));
        let coef0 = || self.coef0.ok_or_else(|| missing("coef0"));
        let kernel = match name.as_str() {
            "linear" => Kernel::Linear,
            "polynomial" => Kernel::Polynomial {
                gamma: gamma()?,
                coef0: coef0()?,
                degree: self.degree.ok_or_else(|| missing("degree"))?,
            },
            "rbf" => Kernel::Rbf { gamma: gamma()? },
            "sigmoid" => Kernel::Sigmoid {
                gamma: gamma()?,
                coef0: coef0()?,
            },
            "precomputed" => Kernel::Precomputed,
            other => {
                return Err(Error::parse(
                    source_name,
                    0,
                    0,
                    format!("unknown kernel_type `{other}`"),
                ))
            }
        };
        let classifier = svm_type.is_classifier();
        if classifier && (self.label.len() != nr_class || self.nr_sv.len() != nr_class) {
            return Err(missing("label` or `nr_sv"));
        }
        if classifier && self.nr_sv.iter().sum::<usize>() != l {
            return Err(Error::parse(
                source_name,
                0,
                0,
                format!("nr_sv {:?} does not add up to total_sv {l}", self.nr_sv),
            ));
        }
        let mut params = SvmParams {
            svm_type,
            kernel,
            class_order: ClassOrder::FirstSeen,
            ..SvmParams::default()
        };
        params.probability = classifier && !self.prob_a.is_empty() && !self.prob_b.is_empty();
        let mut model = SvmModel::empty(&params)?;
        model.classes = if classifier { self.label } else { Vec::new() };
        model.n_sv_per_class = if classifier { self.nr_sv } else { Vec::new() };
        model.sv_indices = (0..l).collect();
        model.sv_coef = vec![vec![0.0; l]; nr_class.max(2) - 1];
        model.rho = self.rho;
        model.prob_a = self.prob_a;
        model.prob_b = self.prob_b;
        Ok(model)
    }
}

/// LIBSVM's sparse dot product.
fn dot(x: (&[u32], &[f64]), y: (&[u32], &[f64])) -> f64 {
    let (mut i, mut j, mut sum) = (0, 0, 0.0);
    while i < x.0.len() && j < y.0.len() {
        match x.0[i].cmp(&y.0[j]) {
            std::cmp::Ordering::Equal => {
                sum += x.1[i] * y.1[j];
                i += 1;
                j += 1;
            }
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Less => i += 1,
        }
    }
    sum
}

/// LIBSVM's `k_function` on two sparse rows.
fn k_function(kernel: &Kernel, x: (&[u32], &[f64]), y: (&[u32], &[f64])) -> f64 {
    match *kernel {
        Kernel::Polynomial {
            gamma,
            coef0,
            degree,
        } => powi(gamma * dot(x, y) + coef0, degree),
        Kernel::Rbf { gamma } => (-gamma * merge_sum(x, y, |a, b| (a - b) * (a - b))).exp(),
        Kernel::Sigmoid { gamma, coef0 } => (gamma * dot(x, y) + coef0).tanh(),
        _ => dot(x, y),
    }
}

impl SvmModel {
    /// Decision values of every row of `x` computed as LIBSVM's `svm_predict_values`
    /// (see the module documentation); for a precomputed kernel, column `t` of a row holds
    /// its kernel value against training row `t`. `x` may have more or fewer columns
    /// than the model: absent features are zeros, as in LIBSVM's sparse rows.
    pub fn decision_values_libsvm(&self, x: &SparseFeatures) -> Result<Vec<Vec<f64>>> {
        let kernel = &self.params.kernel;
        let sv = match (&self.sparse_support_vectors, kernel) {
            (_, Kernel::Precomputed) => None,
            (Some(sv), _) => Some(sv.clone()),
            (None, _) => Some(SparseFeatures::from_dense(&self.support_vectors)?),
        };
        if matches!(
            kernel,
            Kernel::Laplacian { .. } | Kernel::ChiSquared { .. } | Kernel::ArdRbf { .. }
        ) {
            return Err(Error::param(
                "kernel",
                format!("LIBSVM has no {} kernel", kernel.name()),
            ));
        }
        let l = self.n_support();
        let mut out = Vec::with_capacity(x.n_rows());
        let mut kvalue = vec![0.0; l];
        for r in 0..x.n_rows() {
            let row = x.row(r);
            for (s, k) in kvalue.iter_mut().enumerate() {
                *k = match &sv {
                    Some(sv) => k_function(kernel, row, sv.row(s)),
                    None => {
                        let col = self.sv_indices[s] as u32;
                        row.0.binary_search(&col).map_or(0.0, |p| row.1[p])
                    }
                };
            }
            out.push(self.libsvm_sums(&kvalue));
        }
        Ok(out)
    }

    /// The decision values from one point's kernel values, summed in LIBSVM's order.
    fn libsvm_sums(&self, kvalue: &[f64]) -> Vec<f64> {
        if self.classes.is_empty() {
            let mut sum = 0.0;
            for (c, k) in self.sv_coef[0].iter().zip(kvalue) {
                sum += c * k;
            }
            return vec![sum - self.rho[0]];
        }
        let k = self.classes.len();
        let start = self.sv_starts();
        let mut out = Vec::with_capacity(self.rho.len());
        for i in 0..k {
            for j in i + 1..k {
                let mut sum = 0.0;
                let (si, sj) = (start[i], start[j]);
                for s in si..si + self.n_sv_per_class[i] {
                    sum += self.sv_coef[j - 1][s] * kvalue[s];
                }
                for s in sj..sj + self.n_sv_per_class[j] {
                    sum += self.sv_coef[i][s] * kvalue[s];
                }
                out.push(sum - self.rho[out.len()]);
            }
        }
        out
    }

    /// LIBSVM's `svm_predict` of every row of `x` (see
    /// [`SvmModel::decision_values_libsvm`]): class, value or ±1.
    pub fn predict_libsvm(&self, x: &SparseFeatures) -> Result<Vec<f64>> {
        Ok(self
            .decision_values_libsvm(x)?
            .iter()
            .map(|d| self.predict_from_decision(d))
            .collect())
    }

    /// LIBSVM's `svm_predict_probability` of every row of `x`: the class of largest
    /// probability (the first on ties) and the class probabilities in `classes` order.
    /// Needs a classifier with Platt parameters.
    pub fn predict_proba_libsvm(&self, x: &SparseFeatures) -> Result<Vec<(f64, Vec<f64>)>> {
        self.decision_values_libsvm(x)?
            .iter()
            .map(|d| {
                let p = self.probabilities_from_decision(d)?;
                let mut best = 0;
                for (i, &v) in p.iter().enumerate() {
                    if v > p[best] {
                        best = i;
                    }
                }
                Ok((self.classes[best], p))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printf_g_matches_c() {
        let cases = [
            (0.1, 17, "0.10000000000000001"),
            (1.0, 17, "1"),
            (-0.5, 6, "-0.5"),
            (86.66666666666667, 6, "86.6667"),
            (123456789.0, 6, "1.23457e+08"),
            (0.0001234, 6, "0.0001234"),
            (0.00001234, 6, "1.234e-05"),
            (999999.5, 6, "1e+06"),
            (1e100, 17, "1e+100"),
            (0.12345678912, 8, "0.12345679"),
            (0.0, 6, "0"),
        ];
        for (v, p, want) in cases {
            assert_eq!(printf_g(v, p), want, "%.{p}g of {v}");
        }
    }

    #[test]
    fn a_model_round_trips_through_the_format() {
        let x = Features::from_rows(&[
            vec![0.0, 1.0],
            vec![1.0, 0.0],
            vec![0.5, 0.5],
            vec![2.0, 2.0],
            vec![2.5, 1.5],
            vec![1.5, 2.5],
        ])
        .unwrap();
        let y = [1.0, 1.0, 1.0, -1.0, -1.0, -1.0];
        let params = SvmParams {
            kernel: Kernel::Rbf { gamma: 0.5 },
            ..SvmParams::default()
        };
        let model = SvmModel::fit(&params, &x, &y).unwrap();
        let text = model.to_libsvm_model().unwrap();
        assert!(text.starts_with("svm_type c_svc\nkernel_type rbf\ngamma 0.5\n"));
        let back = SvmModel::parse_libsvm_model(&text, "m").unwrap();
        assert_eq!(back.to_libsvm_model().unwrap(), text);
        let sx = SparseFeatures::from_dense(&x).unwrap();
        assert_eq!(
            back.predict_libsvm(&sx).unwrap(),
            model.predict(&x).unwrap()
        );
    }

    #[test]
    fn bad_model_files_name_the_line() {
        let e = SvmModel::parse_libsvm_model("svm_type c_svc\nfoo 1\nSV\n", "m.model");
        let msg = e.unwrap_err().to_string();
        assert!(msg.contains("m.model:2") && msg.contains("foo"), "{msg}");
        let e = SvmModel::parse_libsvm_model("svm_type c_svc\n", "m.model");
        assert!(e.unwrap_err().to_string().contains("SV"));
    }
}
