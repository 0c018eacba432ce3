//! Base kernel families: which kernels, on which features, a multiple-kernel method
//! combines. A family is a first-class value: a compact spec string
//! (`family12@each;rbf(sigma=2)@[0,3]`), a JSON file, and the same spec stored in models.
//!
//! The thesis's family (Moeller 2017, section 3.4.4, after Rakotomamonjy et al.'s
//! SimpleMKL): 3 polynomial kernels of degree 1–3 and 9 Gaussian kernels of widths
//! `σ ∈ {2^0, 2^0.5, …, 2^4}`, on all features or on each single feature (`12·d`
//! kernels). Every base kernel is trace-normalised on the training data by the methods
//! (see [`crate::kernel::trace_factor`]).

use crate::kernel::{per_feature, Kernel, KernelOnFeatures};
use crate::{Error, Result};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::path::Path;
use std::str::FromStr;

/// The kernel functions of one family item.
#[derive(Clone, Debug, PartialEq)]
pub enum KernelSet {
    /// The thesis's 12 kernels ([`family12`]).
    Family12,
    /// One kernel function.
    Kernel(Kernel),
}

/// The 12 kernels of the thesis (section 3.4.4): `(xᵀx' + 1)^p` for `p = 1, 2, 3` and
/// `exp(−‖x − x'‖²/σ²)` for `σ = 2^(k/2)`, `k = 0, …, 8` (i.e. `γ = 2^−k`). The thesis
/// does not give the polynomial offset; `coef0 = 1` keeps every kernel's trace positive
/// (a per-feature `xx'` vanishes on an all-zero column).
pub fn family12() -> Vec<Kernel> {
    let poly = (1..=3).map(|degree| Kernel::Polynomial {
        gamma: 1.0,
        coef0: 1.0,
        degree,
    });
    let rbf = (0..=8).map(|k| Kernel::Rbf {
        gamma: 0.5f64.powi(k),
    });
    poly.chain(rbf).collect()
}

impl KernelSet {
    /// The kernel functions.
    pub(crate) fn kernels(&self) -> Vec<Kernel> {
        match self {
            KernelSet::Family12 => family12(),
            KernelSet::Kernel(k) => vec![k.clone()],
        }
    }
}

impl fmt::Display for KernelSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KernelSet::Family12 => f.write_str("family12"),
            KernelSet::Kernel(k) => write!(f, "{k}"),
        }
    }
}

impl FromStr for KernelSet {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        if s.trim().eq_ignore_ascii_case("family12") {
            Ok(KernelSet::Family12)
        } else {
            Ok(KernelSet::Kernel(s.parse()?))
        }
    }
}

/// In JSON: `"family12"`, a kernel spec string (`"rbf(sigma=2)"`) or a kernel object
/// (`{"type": "rbf", "gamma": 0.25}`); written as a spec string.
impl Serialize for KernelSet {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> Deserialize<'de> for KernelSet {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Repr {
            Spec(String),
            Object(Kernel),
        }
        match Repr::deserialize(d)? {
            Repr::Spec(s) => s.parse().map_err(serde::de::Error::custom),
            Repr::Object(k) => Ok(KernelSet::Kernel(k)),
        }
    }
}

/// The features each kernel of an item reads.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FeatureSet {
    /// All features: one kernel per function.
    #[default]
    All,
    /// Each single feature: `d` kernels per function (kernel-major order: all features
    /// of the first function, then of the next).
    #[serde(alias = "per_feature", alias = "per-feature")]
    Each,
    /// One subset of the features (0-based column indices).
    Subset(Vec<usize>),
    /// `subsets` random subsets of `size` distinct features (seeded), each with every
    /// function of the item: `subsets × functions` kernels. For "many kernels" runs.
    Random {
        /// Number of subsets drawn.
        subsets: usize,
        /// Features per subset.
        size: usize,
        /// Seed of the draw.
        #[serde(default)]
        seed: u64,
    },
}

impl fmt::Display for FeatureSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FeatureSet::All => f.write_str("all"),
            FeatureSet::Each => f.write_str("each"),
            FeatureSet::Subset(cols) => {
                let cols: Vec<String> = cols.iter().map(|c| c.to_string()).collect();
                write!(f, "[{}]", cols.join(","))
            }
            FeatureSet::Random {
                subsets,
                size,
                seed,
            } => write!(f, "random(subsets={subsets},size={size},seed={seed})"),
        }
    }
}

