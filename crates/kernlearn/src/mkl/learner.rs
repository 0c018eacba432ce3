//! The multiple-kernel methods as [`Learner`]s: UNIFORM, MWUMKL, EasyMKL and LIBLINEAR+
//! on a kernel family, with the trade-off (C, or EasyMKL's λ) chosen by k-fold CV.

use super::{
    EasyMklParams, GmklRegulariser, KernelFamily, MklMethod, MklModel, MklParams, MwumklParams,
    NystromLinearModel, NystromLinearParams, SpgGmklParams, UniformParams,
};
use crate::data::{Dataset, Features};
use crate::estimator::{AnyModel, Task};
use crate::method::selection::{base_svm_cv, beats, best_candidate, best_value, fall_back};
use crate::method::timed;
use crate::method::{
    ChosenParams, FittedMethod, GridSettings, Learner, Method, MethodKind, MethodOptions,
    ProgressFn, FELL_BACK,
};
use crate::svm::SvmType;
use crate::Result;
use serde::{Deserialize, Serialize};

/// The base kernels of the thesis's MKL experiments: its 12 kernels on every feature.
pub(crate) const DEFAULT_FAMILY: &str = "family12@each";

/// UNIFORM, MWUMKL or EasyMKL on a kernel family ([`MklModel`]). With `search`, the
/// trade-off is chosen by stratified k-fold CV (C ∈ the grid's Cs for UNIFORM and MWUMKL, λ ∈ {0.1, …, 1} for EasyMKL); the kernels
/// and MWUMKL's ε stay as given. With `fallback` (the default), MWUMKL's and EasyMKL's
/// candidates also include UNIFORM (the uniform combination, C over the grid's Cs), and
/// unless the best candidate's CV score beats SVM-CV's on the same folds the fit is the
/// SVM-CV model ([`crate::method::FELL_BACK`], issue 19).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MklLearner {
    /// Method, its parameters and the base kernels.
    pub params: MklParams,
    /// Folds and the C values of the CV; `None` fits `params` as they are.
    #[serde(default)]
    pub search: Option<GridSettings>,
    /// With `search`: UNIFORM among the candidates and the fallback to SVM-CV.
    #[serde(default = "crate::method::yes")]
    pub fallback: bool,
}

/// LIBLINEAR+: Nyström features of every base kernel and a linear SVM
/// ([`NystromLinearModel`]); the landmark draw is seeded by the fit's seed. With
/// `search`, the linear SVM's C is chosen by stratified k-fold CV over the grid's Cs.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct NystromLinearLearner {
    /// Kernels, landmarks and the linear SVM.
    pub params: NystromLinearParams,
    /// Folds and the C values of the CV; `None` fits `params` as they are.
    #[serde(default)]
    pub search: Option<GridSettings>,
}

/// The base kernels `options.kernels` names (or `default`), checked against `data`.
pub(crate) fn family_of(
    options: &MethodOptions,
    default: &str,
    data: &Dataset,
) -> Result<KernelFamily> {
    let family = KernelFamily::from_spec_or_file(options.kernels.as_deref().unwrap_or(default))?;
    family.validate(data.x.n_cols())?;
    // Per kernel and point the methods hold at most a few f32/f64 values (MWUMKL's O(mn)
    // state, UNIFORM's kernel table); 16 bytes is an upper bound.
    let kernels = family.len(data.x.n_cols());
    crate::check::memory_fits(
        "kernels",
        &format!(
            "the family `{family}` ({kernels} kernels on {} points)",
            data.len()
        ),
        16.0 * kernels as f64 * data.len() as f64,
    )?;
    Ok(family)
}

/// Most MWUMKL rounds a fit may take (`⌈4ρ ln n / ε⌉`): beyond it a tiny ε would run
/// for days; the error says which ε is the smallest that fits.
const MAX_MWU_ROUNDS: usize = 1_000_000;

