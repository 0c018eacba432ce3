//! The catalogue builder of the kernel machines: the formulation a method name fits,
//! with the kernel, C, ν, ε and SMO settings from the options.

use crate::data::Dataset;
use crate::learner::{GridSettings, Method, SvmLearner};
use crate::options::MethodOptions;
use crate::svm::SvmType;
use crate::Result;

/// The formulation method `name` fits; `svm` is ε-SVR when the data's last column is
/// named `target`, C-SVC otherwise.
fn svm_type(name: &str, data: &Dataset) -> SvmType {
    match name {
        "svm" if data.target_name == "target" => SvmType::EpsilonSvr,
        "nu-svc" => SvmType::NuSvc,
        "one-class" => SvmType::OneClass,
        "svr" => SvmType::EpsilonSvr,
        "nu-svr" => SvmType::NuSvr,
        _ => SvmType::CSvc,
    }
}

/// Catalogue builder of `svm`, `svc`, `nu-svc`, `one-class`, `svr`, `nu-svr`.
pub(crate) fn build(
    name: &str,
    options: &MethodOptions,
    data: &Dataset,
    search: Option<GridSettings>,
) -> Result<Method> {
    options.check_searchable_kernel(search.as_ref())?;
    let params = options.svm_params(svm_type(name, data), data.x.n_cols())?;
    Ok(Method::new(SvmLearner { params, search }))
}