/// Kernel functions on a feature set: one term of a family spec.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FamilyItem {
    /// The functions.
    pub kernel: KernelSet,
    /// The features they read (default: all).
    #[serde(default)]
    pub features: FeatureSet,
}

impl fmt::Display for FamilyItem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.features {
            FeatureSet::All => write!(f, "{}", self.kernel),
            _ => write!(f, "{}@{}", self.kernel, self.features),
        }
    }
}

/// A list of base kernels, as a spec (see the module docs).
///
/// Spec grammar: items separated by `;`, each `KERNELS[@FEATURES]` where `KERNELS` is
/// `family12` or a kernel spec as [`Kernel`] parses it (`rbf(sigma=2)`,
/// `poly:degree=2,gamma=1,coef0=1`, …) and `FEATURES` is `all` (default), `each` (alias
/// `per-feature`), a subset `[0,3,5]` (0-based) or `random(subsets=N,size=S,seed=K)`.
/// JSON: `{"kernels": [{"kernel": "family12", "features": "each"}, …]}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KernelFamily {
    /// The items, in order; base kernels are numbered item by item.
    pub kernels: Vec<FamilyItem>,
}

impl fmt::Display for KernelFamily {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (k, item) in self.kernels.iter().enumerate() {
            if k > 0 {
                f.write_str(";")?;
            }
            write!(f, "{item}")?;
        }
        Ok(())
    }
}

/// Splits `s` at `sep` outside brackets; yields `(byte offset, piece)`.
fn split_top(s: &str, sep: char) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (pos, ch) in s.char_indices() {
        match ch {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            c if c == sep && depth == 0 => {
                out.push((start, &s[start..pos]));
                start = pos + 1;
            }
            _ => {}
        }
    }
    out.push((start, &s[start..]));
    out
}

/// Offset of the last `@` outside brackets.
fn last_top_at(s: &str) -> Option<usize> {
    let mut depth = 0i32;
    let mut found = None;
    for (pos, ch) in s.char_indices() {
        match ch {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            '@' if depth == 0 => found = Some(pos),
            _ => {}
        }
    }
    found
}

/// Column (1-based) of the first non-blank character of `piece`, which starts at byte
/// `offset` of the spec.
fn column_of(spec: &str, offset: usize, piece: &str) -> usize {
    let lead = piece.len() - piece.trim_start().len();
    spec[..offset + lead].chars().count() + 1
}

struct FamilyParser<'s> {
    spec: &'s str,
}

