//! The method catalogue: every method of every family named in `lib.rs`, by name, with
//! the tasks it supports, the options it reads and how it is built.
//!
//! The command line's `--method` values, its flags, help text and "unknown method"
//! error, the demo's rows, the Python package's option mapping and the method table of
//! the docs are all generated from it. A family declares its methods once, in its own
//! folder ([`crate::learner::Family`]); see `docs/DESIGN.md`, "Adding a family".

use crate::learner::{Family, MethodInfo, ModelKind, ScaleOut};
use crate::options::{MethodOptions, OptionSpec, OptionValue};
use crate::predictor::Task;
use crate::{Error, Result};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

/// A method by name, as on the command line (`svc`, `dank`, `mwumkl`, …): a catalogue
/// entry of one family.
#[derive(Clone, Copy)]
pub struct MethodKind {
    family: &'static Family,
    info: &'static MethodInfo,
}

/// Every method, in catalogue order: the families in `lib.rs` order, each family's
/// methods in its own order.
pub fn catalogue() -> &'static [MethodKind] {
    static CATALOGUE: OnceLock<Vec<MethodKind>> = OnceLock::new();
    CATALOGUE.get_or_init(|| {
        crate::FAMILIES
            .iter()
            .flat_map(|&family| {
                family
                    .methods
                    .iter()
                    .map(move |info| MethodKind { family, info })
            })
            .collect()
    })
}

/// Every method option, once each, in the order methods first read them: the table a
/// front end generates its flags from (values go to [`MethodOptions::set`]).
pub fn options() -> &'static [&'static OptionSpec] {
    static OPTIONS: OnceLock<Vec<&'static OptionSpec>> = OnceLock::new();
    OPTIONS.get_or_init(|| {
        let mut table: Vec<&'static OptionSpec> = Vec::new();
        for kind in catalogue() {
            for spec in kind.info.options() {
                if !table.iter().any(|o| o.name == spec.name) {
                    table.push(spec);
                }
            }
        }
        table
    })
}

/// Every model kind of every family (how model files are read back).
pub(crate) fn model_kinds() -> impl Iterator<Item = &'static ModelKind> + Clone {
    crate::FAMILIES.iter().flat_map(|f| f.models.iter())
}

impl PartialEq for MethodKind {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.info, other.info)
    }
}

impl Eq for MethodKind {}

impl fmt::Debug for MethodKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MethodKind({})", self.info.name)
    }
}

impl MethodKind {
    /// Every method, in catalogue order.
    pub fn all() -> impl Iterator<Item = MethodKind> {
        catalogue().iter().copied()
    }

