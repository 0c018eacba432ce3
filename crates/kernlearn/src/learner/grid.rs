//! [`GridSettings`], the grid and folds of a cross-validated selection (the papers'
//! SVM-CV / SVR-CV), which every learner's selection shares.

use crate::select::{Grid, GridSearch};
use crate::svm::SvmParams;
use serde::{Deserialize, Serialize};

/// Grid and folds of a cross-validated selection (the papers' SVM-CV / SVR-CV).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GridSettings {
    /// Values to try (the papers': σ, C ∈ 2⁻⁵…2⁵).
    pub grid: Grid,
    /// Number of folds (the papers: 5).
    pub folds: usize,
    /// Largest Gram matrix held in memory, bytes (see [`GridSearch::gram_budget_bytes`]).
    pub gram_budget_bytes: usize,
    /// For measuring fallback rules: the base-kernel fallback's confirmation CV runs even
    /// when the selection folds already decided, so that both partitions' scores are
    /// recorded ([`super::ChosenParams::fallback_evidence`]) on every fit; the decision
    /// itself is unchanged.
    #[serde(default)]
    pub confirm_always: bool,
    /// Folds of the fallback's confirmation partition (`None`: as many as the
    /// selection's).
    #[serde(default)]
    pub confirmation_folds: Option<usize>,
}

impl Default for GridSettings {
    /// The papers' protocol: default grid, 5 folds, 1 GiB.
    fn default() -> Self {
        Self {
            grid: Grid::default(),
            folds: 5,
            gram_budget_bytes: 1 << 30,
            confirm_always: false,
            confirmation_folds: None,
        }
    }
}

impl GridSettings {
    /// The grid search over `base` with these settings and fold seed `seed`.
    pub(crate) fn search(&self, base: &SvmParams, seed: u64) -> GridSearch {
        let mut gs = GridSearch::new(base.clone());
        gs.grid = self.grid.clone();
        gs.folds = self.folds;
        gs.seed = seed;
        gs.gram_budget_bytes = self.gram_budget_bytes;
        gs
    }

    /// Units of progress one search reports (σ × fold).
    pub(crate) fn steps(&self) -> u64 {
        (self.grid.sigmas.len() * self.folds) as u64
    }

    /// Units of progress of a CV over `candidates` values (candidate × fold).
    pub(crate) fn candidate_steps(&self, candidates: usize) -> u64 {
        (candidates * self.folds) as u64
    }
}
