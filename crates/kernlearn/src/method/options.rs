//! What a user can set on a method: [`MethodOptions`] (every knob, unset by default, so
//! the library fills in the papers' defaults and can tell which ones were given) and
//! [`GridSettings`] (the grid and folds of a cross-validated selection).

use crate::hyperkernel::{HyperkernelKind, Problem};
use crate::kernel::Kernel;
use crate::nonparametric::dank::{Scheme, StepRule};
use crate::select::{Grid, GridSearch};
use crate::svm::{SolverSettings, SvmParams, SvmType};
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::str::FromStr;

/// Grid and folds of a cross-validated selection (the papers' SVM-CV / SVR-CV).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GridSettings {
    /// Values to try (the papers': σ, C ∈ 2⁻⁵…2⁵).
    pub grid: Grid,
    /// Number of folds (the papers: 5).
    pub folds: usize,
    /// Largest Gram matrix held in memory, bytes (see [`GridSearch::gram_budget_bytes`]).
    pub gram_budget_bytes: usize,
}

impl Default for GridSettings {
    /// The papers' protocol: default grid, 5 folds, 1 GiB.
    fn default() -> Self {
        Self {
            grid: Grid::default(),
            folds: 5,
            gram_budget_bytes: 1 << 30,
        }
    }
}

impl GridSettings {
    /// The grid search over `base` with these settings and fold seed `seed`.
    pub fn search(&self, base: &SvmParams, seed: u64) -> GridSearch {
        let mut gs = GridSearch::new(base.clone());
        gs.grid = self.grid.clone();
        gs.folds = self.folds;
        gs.seed = seed;
        gs.gram_budget_bytes = self.gram_budget_bytes;
        gs
    }

    /// Units of progress one search reports (σ × fold).
    pub fn steps(&self) -> u64 {
        (self.grid.sigmas.len() * self.folds) as u64
    }

    /// Units of progress of a CV over `candidates` values (candidate × fold).
    pub fn candidate_steps(&self, candidates: usize) -> u64 {
        (candidates * self.folds) as u64
    }
}

/// Solver of the localized methods' classifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SolverChoice {
    /// Our LIBSVM-style SMO (thesis Table 4.2).
    Smo,
    /// Single-kernel MWUMKL, i.e. kernelised Gilbert (thesis Table 4.3).
    Mwu,
}

/// Parses one of `names` into the value at the same place of `values`.
fn choice<T: Copy>(option: &str, s: &str, names: &[&str], values: &[T]) -> Result<T> {
    match names.iter().position(|n| *n == s) {
        Some(i) => Ok(values[i]),
        None => Err(Error::param(
            option,
            format!("`{s}` is not one of {}", names.join(", ")),
        )),
    }
}

/// Command-line names of [`SolverChoice`].
pub(crate) const SOLVER_NAMES: [&str; 2] = ["smo", "mwu"];

impl FromStr for SolverChoice {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        choice(
            "solver",
            s,
            &SOLVER_NAMES,
            &[SolverChoice::Smo, SolverChoice::Mwu],
        )
    }
}

/// How CKL's random search scores a configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SearchScoring {
    /// The thesis's protocol (§5.4.1: 75/25, then 75/25 validation): each configuration
    /// is fitted once, scored by the accuracy on its own early-stopping split at the
    /// kept epoch, and the best fit is the model (`configs` fits).
    Validation,
    /// k-fold CV of every configuration (`--folds`), then the best refitted
    /// (`configs × folds + 1` fits).
    Cv,
}

/// Command-line names of [`SearchScoring`].
pub(crate) const SEARCH_SCORING_NAMES: [&str; 2] = ["validation", "cv"];

impl FromStr for SearchScoring {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        choice(
            "ckl-search",
            s,
            &SEARCH_SCORING_NAMES,
            &[SearchScoring::Validation, SearchScoring::Cv],
        )
    }
}

/// Command-line names of the DANK schemes.
pub(crate) const SCHEME_NAMES: [&str; 4] = ["newton", "nesterov", "monotone", "plain"];

impl FromStr for Scheme {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let values = [
            Scheme::Newton,
            Scheme::Nesterov,
            Scheme::NesterovMonotone,
            Scheme::ProjectedGradient,
        ];
        choice("dank-scheme", s, &SCHEME_NAMES, &values)
    }
}

/// Command-line names of the DANK step rules.
pub(crate) const STEP_NAMES: [&str; 2] = ["backtracking", "paper"];

impl FromStr for StepRule {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let values = [StepRule::Backtracking, StepRule::PaperLipschitz];
        choice("dank-step", s, &STEP_NAMES, &values)
    }
}

/// Command-line names of DANK's starts: the SVM solution (the papers) or zero.
pub(crate) const START_NAMES: [&str; 2] = ["svm", "zero"];

/// Whether `--dank-start` names the SVM start.
fn starts_from_svm(s: &str) -> Result<bool> {
    choice("dank-start", s, &START_NAMES, &[true, false])
}

