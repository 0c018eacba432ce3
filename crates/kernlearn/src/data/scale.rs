//! Feature scaling, fitted on training data and stored with a model.
//!
//! A [`Scaler`] must be fitted on the **training data only** and then applied unchanged to
//! validation, test and prediction data; fitting on data that includes the test set
//! leaks information into the model.

use super::{Features, SparseFeatures};
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// How each feature is scaled. CLI names: `none`, `01`, `pm1`, `standard`, `maxabs`.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ScaleMode {
    /// Leave features as they are.
    #[default]
    None,
    /// Min-max scaling of the training range to `[0, 1]` (as LIBSVM's `svm-scale -l 0`).
    ZeroOne,
    /// Min-max scaling of the training range to `[-1, 1]` (`svm-scale`'s default).
    PlusMinusOne,
    /// Standardisation: subtract the mean, divide by the population standard deviation.
    Standard,
    /// Division by the training maximum of `|x_j|` (into `[-1, 1]`, zero stays zero):
    /// the scaling that keeps sparse data sparse.
    MaxAbs,
}

impl ScaleMode {
    /// The CLI name (`none`, `01`, `pm1`, `standard`).
    pub(crate) fn name(self) -> &'static str {
        match self {
            ScaleMode::None => "none",
            ScaleMode::ZeroOne => "01",
            ScaleMode::PlusMinusOne => "pm1",
            ScaleMode::Standard => "standard",
            ScaleMode::MaxAbs => "maxabs",
        }
    }

    /// The value the lowest training value (min-max) or the mean (standard) maps to.
    fn base(self) -> f64 {
        match self {
            ScaleMode::PlusMinusOne => -1.0,
            _ => 0.0,
        }
    }
}

impl fmt::Display for ScaleMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ScaleMode {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "none" => Ok(ScaleMode::None),
            "01" => Ok(ScaleMode::ZeroOne),
            "pm1" => Ok(ScaleMode::PlusMinusOne),
            "standard" => Ok(ScaleMode::Standard),
            "maxabs" | "max-abs" => Ok(ScaleMode::MaxAbs),
            _ => Err(Error::param(
                "scale",
                format!("unknown scaling `{s}`; expected one of none, 01, pm1, standard, maxabs"),
            )),
        }
    }
}

/// A fitted per-feature affine map: `x'[j] = base + (x[j] - offset[j]) / scale[j]`,
/// where `base` is `-1` for [`ScaleMode::PlusMinusOne`] and `0` otherwise, and a
/// `scale[j]` of 0 marks a column that was constant in training: it maps to `base`
/// whatever the value.
///
/// A division rather than a multiplication by a stored reciprocal, so that the training
/// range maps onto the target range exactly (as in `svm-scale`); a reciprocal is off
/// by one unit in the last place at the maximum for about one range in nine.
///
/// Fit it on the training data only (see the [module documentation](self)). Values
/// outside the training range are not clipped, as in `svm-scale`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Scaler {
    /// The scaling that was fitted.
    pub mode: ScaleMode,
    /// Per feature: the training minimum (min-max) or mean (standard); 0 for `None`.
    pub offset: Vec<f64>,
    /// Per feature: the divisor, `(max - min) / width` (width 1 or 2) for min-max, the
    /// population standard deviation for standard, 1 for `None`, 0 for a constant column.
    pub scale: Vec<f64>,
    /// Fitted on sparse data: the features `offset` and `scale` describe (increasing,
    /// one value each); every feature not listed had no entry in training (it was
    /// constant zero) and maps to 0. `None`: one value per feature. Sized by the columns
    /// that occur, so that a file with an index of 2³² does not need 2³² values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub columns: Option<Vec<u32>>,
}