impl FamilyParser<'_> {
    fn err(&self, col: usize, msg: impl fmt::Display) -> Error {
        Error::param(
            "kernels",
            format!("in kernel family `{}`, column {col}: {msg}", self.spec),
        )
    }

    fn parse(&self) -> Result<KernelFamily> {
        if self.spec.trim().is_empty() {
            return Err(Error::param(
                "kernels",
                "the kernel family is empty (give e.g. `family12@each`)",
            ));
        }
        let mut kernels = Vec::new();
        for (offset, piece) in split_top(self.spec, ';') {
            if piece.trim().is_empty() {
                return Err(self.err(column_of(self.spec, offset, piece), "empty item"));
            }
            kernels.push(self.item(offset, piece)?);
        }
        Ok(KernelFamily { kernels })
    }

    fn item(&self, offset: usize, piece: &str) -> Result<FamilyItem> {
        let (kernel_part, features) = match last_top_at(piece) {
            Some(at) => {
                let feat = &piece[at + 1..];
                (&piece[..at], self.features(offset + at + 1, feat)?)
            }
            None => (piece, FeatureSet::All),
        };
        let col = column_of(self.spec, offset, kernel_part);
        let name = kernel_part.trim();
        if name.is_empty() {
            return Err(self.err(col, "missing kernel before `@`"));
        }
        let lower = name.to_ascii_lowercase();
        if lower.starts_with("family12") && lower != "family12" {
            return Err(self.err(
                col,
                format!("`{name}`: family12 takes no parameters (use `family12@each` for one kernel per feature)"),
            ));
        }
        let kernel = name.parse::<KernelSet>().map_err(|e| {
            let reason = match e {
                Error::InvalidParameter { reason, .. } => reason,
                other => other.to_string(),
            };
            self.err(col, format!("kernel `{name}`: {reason}"))
        })?;
        Ok(FamilyItem { kernel, features })
    }

    fn features(&self, offset: usize, text: &str) -> Result<FeatureSet> {
        let col = column_of(self.spec, offset, text);
        let t = text.trim();
        let lower = t.to_ascii_lowercase();
        match lower.as_str() {
            "" => return Err(self.err(col, "missing features after `@`")),
            "all" => return Ok(FeatureSet::All),
            "each" | "per-feature" | "per_feature" => return Ok(FeatureSet::Each),
            _ => {}
        }
        if let Some(inner) = t.strip_prefix('[') {
            let inner = inner
                .strip_suffix(']')
                .ok_or_else(|| self.err(col, "missing closing `]`"))?;
            let mut cols = Vec::new();
            for (k, v) in inner.split(',').enumerate() {
                let v = v.trim();
                cols.push(v.parse::<usize>().map_err(|_| {
                    self.err(
                        col,
                        format!(
                            "feature {} of the subset, `{v}`, is not a 0-based column index",
                            k + 1
                        ),
                    )
                })?);
            }
            return Ok(FeatureSet::Subset(cols));
        }
        if let Some(args) = lower.strip_prefix("random") {
            let body = args
                .trim()
                .strip_prefix('(')
                .and_then(|a| a.strip_suffix(')'))
                .ok_or_else(|| self.err(col, "expected `random(subsets=N,size=S,seed=K)`"))?;
            let (mut subsets, mut size, mut seed) = (None, None, 0u64);
            for kv in body.split(',').filter(|kv| !kv.trim().is_empty()) {
                let (k, v) = kv.split_once('=').ok_or_else(|| {
                    self.err(col, format!("expected `key=value`, got `{}`", kv.trim()))
                })?;
                let v = v.trim();
                let num = || {
                    v.parse::<u64>().map_err(|_| {
                        self.err(
                            col,
                            format!("`{v}` is not a non-negative integer (key `{}`)", k.trim()),
                        )
                    })
                };
                match k.trim() {
                    "subsets" | "n" | "count" => subsets = Some(num()? as usize),
                    "size" => size = Some(num()? as usize),
                    "seed" => seed = num()?,
                    other => {
                        return Err(self.err(
                            col,
                            format!("unknown key `{other}` (random takes subsets, size, seed)"),
                        ))
                    }
                }
            }
            return Ok(FeatureSet::Random {
                subsets: subsets.ok_or_else(|| self.err(col, "random needs `subsets`"))?,
                size: size.ok_or_else(|| self.err(col, "random needs `size`"))?,
                seed,
            });
        }
        Err(self.err(
            col,
            format!("unknown features `{t}` (expected all, each, [i,j,…] or random(subsets=N,size=S,seed=K))"),
        ))
    }
}

/// Parses a family spec (see [`KernelFamily`]); errors give the column.
impl FromStr for KernelFamily {
    type Err = Error;
    fn from_str(spec: &str) -> Result<Self> {
        FamilyParser { spec }.parse()
    }
}

impl KernelFamily {
    /// A family of one item.
    #[cfg(test)]
    pub(crate) fn single(kernel: KernelSet, features: FeatureSet) -> Self {
        KernelFamily {
            kernels: vec![FamilyItem { kernel, features }],
        }
    }

    /// The thesis's 12 kernels on each single feature (`12·d` kernels).
    #[cfg(test)]
    pub(crate) fn family12_per_feature() -> Self {
        Self::single(KernelSet::Family12, FeatureSet::Each)
    }

    /// Parses the JSON form (`source_name` is used in errors).
    pub fn from_json(text: &str, source_name: &str) -> Result<Self> {
        let family: KernelFamily = serde_json::from_str(text)
            .map_err(|e| Error::parse(source_name, e.line(), e.column(), e.to_string()))?;
        if family.kernels.is_empty() {
            return Err(Error::parse(
                source_name,
                0,
                0,
                "the kernel family is empty (`kernels` has no items)",
            ));
        }
        Ok(family)
    }