/// Every option a method can read, unset (`None`) unless the user gave it; the library
/// fills in the defaults of the method's paper. [`crate::method::MethodKind::check_options`]
/// refuses options the method does not read. Names in errors are the command-line names
/// of [`OPTIONS`].
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct MethodOptions {
    /// Kernel name (`linear`, `poly`, `rbf`, `laplacian`, `sigmoid`, `chi2`,
    /// `precomputed`) or full spec (`rbf:sigma=2`); default `rbf`.
    pub kernel: Option<String>,
    /// Kernel width γ (`exp(−γ‖x−x'‖²)`); default `1/d` as in LIBSVM.
    pub gamma: Option<f64>,
    /// Gaussian width σ of the papers (`γ = 1/σ²`).
    pub sigma: Option<f64>,
    /// Polynomial degree (default 3).
    pub degree: Option<u32>,
    /// coef0 of polynomial and sigmoid kernels (default 0).
    pub coef0: Option<f64>,
    /// Trade-off C (default 1).
    pub c: Option<f64>,
    /// ν of ν-SVC, one-class and ν-SVR (default 0.5).
    pub nu: Option<f64>,
    /// SVR tube width ε (default 0.1).
    pub epsilon: Option<f64>,
    /// SMO stopping tolerance (default 1e-3).
    pub tol: Option<f64>,
    /// Kernel cache, MiB (default 200).
    pub cache_mb: Option<f64>,
    /// Turn shrinking off.
    pub no_shrinking: bool,
    /// Fit Platt probabilities.
    pub probability: bool,
    /// Per-class weights `(label, w)`.
    pub class_weights: Vec<(f64, f64)>,
    /// Seed of the method's own randomness (always read).
    pub seed: u64,
    /// KNPL: regulariser γ (default: the reference γ₀ of the data).
    pub knpl_gamma: Option<f64>,
    /// DANK: nuclear-norm weight τ (default 0.01).
    pub tau: Option<f64>,
    /// DANK: η (default ‖α_SVM‖²).
    pub eta: Option<f64>,
    /// DANK: solver scheme (default Newton).
    pub dank_scheme: Option<Scheme>,
    /// DANK: step rule of the first-order schemes (default backtracking).
    pub dank_step: Option<StepRule>,
    /// DANK: start from the SVM solution (`true`, the papers; default) or from zero.
    pub dank_start_from_svm: Option<bool>,
    /// MKL / localized: base kernels, as a spec or a JSON file.
    pub kernels: Option<String>,
    /// Localized: solver of the classifiers (default SMO).
    pub solver: Option<SolverChoice>,
    /// Localized with the MWU solver: Gilbert's relative duality gap (default 0.01).
    pub lkl_epsilon: Option<f64>,
    /// MWUMKL: approximation error ε (default 0.2).
    pub mwu_epsilon: Option<f64>,
    /// EasyMKL: λ (default 0.1).
    pub lambda: Option<f64>,
    /// SPG-GMKL: regulariser of the weights, `l1` or `pnorm` (default l1).
    pub gmkl_reg: Option<String>,
    /// SPG-GMKL with the p-norm regulariser: p (default 2).
    pub gmkl_p: Option<f64>,
    /// SPG-GMKL with the p-norm regulariser: λ (default 1).
    pub gmkl_lambda: Option<f64>,
    /// LIBLINEAR+: landmarks per kernel (default 150).
    pub landmarks: Option<usize>,
    /// Scalable DANK: clusters (default n/1000); C-LMKL: soft clusters (default 3).
    pub clusters: Option<usize>,
    /// Hyperkernel: the problem of section 6 (default C-SVM).
    pub problem: Option<Problem>,
    /// Hyperkernel: which hyperkernel (default ARD (14)).
    pub hyperkernel: Option<HyperkernelKind>,
    /// Hyperkernel: λ_h (default 0.6).
    pub lambda_h: Option<f64>,
    /// Hyperkernel: λ_Q (default 1).
    pub lambda_q: Option<f64>,
    /// Hyperkernel: width factor on the 90 % distance quantile (default 50).
    pub hk_width_factor: Option<f64>,
    /// Hyperkernel: incomplete-Cholesky tolerance δ (default 1e-6).
    pub hk_delta: Option<f64>,
    /// Hyperkernel: rank cap of the factorisation (default 100).
    pub hk_rank: Option<usize>,
    /// KNPL, DANK, MKL, localized: keep the learned kernel even when, in the selection's
    /// CV, it does not beat the SVM on the base kernel (default: fall back to it).
    pub no_fallback: bool,
    /// KNPL: the published alternation of Algorithm 2 instead of the monotone ascent.
    pub knpl_alternate: bool,
    /// CKL / rff-linear: number of features D (default 256).
    pub fourier_features: Option<usize>,
    /// CKL / rff-linear: variance σ² of the initial frequencies (default 2⁻³).
    pub init_variance: Option<f64>,
    /// CKL / rff-linear: the feature map (default gaussian).
    pub feature_map: Option<crate::ckl::FeatureMapKind>,
    /// CKL: cap on each ‖ω‖ (default none).
    pub norm_cap: Option<f64>,
    /// Networks: optimiser (default SGD with momentum; DKMO: Adam).
    pub optimizer: Option<crate::nn::OptimizerChoice>,
    /// Networks: learning rate (default 0.01; DKMO: 0.001).
    pub learning_rate: Option<f64>,
    /// Networks: weight decay (default 0).
    pub weight_decay: Option<f64>,
    /// Networks: most epochs (default 10,000; DKMO: 100).
    pub epochs: Option<usize>,
    /// Networks: early-stopping patience in epochs (default 100; DKMO: 10).
    pub patience: Option<usize>,
    /// Networks: mini-batch size (default 128; DKMO: 32).
    pub batch_size: Option<usize>,
    /// Networks: validation fraction for early stopping (default 0.25; DKMO: 0.1).
    pub validation_fraction: Option<f64>,
    /// DKMO: embedding ensemble (default: clustered with features, nystrom on kernels).
    pub dkmo_embedding: Option<crate::dkmo::EmbeddingScheme>,
    /// DKMO: conventional Nyström embeddings per kernel (default 6).
    pub dkmo_embeddings: Option<usize>,
    /// DKMO: hidden layer sizes of every branch (default 256,512,256,128).
    pub dkmo_hidden: Option<String>,
    /// DKMO: dropout after every hidden layer (default 0.5).
    pub dropout: Option<f64>,
    /// DKMO: kernel dropout of the fusion layers (default 0.5).
    pub kernel_dropout: Option<f64>,
    /// DKMO: fusion merge (default sum).
    pub dkmo_fusion: Option<crate::dkmo::Fusion>,
    /// CKL: configurations of the random search (default 100).
    pub configs: Option<usize>,
    /// CKL: how the random search scores a configuration (default the thesis's
    /// validation split).
    pub ckl_search: Option<SearchScoring>,
}

