//! The registry: every family named in `lib.rs` (`crate::FAMILIES`), gathered into the
//! method catalogue ([`MethodKind`], [`catalogue()`]), the option table ([`options`]) and
//! the model kinds that model files are read back by. The command line's `--method`
//! values and flags, the Python package's estimators and the docs' method table are
//! generated from it; nothing above this module names a family.
//!
//! The contract the families implement (`Learner`, `AnyModel`, …) lives below them, in
//! [`crate::learner`]: each public type has one path, its own module's (the crate root
//! re-exports the few a first program needs).

pub mod catalogue;
mod spelling;

use crate::learner::{GridSettings, Method};
use crate::options::MethodOptions;
pub use catalogue::{catalogue, options, MethodKind};
pub use spelling::{spell, Spelling};

use crate::data::Dataset;
use crate::learner::AnyModel;
use crate::{Error, Result};
use serde::{Deserialize, Deserializer};

impl Method {
    /// Method `kind` for `data` from `options` (unset options take the paper's
    /// defaults), selecting its hyper-parameters by `search` when given. Options the
    /// method does not read are an error.
    pub fn build(
        kind: MethodKind,
        options: &MethodOptions,
        data: &Dataset,
        search: Option<GridSettings>,
    ) -> Result<Method> {
        kind.check_options(options)?;
        (kind.info().build)(kind.name(), options, data, search)
    }

    /// Method `kind` for `data` with every default, seeded by `seed`.
    pub fn defaults(
        kind: MethodKind,
        data: &Dataset,
        search: Option<GridSettings>,
        seed: u64,
    ) -> Result<Method> {
        let mut options = MethodOptions::default();
        options.seed = seed;
        Self::build(kind, &options, data, search)
    }
}

impl MethodOptions {
    /// Sets option `name` (a command-line name of the option table, [`options`], or
    /// `seed`) from its text `value` (`"true"` for a flag); repeated options accumulate.
    pub fn set(&mut self, name: &str, value: &str) -> Result<()> {
        if name == "seed" {
            self.seed = value
                .trim()
                .parse()
                .map_err(|_| Error::param(name, format!("`{value}` is not a whole number ≥ 0")))?;
            return Ok(());
        }
        match options().iter().find(|o| o.name == name) {
            Some(spec) => self.set_spec(spec, value),
            None => Err(Error::param(name, "is not a method option")),
        }
    }
}

/// A model file's `model` part, `{"kind": KIND, "fitted": …}`: read back by the model
/// kind of the family that wrote it.
impl<'de> Deserialize<'de> for AnyModel {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Stored {
            kind: String,
            fitted: serde_json::Value,
        }
        let stored = Stored::deserialize(d)?;
        let kinds = catalogue::model_kinds();
        let Some(kind) = kinds.clone().find(|k| k.kind == stored.kind) else {
            let names: Vec<&str> = kinds.map(|k| k.kind).collect();
            return Err(serde::de::Error::custom(format!(
                "unknown variant `{}`, expected one of {}",
                stored.kind,
                names.join(", ")
            )));
        };
        (kind.decode)(stored.fitted).map_err(serde::de::Error::custom)
    }
}
