//! Command-line options shared by the subcommands, and their translation into library
//! parameters.

use clap::Args;
use kernlearn::data::{read_csv_unlabeled, read_dataset, read_libsvm, Dataset, Format, ScaleMode};
use kernlearn::estimator::Task;
use kernlearn::kernel::Kernel;
use kernlearn::localized::{
    ClmklSettings, GateRegression, LmklSettings, LocalizedMethod, LocalizedParams, SvmSolver,
};
use kernlearn::method::{GridSettings, Method};
use kernlearn::mkl::{
    EasyMklParams, KernelFamily, MklMethod, MklParams, MwumklParams, NystromLinearParams,
    UniformParams,
};
use kernlearn::nonparametric::dank::{Scheme, StepRule};
use kernlearn::nonparametric::{DankParams, DankSettings, KnplParams, ScalableDankParams};
use kernlearn::svm::{SvmParams, SvmType};
use kernlearn::{Error, Result};
use std::path::{Path, PathBuf};

/// Where the data comes from.
#[derive(Args, Debug, Clone)]
pub struct DataArgs {
    /// Data file (CSV with header, LIBSVM/SVMlight, or KEEL .dat).
    #[arg(long, short = 'd')]
    pub data: PathBuf,
    /// Input format; by default chosen from the extension (.csv, .libsvm/.svm/.txt, .dat).
    #[arg(long)]
    pub format: Option<Format>,
    /// Label/target column of a CSV or KEEL file (default: the last column).
    #[arg(long)]
    pub target: Option<String>,
}

impl DataArgs {
    /// Reads the dataset.
    pub fn read(&self) -> Result<Dataset> {
        read_dataset(&self.data, self.format, self.target.as_deref())
    }
}

/// Reads a file to predict on: labels are optional (a CSV with exactly the model's
/// feature count, or `--no-labels`, is read as unlabelled).
pub fn read_for_prediction(
    path: &Path,
    format: Option<Format>,
    target: Option<&str>,
    n_features: usize,
    no_labels: bool,
) -> Result<Dataset> {
    let format = match format {
        Some(f) => f,
        None => Format::from_path(path)?,
    };
    match format {
        Format::Libsvm => read_libsvm(path, Some(n_features)),
        Format::Csv if no_labels || csv_columns(path)? == n_features => read_csv_unlabeled(path),
        _ => read_dataset(path, Some(format), target),
    }
}

fn csv_columns(path: &Path) -> Result<usize> {
    use std::io::BufRead;
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut header = String::new();
    std::io::BufReader::new(file)
        .read_line(&mut header)
        .map_err(|e| Error::io(path, e))?;
    Ok(header.trim_end().split(',').count())
}

