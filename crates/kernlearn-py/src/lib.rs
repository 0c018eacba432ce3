//! `kernlearn._core`: the Rust side of the Python package (see `python/kernlearn`).
//!
//! Thin on purpose: every function takes numpy arrays and JSON/strings, calls the library
//! (the same `Pipeline::fit`, `GridSearch` and catalogue as the CLI) with the GIL released,
//! and hands back numpy arrays or JSON. The scikit-learn conventions (parameter names,
//! attribute layout, validation) live in the pure-Python layer. One module per concept:
//! conversions (`convert`), the fitted model (`model`), fits (`fit`), grid search
//! (`select`), experiments (`experiment`) and distributed fits (`scale_out`); no
//! module names a method family (they are reached through the catalogue).

mod convert;
mod experiment;
mod fit;
mod model;
mod scale_out;
mod select;

use kernlearn::learner::FELL_BACK;
use pyo3::prelude::*;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<model::PyModel>()?;
    m.add_function(wrap_pyfunction!(fit::catalogue, m)?)?;
    m.add_function(wrap_pyfunction!(fit::fit_svm, m)?)?;
    m.add_function(wrap_pyfunction!(fit::fit_method, m)?)?;
    m.add_function(wrap_pyfunction!(select::grid_search, m)?)?;
    m.add_function(wrap_pyfunction!(select::grid_search_plan, m)?)?;
    m.add_function(wrap_pyfunction!(select::grid_search_block, m)?)?;
    m.add_function(wrap_pyfunction!(select::grid_search_select, m)?)?;
    m.add_function(wrap_pyfunction!(experiment::experiment_repeat, m)?)?;
    m.add_function(wrap_pyfunction!(experiment::experiment_report, m)?)?;
    m.add_function(wrap_pyfunction!(experiment::wilcoxon, m)?)?;
    m.add_class::<scale_out::PyCoordinator>()?;
    m.add_class::<scale_out::PyScaleOutWorker>()?;
    m.add_function(wrap_pyfunction!(scale_out::scale_out_partitioned, m)?)?;
    m.add_function(wrap_pyfunction!(scale_out::scale_out_start, m)?)?;
    m.add_function(wrap_pyfunction!(scale_out::scale_out_group, m)?)?;
    m.add_function(wrap_pyfunction!(scale_out::kernel_count, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("FELL_BACK", FELL_BACK)?;
    Ok(())
}
