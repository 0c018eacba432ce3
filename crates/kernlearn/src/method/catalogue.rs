//! The method catalogue: every learning method the library offers, by name, with the
//! tasks it supports, the options it reads and how it builds a [`Method`] from them.
//!
//! The command line's `--method` values, its help text and "unknown method" error, the
//! demo's rows and the method table of the docs are all generated from [`CATALOGUE`].
//! Adding a method adds one entry here (plus its [`Method`] / `AnyModel` variants) and
//! a module of its own that implements [`crate::method::Learner`].

use super::options::{GridSettings, MethodOptions};
use super::Method;
use crate::data::Dataset;
use crate::estimator::Task;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A method by name, as on the command line (`svc`, `dank`, `mwumkl`, …).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum MethodKind {
    /// C-SVC or ε-SVR, chosen by the data (a last column named `target` is regression).
    Svm,
    /// C-SVC.
    Svc,
    /// ν-SVC.
    NuSvc,
    /// One-class SVM (novelty detection).
    OneClass,
    /// ε-SVR.
    Svr,
    /// ν-SVR.
    NuSvr,
    /// KNPL: learned `G ⊙ K`.
    Knpl,
    /// DANK-SVM: learned `F ⊙ K`.
    Dank,
    /// DANK-SVR: learned `F ⊙ K` for regression.
    DankSvr,
    /// Scalable DANK: one DANK machine per k-means cluster.
    DankScalable,
    /// UNIFORM: the average of the base kernels.
    Uniform,
    /// MWUMKL: multiplicative-weight-update MKL.
    Mwumkl,
    /// EasyMKL.
    Easymkl,
    /// SPG-GMKL: generalized MKL by spectral projected gradient.
    SpgGmkl,
    /// LIBLINEAR+: Nyström features of every base kernel and a linear SVM.
    NystromLinear,
    /// LD-MKL (localized, thesis Algorithm 7).
    Ldmkl,
    /// SWMKL (localized, thesis Algorithm 2).
    Swmkl,
    /// LMKL (localized, thesis Algorithm 1).
    Lmkl,
    /// C-LMKL (localized, clustered).
    Clmkl,
    /// Hyperkernels (Ong, Smola and Williamson 2005).
    Hyperkernel,
    /// CKL: continuous kernel learning (a trained random-Fourier-feature layer).
    Ckl,
    /// Fixed random Fourier / Nyström features and a softmax layer (CKL's baseline).
    RffLinear,
    /// DKMO: a network over dense Nyström embeddings of one kernel.
    Dkmo,
    /// M-DKMO: DKMO on several kernels with a global fusion layer.
    MDkmo,
}

/// The family a method belongs to (one library module each).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Family {
    /// Kernel machines on a fixed kernel ([`crate::svm`]).
    Svm,
    /// Nonparametric Gram-matrix learning ([`crate::nonparametric`]).
    Nonparametric,
    /// Multiple kernel learning ([`crate::mkl`]).
    Mkl,
    /// Localized multiple kernel learning ([`crate::localized`]).
    Localized,
    /// Hyperkernels ([`crate::hyperkernel`]).
    Hyperkernel,
    /// Continuous kernel learning ([`crate::ckl`]).
    Ckl,
    /// Deep kernel machine optimisation ([`crate::dkmo`]).
    Dkmo,
}

impl Family {
    /// Name as in the docs.
    pub fn name(self) -> &'static str {
        match self {
            Family::Svm => "kernel machine",
            Family::Nonparametric => "nonparametric",
            Family::Mkl => "multiple kernel learning",
            Family::Localized => "localized MKL",
            Family::Hyperkernel => "hyperkernel",
            Family::Ckl => "continuous kernel learning",
            Family::Dkmo => "deep kernel machine",
        }
    }
}

/// Builds a method of `kind` from options for `data`, with the grid search `search`.
pub(crate) type Builder =
    fn(MethodKind, &MethodOptions, &Dataset, Option<GridSettings>) -> Result<Method>;