    /// Reads the JSON form from a file.
    pub fn load(path: &Path) -> Result<Self> {
        let text = crate::data::read_text_bounded(path)?;
        Self::from_json(&text, &path.display().to_string())
    }

    /// A spec string, or, when `arg` names an existing file, that file's JSON (what a
    /// command-line `--kernels` option takes).
    pub fn from_spec_or_file(arg: &str) -> Result<Self> {
        let path = Path::new(arg);
        if path.is_file() {
            Self::load(path)
        } else {
            arg.parse()
        }
    }

    /// Number of base kernels on data with `n_features` features (`usize::MAX` when
    /// the count overflows, which [`KernelFamily::validate`] rejects).
    pub fn len(&self, n_features: usize) -> usize {
        self.checked_len(n_features).unwrap_or(usize::MAX)
    }

    /// Number of base kernels, `None` on overflow (e.g. `random(subsets=2^63,...)`).
    fn checked_len(&self, n_features: usize) -> Option<usize> {
        self.kernels.iter().try_fold(0usize, |total, item| {
            let funcs: usize = match item.kernel {
                KernelSet::Family12 => 12,
                KernelSet::Kernel(_) => 1,
            };
            let copies = match &item.features {
                FeatureSet::All | FeatureSet::Subset(_) => 1,
                FeatureSet::Each => n_features,
                FeatureSet::Random { subsets, .. } => *subsets,
            };
            total.checked_add(funcs.checked_mul(copies)?)
        })
    }

    /// Checks the family against data with `n_features` features: not empty, feature
    /// indices in range, random subsets drawable, kernel parameters valid, no
    /// precomputed kernel (a family is evaluated on features).
    pub fn validate(&self, n_features: usize) -> Result<()> {
        let Some(len) = self.checked_len(n_features) else {
            return Err(Error::param(
                "kernels",
                format!(
                    "the kernel family `{self}` has more kernels on {n_features} features \
                     than can be counted ({} at most)",
                    usize::MAX
                ),
            ));
        };
        if self.kernels.is_empty() || len == 0 {
            return Err(Error::param(
                "kernels",
                format!("the kernel family `{self}` has no kernels on {n_features} features"),
            ));
        }
        for (k, item) in self.kernels.iter().enumerate() {
            let ctx = |e: Error| match e {
                Error::InvalidParameter { reason, .. } => Error::param(
                    "kernels",
                    format!("item {} (`{item}`) of the kernel family: {reason}", k + 1),
                ),
                other => other,
            };
            if let FeatureSet::Random { subsets, size, .. } = item.features {
                if subsets == 0 || size == 0 || size > n_features {
                    return Err(ctx(Error::param(
                        "features",
                        format!("random subsets need subsets >= 1 and 1 <= size <= {n_features} (the number of features)"),
                    )));
                }
            }
            for kernel in item.kernel.kernels() {
                if kernel.is_precomputed() {
                    return Err(ctx(Error::param(
                        "kernel",
                        "a precomputed kernel cannot be part of a kernel family",
                    )));
                }
                let probe = match &item.features {
                    FeatureSet::All => KernelOnFeatures::all(kernel),
                    FeatureSet::Each => KernelOnFeatures::single(kernel, 0),
                    FeatureSet::Subset(c) => KernelOnFeatures::new(kernel, Some(c.clone())),
                    FeatureSet::Random { size, .. } => {
                        KernelOnFeatures::new(kernel, Some((0..*size).collect()))
                    }
                };
                probe.validate(n_features).map_err(ctx)?;
            }
        }
        Ok(())
    }