/// Catalogue builder of `uniform`, `mwumkl`, `easymkl` and `nystrom-linear`.
pub(crate) fn build(
    kind: MethodKind,
    options: &MethodOptions,
    data: &Dataset,
    search: Option<GridSettings>,
) -> Result<Method> {
    let family = family_of(options, DEFAULT_FAMILY, data)?;
    let base = options.svm_params(SvmType::CSvc, data.x.n_cols())?;
    let method = match kind {
        MethodKind::Uniform => MklMethod::Uniform(UniformParams {
            c: base.c,
            solver: base.solver,
        }),
        MethodKind::Mwumkl => {
            let defaults = MwumklParams::default();
            let params = MwumklParams {
                epsilon: options.mwu_epsilon.unwrap_or(defaults.epsilon),
                c: Some(base.c),
                ..defaults
            };
            params.validate()?;
            let rounds = params.rounds(data.len());
            if rounds > MAX_MWU_ROUNDS {
                // Rounds scale as 1/ε: those at ε = 1 give the smallest ε that fits.
                let at_one = MwumklParams {
                    epsilon: 1.0,
                    ..params
                };
                let smallest = at_one.rounds(data.len()) as f64 / MAX_MWU_ROUNDS as f64;
                return Err(crate::Error::param(
                    "mwu-epsilon",
                    format!(
                        "ε = {:e} needs more than {MAX_MWU_ROUNDS} rounds on {} points; \
                         use ε ≥ {smallest:.2e}",
                        params.epsilon,
                        data.len()
                    ),
                ));
            }
            MklMethod::Mwumkl(params)
        }
        MethodKind::SpgGmkl => MklMethod::SpgGmkl(spg_params(options, base.c, base.solver)?),
        MethodKind::Easymkl => {
            let defaults = EasyMklParams::default();
            MklMethod::EasyMkl(EasyMklParams {
                lambda: options.lambda.unwrap_or(defaults.lambda),
                ..defaults
            })
        }
        _ => {
            let mut params = NystromLinearParams::new(family, options.landmarks.unwrap_or(150));
            params.svm.c = base.c;
            params.validate()?;
            return Ok(Method::NystromLinear(NystromLinearLearner {
                params,
                search,
            }));
        }
    };
    method.validate()?;
    Ok(Method::Mkl(MklLearner {
        params: MklParams { method, family },
        search,
        fallback: !options.no_fallback,
    }))
}

/// SPG-GMKL's parameters from the options: C, the regulariser and, when `--tol` is
/// given, the SMO tolerance (else SPG-GMKL's own default).
fn spg_params(
    options: &MethodOptions,
    c: f64,
    solver: crate::svm::SolverSettings,
) -> Result<SpgGmklParams> {
    let defaults = SpgGmklParams::default();
    let pnorm_only = [
        ("gmkl-p", options.gmkl_p),
        ("gmkl-lambda", options.gmkl_lambda),
    ];
    let regulariser = match options.gmkl_reg.as_deref() {
        Some("pnorm") => GmklRegulariser::PNorm {
            p: options.gmkl_p.unwrap_or(2.0),
            lambda: options.gmkl_lambda.unwrap_or(1.0),
        },
        _ => {
            if let Some((name, _)) = pnorm_only.iter().find(|(_, v)| v.is_some()) {
                return Err(crate::Error::param(
                    *name,
                    "applies to --gmkl-reg pnorm only (the l1 regulariser has no parameter)",
                ));
            }
            GmklRegulariser::L1
        }
    };
    let solver = crate::svm::SolverSettings {
        tol: options.tol.map_or(defaults.solver.tol, |_| solver.tol),
        ..solver
    };
    let params = SpgGmklParams {
        c,
        regulariser,
        solver,
        ..defaults
    };
    params.validate()?;
    Ok(params)
}

/// SMO settings of UNIFORM's SVM (the defaults for MWUMKL and EasyMKL, which solve
/// their own problems): used by the UNIFORM candidates and the SVM-CV fallback.
fn solver_of(params: &MklParams) -> crate::svm::SolverSettings {
    match &params.method {
        MklMethod::Uniform(u) => u.solver,
        _ => crate::svm::SolverSettings::default(),
    }
}

impl Learner for MklLearner {
    fn name(&self) -> String {
        match self.params.method {
            MklMethod::Uniform(_) => "UNIFORM".into(),
            MklMethod::Mwumkl(_) => "MWUMKL".into(),
            MklMethod::EasyMkl(_) => "EasyMKL".into(),
            MklMethod::SpgGmkl(_) => "SPG-GMKL".into(),
        }
    }

    fn task(&self) -> Task {
        Task::Classification
    }

    fn steps(&self) -> u64 {
        (self.search.as_ref()).map_or(0, |s| {
            let own = self.params.trade_off_candidates(&s.grid).len();
            match (self.fallback, &self.params.method) {
                (false, _) => s.candidate_steps(own),
                (true, MklMethod::Uniform(_)) => s.candidate_steps(own) + s.steps(),
                (true, _) => s.candidate_steps(own + s.grid.cs.len()) + s.steps(),
            }
        })
    }

