//! Model selection: grid search with k-fold cross-validation (the papers' SVM-CV and
//! SVR-CV) and the repeated-split experiment protocol every reproduction runs on.

pub mod experiment;
pub mod gram;
pub mod grid;

pub use experiment::{
    csv_rows, markdown_table, summarize, Experiment, ExperimentReport, MeanStd, RepeatResult,
    CSV_HEADER,
};
pub use gram::DenseGram;
pub use grid::{powers_of_two, Grid, GridPoint, GridSearch, Selection};
