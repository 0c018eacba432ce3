//! The multiple-kernel methods as [`Learner`]s: UNIFORM, MWUMKL, EasyMKL and LIBLINEAR+
//! on a kernel family, with the trade-off (C, or EasyMKL's λ) chosen by k-fold CV.

use super::catalogue::{GMKL_LAMBDA, GMKL_P, GMKL_REG, LAMBDA, MWU_DENSE, MWU_EPSILON};
use super::{
    EasyMklParams, GmklRegulariser, MklMethod, MklModel, MklParams, MwumklParams,
    NystromLinearModel, NystromLinearParams, SpgGmklParams, UniformParams,
};
use crate::bank::{family_of, GramTable, KernelFamily, LANDMARKS};
use crate::data::{Dataset, Features};
use crate::learner::fallback::{finish, Decision, Fallback, Kept};
use crate::learner::options::{NO_FALLBACK, TOL};
use crate::learner::selection::{base_svm_cv, best_candidate, best_value, CvRows};
use crate::learner::{
    timed, AnyModel, ChosenParams, FittedMethod, GridSettings, Learner, Method, ProgressFn,
};
use crate::options::MethodOptions;
use crate::predictor::Task;
use crate::svm::SvmType;
use crate::Error;
use crate::Result;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The base kernels of the thesis's MKL experiments: its 12 kernels on every feature.
pub(crate) const DEFAULT_FAMILY: &str = "family12@each";

/// UNIFORM, MWUMKL or EasyMKL on a kernel family ([`MklModel`]). With `search` and
/// `fallback` (the default): SVM-CV first, then UNIFORM and the method at
/// SVM-CV's C (EasyMKL: λ ∈ {0.1, …, 1}) by stratified k-fold CV on the same folds, and
/// unless the best candidate beats SVM-CV (`crate::learner::fallback::Fallback`)
/// the fit is the SVM-CV model ([`crate::learner::FELL_BACK`]). With `search` and no
/// fallback (the thesis's protocol): the method alone, C ∈ the grid's Cs (λ for
/// EasyMKL) by CV. The kernels and MWUMKL's ε stay as given.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MklLearner {
    /// Method, its parameters and the base kernels.
    pub params: MklParams,
    /// Folds and the C values of the CV; `None` fits `params` as they are.
    #[serde(default)]
    pub search: Option<GridSettings>,
    /// With `search`: UNIFORM among the candidates and the fallback to SVM-CV.
    #[serde(default = "crate::learner::yes")]
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

/// Most kernel-value updates an SPG-GMKL fit may plan: every iteration touches every
/// base kernel's `n × n` Gram matrix (plus a fixed cost per kernel), so a family of a
/// million single-feature kernels runs for hours where UNIFORM takes seconds.
const MAX_SPG_WORK: f64 = 1e11;

/// Refuses an SPG-GMKL fit whose kernels × (n² + per-kernel cost) × iterations exceed
/// [`MAX_SPG_WORK`], before any work, naming the kernel count and what would fit.
fn spg_work_fits(family: &KernelFamily, data: &Dataset, max_iter: usize) -> Result<()> {
    let kernels = family.len(data.x.n_cols()) as f64;
    let n = data.len() as f64;
    let per_kernel = (n * n + 1000.0) * max_iter as f64;
    if kernels * per_kernel <= MAX_SPG_WORK {
        return Ok(());
    }
    Err(Error::param(
        "kernels",
        format!(
            "SPG-GMKL would update {kernels} kernels on {n} points in each of up to \
             {max_iter} iterations (about {:.1e} kernel-value updates, hours of work); at \
             most {:.0} kernels fit on these rows: choose a smaller family (e.g. kernels \
             on all features instead of one per feature) or use uniform",
            kernels * per_kernel,
            (MAX_SPG_WORK / per_kernel).floor()
        ),
    ))
}

/// Most MWUMKL rounds a fit may take (`⌈4ρ ln n / ε⌉`): beyond it a tiny ε would run
/// for days; the error says which ε is the smallest that fits.
const MAX_MWU_ROUNDS: usize = 1_000_000;

