//! The options every user of a kernel family reads: the family itself (`kernels`) and
//! the landmark count of its low-rank maps (`landmarks`), and the family read from them.

use super::KernelFamily;
use crate::data::Dataset;
use crate::options::{MethodOptions, OptionSpec, OptionValue};
use crate::Result;

/// `--kernels`.
pub static KERNELS: OptionSpec = OptionSpec::new("kernels", OptionValue::Text, "MKL and localized methods: base kernels, as a spec (`;`-separated `KERNEL[@all|@each|@[i,j,..]]`, e.g. `family12@each` = the thesis's 12 kernels on every single feature, `rbf(sigma=2)@all;poly(degree=2,gamma=1)@[0,3]`) or a JSON file written by kernlearn (default: `family12@each`, the thesis's Fig. 3.1 family; for the localized methods `linear@all;poly(degree=2,gamma=1,coef0=1)@all;rbf(gamma=1/d)@all`)")
.file();
/// `--landmarks`.
pub(crate) static LANDMARKS: OptionSpec = OptionSpec::new("landmarks", OptionValue::Count, "nystrom-linear: landmarks per kernel (default 150, the thesis's). dkmo, m-dkmo: landmarks (clusters or columns) per dense embedding (default 100; the paper does not state it)");

/// The base kernels `options.kernels` names (or `default`), checked against `data`.
pub(crate) fn family_of(
    options: &MethodOptions,
    default: &str,
    data: &Dataset,
) -> Result<KernelFamily> {
    let family = KernelFamily::from_spec_or_file(options.text(&KERNELS).unwrap_or(default))?;
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