/// What kind of value an option takes on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum OptionValue {
    /// A real number.
    Number,
    /// A non-negative integer.
    Count,
    /// Free text (a kernel spec, a file).
    Text,
    /// A flag without value.
    Flag,
    /// One of the listed names.
    Choice(&'static [&'static str]),
    /// Repeatable text.
    Repeated,
}

/// One method option: its command-line name, short form, value kind and help text.
#[derive(Clone, Copy, Debug)]
pub struct OptionSpec {
    /// Long name (`--NAME`).
    pub name: &'static str,
    /// Short form, if any.
    pub short: Option<char>,
    /// Value kind.
    pub value: OptionValue,
    /// One paragraph of help, with the default.
    pub help: &'static str,
}

const fn spec(name: &'static str, value: OptionValue, help: &'static str) -> OptionSpec {
    OptionSpec {
        name,
        short: None,
        value,
        help,
    }
}

const fn short(c: char, s: OptionSpec) -> OptionSpec {
    OptionSpec {
        short: Some(c),
        ..s
    }
}

use OptionValue::{Count, Flag, Number, Repeated, Text};

/// Every method option, in `--help` order. A front end generates its options from this
/// table and passes the given values to [`MethodOptions::set`].
pub static OPTIONS: &[OptionSpec] = &[
    short('k', spec("kernel", Text, "Kernel: linear, poly, rbf, laplacian, sigmoid, chi2, precomputed, or a full spec such as `rbf:sigma=2` or `poly:degree=2,gamma=1,coef0=1` (default rbf)")),
    short('g', spec("gamma", Number, "Kernel width γ (rbf: exp(−γ‖x−x'‖²)); default 1/d as in LIBSVM")),
    spec("sigma", Number, "Gaussian width σ as in the papers: exp(−‖x−x'‖²/σ²), i.e. γ = 1/σ²"),
    spec("degree", Count, "Polynomial degree (default 3)"),
    spec("coef0", Number, "coef0 of polynomial and sigmoid kernels (default 0)"),
    short('c', spec("c", Number, "Trade-off C (default 1; hyperkernel: 100, the paper's 1/(λm))")),
    spec("nu", Number, "ν of nu-svc, one-class and nu-svr (default 0.5; hyperkernel: 0.3, or 0.1 for --problem one-class)"),
    spec("epsilon", Number, "ε of the SVR insensitive tube (LIBSVM -p; default 0.1)"),
    spec("tol", Number, "SMO stopping tolerance (LIBSVM -e; default 1e-3)"),
    spec("cache-mb", Number, "Kernel cache in MiB (default 200)"),
    spec("no-shrinking", Flag, "Turn the shrinking heuristic off"),
    spec("probability", Flag, "Fit Platt probabilities (classification)"),
    spec("class-weight", Repeated, "Class weight LABEL=W (C of that class becomes C·W); repeatable"),
    spec("knpl-gamma", Number, "KNPL: regulariser γ of γ‖G‖²_F (default without --select: the reference γ₀ at which Γ(α_SVM) and 11ᵀ have equal norm; with --select grid: chosen by CV)"),
    spec("tau", Number, "DANK: nuclear-norm weight τ (default 0.01, the paper's; dank-scalable uses τ = 0)"),
    spec("eta", Number, "DANK: η of η‖F − 11ᵀ‖²_F (default: ‖α‖² of the SVM, the paper's rule)"),
    spec("dank-scheme", OptionValue::Choice(&SCHEME_NAMES), "DANK: solver, newton (default: Newton steps by SMO with a line search, stops at KKT violation ≤ 1e-3) or the paper's first-order updates: nesterov (Algorithm 1), monotone (its monotone variant), plain (projected gradient)"),
    spec("dank-step", OptionValue::Choice(&STEP_NAMES), "DANK first-order schemes: step rule, backtracking (adaptive L; default) or paper (the paper's Lipschitz bound)"),
    spec("dank-start", OptionValue::Choice(&START_NAMES), "DANK: where the solver starts, svm (the SVM solution on the base kernel, as the papers; default) or zero (α = 0); η = scale·‖α_SVM‖² either way"),
    spec("kernels", Text, "MKL and localized methods: base kernels, as a spec (`;`-separated `KERNEL[@all|@each|@[i,j,..]]`, e.g. `family12@each` = the thesis's 12 kernels on every single feature, `rbf(sigma=2)@all;poly(degree=2,gamma=1)@[0,3]`) or a JSON file written by kernlearn (default: `family12@each`, the thesis's Fig. 3.1 family; for the localized methods `linear@all;poly(degree=2,gamma=1,coef0=1)@all;rbf(gamma=1/d)@all`)"),
    spec("solver", OptionValue::Choice(&SOLVER_NAMES), "Localized methods: SVM solver of the classifiers, smo (our LIBSVM-style SMO, the thesis's Table 4.2; default) or mwu (single-kernel MWUMKL = kernelised Gilbert, Table 4.3)"),
    spec("lkl-epsilon", Number, "Localized methods with --solver mwu: Gilbert's relative duality gap (default 0.01, the thesis's)"),
    spec("mwu-epsilon", Number, "MWUMKL: approximation error ε > 0 (default 0.2, the thesis's; smaller is slower, ∝ 1/ε)"),
    spec("lambda", Number, "EasyMKL: trade-off λ ∈ (0, 1] (default 0.1; chosen by CV with --select grid)"),
    spec("gmkl-reg", OptionValue::Choice(&crate::mkl::GMKL_REGULARISERS), "spg-gmkl: regulariser of the kernel weights d, l1 (d on the simplex Σd = 1, sparse; default) or pnorm (r(d) = (λ/p) Σ d^p on d ≥ 0, dense)"),
    spec("gmkl-p", Number, "spg-gmkl with --gmkl-reg pnorm: the exponent p > 1 (default 2)"),
    spec("gmkl-lambda", Number, "spg-gmkl with --gmkl-reg pnorm: the weight λ > 0 of (λ/p) Σ d^p (default 1)"),
    spec("landmarks", Count, "nystrom-linear: landmarks per kernel (default 150, the thesis's). dkmo, m-dkmo: landmarks (clusters or columns) per dense embedding (default 100; the paper does not state it)"),
    spec("problem", OptionValue::Choice(&crate::hyperkernel::program::PROBLEM_NAMES), "hyperkernel: the quality functional, c-svm (Example 7; default), nu-svm (8), lsvm (Lagrangian SVM, 9), one-class (novelty, 10), nu-svr (regression, 11) or kta (kernel-target alignment, 12; hypothesis by a C-SVM on the learned kernel)"),
    spec("hyperkernel", OptionValue::Choice(&crate::hyperkernel::kernels::KIND_NAMES), "hyperkernel: harmonic (12)-(13) on one Gaussian, ard (14; default, the paper's), a power series of Table 2 (exp, sinh, cosh, arctanh, neglog = -ln(1-x)) on a Gaussian, or explicit (16: even polynomial + Gaussian)"),
    spec("lambda-h", Number, "hyperkernel: λ_h ∈ (0, 1) of the harmonic and ARD hyperkernels (default 0.6)"),
    spec("lambda-q", Number, "hyperkernel: regularisation λ_Q of the kernel in the hyper-RKHS (default 1)"),
    spec("hk-width-factor", Number, "hyperkernel: base-kernel widths are this factor times the 90% quantile of pairwise distances (per dimension for ard) on a 20% sample (default 50, the paper's)"),
    spec("hk-delta", Number, "hyperkernel: tolerance δ of the incomplete Cholesky of the hyperkernel matrix, on the residual trace (default 1e-6, the paper's)"),
    spec("hk-rank", Count, "hyperkernel: rank cap of that factorisation, i.e. most expansion pairs (default 100)"),
    spec("no-fallback", Flag, "KNPL, DANK, MKL and localized methods with --select grid: the papers' protocols, keeping the learned kernel even when it does not beat SVM-CV (MKL and localized methods then choose C, EasyMKL λ, over the grid by CV). Default: SVM-CV first, the method's candidates at its C, and the fit falls back to the SVM-CV model and says so (`fell_back_to_base_svm` = 1) unless the learned kernel beats it by one standard error on the selection folds and again on fresh folds"),
    spec("knpl-alternate", Flag, "KNPL: Algorithm 2 as published (T alternations of SMO and ADMM, which can 2-cycle for small γ) instead of the default monotone ascent on the saddle objective φ(α) = min_G H(α, G) (SMO direction, backtracking line search on φ; stops when a round gains less than 1e-3 relatively, or after 10 rounds)"),
    spec("fourier-features", Count, "ckl, rff-linear: number of features D, the width of the cosine layer h₀ (default 256; the thesis's random search draws 2^0..2^9)"),
    spec("init-variance", Number, "ckl, rff-linear: variance σ² of the entries of the initial frequencies W ~ N(0, σ²), i.e. the Gaussian kernel exp(−σ²‖x−x'‖²/2) (default 2^-3; the thesis's search draws 2^-6..2^0); also the bandwidth of the laplacian (Cauchy scale σ) and nystrom maps"),
    spec("feature-map", OptionValue::Choice(&crate::ckl::features::FEATURE_MAP_NAMES), "ckl, rff-linear: gaussian (random Fourier features, default), laplacian (Cauchy frequencies: exp(−σ‖x−x'‖₁)); rff-linear also nystrom (D uniform landmarks) or nystrom-kmeans (D k-means centres) of the same Gaussian"),
    spec("norm-cap", Number, "ckl: cap every frequency vector's norm ‖ω‖ at this value after each step (thesis §5.2.4; default none)"),
    spec("optimizer", OptionValue::Choice(&crate::nn::optim::OPTIMIZER_NAMES), "Networks (ckl, rff-linear, dkmo, m-dkmo): sgd (momentum 0.5 rising to 0.99 over 10 epochs, the thesis's; default of ckl) or adam (AdamW; without decay = Adam; default of dkmo, the paper's)"),
    spec("learning-rate", Number, "Networks: learning rate ℓ > 0 (ckl: 0.01, the thesis's search draws log-uniformly from [1e-5, 0.2]; dkmo: 0.001, the paper's)"),
    spec("weight-decay", Number, "Networks: weight decay λ ≥ 0 (L2 for sgd, decoupled for adam; default 0)"),
    spec("epochs", Count, "Networks: most training epochs (ckl: 10000, the thesis's; dkmo: 100 per training run)"),
    spec("patience", Count, "Networks: stop when the validation loss has not improved for this many epochs (ckl: 100, the thesis's; dkmo: 10); the best epoch's parameters are kept"),
    spec("batch-size", Count, "Networks: rows per mini-batch (ckl: 128; dkmo: 32, Keras's default)"),
    spec("validation-fraction", Number, "Networks: fraction of the training rows held out (stratified) for early stopping, in [0, 1) (ckl: 0.25, the thesis's; dkmo: 0.1; 0 = no early stopping)"),
    spec("configs", Count, "ckl, rff-linear with --select: configurations of the random search over D, σ² and the learning rate (default 100, the thesis's Table 5.3), each scored as --ckl-search says"),
    spec("ckl-search", OptionValue::Choice(&SEARCH_SCORING_NAMES), "ckl, rff-linear with --select: how the random search scores a configuration, validation (default, the thesis's §5.4.1: one fit per configuration, scored by the accuracy on its early-stopping split, the best fit kept) or cv (k-fold CV with --folds, then the best refitted)"),
    spec("dkmo-embedding", OptionValue::Choice(&crate::dkmo::embed::SCHEME_NAMES), "dkmo, m-dkmo: dense embeddings of each kernel, clustered (5 clustered Nyström embeddings: k-means, k-medians, k-medoids, agglomerative, spectral landmarks; default with features) or nystrom (random-column Nyström of varying size and rank; default for a Gram set)"),
    spec("dkmo-embeddings", Count, "dkmo, m-dkmo with nystrom embeddings: embeddings per kernel P (default 6, the paper's)"),
    spec("dkmo-hidden", Text, "dkmo, m-dkmo: hidden layer sizes of each embedding's network (default 256,512,256,128, the paper's)"),
    spec("dropout", Number, "dkmo, m-dkmo: dropout rate after every hidden layer (default 0.5, the paper's)"),
    spec("kernel-dropout", Number, "dkmo, m-dkmo: kernel dropout rate of the fusion layers, whole embeddings (or kernels) dropped (default 0.5, the paper's; 0 = off)"),
    spec("dkmo-fusion", OptionValue::Choice(&crate::dkmo::net::FUSION_NAMES), "dkmo, m-dkmo: merge of the fusion layers, sum (default, the paper's) or concat"),
    spec("clusters", Count, "dank-scalable: number of k-means clusters (default max(1, round(n/1000)) for n training rows; the paper used 50 and 200 on 50,000 and 580,000 rows). clmkl: number of soft clusters (default 3)"),
];

