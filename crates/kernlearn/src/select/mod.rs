//! Model selection: grid search with k-fold cross-validation (the papers' SVM-CV and
//! SVR-CV), with one Gram matrix per σ reused across folds and C values.

mod gram;
mod grid;
mod rows;
mod scoring;

pub use grid::{powers_of_two, FoldScores, Grid, GridPlan, GridPoint, GridSearch, Selection};
pub(crate) use rows::SearchRows;
pub use scoring::Scoring;