impl Scaler {
    /// Fits `mode` on the training features `x`.
    ///
    /// Min-max modes map the training minimum exactly to the lower bound and the maximum
    /// to the upper bound; standardisation uses the population standard deviation. A
    /// constant column maps to the lower bound (`0` or `-1`), or to `0` for standard:
    /// its scale is 0, never a division by zero. With no rows every scale is 1.
    pub fn fit(mode: ScaleMode, x: &Features) -> Scaler {
        let d = x.n_cols();
        let (offset, scale) = match mode {
            _ if x.n_rows() == 0 => (vec![0.0; d], vec![1.0; d]),
            ScaleMode::None => (vec![0.0; d], vec![1.0; d]),
            ScaleMode::ZeroOne | ScaleMode::PlusMinusOne => {
                let width = if mode == ScaleMode::ZeroOne { 1.0 } else { 2.0 };
                (0..d).map(|j| fit_min_max(x, j, width)).unzip()
            }
            ScaleMode::Standard => (0..d).map(|j| fit_standard(x, j)).unzip(),
            ScaleMode::MaxAbs => {
                let mut m = vec![0.0f64; d];
                for r in x.rows() {
                    for (a, v) in m.iter_mut().zip(r) {
                        *a = a.max(v.abs());
                    }
                }
                (vec![0.0; d], m.into_iter().map(max_abs_scale).collect())
            }
        };
        Scaler {
            mode,
            offset,
            scale,
            columns: None,
        }
    }

    /// Fits `mode` on sparse training features without densifying them, with one value
    /// per column that holds an entry ([`Scaler::columns`]): the same map as
    /// [`Scaler::fit`] on the dense matrix. Only scalings that keep the training zeros at
    /// 0 keep the data sparse: `none`, `maxabs`, and `01` unless a column has both
    /// negative values and zeros (non-negative data always fits: a column without zeros
    /// may be shifted, its entries stay where they are). The others (`pm1`, `standard`)
    /// are refused with the reason; densify explicitly ([`SparseFeatures::to_dense`]) to
    /// use them.
    pub fn fit_sparse(mode: ScaleMode, x: &SparseFeatures) -> Result<Scaler> {
        let refuse = |why: &str| {
            Err(Error::param(
                "scale",
                format!(
                    "`{mode}` scaling of sparse data {why}, which would densify it; use \
                     `maxabs` (or `none`), or densify the data explicitly"
                ),
            ))
        };
        match mode {
            // No per-feature vectors: a sparse file's width (10⁶ hashed columns) must not
            // size the model file.
            ScaleMode::None => {
                return Ok(Scaler {
                    mode,
                    offset: Vec::new(),
                    scale: Vec::new(),
                    columns: None,
                })
            }
            ScaleMode::PlusMinusOne => return refuse("maps every zero to -1"),
            ScaleMode::Standard => return refuse("subtracts each feature's mean from its zeros"),
            ScaleMode::MaxAbs | ScaleMode::ZeroOne => {}
        }
        let r = x.column_ranges();
        let (offset, scale) = if mode == ScaleMode::MaxAbs {
            let m = r.lo.iter().zip(&r.hi);
            let scale = m
                .map(|(l, h)| max_abs_scale(l.abs().max(h.abs())))
                .collect();
            (vec![0.0; r.columns.len()], scale)
        } else {
            let zeros_move = |k: usize| !r.full[k] && r.lo[k] < 0.0;
            if let Some(k) = (0..r.columns.len()).find(|&k| zeros_move(k)) {
                return refuse(&format!(
                    "moves the zeros of feature {} (its training minimum is {}, and some \
                     rows have no entry in it)",
                    r.columns[k] as usize + 1,
                    r.lo[k]
                ));
            }
            (0..r.columns.len())
                .map(|k| min_max(r.lo[k], r.hi[k], 1.0))
                .unzip()
        };
        Ok(Scaler {
            mode,
            offset,
            scale,
            columns: Some(r.columns),
        })
    }