/// One catalogue entry.
#[derive(Clone, Copy)]
pub struct MethodInfo {
    /// The method.
    pub kind: MethodKind,
    /// Name on the command line and in model files.
    pub name: &'static str,
    /// Its family.
    pub family: Family,
    /// Tasks it can fit.
    pub tasks: &'static [Task],
    /// One line: what it is and where it comes from.
    pub summary: &'static str,
    /// What `--select grid` chooses for it.
    pub selection: &'static str,
    /// Options it reads (command-line names); any other method option is an error.
    pub options: &'static [&'static str],
    /// Whether the demonstration (`kernlearn` without arguments) runs it.
    pub in_demo: bool,
    pub(crate) build: Builder,
}

impl fmt::Debug for MethodInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MethodInfo")
            .field("name", &self.name)
            .field("family", &self.family)
            .finish_non_exhaustive()
    }
}

/// Options of every method that runs our SMO on one kernel.
macro_rules! kernel_options {
    ($($extra:literal),*) => {
        &["kernel", "gamma", "sigma", "degree", "coef0", "tol", "cache-mb", "no-shrinking", $($extra),*]
    };
}

/// Options of DANK and DANK-SVR (scalable DANK has no τ and no fallback).
macro_rules! dank_options {
    ($($extra:literal),*) => {
        kernel_options!("c", "tau", "eta", "dank-scheme", "dank-step", "dank-start", "no-fallback" $(, $extra)*)
    };
}

/// Options of the methods on a kernel family, solved by SMO.
macro_rules! family_options {
    ($($extra:literal),*) => {
        &["kernels", "c", "tol", "cache-mb", "no-shrinking", "no-fallback", $($extra),*]
    };
}

/// Options of the network methods (CKL and its fixed-feature baseline).
macro_rules! network_options {
    ($($extra:literal),*) => {
        &["fourier-features", "init-variance", "feature-map", "optimizer", "learning-rate",
          "weight-decay", "epochs", "patience", "batch-size", "validation-fraction", "configs",
          "ckl-search",
          $($extra),*]
    };
}

const RANDOM_SEARCH: &str =
    "random search of D, σ², learning rate (thesis Table 5.3; --configs, default 100) scored on the early-stopping split (thesis §5.4.1) or by k-fold CV (--ckl-search)";
const CLASSIFY: &[Task] = &[Task::Classification];
const REGRESS: &[Task] = &[Task::Regression];
const SVM_CV: &str = "σ, C (and ε for regression) by k-fold grid search (SVM-CV / SVR-CV)";
const C_BY_CV: &str = "C by k-fold CV over the grid's Cs";
/// UNIFORM, MWUMKL and SPG-GMKL with `--select grid` (issue 19's fallback).
const MKL_SELECTION: &str = "C by SVM-CV, then UNIFORM or the method by k-fold CV; the SVM-CV model unless that beats it (--no-fallback: C by k-fold CV over the grid's Cs)";
/// The localized methods with `--select grid` (issue 19's fallback).
const LOCALIZED_SELECTION: &str = "C by SVM-CV; the SVM-CV model unless the method beats it in k-fold CV (--no-fallback: C by k-fold CV over the grid's Cs)";