impl MethodOptions {
    /// The network options given (`--optimizer`, `--learning-rate`, …) on top of a
    /// family's training defaults (CKL's thesis settings, DKMO's paper settings).
    pub(crate) fn apply_training(&self, t: &mut crate::nn::TrainSettings) {
        if let Some(v) = self.optimizer {
            t.optimizer = v;
        }
        if let Some(v) = self.learning_rate {
            t.learning_rate = v;
        }
        if let Some(v) = self.weight_decay {
            t.weight_decay = v;
        }
        if let Some(v) = self.epochs {
            t.max_epochs = v;
        }
        if let Some(v) = self.patience {
            t.patience = v;
        }
        if let Some(v) = self.batch_size {
            t.batch_size = v;
        }
        if let Some(v) = self.validation_fraction {
            t.validation_fraction = v;
        }
    }

    /// Sets option `name` (a command-line name of [`OPTIONS`]) from its text `value`
    /// (`"true"` for a flag); repeated options accumulate.
    pub fn set(&mut self, name: &str, value: &str) -> Result<()> {
        let number = || -> Result<f64> {
            value
                .trim()
                .parse()
                .map_err(|_| Error::param(name, format!("`{value}` is not a number")))
        };
        let count = || -> Result<usize> {
            value
                .trim()
                .parse()
                .map_err(|_| Error::param(name, format!("`{value}` is not a whole number ≥ 0")))
        };
        match name {
            "kernel" => self.kernel = Some(value.to_string()),
            "gamma" => self.gamma = Some(number()?),
            "sigma" => self.sigma = Some(number()?),
            "degree" => {
                let d = count()?;
                self.degree = Some(
                    u32::try_from(d)
                        .map_err(|_| Error::param(name, format!("{d} is too large")))?,
                )
            }
            "coef0" => self.coef0 = Some(number()?),
            "c" => self.c = Some(number()?),
            "nu" => self.nu = Some(number()?),
            "epsilon" => self.epsilon = Some(number()?),
            "tol" => self.tol = Some(number()?),
            "cache-mb" => self.cache_mb = Some(number()?),
            "no-shrinking" => self.no_shrinking = true,
            "probability" => self.probability = true,
            "class-weight" => self.class_weights.push(class_weight(value)?),
            "knpl-gamma" => self.knpl_gamma = Some(number()?),
            "tau" => self.tau = Some(number()?),
            "eta" => self.eta = Some(number()?),
            "dank-scheme" => self.dank_scheme = Some(value.parse()?),
            "dank-step" => self.dank_step = Some(value.parse()?),
            "dank-start" => self.dank_start_from_svm = Some(starts_from_svm(value)?),
            "kernels" => self.kernels = Some(value.to_string()),
            "solver" => self.solver = Some(value.parse()?),
            "lkl-epsilon" => self.lkl_epsilon = Some(number()?),
            "mwu-epsilon" => self.mwu_epsilon = Some(number()?),
            "lambda" => self.lambda = Some(number()?),
            "gmkl-reg" => {
                let names = &crate::mkl::GMKL_REGULARISERS;
                self.gmkl_reg = Some(choice(name, value, names, names)?.to_string())
            }
            "gmkl-p" => self.gmkl_p = Some(number()?),
            "gmkl-lambda" => self.gmkl_lambda = Some(number()?),
            "landmarks" => self.landmarks = Some(count()?),
            "clusters" => self.clusters = Some(count()?),
            "problem" => self.problem = Some(value.parse()?),
            "hyperkernel" => self.hyperkernel = Some(value.parse()?),
            "lambda-h" => self.lambda_h = Some(number()?),
            "lambda-q" => self.lambda_q = Some(number()?),
            "hk-width-factor" => self.hk_width_factor = Some(number()?),
            "hk-delta" => self.hk_delta = Some(number()?),
            "hk-rank" => self.hk_rank = Some(count()?),
            "no-fallback" => self.no_fallback = true,
            "knpl-alternate" => self.knpl_alternate = true,
            "fourier-features" => self.fourier_features = Some(count()?),
            "init-variance" => self.init_variance = Some(number()?),
            "feature-map" => self.feature_map = Some(value.parse()?),
            "norm-cap" => self.norm_cap = Some(number()?),
            "optimizer" => self.optimizer = Some(value.parse()?),
            "learning-rate" => self.learning_rate = Some(number()?),
            "weight-decay" => self.weight_decay = Some(number()?),
            "epochs" => self.epochs = Some(count()?),
            "patience" => self.patience = Some(count()?),
            "batch-size" => self.batch_size = Some(count()?),
            "validation-fraction" => self.validation_fraction = Some(number()?),
            "configs" => self.configs = Some(count()?),
            "ckl-search" => self.ckl_search = Some(value.parse()?),
            "dkmo-embedding" => self.dkmo_embedding = Some(value.parse()?),
            "dkmo-embeddings" => self.dkmo_embeddings = Some(count()?),
            "dkmo-hidden" => self.dkmo_hidden = Some(value.to_string()),
            "dropout" => self.dropout = Some(number()?),
            "kernel-dropout" => self.kernel_dropout = Some(number()?),
            "dkmo-fusion" => self.dkmo_fusion = Some(value.parse()?),
            "seed" => self.seed = count()? as u64,
            other => return Err(Error::param(other, "is not a method option")),
        }
        Ok(())
    }