    /// A scaled copy of sparse `x`: each entry scaled as [`Scaler::transform`] scales it
    /// and, for the features whose zeros the scaling moves (a column without zeros in
    /// training, shifted by `01`; any column of a scaler fitted on dense data), an entry
    /// in every row that had none, so that the result is the dense transform's.
    /// Refused when those entries would not fit in memory.
    pub fn transform_sparse(&self, x: &SparseFeatures) -> Result<SparseFeatures> {
        self.check_width(x.n_cols())?;
        if self.mode == ScaleMode::None {
            return Ok(x.clone());
        }
        let moved = self.zero_movers();
        let out = if moved.is_empty() {
            x.map_values(|j, v| self.scale_value(j, v))
        } else {
            self.transform_filling(x, &moved)?
        };
        if out.parts().2.iter().any(|v| !v.is_finite()) {
            return Err(Error::data(
                "scaling overflowed: a value lies far outside the tiny training range of its \
                 feature",
            ));
        }
        Ok(out)
    }

    /// The features whose zeros this scaling maps to a non-zero value, increasing.
    fn zero_movers(&self) -> Vec<u32> {
        let moves = |j: usize| self.scale_value(j, 0.0) != 0.0;
        match &self.columns {
            Some(cols) => cols
                .iter()
                .copied()
                .filter(|&j| moves(j as usize))
                .collect(),
            None => (0..self.n_features())
                .filter(|&j| moves(j))
                .map(|j| j as u32)
                .collect(),
        }
    }

    /// [`Scaler::transform_sparse`] with an entry in every row for each of the features
    /// `moved` (increasing), merged with the row's own entries.
    fn transform_filling(&self, x: &SparseFeatures, moved: &[u32]) -> Result<SparseFeatures> {
        let entries = (x.nnz() as f64) + (x.n_rows() as f64) * (moved.len() as f64);
        crate::check::memory_fits(
            "scale",
            &format!(
                "`{}` scaling of {} sparse rows (it moves the zeros of {} features, so each \
                 row gets an entry for each of them)",
                self.mode,
                x.n_rows(),
                moved.len()
            ),
            entries * 12.0,
        )?;
        let (mut indptr, mut indices, mut values) = (vec![0], Vec::new(), Vec::new());
        for i in 0..x.n_rows() {
            let (cols, vals) = x.row(i);
            let (mut p, mut q) = (0, 0);
            while p < cols.len() || q < moved.len() {
                let (j, v) = match (cols.get(p), moved.get(q)) {
                    (Some(&c), Some(&m)) if c == m => {
                        q += 1;
                        p += 1;
                        (c, vals[p - 1])
                    }
                    (Some(&c), m) if m.is_none_or(|&m| c < m) => {
                        p += 1;
                        (c, vals[p - 1])
                    }
                    (_, Some(&m)) => {
                        q += 1;
                        (m, 0.0)
                    }
                    (_, None) => unreachable!("one list has entries left"),
                };
                indices.push(j);
                values.push(self.scale_value(j as usize, v));
            }
            indptr.push(values.len());
        }
        SparseFeatures::new(x.n_rows(), x.n_cols(), indptr, indices, values)
    }

    /// A scaler that changes nothing, for `n_features` features.
    pub fn identity(n_features: usize) -> Scaler {
        Scaler {
            mode: ScaleMode::None,
            offset: vec![0.0; n_features],
            scale: vec![1.0; n_features],
            columns: None,
        }
    }

    /// Number of features the scaler was fitted on, when it holds one value per feature
    /// (for [`Scaler::columns`], the number of listed features).
    pub(crate) fn n_features(&self) -> usize {
        self.offset.len()
    }