/// Every method, in the order of `--help` and the docs.
pub static CATALOGUE: &[MethodInfo] = &[
    MethodInfo {
        kind: MethodKind::Svm,
        name: "svm",
        family: Family::Svm,
        tasks: &[Task::Classification, Task::Regression],
        summary: "svc, or svr when the last column is named `target` (the default method)",
        selection: SVM_CV,
        options: kernel_options!("c", "epsilon", "probability", "class-weight"),
        in_demo: false,
        build: crate::svm::learner::build,
    },
    MethodInfo {
        kind: MethodKind::Svc,
        name: "svc",
        family: Family::Svm,
        tasks: CLASSIFY,
        summary: "C-SVC (LIBSVM's SMO, second-order working sets, shrinking, cache)",
        selection: SVM_CV,
        options: kernel_options!("c", "probability", "class-weight"),
        in_demo: false,
        build: crate::svm::learner::build,
    },
    MethodInfo {
        kind: MethodKind::NuSvc,
        name: "nu-svc",
        family: Family::Svm,
        tasks: CLASSIFY,
        summary: "ν-SVC",
        selection: "σ by k-fold grid search (ν as given)",
        options: kernel_options!("nu", "probability"),
        in_demo: false,
        build: crate::svm::learner::build,
    },
    MethodInfo {
        kind: MethodKind::OneClass,
        name: "one-class",
        family: Family::Svm,
        tasks: &[Task::Novelty],
        summary: "one-class SVM (novelty detection; labels not needed)",
        selection: "none",
        options: kernel_options!("nu"),
        in_demo: false,
        build: crate::svm::learner::build,
    },
    MethodInfo {
        kind: MethodKind::Svr,
        name: "svr",
        family: Family::Svm,
        tasks: REGRESS,
        summary: "ε-SVR",
        selection: SVM_CV,
        options: kernel_options!("c", "epsilon"),
        in_demo: false,
        build: crate::svm::learner::build,
    },
    MethodInfo {
        kind: MethodKind::NuSvr,
        name: "nu-svr",
        family: Family::Svm,
        tasks: REGRESS,
        summary: "ν-SVR",
        selection: "σ, C by k-fold grid search (ν as given)",
        options: kernel_options!("c", "nu"),
        in_demo: false,
        build: crate::svm::learner::build,
    },
    MethodInfo {
        kind: MethodKind::Knpl,
        name: "knpl",
        family: Family::Nonparametric,
        tasks: CLASSIFY,
        summary: "KNPL: learned G ⊙ K by alternating SMO and ADMM (AAAI 2018)",
        selection: "σ, C by SVM-CV, then the regulariser γ by k-fold CV; the SVM-CV model unless that beats it",
        options: kernel_options!("c", "knpl-gamma", "no-fallback", "knpl-alternate"),
        in_demo: true,
        build: crate::nonparametric::learner::build,
    },
    MethodInfo {
        kind: MethodKind::Dank,
        name: "dank",
        family: Family::Nonparametric,
        tasks: CLASSIFY,
        summary: "DANK-SVM: learned F ⊙ K with a nuclear-norm penalty",
        selection: "σ, C by SVM-CV, then η ∈ {1, 0.1, 0.01}·‖α_SVM‖² by k-fold CV (τ as given); the SVM-CV model unless that beats it",
        options: dank_options!(),
        in_demo: true,
        build: crate::nonparametric::learner::build,
    },
    MethodInfo {
        kind: MethodKind::DankSvr,
        name: "dank-svr",
        family: Family::Nonparametric,
        tasks: REGRESS,
        summary: "DANK-SVR: learned F ⊙ K for ε-SVR",
        selection: "σ, C, ε by SVR-CV, then η ∈ {1, 0.1, 0.01}·‖α_SVR‖² by k-fold CV (τ as given); the SVR-CV model unless that beats it",
        options: dank_options!("epsilon"),
        in_demo: true,
        build: crate::nonparametric::learner::build,
    },
    MethodInfo {
        kind: MethodKind::DankScalable,
        name: "dank-scalable",
        family: Family::Nonparametric,
        tasks: CLASSIFY,
        summary: "scalable DANK: k-means clusters, one τ = 0 DANK machine each (binary)",
        selection: "σ, C by SVM-CV",
        options: kernel_options!(
            "c",
            "eta",
            "dank-scheme",
            "dank-step",
            "dank-start",
            "clusters"
        ),
        in_demo: false,
        build: crate::nonparametric::learner::build,
    },
    MethodInfo {
        kind: MethodKind::Uniform,
        name: "uniform",
        family: Family::Mkl,
        tasks: CLASSIFY,
        summary: "UNIFORM: SVM on the average of the base kernels (--kernels)",
        selection: MKL_SELECTION,
        options: family_options!(),
        in_demo: true,
        build: crate::mkl::learner::build,
    },
    MethodInfo {
        kind: MethodKind::Mwumkl,
        name: "mwumkl",
        family: Family::Mkl,
        tasks: CLASSIFY,
        summary: "MWUMKL: multiplicative-weight-update MKL (Moeller 2017, ch. 3)",
        selection: MKL_SELECTION,
        options: &["kernels", "c", "mwu-epsilon", "no-fallback"],
        in_demo: true,
        build: crate::mkl::learner::build,
    },
    MethodInfo {
        kind: MethodKind::Easymkl,
        name: "easymkl",
        family: Family::Mkl,
        tasks: CLASSIFY,
        summary: "EasyMKL (Aiolli and Donini 2015), the thesis's baseline",
        selection: "λ by k-fold CV over {0.1, 0.2, …, 1}, UNIFORM at SVM-CV's C a candidate too; the SVM-CV model unless that beats it",
        options: &["kernels", "lambda", "no-fallback"],
        in_demo: false,
        build: crate::mkl::learner::build,
    },
    MethodInfo {
        kind: MethodKind::SpgGmkl,
        name: "spg-gmkl",
        family: Family::Mkl,
        tasks: CLASSIFY,
        summary: "SPG-GMKL: spectral projected gradient on the kernel weights around SMO (Jain et al. 2012; the thesis's Table 5.4)",
        selection: MKL_SELECTION,
        options: &["kernels", "c", "tol", "gmkl-reg", "gmkl-p", "gmkl-lambda", "no-fallback"],
        in_demo: false,
        build: crate::mkl::learner::build,
    },
    MethodInfo {
        kind: MethodKind::NystromLinear,
        name: "nystrom-linear",
        family: Family::Mkl,
        tasks: CLASSIFY,
        summary: "LIBLINEAR+: Nyström features of every base kernel and a linear SVM",
        selection: C_BY_CV,
        options: &["kernels", "c", "landmarks"],
        in_demo: false,
        build: crate::mkl::learner::build,
    },
    MethodInfo {
        kind: MethodKind::Ldmkl,
        name: "ldmkl",
        family: Family::Localized,
        tasks: CLASSIFY,
        summary: "LD-MKL: per-kernel SVMs, SVR gates, retraining (thesis Algorithm 7)",
        selection: LOCALIZED_SELECTION,
        options: family_options!("solver", "lkl-epsilon"),
        in_demo: true,
        build: crate::localized::learner::build,
    },
    MethodInfo {
        kind: MethodKind::Swmkl,
        name: "swmkl",
        family: Family::Localized,
        tasks: CLASSIFY,
        summary: "SWMKL: SVR gates, SVM on the gated kernel (thesis Algorithm 2)",
        selection: LOCALIZED_SELECTION,
        options: family_options!("solver", "lkl-epsilon"),
        in_demo: false,
        build: crate::localized::learner::build,
    },
    MethodInfo {
        kind: MethodKind::Lmkl,
        name: "lmkl",
        family: Family::Localized,
        tasks: CLASSIFY,
        summary: "LMKL: softmax gates learned by gradient steps (thesis Algorithm 1)",
        selection: LOCALIZED_SELECTION,
        options: family_options!("solver", "lkl-epsilon"),
        in_demo: false,
        build: crate::localized::learner::build,
    },
    MethodInfo {
        kind: MethodKind::Clmkl,
        name: "clmkl",
        family: Family::Localized,
        tasks: CLASSIFY,
        summary: "C-LMKL: soft clusters with per-cluster kernel weights (thesis §4.2)",
        selection: LOCALIZED_SELECTION,
        options: family_options!("solver", "lkl-epsilon", "clusters"),
        in_demo: false,
        build: crate::localized::learner::build,
    },
    MethodInfo {
        kind: MethodKind::Hyperkernel,
        name: "hyperkernel",
        family: Family::Hyperkernel,
        tasks: &[Task::Classification, Task::Regression, Task::Novelty],
        summary: "hyperkernels: kernel learned in a hyper-RKHS by conic programming (Ong et al., JMLR 2005)",
        selection: "none (the paper's untuned defaults, section 7)",
        options: &["problem", "hyperkernel", "lambda-h", "lambda-q", "c", "nu", "hk-width-factor", "hk-delta", "hk-rank"],
        in_demo: false,
        build: crate::hyperkernel::learner::build,
    },
    MethodInfo {
        kind: MethodKind::Ckl,
        name: "ckl",
        family: Family::Ckl,
        tasks: CLASSIFY,
        summary: "CKL: random Fourier features whose frequencies and phases are trained with a softmax layer (thesis ch. 5)",
        selection: RANDOM_SEARCH,
        options: network_options!("norm-cap"),
        in_demo: false,
        build: crate::ckl::learner::build,
    },
    MethodInfo {
        kind: MethodKind::RffLinear,
        name: "rff-linear",
        family: Family::Ckl,
        tasks: CLASSIFY,
        summary: "fixed random Fourier (Gaussian, Laplacian) or Nyström features and a softmax layer (CKL's baseline)",
        selection: RANDOM_SEARCH,
        options: network_options!(),
        in_demo: false,
        build: crate::ckl::learner::build,
    },
    MethodInfo {
        kind: MethodKind::Dkmo,
        name: "dkmo",
        family: Family::Dkmo,
        tasks: CLASSIFY,
        summary: "DKMO: networks on dense Nyström embeddings of one kernel, fused with kernel dropout (Song et al., TNNLS 2018)",
        selection: DKMO_SELECTION,
        options: DKMO_OPTIONS,
        in_demo: false,
        build: crate::dkmo::learner::build,
    },
    MethodInfo {
        kind: MethodKind::MDkmo,
        name: "m-dkmo",
        family: Family::Dkmo,
        tasks: CLASSIFY,
        summary: "M-DKMO: per-kernel DKMO pre-training, global fusion with kernel dropout, fine-tuning (Song et al., TNNLS 2018)",
        selection: DKMO_SELECTION,
        options: DKMO_OPTIONS,
        in_demo: false,
        build: crate::dkmo::learner::build,
    },
];