    /// The options that were set (command-line names), `seed` excepted.
    pub fn given(&self) -> Vec<&'static str> {
        let flags = [
            ("kernel", self.kernel.is_some()),
            ("gamma", self.gamma.is_some()),
            ("sigma", self.sigma.is_some()),
            ("degree", self.degree.is_some()),
            ("coef0", self.coef0.is_some()),
            ("c", self.c.is_some()),
            ("nu", self.nu.is_some()),
            ("epsilon", self.epsilon.is_some()),
            ("tol", self.tol.is_some()),
            ("cache-mb", self.cache_mb.is_some()),
            ("no-shrinking", self.no_shrinking),
            ("probability", self.probability),
            ("class-weight", !self.class_weights.is_empty()),
            ("knpl-gamma", self.knpl_gamma.is_some()),
            ("tau", self.tau.is_some()),
            ("eta", self.eta.is_some()),
            ("dank-scheme", self.dank_scheme.is_some()),
            ("dank-step", self.dank_step.is_some()),
            ("dank-start", self.dank_start_from_svm.is_some()),
            ("kernels", self.kernels.is_some()),
            ("solver", self.solver.is_some()),
            ("lkl-epsilon", self.lkl_epsilon.is_some()),
            ("mwu-epsilon", self.mwu_epsilon.is_some()),
            ("lambda", self.lambda.is_some()),
            ("gmkl-reg", self.gmkl_reg.is_some()),
            ("gmkl-p", self.gmkl_p.is_some()),
            ("gmkl-lambda", self.gmkl_lambda.is_some()),
            ("landmarks", self.landmarks.is_some()),
            ("clusters", self.clusters.is_some()),
            ("problem", self.problem.is_some()),
            ("hyperkernel", self.hyperkernel.is_some()),
            ("lambda-h", self.lambda_h.is_some()),
            ("lambda-q", self.lambda_q.is_some()),
            ("hk-width-factor", self.hk_width_factor.is_some()),
            ("hk-delta", self.hk_delta.is_some()),
            ("hk-rank", self.hk_rank.is_some()),
            ("no-fallback", self.no_fallback),
            ("knpl-alternate", self.knpl_alternate),
            ("fourier-features", self.fourier_features.is_some()),
            ("init-variance", self.init_variance.is_some()),
            ("feature-map", self.feature_map.is_some()),
            ("norm-cap", self.norm_cap.is_some()),
            ("optimizer", self.optimizer.is_some()),
            ("learning-rate", self.learning_rate.is_some()),
            ("weight-decay", self.weight_decay.is_some()),
            ("epochs", self.epochs.is_some()),
            ("patience", self.patience.is_some()),
            ("batch-size", self.batch_size.is_some()),
            ("validation-fraction", self.validation_fraction.is_some()),
            ("configs", self.configs.is_some()),
            ("ckl-search", self.ckl_search.is_some()),
            ("dkmo-embedding", self.dkmo_embedding.is_some()),
            ("dkmo-embeddings", self.dkmo_embeddings.is_some()),
            ("dkmo-hidden", self.dkmo_hidden.is_some()),
            ("dropout", self.dropout.is_some()),
            ("kernel-dropout", self.kernel_dropout.is_some()),
            ("dkmo-fusion", self.dkmo_fusion.is_some()),
        ];
        flags
            .iter()
            .filter(|(_, set)| *set)
            .map(|(n, _)| *n)
            .collect()
    }

    /// The kernel, with defaults filled in for `n_features` columns.
    pub fn kernel(&self, n_features: usize) -> Result<Kernel> {
        let name = self.kernel.as_deref().unwrap_or("rbf");
        if name.contains(':') || name.contains('(') {
            return name.parse();
        }
        let gamma = match (self.gamma, self.sigma) {
            (Some(_), Some(_)) => {
                return Err(Error::param(
                    "sigma",
                    "give either --sigma or --gamma, not both (γ = 1/σ²)",
                ))
            }
            (Some(g), None) => g,
            (None, Some(s)) => {
                crate::check::positive_finite("sigma", s)?;
                let g = 1.0 / (s * s);
                if !(g > 0.0 && g.is_finite()) {
                    return Err(Error::param(
                        "sigma",
                        format!("{s} gives γ = 1/σ² = {g}, outside (0, ∞)"),
                    ));
                }
                g
            }
            (None, None) => 1.0 / n_features.max(1) as f64,
        };
        let degree = self.degree.unwrap_or(3);
        let coef0 = self.coef0.unwrap_or(0.0);
        match name {
            "linear" | "precomputed" => name.parse(),
            "rbf" | "gaussian" => Kernel::rbf_gamma(gamma),
            "poly" | "polynomial" => Kernel::polynomial(degree, gamma, coef0),
            "laplacian" => Kernel::laplacian(gamma),
            "sigmoid" => Kernel::sigmoid(gamma, coef0),
            "chi2" => Kernel::chi_squared(gamma),
            other => other.parse(),
        }
    }

    /// SMO settings: tolerance, cache, shrinking.
    pub fn solver_settings(&self) -> Result<SolverSettings> {
        let cache_mb = self.cache_mb.unwrap_or(200.0);
        crate::check::non_negative_finite("cache-mb", cache_mb)?;
        Ok(SolverSettings {
            tol: self.tol.unwrap_or(1e-3),
            cache_bytes: (cache_mb * (1u64 << 20) as f64) as usize,
            shrinking: !self.no_shrinking,
            ..SolverSettings::default()
        })
    }

    /// All SVM parameters of formulation `svm_type` on `n_features` columns, checked.
    pub fn svm_params(&self, svm_type: SvmType, n_features: usize) -> Result<SvmParams> {
        let mut classes = self.class_weights.iter().map(|w| w.0).collect::<Vec<_>>();
        classes.sort_by(f64::total_cmp);
        if let Some(w) = classes.windows(2).find(|w| w[0] == w[1]) {
            return Err(Error::param(
                "class-weight",
                format!("class {} is given a weight twice", w[0]),
            ));
        }
        let p = SvmParams {
            svm_type,
            kernel: self.kernel(n_features)?,
            c: self.c.unwrap_or(1.0),
            nu: self.nu.unwrap_or(0.5),
            epsilon: self.epsilon.unwrap_or(0.1),
            class_weights: self.class_weights.clone(),
            probability: self.probability,
            seed: self.seed,
            solver: self.solver_settings()?,
            ..SvmParams::default()
        };
        p.validate(n_features)?;
        Ok(p)
    }

    /// With a grid search, the kernel must be the Gaussian whose σ the grid tunes.
    pub(crate) fn check_searchable_kernel(&self, search: Option<&GridSettings>) -> Result<()> {
        match (&self.kernel, search) {
            (Some(k), Some(_)) if !matches!(k.as_str(), "rbf" | "gaussian") => Err(Error::param(
                "kernel",
                format!("grid search tunes the Gaussian kernel (rbf), not `{k}`"),
            )),
            _ => Ok(()),
        }
    }
}