    fn fit(
        &self,
        x: &Features,
        y: &[f64],
        seed: u64,
        progress: ProgressFn,
    ) -> Result<FittedMethod> {
        let start = std::time::Instant::now();
        let best = (self.search.as_ref())
            .map(|s| {
                let make = |params| MklLearner {
                    params,
                    search: None,
                    fallback: false,
                };
                // UNIFORM first: ties go to the simpler combination.
                let uniform = MklMethod::Uniform(UniformParams {
                    c: 1.0,
                    solver: solver_of(&self.params),
                });
                let mut candidates = Vec::new();
                if self.fallback && !matches!(self.params.method, MklMethod::Uniform(_)) {
                    let u = MklParams {
                        method: uniform,
                        family: self.params.family.clone(),
                    };
                    candidates.extend(s.grid.cs.iter().map(|&c| make(u.with_trade_off(c))));
                }
                let values = self.params.trade_off_candidates(&s.grid);
                candidates.extend(values.iter().map(|&v| make(self.params.with_trade_off(v))));
                best_candidate(candidates, s, x, y, seed, progress)
            })
            .transpose()?;
        if let (Some(s), Some(b), true) = (&self.search, &best, self.fallback) {
            let svm = base_svm_cv(s, solver_of(&self.params), x, y, seed, progress)?;
            if !beats(&b.fold_scores, &svm.fold_scores, false) {
                let seconds = start.elapsed().as_secs_f64();
                return fall_back(svm, b.score, x, y, seconds);
            }
        }
        let params = best.as_ref().map_or(&self.params, |b| &b.chosen.params);
        let mut chosen = ChosenParams {
            cv_score: best.as_ref().map(|b| b.score),
            ..ChosenParams::default()
        };
        if self.search.is_some() && self.fallback {
            chosen.other.insert(FELL_BACK.into(), 0.0);
            let uniform = matches!(params.method, MklMethod::Uniform(_));
            chosen
                .other
                .insert("uniform_chosen".into(), f64::from(u8::from(uniform)));
        }
        match &params.method {
            MklMethod::Uniform(p) => chosen.c = Some(p.c),
            MklMethod::Mwumkl(p) => {
                chosen.c = p.c;
                chosen.other.insert("mwu_epsilon".into(), p.epsilon);
            }
            MklMethod::EasyMkl(p) => {
                chosen.other.insert("easymkl_lambda".into(), p.lambda);
            }
            MklMethod::SpgGmkl(p) => chosen.c = Some(p.c),
        }
        let ((model, trace), secs) = timed(|| MklModel::fit_traced(params, x, y))?;
        let select_seconds = match best {
            Some(_) => start.elapsed().as_secs_f64() - secs,
            None => 0.0,
        };
        Ok(FittedMethod::new(AnyModel::Mkl(model), chosen, secs)
            .selected(select_seconds, None)
            .traced(trace))
    }
}

impl Learner for NystromLinearLearner {
    fn name(&self) -> String {
        "LIBLINEAR+".into()
    }

    fn task(&self) -> Task {
        Task::Classification
    }

    fn steps(&self) -> u64 {
        (self.search.as_ref()).map_or(0, |s| s.candidate_steps(s.grid.cs.len()))
    }

    fn fit(
        &self,
        x: &Features,
        y: &[f64],
        seed: u64,
        progress: ProgressFn,
    ) -> Result<FittedMethod> {
        let mut params = self.params.clone();
        params.seed = seed;
        let best = (self.search.as_ref())
            .map(|s| {
                let make = |c| {
                    let mut p = params.clone();
                    p.svm.c = c;
                    NystromLinearLearner {
                        params: p,
                        search: None,
                    }
                };
                best_value(&s.grid.cs, make, s, x, y, seed, progress)
            })
            .transpose()?;
        if let Some(b) = &best {
            params = b.chosen.params.clone();
        }
        let mut chosen = ChosenParams {
            c: Some(params.svm.c),
            cv_score: best.as_ref().map(|b| b.score),
            ..ChosenParams::default()
        };
        chosen
            .other
            .insert("landmarks".into(), params.landmarks as f64);
        let (model, secs) = timed(|| NystromLinearModel::fit(&params, x, y))?;
        let select_seconds = best.as_ref().map_or(0.0, |b| b.seconds);
        let model = AnyModel::NystromLinear(model);
        Ok(FittedMethod::new(model, chosen, secs).selected(select_seconds, None))
    }
}