/// The model to fit.
#[derive(Args, Debug, Clone)]
pub struct ModelArgs {
    /// Method: svm (svc or svr by the data), svc (C-SVC), nu-svc, one-class, svr (ε-SVR),
    /// nu-svr; knpl (learned G ⊙ K); dank (learned F ⊙ K; dank-svr for regression);
    /// multiple kernel learning on `--kernels`: uniform, mwumkl, easymkl, nystrom-linear
    /// (LIBLINEAR+: Nyström features of every kernel and a linear SVM).
    /// Localized MKL on `--kernels` (binary or one-vs-one): ldmkl (LD-MKL), swmkl, lmkl,
    /// clmkl (C-LMKL), with `--solver smo|mwu`.
    /// dank-scalable (k-means clusters, one τ = 0 DANK machine each; binary).
    /// Default: svr when the last column is named `target`, svc otherwise.
    #[arg(long, short = 'm')]
    pub method: Option<String>,
    /// Kernel: linear, poly, rbf, laplacian, sigmoid, chi2, precomputed, or a full spec
    /// such as `rbf:sigma=2` or `poly:degree=2,gamma=1,coef0=1`.
    #[arg(long, short = 'k', default_value = "rbf")]
    pub kernel: String,
    /// Kernel width γ (rbf: exp(−γ‖x−x'‖²)); default 1/d as in LIBSVM.
    #[arg(long, short = 'g', conflicts_with = "sigma")]
    pub gamma: Option<f64>,
    /// Gaussian width σ as in the papers: exp(−‖x−x'‖²/σ²), i.e. γ = 1/σ².
    #[arg(long)]
    pub sigma: Option<f64>,
    /// Polynomial degree.
    #[arg(long, default_value_t = 3)]
    pub degree: u32,
    /// coef0 of polynomial and sigmoid kernels.
    #[arg(long, default_value_t = 0.0)]
    pub coef0: f64,
    /// Trade-off C.
    #[arg(short = 'c', long = "c", default_value_t = 1.0)]
    pub c: f64,
    /// ν of nu-svc, one-class and nu-svr.
    #[arg(long, default_value_t = 0.5)]
    pub nu: f64,
    /// ε of the SVR insensitive tube (LIBSVM -p).
    #[arg(long, default_value_t = 0.1)]
    pub epsilon: f64,
    /// Solver stopping tolerance (LIBSVM -e).
    #[arg(long, default_value_t = 1e-3)]
    pub tol: f64,
    /// Kernel cache in MiB.
    #[arg(long, default_value_t = 200.0)]
    pub cache_mb: f64,
    /// Turn the shrinking heuristic off.
    #[arg(long)]
    pub no_shrinking: bool,
    /// Fit Platt probabilities (classification).
    #[arg(long)]
    pub probability: bool,
    /// Class weight LABEL=W (C of that class becomes C·W); repeatable.
    #[arg(long = "class-weight", value_name = "LABEL=W")]
    pub class_weights: Vec<String>,
    /// Feature scaling fitted on the training data: none, 01, pm1 or standard.
    #[arg(long, default_value = "01")]
    pub scale: ScaleMode,
    /// Random seed (splits, probability cross-validation).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// KNPL: regulariser γ of γ‖G‖²_F (default without --select: the reference γ₀ at
    /// which Γ(α_SVM) and 11ᵀ have equal norm; with --select grid: chosen by CV).
    #[arg(long)]
    pub knpl_gamma: Option<f64>,
    /// DANK: nuclear-norm weight τ (the paper: 0.01; dank-scalable always uses τ = 0).
    #[arg(long, default_value_t = 0.01)]
    pub tau: f64,
    /// DANK: η of η‖F − 11ᵀ‖²_F (default: ‖α‖² of the SVM, the paper's rule).
    #[arg(long)]
    pub eta: Option<f64>,
    /// DANK: solver: newton (Newton steps by SMO with a line search; stops at KKT
    /// violation ≤ 1e-3), or the paper's first-order updates: nesterov (Algorithm 1),
    /// monotone (its monotone variant), plain (projected gradient).
    #[arg(long, default_value = "newton")]
    pub dank_scheme: String,
    /// DANK: step rule: backtracking (adaptive L) or paper (the paper's Lipschitz bound).
    #[arg(long, default_value = "backtracking")]
    pub dank_step: String,
    /// MKL: base kernels, as a spec (`;`-separated `KERNEL[@all|@each|@[i,j,..]]`, e.g.
    /// `family12@each` = the thesis's 12 kernels on every single feature,
    /// `rbf(sigma=2)@all;poly(degree=2)@[0,3]`) or a JSON file written by
    /// `kernlearn` (default: `family12@each`, the thesis's Fig. 3.1 family; for the
    /// localized methods `linear@all;poly(degree=2,gamma=1,coef0=1)@all;rbf(gamma=1/d)@all`).
    #[arg(long)]
    pub kernels: Option<String>,
    /// Localized methods: SVM solver of the classifiers, smo (our LIBSVM-style SMO, the
    /// thesis's Table 4.2) or mwu (single-kernel MWUMKL = kernelised Gilbert, Table 4.3).
    #[arg(long, default_value = "smo")]
    pub solver: String,
    /// Localized methods with --solver mwu: Gilbert's relative duality gap (the thesis: 0.01).
    #[arg(long, default_value_t = 0.01)]
    pub lkl_epsilon: f64,
    /// MWUMKL: approximation error ε > 0 (the thesis: 0.2; smaller is slower, ∝ 1/ε).
    #[arg(long, default_value_t = 0.2)]
    pub mwu_epsilon: f64,
    /// EasyMKL: trade-off λ ∈ (0, 1] (chosen by CV with --select grid).
    #[arg(long, default_value_t = 0.1)]
    pub lambda: f64,
    /// nystrom-linear: landmarks per kernel (the thesis: 150).
    #[arg(long, default_value_t = 150)]
    pub landmarks: usize,
    /// dank-scalable: number of k-means clusters (default: max(1, round(n/1000)) for the
    /// n training rows, i.e. clusters of about 1,000 points; the paper used 50 and 200
    /// on 50,000 and 580,000 rows). clmkl: number of soft clusters (default 3).
    #[arg(long)]
    pub clusters: Option<usize>,
}