/// Whether `name` is the command-line name of a method option of [`OPTIONS`] (the
/// catalogue's tests check every option a method reads exists).
#[cfg(test)]
pub(crate) fn is_option(name: &str) -> bool {
    OPTIONS.iter().any(|s| s.name == name)
}

/// `LABEL=WEIGHT` of `--class-weight`.
fn class_weight(s: &str) -> Result<(f64, f64)> {
    let bad = || {
        Error::param(
            "class-weight",
            format!("`{s}` is not LABEL=WEIGHT (e.g. `1=2.5`)"),
        )
    };
    let (l, w) = s.split_once('=').ok_or_else(bad)?;
    let label: f64 = l.trim().parse().map_err(|_| bad())?;
    let weight: f64 = w.trim().parse().map_err(|_| bad())?;
    if !label.is_finite() {
        return Err(bad());
    }
    crate::check::non_negative_finite("class-weight", weight)?;
    Ok((label, weight))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn given_names_are_known_and_choices_parse() {
        let mut o = MethodOptions::default();
        assert!(o.given().is_empty());
        o.tau = Some(0.1);
        o.no_shrinking = true;
        assert_eq!(o.given(), vec!["no-shrinking", "tau"]);
        assert!(o.given().iter().all(|n| is_option(n)));
        assert_eq!(
            "plain".parse::<Scheme>().unwrap(),
            Scheme::ProjectedGradient
        );
        let e = "fast".parse::<Scheme>().unwrap_err().to_string();
        assert!(
            e.contains("dank-scheme") && e.contains("newton, nesterov"),
            "{e}"
        );
        assert_eq!("mwu".parse::<SolverChoice>().unwrap(), SolverChoice::Mwu);
        assert!("newton".parse::<SolverChoice>().is_err());
    }

    /// `--dank-start zero` reaches DANK's settings; the papers' SVM start is the default;
    /// an unknown start names the option and its choices.
    #[test]
    fn dank_start_reaches_the_solver_settings() {
        use crate::method::{Method, MethodKind};
        let data = crate::data::synthetic::sandwich(40, 0.3, 2).unwrap();
        let start_of = |o: &MethodOptions| match Method::build(MethodKind::Dank, o, &data, None) {
            Ok(Method::Dank(d)) => d.params.settings.init_from_svm,
            other => panic!("{other:?}"),
        };
        let mut o = MethodOptions::default();
        assert!(start_of(&o));
        o.set("dank-start", "zero").unwrap();
        assert_eq!(o.dank_start_from_svm, Some(false));
        assert!(!start_of(&o));
        let e = o.set("dank-start", "half").unwrap_err().to_string();
        assert!(e.contains("dank-start") && e.contains("svm, zero"), "{e}");
    }

    #[test]
    fn the_option_table_and_set_agree() {
        let mut o = MethodOptions::default();
        for spec in OPTIONS {
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
        assert_eq!(o.given().len(), OPTIONS.len());
        let e = o.set("tau", "x").unwrap_err().to_string();
        assert!(e.contains("`tau`") && e.contains("not a number"), "{e}");
        assert!(o.set("class-weight", "1=NaN").is_err());
        assert!(o.set("bogus", "1").is_err());
    }

    #[test]
    fn bad_sizes_and_repeated_weights_are_errors() {
        let mut o = MethodOptions {
            cache_mb: Some(f64::NAN),
            ..MethodOptions::default()
        };
        assert!(o.solver_settings().is_err());
        o.cache_mb = Some(-1.0);
        assert!(o.solver_settings().is_err());
        let o = MethodOptions {
            class_weights: vec![(1.0, 2.0), (1.0, 3.0)],
            ..MethodOptions::default()
        };
        let e = o.svm_params(SvmType::CSvc, 2).unwrap_err().to_string();
        assert!(e.contains("twice"), "{e}");
        let o = MethodOptions {
            sigma: Some(1e308),
            ..MethodOptions::default()
        };
        let e = o.kernel(2).unwrap_err().to_string();
        assert!(e.contains("`sigma`"), "{e}");
    }
}
