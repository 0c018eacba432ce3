//! Model selection for DANK: the papers' SVM-CV / SVR-CV chooses σ, C (and ε) before
//! the DANK fit (DANK paper, section 6.1.1); the `dank` method's learner (`DankLearner`) runs it.

use super::settings::DankSettings;
use crate::predictor::Task;
use crate::svm::{SvmParams, SvmType};
use crate::{Error, Result};

/// The base parameters of DANK's SVM-CV / SVR-CV (C-SVC or ε-SVR with `settings`'
/// solver), for building a custom
/// [`GridSearch`](crate::select::GridSearch).
pub(crate) fn dank_search_base(task: Task, settings: &DankSettings) -> Result<SvmParams> {
    let svm_type = match task {
        Task::Classification => SvmType::CSvc,
        Task::Regression => SvmType::EpsilonSvr,
        Task::Novelty => {
            return Err(Error::param(
                "task",
                "DANK does classification (dank) or regression (dank-svr)",
            ))
        }
    };
    Ok(SvmParams {
        svm_type,
        solver: settings.svm_solver,
        ..SvmParams::default()
    })
}