    /// Checks a scaler read back for a model of `n_features` features: one finite
    /// `offset` and one finite, non-negative `scale` per feature (0 marks a constant
    /// column), or, for `none` only, no vectors at all (the compact identity of a sparse
    /// fit), or, with [`Scaler::columns`] (`maxabs` and `01` only), one value per listed
    /// feature, the features increasing and below `n_features`. Violations name the
    /// field (`offset has 12 values, …`).
    pub(crate) fn validate(&self, n_features: usize) -> Result<()> {
        use crate::validate::{ensure, finite};
        if self.is_compact_identity() {
            return Ok(());
        }
        let expected = match &self.columns {
            None => n_features,
            Some(cols) => {
                ensure(
                    matches!(self.mode, ScaleMode::MaxAbs | ScaleMode::ZeroOne),
                    || format!("`{}` scaling cannot list its columns", self.mode),
                )?;
                ensure(cols.windows(2).all(|w| w[0] < w[1]), || {
                    "columns must be strictly increasing".to_string()
                })?;
                if let Some(&last) = cols.last() {
                    ensure((last as usize) < n_features, || {
                        format!("columns lists feature {last} (0-based) of {n_features}")
                    })?;
                }
                cols.len()
            }
        };
        for (field, values) in [("offset", &self.offset), ("scale", &self.scale)] {
            ensure(values.len() == expected, || match &self.columns {
                None => format!(
                    "{field} has {} values, the model has {n_features} features",
                    values.len()
                ),
                Some(_) => format!(
                    "{field} has {} values for {expected} listed columns",
                    values.len()
                ),
            })?;
            finite(field, values)?;
        }
        match self.scale.iter().position(|&s| s < 0.0) {
            Some(j) => Err(Error::data(format!(
                "scale[{j}] is negative ({})",
                self.scale[j]
            ))),
            None => Ok(()),
        }
    }

    /// Scales one value of feature `j`.
    #[inline]
    pub(crate) fn scale_value(&self, j: usize, v: f64) -> f64 {
        let k = match &self.columns {
            None => j,
            // A feature without entries in training was constant: it maps to the base.
            Some(cols) => match u32::try_from(j).map(|j| cols.binary_search(&j)) {
                Ok(Ok(k)) => k,
                _ if self.mode == ScaleMode::None => return v,
                _ => return self.mode.base(),
            },
        };
        match (self.mode, self.scale[k]) {
            (ScaleMode::None, _) => v,
            (mode, 0.0) => mode.base(),
            (mode, s) => mode.base() + (v - self.offset[k]) / s,
        }
    }

    /// A scaled copy of `x`. Fails when `x` has a different number of features.
    pub fn transform(&self, x: &Features) -> Result<Features> {
        let mut out = x.clone();
        self.transform_in_place(&mut out)?;
        Ok(out)
    }

    /// Scales `x` in place. Fails (leaving `x` untouched) when `x` has a different number
    /// of features, and when a value far outside a tiny training range overflows.
    pub(crate) fn transform_in_place(&self, x: &mut Features) -> Result<()> {
        self.check_width(x.n_cols())?;
        if self.mode == ScaleMode::None {
            return Ok(());
        }
        for i in 0..x.n_rows() {
            for (j, v) in x.row_mut(i).iter_mut().enumerate() {
                *v = self.scale_value(j, *v);
            }
        }
        if let Some((i, j)) = x.find_non_finite() {
            return Err(Error::data(format!(
                "scaling overflowed at sample {}, feature {}: the value lies far outside \
                 the tiny training range of that feature",
                i + 1,
                j + 1
            )));
        }
        Ok(())
    }

    /// `none` stored without per-feature vectors (fitted on sparse data): any width.
    fn is_compact_identity(&self) -> bool {
        self.mode == ScaleMode::None && self.offset.is_empty() && self.scale.is_empty()
    }

    fn check_width(&self, n_cols: usize) -> Result<()> {
        if self.is_compact_identity() {
            return Ok(());
        }
        if let Some(cols) = &self.columns {
            // Any width holding the listed features (the model checks its own width).
            return match cols.last() {
                Some(&last) if last as usize >= n_cols => Err(Error::data(format!(
                    "the scaler was fitted on feature {}, the input has {n_cols} features",
                    last as usize + 1
                ))),
                _ => Ok(()),
            };
        }
        if n_cols != self.n_features() {
            return Err(Error::data(format!(
                "model was fitted on {} features, input has {n_cols}",
                self.n_features()
            )));
        }
        Ok(())
    }
}

/// The divisor of a column whose largest magnitude is `m`: `m`, or 0 (maps to 0) for an
/// all-zero column or one so small that `1/m` overflows.
fn max_abs_scale(m: f64) -> f64 {
    if m > 0.0 && (1.0 / m).is_finite() {
        m
    } else {
        0.0
    }
}