/// Catalogue builder of `uniform`, `mwumkl`, `easymkl` and `nystrom-linear`.
pub(crate) fn build(
    name: &str,
    options: &MethodOptions,
    data: &Dataset,
    search: Option<GridSettings>,
) -> Result<Method> {
    let family = family_of(options, DEFAULT_FAMILY, data)?;
    let base = options.svm_params(SvmType::CSvc, data.x.n_cols())?;
    let method = match name {
        "uniform" => MklMethod::Uniform(UniformParams {
            c: base.c,
            solver: base.solver,
        }),
        "mwumkl" => {
            let defaults = MwumklParams::default();
            let params = MwumklParams {
                epsilon: options.number(&MWU_EPSILON)?.unwrap_or(defaults.epsilon),
                c: Some(base.c),
                prune: !options.flag(&MWU_DENSE),
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
        "spg-gmkl" => {
            let params = spg_params(options, base.c, base.solver)?;
            spg_work_fits(&family, data, params.max_iter)?;
            MklMethod::SpgGmkl(params)
        }
        "easymkl" => {
            let defaults = EasyMklParams::default();
            MklMethod::EasyMkl(EasyMklParams {
                lambda: options.number(&LAMBDA)?.unwrap_or(defaults.lambda),
                ..defaults
            })
        }
        _ => {
            let mut params =
                NystromLinearParams::new(family, options.count(&LANDMARKS)?.unwrap_or(150));
            params.svm.c = base.c;
            params.validate()?;
            return Ok(Method::new(NystromLinearLearner { params, search }));
        }
    };
    method.validate()?;
    Ok(Method::new(MklLearner {
        params: MklParams { method, family },
        search,
        fallback: !options.flag(&NO_FALLBACK),
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
        ("gmkl-p", options.number(&GMKL_P)?),
        ("gmkl-lambda", options.number(&GMKL_LAMBDA)?),
    ];
    let regulariser = match options.text(&GMKL_REG) {
        Some("pnorm") => GmklRegulariser::PNorm {
            p: pnorm_only[0].1.unwrap_or(2.0),
            lambda: pnorm_only[1].1.unwrap_or(1.0),
        },
        _ => {
            if let Some((name, _)) = pnorm_only.iter().find(|(_, v)| v.is_some()) {
                return Err(crate::Error::param(
                    *name,
                    "applies to «gmkl-reg=pnorm» only (the l1 regulariser has no parameter)",
                ));
            }
            GmklRegulariser::L1
        }
    };
    let solver = crate::svm::SolverSettings {
        tol: if options.is_given(&TOL) {
            solver.tol
        } else {
            defaults.solver.tol
        },
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

/// One fixed MKL candidate of a selection, fitted with kernel values read from the
/// selection's [`GramTable`] (the same model [`MklLearner`] without a search fits).
#[derive(Clone, Debug)]
struct TabledCandidate {
    params: MklParams,
    table: Option<Arc<GramTable>>,
}

impl Learner for TabledCandidate {
    fn name(&self) -> String {
        "MKL candidate".into()
    }

    fn task(&self) -> Task {
        Task::Classification
    }

    fn steps(&self) -> u64 {
        0
    }

    fn fit(&self, x: &Features, y: &[f64], _: u64, _: ProgressFn) -> Result<FittedMethod> {
        self.fit_rows(x, y, None)
    }

    fn fit_weighted(
        &self,
        x: &Features,
        y: &[f64],
        weights: &[f64],
        _: u64,
        _: ProgressFn,
    ) -> Result<FittedMethod> {
        self.fit_rows(x, y, Some(weights))
    }

    fn predict_held_out(&self, fitted: &FittedMethod, x: &Features) -> Result<Vec<f64>> {
        match fitted.model.downcast_ref::<MklModel>() {
            Some(model) => model.predict_with_table(x, self.table.as_ref()),
            None => fitted.model.predict(x),
        }
    }
}

impl TabledCandidate {
    fn fit_rows(&self, x: &Features, y: &[f64], w: Option<&[f64]>) -> Result<FittedMethod> {
        let table = self.table.as_ref();
        let ((model, _), secs) = timed(|| MklModel::fit_with_table(&self.params, x, y, w, table))?;
        Ok(FittedMethod::new(
            AnyModel::new(model),
            ChosenParams::default(),
            secs,
        ))
    }
}

impl MklLearner {
    /// The candidates of the CV, simplest first (ties go to the earlier one).
    ///
    /// - With the fallback (`c_svm`: the C that SVM-CV chose): UNIFORM and the method at
    ///   SVM-CV's C — every base kernel is trace-normalised to mean diagonal 1, as the
    ///   Gaussian kernel of SVM-CV is, so its C has the same scale — and EasyMKL over its
    ///   λ values (its own regulariser). Selection at a small multiple of
    ///   SVM-CV's cost instead of a new C grid per method.
    /// - Without (`--no-fallback`, the thesis's protocol): the method alone, C (or λ)
    ///   over the grid.
    fn candidates(&self, s: &GridSettings, c_svm: Option<f64>) -> Vec<MklParams> {
        let Some(c) = c_svm else {
            let values = self.params.trade_off_candidates(&s.grid);
            return values
                .iter()
                .map(|&v| self.params.with_trade_off(v))
                .collect();
        };
        let uniform = MklParams {
            method: MklMethod::Uniform(UniformParams {
                c,
                solver: solver_of(&self.params),
            }),
            family: self.params.family.clone(),
        };
        let own = match self.params.method {
            MklMethod::Uniform(_) => vec![],
            MklMethod::EasyMkl(_) => (self.params.trade_off_candidates(&s.grid).iter())
                .map(|&v| self.params.with_trade_off(v))
                .collect(),
            _ => vec![self.params.with_trade_off(c)],
        };
        std::iter::once(uniform).chain(own).collect()
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

    fn runs_fallback(&self) -> bool {
        self.fallback && self.search.is_some()
    }

    fn task(&self) -> Task {
        Task::Classification
    }

    fn steps(&self) -> u64 {
        (self.search.as_ref()).map_or(0, |s| match self.fallback {
            false => s.candidate_steps(self.candidates(s, None).len()),
            true => s.steps() + s.candidate_steps(self.candidates(s, Some(1.0)).len()),
        })
    }

    fn fit(
        &self,
        x: &Features,
        y: &[f64],
        seed: u64,
        progress: ProgressFn,
    ) -> Result<FittedMethod> {
        self.fit_rows((x, y, None), seed, progress)
    }

    /// UNIFORM and SPG-GMKL: the weighted C-SVM (point `t`'s box `C·w_t`) in every fit,
    /// and weighted scores in every fold of the selection, SVM-CV's and the fallback's
    /// included ([`MklModel::fit_weighted`]); MWUMKL and EasyMKL refuse, saying why.
    fn fit_weighted(
        &self,
        x: &Features,
        y: &[f64],
        weights: &[f64],
        seed: u64,
        progress: ProgressFn,
    ) -> Result<FittedMethod> {
        if let Some(why) = self.params.method.weights_refusal() {
            return Err(crate::learner::weights_refused(&self.name(), why));
        }
        self.fit_rows((x, y, Some(weights)), seed, progress)
    }
}

impl MklLearner {
    /// The fit, with per-sample weights when given: SVM-CV first (with the fallback),
    /// then the candidates by CV on the same folds, then the chosen one on all rows.
    fn fit_rows(&self, rows: CvRows, seed: u64, progress: ProgressFn) -> Result<FittedMethod> {
        let (x, y, weights) = rows;
        let start = std::time::Instant::now();
        // With the fallback, SVM-CV first: its C is every candidate's C.
        let solver = solver_of(&self.params);
        let svm = (self.search.as_ref())
            .filter(|_| self.fallback)
            .map(|s| base_svm_cv(s, solver, x, y, weights, seed, progress))
            .transpose()?;
        // Every candidate, fold and the final fit are on rows of `x`: one table of
        // kernel values serves them all, when it fits the Gram budget.
        let table = (self.search.as_ref())
            .filter(|s| GramTable::bytes(&self.params.family, x) <= s.gram_budget_bytes)
            .map(|_| GramTable::new(&self.params.family, x).map(Arc::new))
            .transpose()?;
        let kept = match &self.search {
            None => None,
            Some(s) => {
                let fallback = Fallback::new(svm, s, seed, start).weighted(weights);
                let c_svm = fallback.svm().map(|svm| svm.chosen.params.c);
                let candidates = (self.candidates(s, c_svm).into_iter())
                    .map(|params| TabledCandidate {
                        params,
                        table: table.clone(),
                    })
                    .collect();
                let best = best_candidate(candidates, s, rows, seed, progress, fallback.race())?;
                match fallback.decide(best, x, y)? {
                    Decision::FellBack(fitted) => return Ok(fitted),
                    Decision::Kept(kept) => Some(kept),
                }
            }
        };
        let params = kept
            .as_ref()
            .map_or(&self.params, |k| &k.best.chosen.params);
        let mut chosen = ChosenParams {
            cv_score: kept.as_ref().map(|k| k.best.score),
            ..ChosenParams::default()
        };
        if kept.as_ref().is_some_and(Kept::checked) {
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
        let ((model, trace), secs) =
            timed(|| MklModel::fit_with_table(params, x, y, weights, table.as_ref()))?;
        let select_seconds = match kept {
            Some(_) => start.elapsed().as_secs_f64() - secs,
            None => 0.0,
        };
        let fitted = FittedMethod::new(AnyModel::new(model), chosen, secs)
            .selected(select_seconds, None)
            .traced(trace);
        Ok(finish(kept.as_ref(), fitted))
    }
}

impl Learner for NystromLinearLearner {
    fn name(&self) -> String {
        "LIBLINEAR+".into()
    }

    /// Refused: the Nyström landmarks are drawn uniformly from the rows, so a weight
    /// could not act as copies of a row (the linear SVM alone would have a weighted
    /// form).
    fn fit_weighted(
        &self,
        _: &Features,
        _: &[f64],
        _: &[f64],
        _: u64,
        _: ProgressFn,
    ) -> Result<FittedMethod> {
        Err(crate::learner::weights_refused(
            &self.name(),
            "its Nyström landmarks are drawn uniformly from the rows, so a weight could \
             not act as copies of a row",
        ))
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
                best_value(&s.grid.cs, make, s, (x, y, None), seed, progress, None)
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
        let model = AnyModel::new(model);
        Ok(FittedMethod::new(model, chosen, secs).selected(select_seconds, None))
    }
}