/// The multiple-kernel methods, as named on the command line.
const MKL_METHODS: [&str; 4] = ["uniform", "mwumkl", "easymkl", "nystrom-linear"];

/// The localized multiple-kernel methods, as named on the command line.
const LOCALIZED_METHODS: [&str; 4] = ["ldmkl", "swmkl", "lmkl", "clmkl"];

/// Base kernels of the localized methods unless `--kernels` is given: the three of the
/// issue's magic benchmark (linear, quadratic, Gaussian), all on every feature, the
/// Gaussian with LIBSVM's default width `γ = 1/d` for `d` features (a fixed σ = 1 makes
/// the Gaussian nearly the identity on sonar's 60 features, and its classifier then
/// votes a constant wherever it was not trained).
pub fn localized_kernels(n_features: usize) -> String {
    let gamma = 1.0 / n_features.max(1) as f64;
    format!("linear@all;poly(degree=2,gamma=1,coef0=1)@all;rbf(gamma={gamma})@all")
}

impl ModelArgs {
    /// The SVM formulation, from `--method` or the dataset's target column name.
    pub fn svm_type(&self, data: &Dataset) -> Result<SvmType> {
        match self.method.as_deref() {
            Some("svm") | None if data.target_name == "target" => Ok(SvmType::EpsilonSvr),
            Some(m) if MKL_METHODS.contains(&m) || LOCALIZED_METHODS.contains(&m) => {
                Ok(SvmType::CSvc)
            }
            Some("svm" | "knpl" | "dank" | "dank-scalable") | None => Ok(SvmType::CSvc),
            Some("dank-svr") => Ok(SvmType::EpsilonSvr),
            Some(m) => m.parse().map_err(|_| {
                Error::param(
                    "method",
                    format!("unknown method `{m}` (svm, svc, nu-svc, one-class, svr, nu-svr, knpl, dank, dank-svr, dank-scalable, uniform, mwumkl, easymkl, nystrom-linear, ldmkl, swmkl, lmkl, clmkl)"),
                )
            }),
        }
    }

    /// The kernel, with defaults filled in for `n_features` columns.
    pub fn kernel(&self, n_features: usize) -> Result<Kernel> {
        if self.kernel.contains(':') || self.kernel.contains('(') {
            return self.kernel.parse();
        }
        let gamma = match (self.gamma, self.sigma) {
            (Some(g), _) => g,
            (None, Some(s)) => {
                if !(s > 0.0 && s.is_finite()) {
                    return Err(Error::param("sigma", format!("must be > 0, got {s}")));
                }
                1.0 / (s * s)
            }
            (None, None) => 1.0 / n_features.max(1) as f64,
        };
        match self.kernel.as_str() {
            "linear" | "precomputed" => self.kernel.parse(),
            "rbf" | "gaussian" => Kernel::rbf_gamma(gamma),
            "poly" | "polynomial" => Kernel::polynomial(self.degree, gamma, self.coef0),
            "laplacian" => Kernel::laplacian(gamma),
            "sigmoid" => Kernel::sigmoid(gamma, self.coef0),
            "chi2" => Kernel::chi_squared(gamma),
            other => other.parse(),
        }
    }