/// `(min, scale)` mapping column `j`'s `[min, max]` onto `[base, base + width]`.
fn fit_min_max(x: &Features, j: usize, width: f64) -> (f64, f64) {
    let (min, max) = x
        .rows()
        .map(|r| r[j])
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    min_max(min, max, width)
}

/// `(min, scale)` mapping `[min, max]` onto `[base, base + width]`; scale 0 for a
/// constant column (or one whose range overflows the division).
fn min_max(min: f64, max: f64, width: f64) -> (f64, f64) {
    let range = max - min;
    // `range / width` is exact (width 1 or 2), so `range / scale == width` exactly.
    let scale = if range.is_finite() {
        range / width
    } else {
        max / width - min / width
    };
    if range > 0.0 && (width / range).is_finite() {
        (min, scale)
    } else {
        (min, 0.0)
    }
}

/// `(mean, std)` of column `j` (population std); scale 0 for a constant column.
/// Computed on the column divided by its largest magnitude, so values near ±1e308 (whose
/// sum or squares overflow) still get their true mean and deviation instead of a
/// silently dropped column.
fn fit_standard(x: &Features, j: usize) -> (f64, f64) {
    let n = x.n_rows() as f64;
    let m = x.rows().map(|r| r[j].abs()).fold(0.0, f64::max);
    let m = if m > 0.0 && m.is_finite() { m } else { 1.0 };
    let mean = x.rows().map(|r| r[j] / m).sum::<f64>() / n;
    let var = x.rows().map(|r| (r[j] / m - mean).powi(2)).sum::<f64>() / n;
    let (mean, std) = (mean * m, var.sqrt() * m);
    if std > 0.0 && std.is_finite() && (1.0 / std).is_finite() {
        (mean, std)
    } else {
        (mean, 0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparse_scaling_keeps_zeros_or_refuses() {
        let x = Features::new(3, 3, vec![0.0, 2.0, 0.0, -4.0, 0.0, 0.0, 1.0, 1.0, 0.0]).unwrap();
        let s = SparseFeatures::from_dense(&x).unwrap();
        let dense = Scaler::fit(ScaleMode::MaxAbs, &x);
        let sparse = Scaler::fit_sparse(ScaleMode::MaxAbs, &s).unwrap();
        // One value per column that occurs; the all-zero third column is not listed.
        assert_eq!(sparse.columns, Some(vec![0, 1]));
        assert_eq!(sparse.scale, vec![4.0, 2.0]);
        let scaled = sparse.transform_sparse(&s).unwrap();
        assert_eq!(scaled.nnz(), s.nnz());
        assert_eq!(scaled.to_dense("t").unwrap(), dense.transform(&x).unwrap());
        assert_eq!(sparse.transform(&x).unwrap(), dense.transform(&x).unwrap());
        for mode in [
            ScaleMode::Standard,
            ScaleMode::PlusMinusOne,
            ScaleMode::ZeroOne,
        ] {
            let err = Scaler::fit_sparse(mode, &s).unwrap_err().to_string();
            assert!(err.contains("densify"), "{mode}: {err}");
        }
        let err = Scaler::fit_sparse(ScaleMode::ZeroOne, &s)
            .unwrap_err()
            .to_string();
        assert!(err.contains("zeros of feature 1"), "{err}");
        // A scaler fitted on dense data moves zeros: its sparse transform fills them in.
        let std = Scaler::fit(ScaleMode::Standard, &x);
        let filled = std.transform_sparse(&s).unwrap();
        assert_eq!(filled.to_dense("t").unwrap(), std.transform(&x).unwrap());
        assert_eq!("maxabs".parse::<ScaleMode>().unwrap(), ScaleMode::MaxAbs);
    }

    /// Ordinary non-negative data (an age column without zeros, sparse counts): `01`
    /// fits sparse, as the same map as on the dense matrix, and rows without an entry
    /// in a shifted column get the value the dense transform gives their zero.
    #[test]
    fn zero_one_scaling_of_non_negative_sparse_data_equals_the_dense_one() {
        let x = Features::new(
            3,
            4,
            vec![29., 0., 1., 0., 40., 2., 0., 0., 35., 0., 3., 0.],
        )
        .unwrap();
        let s = SparseFeatures::from_dense(&x).unwrap();
        let dense = Scaler::fit(ScaleMode::ZeroOne, &x);
        let sparse = Scaler::fit_sparse(ScaleMode::ZeroOne, &s).unwrap();
        assert_eq!(sparse.columns, Some(vec![0, 1, 2]));
        let scaled = sparse.transform_sparse(&s).unwrap();
        assert_eq!(scaled.to_dense("t").unwrap(), dense.transform(&x).unwrap());
        let new = Features::new(2, 4, vec![0., 1., 0., 5., 50., 0., 0., 0.]).unwrap();
        let got = sparse
            .transform_sparse(&SparseFeatures::from_dense(&new).unwrap())
            .unwrap();
        assert_eq!(got.to_dense("t").unwrap(), dense.transform(&new).unwrap());
        let json = serde_json::to_string(&sparse).unwrap();
        let back: Scaler = serde_json::from_str(&json).unwrap();
        assert_eq!(back, sparse);
        back.validate(4).unwrap();
        assert!(back
            .validate(2)
            .unwrap_err()
            .to_string()
            .contains("columns"));
        assert!(!serde_json::to_string(&dense).unwrap().contains("columns"));
    }

    /// Columns near the limits of f64 are standardised, not dropped (their squares
    /// overflow), as min-max scaling keeps them.
    #[test]
    fn standardising_huge_values_keeps_the_column() {
        let x = Features::new(4, 1, vec![-3e307, 1e307, 5e307, 9e307]).unwrap();
        for mode in [ScaleMode::Standard, ScaleMode::ZeroOne] {
            let s = Scaler::fit(mode, &x);
            assert!(s.scale[0] > 0.0, "{mode:?}: {s:?}");
            let t = s.transform(&x).unwrap();
            assert!(t.as_slice().iter().all(|v| v.is_finite()));
        }
        let s = Scaler::fit(ScaleMode::Standard, &x);
        let t = s.transform(&x).unwrap();
        let mean: f64 = t.as_slice().iter().sum::<f64>() / 4.0;
        let var: f64 = t.as_slice().iter().map(|v| v * v).sum::<f64>() / 4.0;
        assert!(
            mean.abs() < 1e-12 && (var - 1.0).abs() < 1e-12,
            "{mean} {var}"
        );
    }

    fn toy() -> Features {
        // Column 0 varied, column 1 constant, column 2 awkward decimals.
        Features::new(
            4,
            3,
            vec![
                1.0,
                5.0,
                0.1, //
                3.0,
                5.0,
                0.7, //
                -2.0,
                5.0,
                0.30000000000000004, //
                7.5,
                5.0,
                0.2,
            ],
        )
        .unwrap()
    }

    fn column(x: &Features, j: usize) -> Vec<f64> {
        x.rows().map(|r| r[j]).collect()
    }

    fn range(v: &[f64]) -> (f64, f64) {
        (
            v.iter().copied().fold(f64::INFINITY, f64::min),
            v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        )
    }

    #[test]
    fn min_max_ranges_are_exact_on_training_data() {
        for (mode, lo, hi) in [
            (ScaleMode::ZeroOne, 0.0, 1.0),
            (ScaleMode::PlusMinusOne, -1.0, 1.0),
        ] {
            let x = toy();
            let s = Scaler::fit(mode, &x);
            let t = s.transform(&x).unwrap();
            assert_eq!(range(&column(&t, 0)), (lo, hi), "{mode}");
            assert_eq!(range(&column(&t, 2)), (lo, hi), "{mode}");
            assert_eq!(column(&t, 1), vec![lo; 4], "constant column, {mode}");
            assert!(t.find_non_finite().is_none());
        }
    }

    #[test]
    fn min_max_is_exact_for_many_awkward_ranges() {
        let mut seed = 0x9e3779b97f4a7c15_u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        for _ in 0..20_000 {
            let a = (next() - 0.5) * 1e3;
            let b = a + next() * 10f64.powi((next() * 12.0) as i32 - 6);
            let x = Features::new(2, 1, vec![a, b]).unwrap();
            for mode in [ScaleMode::ZeroOne, ScaleMode::PlusMinusOne] {
                let t = Scaler::fit(mode, &x).transform(&x).unwrap();
                let hi = 1.0;
                if a < b {
                    assert_eq!(t.as_slice()[1], hi, "{a} {b} {mode}");
                }
                assert_eq!(t.as_slice()[0], mode.base());
            }
        }
    }

    #[test]
    fn standard_has_zero_mean_unit_variance() {
        let x = toy();
        let t = Scaler::fit(ScaleMode::Standard, &x).transform(&x).unwrap();
        for j in [0, 2] {
            let c = column(&t, j);
            let mean = c.iter().sum::<f64>() / 4.0;
            let var = c.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / 4.0;
            assert!(mean.abs() < 1e-15, "{mean}");
            assert!((var - 1.0).abs() < 1e-14, "{var}");
        }
        assert_eq!(column(&t, 1), vec![0.0; 4]);
    }

    #[test]
    fn constant_column_ignores_unseen_values_and_overflow_is_caught() {
        let x = Features::new(2, 2, vec![3.0, 0.0, 3.0, 1e-300]).unwrap();
        let s = Scaler::fit(ScaleMode::PlusMinusOne, &x);
        assert_eq!(s.scale[0], 0.0);
        let t = s
            .transform(&Features::new(1, 2, vec![9.0, 0.0]).unwrap())
            .unwrap();
        assert_eq!(t.as_slice(), &[-1.0, -1.0]);
        let far = Features::new(1, 2, vec![3.0, 1e300]).unwrap();
        assert!(matches!(s.transform(&far), Err(Error::InvalidData(_))));
    }

    #[test]
    fn no_clipping_outside_training_range() {
        let x = Features::new(2, 1, vec![0.0, 10.0]).unwrap();
        let s = Scaler::fit(ScaleMode::PlusMinusOne, &x);
        let test = Features::new(2, 1, vec![-5.0, 20.0]).unwrap();
        assert_eq!(s.transform(&test).unwrap().as_slice(), &[-2.0, 3.0]);
    }

    #[test]
    fn none_and_identity_change_nothing() {
        let x = toy();
        assert_eq!(Scaler::fit(ScaleMode::None, &x).transform(&x).unwrap(), x);
        assert_eq!(Scaler::identity(3).transform(&x).unwrap(), x);
        let empty = Features::new(0, 3, vec![]).unwrap();
        let s = Scaler::fit(ScaleMode::Standard, &empty);
        assert_eq!(s.scale, vec![1.0; 3]);
    }

    #[test]
    fn width_mismatch_is_an_error() {
        let s = Scaler::fit(ScaleMode::ZeroOne, &toy());
        let mut other = Features::new(1, 2, vec![1.0, 2.0]).unwrap();
        let err = s.transform_in_place(&mut other).unwrap_err();
        assert!(matches!(err, Error::InvalidData(_)));
        assert!(err
            .to_string()
            .contains("model was fitted on 3 features, input has 2"));
        assert_eq!(other.as_slice(), &[1.0, 2.0]);
    }

    #[test]
    fn mode_names_round_trip() {
        for m in [
            ScaleMode::None,
            ScaleMode::ZeroOne,
            ScaleMode::PlusMinusOne,
            ScaleMode::Standard,
        ] {
            assert_eq!(m.to_string().parse::<ScaleMode>().unwrap(), m);
        }
        assert!(matches!(
            "minmax".parse::<ScaleMode>(),
            Err(Error::InvalidParameter { .. })
        ));
    }

    #[test]
    fn scaler_serde_round_trip() {
        let s = Scaler::fit(ScaleMode::Standard, &toy());
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(serde_json::from_str::<Scaler>(&json).unwrap(), s);
    }
}
