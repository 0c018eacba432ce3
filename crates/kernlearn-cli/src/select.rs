//! `kernlearn select`: grid search with k-fold cross-validation (SVM-CV / SVR-CV).

use crate::args::{DataArgs, ModelArgs, Rows, WeightArgs};
use crate::out::outln;
use clap::Args;
use kernlearn::data::Dataset;
use kernlearn::learner::GridSettings;
use kernlearn::select::{Grid, Selection};
use kernlearn::{Error, Method, Result};
use serde_json::{json, Map, Value};

/// The grid and folds of a search.
#[derive(Args, Debug, Clone)]
pub struct SelectArgs {
    /// Gaussian widths σ to try (comma-separated; γ = 1/σ²). Default 2^-5,…,2^5.
    #[arg(
        long,
        value_name = "LIST",
        value_delimiter = ',',
        allow_negative_numbers = true
    )]
    pub sigmas: Option<Vec<f64>>,
    /// Values of C to try (comma-separated). Default 2^-5,…,2^5.
    #[arg(
        long,
        value_name = "LIST",
        value_delimiter = ',',
        allow_negative_numbers = true
    )]
    pub cs: Option<Vec<f64>>,
    /// SVR tube widths ε to try (default {0.01, 0.1, 0.5} × std of the targets).
    #[arg(
        long,
        value_name = "LIST",
        value_delimiter = ',',
        allow_negative_numbers = true
    )]
    pub epsilons: Option<Vec<f64>>,
    /// Number of cross-validation folds (stratified for classification; default 5).
    #[arg(long, value_name = "K")]
    pub folds: Option<usize>,
    /// Largest Gram matrix held in memory, MiB (above it: cached solver per fold); for
    /// MKL methods, the largest table of all base kernels' Gram matrices (above it:
    /// kernel values recomputed per fit).
    #[arg(long, value_name = "MIB", default_value_t = 1024.0)]
    pub gram_mb: f64,
    /// For comparing fallback rules (scripts/fallback_rules.py): run the base-kernel
    /// fallback's confirmation CV on every fit and record both partitions' fold scores
    /// (`fallback_evidence`); the decision is unchanged.
    #[arg(long)]
    pub confirm_always: bool,
    /// Folds of the base-kernel fallback's confirmation partition (default: as many as
    /// --folds).
    #[arg(long, value_name = "K")]
    pub confirmation_folds: Option<usize>,
}

impl SelectArgs {
    /// The grid when `searched`; otherwise an error naming the first grid option given,
    /// which nothing would read (`--sigmas` without `--select grid`).
    pub fn when(&self, searched: bool) -> Result<Option<&Self>> {
        self.gram_bytes()?;
        if searched {
            return Ok(Some(self));
        }
        match self.given().next() {
            Some(name) => Err(Error::param(
                name,
                "only applies when a grid is searched (--select grid); without it the \
                 method's own defaults or options are used and this value would be ignored",
            )),
            None => Ok(None),
        }
    }

    /// The grid settings the user gave, by name.
    fn given(&self) -> impl Iterator<Item = &'static str> + '_ {
        [
            ("sigmas", self.sigmas.is_some()),
            ("cs", self.cs.is_some()),
            ("epsilons", self.epsilons.is_some()),
            ("folds", self.folds.is_some()),
            ("confirm-always", self.confirm_always),
            ("confirmation-folds", self.confirmation_folds.is_some()),
        ]
        .into_iter()
        .filter_map(|(name, given)| given.then_some(name))
    }

    /// `--gram-mb` in bytes, checked on every command that takes it (searched or not).
    fn gram_bytes(&self) -> Result<usize> {
        if !(self.gram_mb >= 0.0 && self.gram_mb.is_finite()) {
            return Err(Error::param(
                "gram-mb",
                format!("must be a finite size ≥ 0 MiB, got {}", self.gram_mb),
            ));
        }
        Ok((self.gram_mb * (1u64 << 20) as f64) as usize)
    }

    /// Refuses a grid setting the user gave that `method`'s selection does not read
    /// ([`kernlearn::Learner::grid_reads`]: CKL's random search draws its own widths,
    /// DKMO has no search), naming it, rather than ignoring it.
    pub fn refuse_unread(&self, method: &Method) -> Result<()> {
        let fallback: &[&str] = match method.runs_fallback() {
            true => &["confirm-always", "confirmation-folds"],
            false => &[],
        };
        let reads: Vec<&str> = method
            .grid_reads()
            .iter()
            .chain(fallback)
            .copied()
            .collect();
        match self.given().find(|name| !reads.contains(name)) {
            Some(name) => Err(Error::param(
                name,
                format!(
                    "{}'s selection does not read it (it reads: {}); the value would be \
                     ignored",
                    method.name(),
                    if reads.is_empty() {
                        "none of the grid settings".to_string()
                    } else {
                        reads.join(", ")
                    }
                ),
            )),
            None => Ok(()),
        }
    }