    /// All SVM parameters for `data`.
    pub fn svm_params(&self, data: &Dataset) -> Result<SvmParams> {
        let mut p = SvmParams {
            svm_type: self.svm_type(data)?,
            kernel: self.kernel(data.x.n_cols())?,
            c: self.c,
            nu: self.nu,
            epsilon: self.epsilon,
            class_weights: self.parse_class_weights()?,
            probability: self.probability,
            seed: self.seed,
            ..SvmParams::default()
        };
        p.solver.tol = self.tol;
        p.solver.cache_bytes = (self.cache_mb.max(0.0) * (1u64 << 20) as f64) as usize;
        p.solver.shrinking = !self.no_shrinking;
        p.validate(data.x.n_cols())?;
        Ok(p)
    }

    /// The method to run on `data`, with the grid search `grid` when selection is on.
    pub fn method(&self, data: &Dataset, grid: Option<GridSettings>) -> Result<Method> {
        match self.method.as_deref() {
            Some("knpl") => self.knpl(data, grid),
            Some(m @ ("dank" | "dank-svr")) => self.dank(data, grid, m == "dank-svr"),
            Some(m) if MKL_METHODS.contains(&m) => self.mkl(m, data, grid),
            Some(m) if LOCALIZED_METHODS.contains(&m) => self.localized(m, data, grid),
            Some("dank-scalable") => self.dank_scalable(data, grid),
            _ => Ok(Method::Svm {
                params: self.svm_params(data)?,
                search: grid,
            }),
        }
    }

    /// Base kernel, C and solver settings shared by the kernel-learning methods.
    fn base_svm(&self, data: &Dataset, svm_type: SvmType) -> Result<SvmParams> {
        let mut me = self.clone();
        me.method = Some(svm_type.to_string());
        me.svm_params(data)
    }

    fn knpl(&self, data: &Dataset, grid: Option<GridSettings>) -> Result<Method> {
        let base = self.base_svm(data, SvmType::CSvc)?;
        let params = KnplParams {
            kernel: base.kernel,
            c: base.c,
            gamma: self.knpl_gamma.unwrap_or(1.0),
            solver: base.solver,
            ..KnplParams::default()
        };
        params.validate()?;
        Ok(Method::Knpl {
            params,
            auto_gamma: self.knpl_gamma.is_none(),
            search: grid,
        })
    }

    fn dank(&self, data: &Dataset, grid: Option<GridSettings>, svr: bool) -> Result<Method> {
        let svm_type = if svr {
            SvmType::EpsilonSvr
        } else {
            SvmType::CSvc
        };
        let base = self.base_svm(data, svm_type)?;
        let settings = self.dank_settings(&base)?;
        Ok(Method::Dank {
            params: DankParams {
                task: if svr {
                    Task::Regression
                } else {
                    Task::Classification
                },
                kernel: base.kernel,
                c: base.c,
                epsilon: base.epsilon,
                settings,
            },
            search: grid,
        })
    }

    fn dank_scalable(&self, data: &Dataset, grid: Option<GridSettings>) -> Result<Method> {
        let base = self.base_svm(data, SvmType::CSvc)?;
        let settings = DankSettings {
            tau: 0.0,
            ..self.dank_settings(&base)?
        };
        Ok(Method::DankScalable {
            params: ScalableDankParams {
                kernel: base.kernel,
                c: base.c,
                eta: self.eta,
                clusters: self
                    .clusters
                    .unwrap_or_else(|| ScalableDankParams::default_clusters(data.len())),
                seed: self.seed,
                settings,
            },
            search: grid,
            auto_clusters: self.clusters.is_none(),
        })
    }

