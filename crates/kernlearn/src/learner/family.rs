//! How a family declares itself: one [`Family`] value in its own folder lists its
//! methods ([`MethodInfo`]: name, tasks, summary, selection, the options it reads and
//! its builder) and its stored model types ([`ModelKind`]). The registry
//! (`crate::method`) gathers the families named in `lib.rs`; the command line, the
//! Python package and the docs' tables are generated from it.

use super::model::{AnyModel, Model};
use super::scale_out::ScaleOut;
use super::GridSettings;
use super::Method;
use crate::data::Dataset;
use crate::options::{MethodOptions, OptionSpec};
use crate::predictor::Task;
use crate::Result;
use std::fmt;

/// Builds method `name` (of the builder's family) from options for `data`, with the
/// grid search `search`.
pub(crate) type Builder =
    fn(&str, &MethodOptions, &Dataset, Option<GridSettings>) -> Result<Method>;

/// One method of a family.
pub struct MethodInfo {
    /// Name on the command line and in model files.
    pub name: &'static str,
    /// Tasks it can fit.
    pub tasks: &'static [Task],
    /// One line: what it is and where it comes from.
    pub summary: &'static str,
    /// What `--select grid` chooses for it.
    pub selection: &'static str,
    /// Options it reads, in groups (a family's own, shared ones); any other method
    /// option is an error.
    pub options: &'static [&'static [&'static OptionSpec]],
    /// Whether the demonstration (`kernlearn` without arguments) runs it.
    pub in_demo: bool,
    /// The per-row artefacts its models offer, declared for messages before any fit
    /// (`crate::predictor::ArtefactValue::PerRow`; a test fits each method and checks
    /// its model lists the same).
    pub representations: &'static [&'static str],
    /// What its fit takes beyond dense, unweighted rows (a test builds each method and
    /// checks that its learner honours what is declared and refuses the rest).
    pub takes: Takes,
    pub(crate) build: Builder,
}

/// The inputs a method's fit takes beyond dense, unweighted rows: per-sample weights
/// ([`super::Learner::fit_weighted`]) and sparse rows ([`super::Learner::takes_sparse`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Takes {
    /// Per-sample weights `w_t`: the method's objective has a weighted form (each
    /// point's loss, or its bound `C·w_t` in the SVM dual, scaled by its weight; a point
    /// of integer weight `k` counts as `k` copies, a point of weight 0 as absent), which
    /// every fit and every fold of its selection uses.
    pub sample_weights: bool,
    /// Sparse (CSR) rows, kept sparse (with a feature kernel; not a precomputed one).
    pub sparse: bool,
}

impl Takes {
    /// Dense, unweighted rows only.
    pub const DENSE: Takes = Takes {
        sample_weights: false,
        sparse: false,
    };
    /// Per-sample weights on dense rows.
    pub const WEIGHTS: Takes = Takes {
        sample_weights: true,
        sparse: false,
    };
    /// Per-sample weights, on dense or sparse rows.
    pub const WEIGHTS_AND_SPARSE: Takes = Takes {
        sample_weights: true,
        sparse: true,
    };

    /// What the tables and messages say of it: `weights, sparse`, `weights`, or `-`.
    pub fn describe(self) -> &'static str {
        match (self.sample_weights, self.sparse) {
            (true, true) => "weights, sparse",
            (true, false) => "weights",
            (false, true) => "sparse",
            (false, false) => "-",
        }
    }
}

impl MethodInfo {
    /// Every option it reads.
    pub fn options(&self) -> impl Iterator<Item = &'static OptionSpec> {
        self.options.iter().flat_map(|group| group.iter().copied())
    }

    /// Whether it reads option `name`.
    pub fn reads(&self, name: &str) -> bool {
        self.options().any(|o| o.name == name)
    }
}

impl fmt::Debug for MethodInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MethodInfo")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// A stored model type: its tag in model files and how it is read back.
pub struct ModelKind {
    /// [`Model::KIND`].
    pub kind: &'static str,
    pub(crate) decode: fn(serde_json::Value) -> serde_json::Result<AnyModel>,
}

impl ModelKind {
    /// The model type `T`.
    pub(crate) const fn of<T: Model>() -> Self {
        Self {
            kind: T::KIND,
            decode: AnyModel::decode::<T>,
        }
    }
}

/// A family of methods (one library folder each).
pub struct Family {
    /// Name as in the docs (`nonparametric`, `multiple kernel learning`, …).
    pub name: &'static str,
    /// Its methods, in the order of `--help` and the docs.
    pub methods: &'static [MethodInfo],
    /// The model types its methods store.
    pub models: &'static [ModelKind],
    /// Its methods' distributed fits (`super::scale_out`), for those that offer one.
    pub scale_out: &'static [&'static ScaleOut],
}

impl fmt::Debug for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Family")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}