/// What DKMO selects: nothing, early stopping only.
const DKMO_SELECTION: &str = "none (the paper's settings; early stopping on a validation split)";

/// Options of `dkmo` and `m-dkmo`.
const DKMO_OPTIONS: &[&str] = &[
    "kernel",
    "gamma",
    "sigma",
    "degree",
    "coef0",
    "kernels",
    "dkmo-embedding",
    "dkmo-embeddings",
    "landmarks",
    "dkmo-hidden",
    "dropout",
    "kernel-dropout",
    "dkmo-fusion",
    "optimizer",
    "learning-rate",
    "weight-decay",
    "epochs",
    "patience",
    "batch-size",
    "validation-fraction",
];

impl MethodKind {
    /// Every method, in catalogue order.
    pub fn all() -> impl Iterator<Item = MethodKind> {
        CATALOGUE.iter().map(|i| i.kind)
    }

    /// Its catalogue entry.
    pub fn info(self) -> &'static MethodInfo {
        CATALOGUE
            .iter()
            .find(|i| i.kind == self)
            .expect("every MethodKind has a catalogue entry (checked by a test)")
    }

    /// Name on the command line.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// One-line description.
    pub fn summary(self) -> &'static str {
        self.info().summary
    }

    /// Whether it can fit `task`.
    pub fn supports(self, task: Task) -> bool {
        self.info().tasks.contains(&task)
    }

    /// Every method name, comma-separated (for messages).
    pub fn names() -> String {
        CATALOGUE
            .iter()
            .map(|i| i.name)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The methods that read `option`, comma-separated.
    fn readers_of(option: &str) -> String {
        CATALOGUE
            .iter()
            .filter(|i| i.options.contains(&option))
            .map(|i| i.name)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Refuses options this method does not read (they would be silently ignored).
    pub fn check_options(self, options: &MethodOptions) -> Result<()> {
        let info = self.info();
        for given in options.given() {
            if !info.options.contains(&given) {
                return Err(Error::param(
                    given,
                    format!(
                        "does not apply to method `{}` (it is read by: {})",
                        info.name,
                        Self::readers_of(given)
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The catalogue as JSON, `{"methods": [{name, family, tasks, summary, selection,
    /// options}, …], "options": [{name, value, help}, …]}`: what `kernlearn methods
    /// --json` prints and what the Python package builds its estimators' checks from.
    pub fn catalogue_json() -> serde_json::Value {
        let methods: Vec<serde_json::Value> = CATALOGUE
            .iter()
            .map(|i| {
                serde_json::json!({
                    "name": i.name,
                    "family": i.family.name(),
                    "tasks": i.tasks.iter().map(|t| t.name()).collect::<Vec<_>>(),
                    "summary": i.summary,
                    "selection": i.selection,
                    "options": i.options,
                })
            })
            .collect();
        let options: Vec<serde_json::Value> = super::options::OPTIONS
            .iter()
            .map(|o| {
                use super::options::OptionValue::*;
                let (value, choices): (&str, &[&str]) = match o.value {
                    Number => ("number", &[]),
                    Count => ("count", &[]),
                    Text => ("text", &[]),
                    Flag => ("flag", &[]),
                    Choice(names) => ("choice", names),
                    Repeated => ("repeated", &[]),
                };
                serde_json::json!({
                    "name": o.name, "value": value, "choices": choices, "help": o.help,
                })
            })
            .collect();
        serde_json::json!({ "methods": methods, "options": options })
    }

    /// The method table of the docs (markdown), generated from the catalogue.
    pub fn markdown_table() -> String {
        let mut s = String::from(
            "| method | family | tasks | what it is | `--select grid` chooses |\n|---|---|---|---|---|\n",
        );
        for i in CATALOGUE {
            let tasks: Vec<&str> = i.tasks.iter().map(|t| t.name()).collect();
            s += &format!(
                "| `{}` | {} | {} | {} | {} |\n",
                i.name,
                i.family.name(),
                tasks.join(", "),
                i.summary,
                i.selection
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
        CATALOGUE
            .iter()
            .find(|i| i.name == s)
            .map(|i| i.kind)
            .ok_or_else(|| {
                Error::param(
                    "method",
                    format!("unknown method `{s}` (one of: {})", MethodKind::names()),
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_one_entry_and_names_round_trip() {
        for (i, info) in CATALOGUE.iter().enumerate() {
            assert_eq!(info.kind.info().name, info.name);
            assert_eq!(info.name.parse::<MethodKind>().unwrap(), info.kind);
            assert_eq!(info.kind.to_string(), info.name);
            assert!(
                CATALOGUE[..i].iter().all(|o| o.kind != info.kind),
                "{} listed twice",
                info.name
            );
            for o in info.options {
                assert!(
                    crate::method::options::is_option(o),
                    "{}: unknown option {o}",
                    info.name
                );
            }
        }
        let e = "svn".parse::<MethodKind>().unwrap_err().to_string();
        assert!(
            e.contains("unknown method `svn`") && e.contains("mwumkl"),
            "{e}"
        );
    }

    #[test]
    fn options_a_method_does_not_read_are_refused() {
        let o = MethodOptions {
            tau: Some(0.1),
            ..MethodOptions::default()
        };
        assert!(MethodKind::Dank.check_options(&o).is_ok());
        let e = MethodKind::Mwumkl
            .check_options(&o)
            .unwrap_err()
            .to_string();
        assert!(e.contains("`tau`") && e.contains("mwumkl"), "{e}");
        assert!(e.contains("dank, dank-svr"), "{e}");
        let o = MethodOptions {
            lambda: Some(0.5),
            ..MethodOptions::default()
        };
        assert!(MethodKind::Svc.check_options(&o).is_err());
        assert!(MethodKind::Easymkl.check_options(&o).is_ok());
    }

    #[test]
    fn the_docs_table_lists_every_method() {
        let t = MethodKind::markdown_table();
        assert_eq!(t.lines().count(), CATALOGUE.len() + 2);
        assert!(t.contains("| `clmkl` | localized MKL | classification |"));
    }
}