    /// `--tau`, `--eta`, `--dank-scheme`, `--dank-step` and the SVM solver settings.
    fn dank_settings(&self, base: &SvmParams) -> Result<DankSettings> {
        let scheme = match self.dank_scheme.as_str() {
            "newton" => Scheme::Newton,
            "nesterov" => Scheme::Nesterov,
            "monotone" => Scheme::NesterovMonotone,
            "plain" => Scheme::ProjectedGradient,
            other => {
                return Err(Error::param(
                    "dank-scheme",
                    format!("`{other}` is not one of newton, nesterov, monotone, plain"),
                ))
            }
        };
        let step = match self.dank_step.as_str() {
            "backtracking" => StepRule::Backtracking,
            "paper" => StepRule::PaperLipschitz,
            other => {
                return Err(Error::param(
                    "dank-step",
                    format!("`{other}` is not one of backtracking, paper"),
                ))
            }
        };
        let settings = DankSettings {
            tau: self.tau,
            eta: self.eta,
            scheme,
            step,
            svm_solver: base.solver,
            ..DankSettings::default()
        };
        settings.validate()?;
        Ok(settings)
    }

    fn mkl(&self, name: &str, data: &Dataset, grid: Option<GridSettings>) -> Result<Method> {
        let family =
            KernelFamily::from_spec_or_file(self.kernels.as_deref().unwrap_or("family12@each"))?;
        family.validate(data.x.n_cols())?;
        let base = self.base_svm(data, SvmType::CSvc)?;
        let method = match name {
            "uniform" => MklMethod::Uniform(UniformParams {
                c: base.c,
                solver: base.solver,
            }),
            "mwumkl" => MklMethod::Mwumkl(MwumklParams {
                epsilon: self.mwu_epsilon,
                c: Some(base.c),
                ..MwumklParams::default()
            }),
            "easymkl" => MklMethod::EasyMkl(EasyMklParams {
                lambda: self.lambda,
                ..EasyMklParams::default()
            }),
            _ => {
                let mut params = NystromLinearParams::new(family, self.landmarks);
                params.svm.c = base.c;
                params.validate()?;
                return Ok(Method::NystromLinear {
                    params,
                    search: grid,
                });
            }
        };
        method.validate()?;
        Ok(Method::Mkl {
            params: MklParams { method, family },
            search: grid,
        })
    }

    fn localized(&self, name: &str, data: &Dataset, grid: Option<GridSettings>) -> Result<Method> {
        let default = localized_kernels(data.x.n_cols());
        let family = KernelFamily::from_spec_or_file(self.kernels.as_deref().unwrap_or(&default))?;
        family.validate(data.x.n_cols())?;
        let base = self.base_svm(data, SvmType::CSvc)?;
        let method = match name {
            "ldmkl" => LocalizedMethod::Ldmkl(GateRegression::default()),
            "swmkl" => LocalizedMethod::Swmkl(GateRegression::default()),
            "lmkl" => LocalizedMethod::Lmkl(LmklSettings::default()),
            _ => LocalizedMethod::Clmkl(ClmklSettings {
                clusters: self.clusters.unwrap_or(3),
                seed: self.seed,
                ..ClmklSettings::default()
            }),
        };
        let solver = match self.solver.as_str() {
            "smo" => SvmSolver::Smo,
            "mwu" => SvmSolver::Mwu {
                epsilon: self.lkl_epsilon,
            },
            other => {
                return Err(Error::param(
                    "solver",
                    format!("`{other}` is not one of smo, mwu"),
                ))
            }
        };
        let params = LocalizedParams {
            c: base.c,
            solver,
            smo: base.solver,
            ..LocalizedParams::new(method, family)
        };
        params.validate()?;
        Ok(Method::Localized {
            params,
            search: grid,
        })
    }

    /// Whether the method classifies `data` (stratified splits, accuracy).
    pub fn is_classifier(&self, data: &Dataset) -> Result<bool> {
        Ok(!self.method(data, None)?.is_regression())
    }

    fn parse_class_weights(&self) -> Result<Vec<(f64, f64)>> {
        self.class_weights
            .iter()
            .map(|s| {
                let bad = || {
                    Error::param(
                        "class-weight",
                        format!("`{s}` is not LABEL=WEIGHT (e.g. `1=2.5`)"),
                    )
                };
                let (l, w) = s.split_once('=').ok_or_else(bad)?;
                Ok((
                    l.trim().parse().map_err(|_| bad())?,
                    w.trim().parse().map_err(|_| bad())?,
                ))
            })
            .collect()
    }
}