    /// The grid search settings.
    pub fn settings(&self) -> Result<GridSettings> {
        let gram_budget_bytes = self.gram_bytes()?;
        if let Some(k) = self.confirmation_folds.filter(|&k| k < 2) {
            return Err(Error::param(
                "confirmation-folds",
                format!("the confirmation cross-validation needs at least 2 folds, got {k}"),
            ));
        }
        let defaults = Grid::default();
        Ok(GridSettings {
            grid: Grid {
                sigmas: self.sigmas.clone().unwrap_or(defaults.sigmas),
                cs: self.cs.clone().unwrap_or(defaults.cs),
                epsilons: self.epsilons.clone().unwrap_or_default(),
            },
            folds: self.folds.unwrap_or(5),
            gram_budget_bytes,
            confirm_always: self.confirm_always,
            confirmation_folds: self.confirmation_folds,
        })
    }
}

/// The method of the command-line options for `data`, tuned by the grid search of
/// `grid` when given (whose settings the method must read: [`SelectArgs::refuse_unread`]).
pub fn tuned_method(args: &ModelArgs, data: &Dataset, grid: Option<&SelectArgs>) -> Result<Method> {
    let settings = grid.map(SelectArgs::settings).transpose()?;
    let method = args.method(data, settings)?;
    if let Some(grid) = grid {
        grid.refuse_unread(&method)?;
    }
    Ok(method)
}

/// The JSON fields describing a selection.
pub fn selection_fields(sel: &Selection, out: &mut Map<String, Value>, with_grid: bool) {
    let b = &sel.best;
    out.insert(
        "selected".into(),
        json!({
            "sigma": b.sigma,
            "rbf_gamma": 1.0 / (b.sigma * b.sigma),
            "c": b.c,
            "epsilon": b.epsilon,
            "cv_score": b.score,
        }),
    );
    out.insert("cv_metric".into(), json!(sel.metric));
    out.insert("n_tied".into(), json!(sel.n_tied));
    out.insert("tie_rule".into(), json!(sel.tie_rule));
    out.insert("used_gram".into(), json!(sel.used_gram));
    if with_grid {
        let grid: Vec<Value> = sel
            .points
            .iter()
            .map(|p| json!({"sigma": p.sigma, "c": p.c, "epsilon": p.epsilon, "score": p.score}))
            .collect();
        out.insert("grid".into(), json!(grid));
        out.insert("folds".into(), json!(sel.folds));
    }
}

/// `kernlearn select`.
pub fn run(
    data: &DataArgs,
    model: &ModelArgs,
    sel: &SelectArgs,
    (save, weights): (&crate::SaveArgs, &WeightArgs),
    as_json: bool,
    quiet: bool,
) -> Result<()> {
    let inputs: Vec<&std::path::Path> = std::iter::once(data.data.as_path())
        .chain(weights.weight_file.as_deref())
        .collect();
    save.plan(&inputs, model)?;
    // A wide LIBSVM file is searched sparse, as `fit --select grid` searches it (a weight
    // column needs the dense table).
    let can_take = |n_cols| {
        let method = crate::sparse::method(model, Some(sel), n_cols)?;
        Ok(method.takes_sparse() && weights.weight_column.is_none())
    };
    let (fitted, n_train) = match data.read_training(quiet, can_take)? {
        Rows::Sparse(train) => {
            let w = weights.file_weights(train.y.len(), &data.data)?;
            let fitted =
                crate::sparse::fit_pipeline(&train, model, Some(sel), w.as_deref(), quiet)?;
            (fitted, train.y.len())
        }
        Rows::Dense(train) if train.y.is_empty() => {
            return Err(Error::data("the data has no labels to select against"))
        }
        Rows::Dense(train) => {
            let (train, w) = weights.apply(train, &data.data)?;
            let fitted =
                crate::fit_pipeline_weighted(&train, model, Some(sel), w.as_deref(), quiet)?;
            (fitted, train.len())
        }
    };
    let selection = fitted
        .selection
        .as_ref()
        .ok_or_else(|| Error::param("method", "this method has no grid search"))?;
    let mut out = Map::new();
    out.insert("method".into(), json!(fitted.pipeline.model.method()));
    out.insert("n_train".into(), json!(n_train));
    out.insert("select_seconds".into(), json!(fitted.select_seconds));
    out.insert("refit_seconds".into(), json!(fitted.fit_seconds));
    out.insert(
        "n_support".into(),
        json!(fitted.pipeline.model.summary().n_support),
    );
    selection_fields(selection, &mut out, as_json);
    save.save(&fitted.pipeline, &mut out)?;
    if as_json {
        outln!("{}", Value::Object(out));
    } else {
        let b = &selection.best;
        outln!(
            "selected σ = {} (γ = {}), C = {}{} with {}-fold CV {} {:.4} ({}; {})",
            b.sigma,
            1.0 / (b.sigma * b.sigma),
            b.c,
            b.epsilon.map_or(String::new(), |e| format!(", ε = {e}")),
            sel.folds.unwrap_or(5),
            selection.metric,
            b.score,
            match selection.n_tied {
                1 => "no tie".to_string(),
                n => format!("{n} grid points tied"),
            },
            selection.tie_rule
        );
        outln!(
            "grid search {:.3} s, refit {:.3} s",
            fitted.select_seconds,
            fitted.fit_seconds
        );
    }
    Ok(())
}