    /// Calls `visit` on every base kernel, in order, without materialising the list
    /// (a million random kernels are generated one at a time).
    pub(crate) fn for_each_kernel(
        &self,
        n_features: usize,
        mut visit: impl FnMut(KernelOnFeatures),
    ) -> Result<()> {
        self.validate(n_features)?;
        for item in &self.kernels {
            let funcs = item.kernel.kernels();
            match &item.features {
                FeatureSet::All => funcs
                    .into_iter()
                    .for_each(|k| visit(KernelOnFeatures::all(k))),
                FeatureSet::Each => per_feature(&funcs, n_features)
                    .into_iter()
                    .for_each(&mut visit),
                FeatureSet::Subset(cols) => funcs
                    .into_iter()
                    .for_each(|k| visit(KernelOnFeatures::new(k, Some(cols.clone())))),
                FeatureSet::Random {
                    subsets,
                    size,
                    seed,
                } => {
                    let mut rng = ChaCha8Rng::seed_from_u64(*seed);
                    for _ in 0..*subsets {
                        let mut cols =
                            rand::seq::index::sample(&mut rng, n_features, *size).into_vec();
                        cols.sort_unstable();
                        for k in &funcs {
                            visit(KernelOnFeatures::new(k.clone(), Some(cols.clone())));
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Every base kernel, in order.
    pub fn expand(&self, n_features: usize) -> Result<Vec<KernelOnFeatures>> {
        let n = self.len(n_features);
        let mut out = Vec::new();
        out.try_reserve_exact(n).map_err(|_| {
            Error::param(
                "kernels",
                format!("the kernel family `{self}` has {n} kernels: too many to list in memory"),
            )
        })?;
        self.for_each_kernel(n_features, |k| out.push(k))?;
        Ok(out)
    }
}

/// A kernel-family machine's stored points have `n_features` columns, its family is
/// valid, and it has one finite trace factor per base kernel; returns the kernel count.
pub(crate) fn family_machine(
    points_field: &str,
    points: &crate::data::Features,
    family: &KernelFamily,
    trace_factors: &[f64],
    n_features: usize,
) -> Result<usize> {
    crate::validate::ensure(points.n_cols() == n_features, || {
        format!(
            "{points_field} has {} columns, n_features is {n_features}",
            points.n_cols()
        )
    })?;
    crate::validate::within("family", family.validate(n_features))?;
    let m = family.len(n_features);
    crate::validate::ensure(trace_factors.len() == m, || {
        format!(
            "trace_factors has {} values, the family has {m} base kernels on {n_features} features",
            trace_factors.len()
        )
    })?;
    crate::validate::finite("trace_factors", trace_factors)?;
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(spec: &str) -> String {
        spec.parse::<KernelFamily>().unwrap_err().to_string()
    }

    #[test]
    fn family12_is_the_thesis_family() {
        let f = family12();
        assert_eq!(f.len(), 12);
        assert_eq!(f[0].to_string(), "poly(degree=1,gamma=1,coef0=1)");
        // σ = 2^(k/2): exp(-d²/σ²) = exp(-2^-k d²)
        for k in 0..=8 {
            let sigma = 2f64.powf(k as f64 / 2.0);
            let Kernel::Rbf { gamma } = f[3 + k] else {
                panic!()
            };
            assert!((gamma - 1.0 / (sigma * sigma)).abs() < 1e-15);
        }
    }

    #[test]
    fn specs_parse_and_roundtrip() {
        let f: KernelFamily = "family12@each; rbf(sigma=2)@[0,3] ;poly:degree=2,gamma=1,coef0=1;linear@random(subsets=5,size=2,seed=9)"
            .parse()
            .unwrap();
        assert_eq!(f.kernels.len(), 4);
        assert_eq!(f.kernels[0].features, FeatureSet::Each);
        assert_eq!(f.kernels[1].features, FeatureSet::Subset(vec![0, 3]));
        assert_eq!(
            f.kernels[1].kernel,
            KernelSet::Kernel(Kernel::Rbf { gamma: 0.25 })
        );
        assert_eq!(f.len(4), 48 + 1 + 1 + 5);
        let again: KernelFamily = f.to_string().parse().unwrap();
        assert_eq!(again, f);
        let list = f.expand(4).unwrap();
        assert_eq!(list.len(), 55);
        // kernel-major per-feature order, as kernel::per_feature
        assert_eq!(list[1].to_string(), "poly(degree=1,gamma=1,coef0=1)@[1]");
        assert_eq!(list[4].to_string(), "poly(degree=2,gamma=1,coef0=1)@[0]");
        // random subsets: distinct, sorted, reproducible
        for k in &list[50..] {
            let c = k.features.as_ref().unwrap();
            assert!(c.len() == 2 && c[0] < c[1] && c[1] < 4, "{k}");
        }
        assert_eq!(f.expand(4).unwrap(), list);
        assert_eq!(
            "family12@per-feature".parse::<KernelFamily>().unwrap(),
            KernelFamily::family12_per_feature()
        );
    }

    #[test]
    fn json_forms() {
        let f: KernelFamily =
            "family12@each;rbf(gamma=0.5)@[1];linear@random(subsets=3,size=1,seed=2)"
                .parse()
                .unwrap();
        let j = serde_json::to_string(&f).unwrap();
        assert_eq!(KernelFamily::from_json(&j, "t").unwrap(), f);
        let hand = r#"{"kernels": [
            {"kernel": "family12", "features": "per_feature"},
            {"kernel": {"type": "rbf", "gamma": 0.5}, "features": {"subset": [1]}},
            {"kernel": "linear", "features": {"random": {"subsets": 3, "size": 1, "seed": 2}}}
        ]}"#;
        assert_eq!(KernelFamily::from_json(hand, "t").unwrap(), f);
        let e = KernelFamily::from_json(r#"{"kernels": []}"#, "fam.json")
            .unwrap_err()
            .to_string();
        assert!(e.contains("fam.json") && e.contains("empty"), "{e}");
        let e = KernelFamily::from_json(
            "{\"kernels\": [\n {\"kernel\": \"rbf(gama=1)\"}]}",
            "fam.json",
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("fam.json:2:") && e.contains("unknown key `gama`"),
            "{e}"
        );
    }

    #[test]
    fn parse_errors_say_where() {
        let m = err("family12@each;rbf:gama=1");
        assert!(
            m.contains("column 15") && m.contains("unknown key `gama`"),
            "{m}"
        );
        let m = err("family12@eech");
        assert!(
            m.contains("column 10") && m.contains("unknown features `eech`"),
            "{m}"
        );
        let m = err("family12:per-feature");
        assert!(m.contains("column 1") && m.contains("family12@each"), "{m}");
        let m = err("rbf(sigma=1);;linear");
        assert!(m.contains("column 14") && m.contains("empty item"), "{m}");
        let m = err("rbf(sigma=1)@[0,x]");
        assert!(m.contains("column 14") && m.contains("`x`"), "{m}");
        let m = err("linear@random(subsets=3)");
        assert!(m.contains("needs `size`"), "{m}");
        let m = err("@each");
        assert!(m.contains("missing kernel"), "{m}");
        assert!(err("").contains("empty"));
        assert!(err("   ").contains("empty"));
    }

    #[test]
    fn validation_against_data() {
        let f: KernelFamily = "rbf(sigma=1)@[0,7]".parse().unwrap();
        let e = f.validate(5).unwrap_err().to_string();
        assert!(e.contains("feature index 7 out of range"), "{e}");
        let f: KernelFamily = "linear@random(subsets=2,size=6)".parse().unwrap();
        assert!(f.validate(5).unwrap_err().to_string().contains("size"));
        let f: KernelFamily = "precomputed".parse().unwrap();
        assert!(f
            .validate(5)
            .unwrap_err()
            .to_string()
            .contains("precomputed"));
        let f = KernelFamily { kernels: vec![] };
        assert!(f
            .validate(5)
            .unwrap_err()
            .to_string()
            .contains("no kernels"));
        assert!(KernelFamily::family12_per_feature().validate(0).is_err());
    }

    #[test]
    fn kernel_count_overflow_is_an_error() {
        // Regression (parser property tests): `len` multiplied 12 × subsets and panicked
        // with "attempt to multiply with overflow".
        let f: KernelFamily = "family12@random(subsets=1537228672809129302,size=1)"
            .parse()
            .unwrap();
        assert_eq!(f.len(3), usize::MAX);
        let e = f.validate(3).unwrap_err().to_string();
        assert!(
            e.contains("more kernels on 3 features than can be counted"),
            "{e}"
        );
        // The sum of items overflows too.
        let half = usize::MAX / 2 + 1;
        let f: KernelFamily =
            format!("linear@random(subsets={half},size=1);linear@random(subsets={half},size=1)")
                .parse()
                .unwrap();
        assert_eq!(f.len(3), usize::MAX);
        assert!(f.validate(3).is_err());
        let f: KernelFamily = "family12@each".parse().unwrap();
        assert_eq!(f.len(usize::MAX), usize::MAX);
        assert_eq!(f.len(2), 24);
    }
}