    /// Its catalogue entry.
    pub fn info(self) -> &'static MethodInfo {
        self.info
    }

    /// Its family.
    pub fn family(self) -> &'static Family {
        self.family
    }

    /// Name on the command line.
    pub fn name(self) -> &'static str {
        self.info.name
    }

    /// One-line description.
    pub fn summary(self) -> &'static str {
        self.info.summary
    }

    /// Its distributed fit (`crate::learner::scale_out`), when its family offers one.
    pub fn scale_out(self) -> Option<&'static ScaleOut> {
        self.family
            .scale_out
            .iter()
            .copied()
            .find(|s| s.method == self.info.name)
    }

    /// Whether it can fit `task`.
    pub fn supports(self, task: Task) -> bool {
        self.info.tasks.contains(&task)
    }

    /// The methods whose models offer representation `name`, comma-separated.
    pub fn offering(name: &str) -> String {
        Self::all()
            .filter(|k| k.info.representations.contains(&name))
            .map(Self::name)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The base kernel machine (`svm`: C-SVC, or ε-SVR for a `target` column), the
    /// catalogue's first method: the default method and SVM-CV's.
    pub fn base() -> Self {
        catalogue()[0]
    }

    /// Every method name, comma-separated (for messages).
    pub(crate) fn names() -> String {
        Self::all().map(Self::name).collect::<Vec<_>>().join(", ")
    }

    /// The methods that read `option`, comma-separated.
    fn readers_of(option: &str) -> String {
        Self::all()
            .filter(|k| k.info.reads(option))
            .map(Self::name)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Refuses options this method does not read (they would be silently ignored).
    pub(crate) fn check_options(self, options: &MethodOptions) -> Result<()> {
        for given in options.given() {
            if !self.info.reads(given) {
                return Err(Error::param(
                    given,
                    format!(
                        "does not apply to method `{}` (it is read by: {})",
                        self.name(),
                        Self::readers_of(given)
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The catalogue as JSON, `{"methods": [{name, family, tasks, summary, selection,
    /// options}, …], "options": [{name, value, choices, help, param, negated}, …]}`:
    /// what `kernlearn methods --json` prints and what the Python package builds its
    /// estimators' option mapping and checks from (`param`: the estimators' parameter;
    /// `negated`: it is the opposite flag).
    pub fn catalogue_json() -> serde_json::Value {
        let methods: Vec<serde_json::Value> = Self::all()
            .map(|k| {
                let i = k.info;
                serde_json::json!({
                    "name": i.name,
                    "family": k.family.name,
                    "tasks": i.tasks.iter().map(|t| t.name()).collect::<Vec<_>>(),
                    "summary": i.summary,
                    "selection": i.selection,
                    "options": i.options().map(|o| o.name).collect::<Vec<_>>(),
                    "sample_weights": i.takes.sample_weights,
                    "sparse": i.takes.sparse,
                })
            })
            .collect();
        let options: Vec<serde_json::Value> = options()
            .iter()
            .map(|o| {
                use OptionValue::*;
                let (value, choices): (&str, &[&str]) = match o.value {
                    Number => ("number", &[]),
                    Count => ("count", &[]),
                    Text => ("text", &[]),
                    Flag => ("flag", &[]),
                    Choice(names) => ("choice", names),
                    Repeated => ("repeated", &[]),
                };
                let (param, negated) = o.python_param();
                serde_json::json!({
                    "name": o.name, "value": value, "choices": choices, "help": o.help,
                    "param": param, "negated": negated,
                })
            })
            .collect();
        serde_json::json!({ "methods": methods, "options": options })
    }

    /// The method table of the docs (markdown), generated from the catalogue.
    pub fn markdown_table() -> String {
        let mut s = String::from(
            "| method | family | tasks | what it is | `--select grid` chooses | takes |\n|---|---|---|---|---|---|\n",
        );
        for k in Self::all() {
            let i = k.info;
            let tasks: Vec<&str> = i.tasks.iter().map(|t| t.name()).collect();
            s += &format!(
                "| `{}` | {} | {} | {} | {} | {} |\n",
                i.name,
                k.family.name,
                tasks.join(", "),
                i.summary,
                i.selection,
                i.takes.describe()
            );
        }
        s
    }
}

impl fmt::Display for MethodKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for MethodKind {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Self::all().find(|k| k.name() == s).ok_or_else(|| {
            Error::param(
                "method",
                format!("unknown method `{s}` (one of: {})", MethodKind::names()),
            )
        })
    }
}

impl Serialize for MethodKind {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for MethodKind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learner::options::NO_FALLBACK;

    #[test]
    fn every_method_and_model_kind_is_listed_once_and_names_round_trip() {
        let all: Vec<MethodKind> = MethodKind::all().collect();
        for (i, kind) in all.iter().enumerate() {
            assert_eq!(kind.name().parse::<MethodKind>().unwrap(), *kind);
            assert_eq!(kind.to_string(), kind.name());
            assert!(
                all[..i].iter().all(|o| o.name() != kind.name()),
                "{} listed twice",
                kind.name()
            );
        }
        let kinds: Vec<&str> = model_kinds().map(|k| k.kind).collect();
        for (i, k) in kinds.iter().enumerate() {
            assert!(!kinds[..i].contains(k), "model kind {k} listed twice");
        }
        let e = "svn".parse::<MethodKind>().unwrap_err().to_string();
        assert!(
            e.contains("unknown method `svn`") && e.contains("mwumkl"),
            "{e}"
        );
    }

    /// Two families never declare different options under one name (the flag would
    /// have two meanings).
    #[test]
    fn an_option_name_has_one_declaration() {
        for kind in MethodKind::all() {
            for spec in kind.info().options() {
                let first = options().iter().find(|o| o.name == spec.name).unwrap();
                assert!(
                    std::ptr::eq(*first, spec),
                    "option `{}` of {} is declared twice",
                    spec.name,
                    kind.name()
                );
            }
        }
    }

    #[test]
    fn options_a_method_does_not_read_are_refused() {
        let tau = options().iter().find(|o| o.name == "tau").unwrap();
        let o = MethodOptions::default().with(tau, "0.1").unwrap();
        let kind = |name: &str| name.parse::<MethodKind>().unwrap();
        assert!(kind("dank").check_options(&o).is_ok());
        let e = kind("mwumkl").check_options(&o).unwrap_err().to_string();
        assert!(e.contains("`tau`") && e.contains("mwumkl"), "{e}");
        assert!(e.contains("dank, dank-svr"), "{e}");
        let lambda = options().iter().find(|o| o.name == "lambda").unwrap();
        let o = MethodOptions::default().with(lambda, "0.5").unwrap();
        assert!(kind("svc").check_options(&o).is_err());
        assert!(kind("easymkl").check_options(&o).is_ok());
        let o = MethodOptions::default().with(&NO_FALLBACK, "true").unwrap();
        assert!(kind("knpl").check_options(&o).is_ok());
    }

    #[test]
    fn the_option_table_and_set_agree() {
        let mut o = MethodOptions::default();
        for spec in options() {
            let value = match spec.value {
                OptionValue::Number => "0.5",
                OptionValue::Count => "3",
                OptionValue::Flag => "true",
                OptionValue::Choice(names) => names[0],
                OptionValue::Text => "rbf",
                OptionValue::Repeated => "1=2",
            };
            o.set(spec.name, value).unwrap();
        }
        // Every option of the table is now given (seed is not in the table).
        assert_eq!(o.given().len(), options().len());
        let e = o.set("tau", "x").unwrap_err().to_string();
        assert!(e.contains("`tau`") && e.contains("not a number"), "{e}");
        assert!(o.set("class-weight", "1=NaN").is_err());
        assert!(o.set("bogus", "1").is_err());
        o.set("seed", "7").unwrap();
        assert_eq!(o.seed, 7);
    }

    /// The methods offering each representation, and the base kernel machine.
    #[test]
    fn declared_representations_and_the_base_method() {
        assert_eq!(MethodKind::offering("gates"), "ldmkl, swmkl, lmkl, clmkl");
        assert_eq!(MethodKind::offering("fused"), "dkmo, m-dkmo");
        assert_eq!(MethodKind::base().name(), "svm");
    }

    /// What each method declares it takes is what its learner does: built with its
    /// defaults, a method declared to take weights fits with them (on 60 rows) and the
    /// others refuse them, naming the method; sparse input as `Learner::takes_sparse`.
    #[test]
    fn declared_inputs_are_what_the_learners_take() {
        use crate::data::{read_csv, Dataset, ScaleMode, Scaler};
        use crate::learner::Method;
        let read = |name: &str| -> Dataset {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../data")
                .join(name);
            let d = read_csv(&path, None)
                .unwrap()
                .subset(&(0..60).collect::<Vec<_>>());
            let x = Scaler::fit(ScaleMode::ZeroOne, &d.x)
                .transform(&d.x)
                .unwrap();
            Dataset { x, ..d }
        };
        let (classes, values) = (read("heart.csv"), read("housing.csv"));
        let mut weighted = Vec::new();
        for kind in MethodKind::all() {
            let data = if kind.supports(Task::Regression) && !kind.supports(Task::Classification) {
                &values
            } else {
                &classes
            };
            let m = Method::defaults(kind, data, None, 1).unwrap();
            let takes = kind.info().takes;
            assert_eq!(m.takes_sparse(), takes.sparse, "{kind}");
            let w: Vec<f64> = (0..data.len()).map(|t| 1.0 + (t % 3) as f64).collect();
            let fit = m.fit_weighted(&data.x, &data.y, &w, 1, &|_| {});
            match fit {
                Ok(_) => weighted.push(kind.name()),
                Err(e) => {
                    let message = e.to_string();
                    assert!(!takes.sample_weights, "{kind}: {message}");
                    assert!(message.contains("per-sample weights"), "{kind}: {message}");
                    assert!(message.contains(&m.name()), "{kind}: {message}");
                }
            }
        }
        let declared: Vec<&str> = (MethodKind::all())
            .filter(|k| k.info().takes.sample_weights)
            .map(MethodKind::name)
            .collect();
        assert_eq!(weighted, declared);
        assert!(declared.contains(&"spg-gmkl") && declared.contains(&"svm"));
    }

    #[test]
    fn the_docs_table_lists_every_method() {
        let t = MethodKind::markdown_table();
        assert_eq!(t.lines().count(), catalogue().len() + 2);
        assert!(t.contains("| `clmkl` | localized MKL | classification |"));
    }
}
