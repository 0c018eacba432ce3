//! Kernel banks: what every family that combines base kernels stands on (multiple,
//! localized, continuous and deep kernel learning), below all of them so that no family
//! imports another.
//!
//! - `family`: [`KernelFamily`], base kernel families as a spec (`family12@each`, JSON
//!   files; Moeller 2017, Fig. 3.1), and the shared check of a machine's stored family.
//! - `options`: the `kernels` and `landmarks` options and the family they name.
//!
//! Multiple kernel learning touches `m` kernels on `n` points; storing their Gram
//! matrices costs `m·n²` (the reason MWUMKL exists, Moeller 2017 section 3.2). Here the
//! training points are stored feature-major (`d × n`) so that one kernel's column
//! `k_i(x_t, q)` for every point `t` is a few tight loops over contiguous feature
//! columns, and the kernel list is compiled into a flat table (a million kernels cost
//! tens of megabytes). Trace normalisation needs only the diagonal `k_i(x_t, x_t)`
//! (`crate::kernel::trace_factor`).
//!
//! - `compile`: the family compiled into a flat table of base kernels (`BaseKernels`),
//!   their columns, and the chains of `exp` kernels computed as squares of one another.
//! - `kernel_bank`: `KernelBank`, the compiled family on one fit's points with the
//!   trace-normalisation factor of each kernel.
//! - `table`: `GramTable`, the stored kernels' Gram matrices on a selection's points,
//!   evaluated once and read by all its fits, and the reuse of its buffer
//!   (`TableBufferReuse`).
//! - `combined`: the [`crate::kernel::KernelSource`] adapters for the SMO solver,
//!   `CombinedKernel` (`Σ_i μ_i K̄_i`) and `Ridged` (`s·K + r·I`).
//! - `machine`: [`MklMachine`], a binary SVM on a fixed weighting `Σ_i μ_i K̄_i` (what
//!   MKL fits and what the localized methods start from or combine).
//! - `gilbert`: the kernelised Gilbert solver of a hard- or soft-margin SVM on one
//!   kernel (MWUMKL's inner problem, the localized methods' per-kernel machines).
//! - `nystrom`: [`NystromFeatures`], Nyström feature maps of every base kernel
//!   (LIBLINEAR+, CKL).
//!
//! This file keeps the points stored feature by feature (`ByFeature`), which they all
//! read.

use crate::data::Features;

mod combined;
mod compile;
mod family;
mod gilbert;
mod kernel_bank;
mod machine;
mod nystrom;
mod options;
mod table;

#[cfg(doc)]
pub(crate) use combined::CombinedKernel;
pub(crate) use combined::Ridged;
use compile::BaseKernels;
pub(crate) use family::family_machine;
pub use family::{family12, FamilyItem, FeatureSet, KernelFamily, KernelSet};
pub(crate) use gilbert::{solve_gilbert, GilbertSettings};
pub(crate) use kernel_bank::KernelBank;
pub(crate) use machine::check_binary;
pub use machine::{MachineInfo, MklMachine};
pub use nystrom::{NystromFeatures, NystromMap};
pub use options::KERNELS;
pub(crate) use options::{family_of, LANDMARKS};
pub(crate) use table::{GramTable, TableBufferReuse};

/// Points stored feature by feature: `feature(f)[t]` is feature `f` of point `t`.
#[derive(Clone, Debug)]
pub(crate) struct ByFeature {
    n: usize,
    values: Vec<f64>,
}

impl ByFeature {
    pub(crate) fn new(x: &Features) -> Self {
        let (n, d) = (x.n_rows(), x.n_cols());
        let mut values = vec![0.0; n * d];
        for (t, row) in x.rows().enumerate() {
            for (f, &v) in row.iter().enumerate() {
                values[f * n + t] = v;
            }
        }
        Self { n, values }
    }

    #[inline]
    fn feature(&self, f: usize) -> &[f64] {
        &self.values[f * self.n..(f + 1) * self.n]
    }
}

/// Deterministic points in `[lo, lo + 1)` (xorshift), for the tests of the families
/// on this floor.
#[cfg(test)]
pub(crate) fn points(n: usize, d: usize, seed: u64, lo: f64) -> Features {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let v = (0..n * d)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            lo + (s >> 11) as f64 / (1u64 << 53) as f64
        })
        .collect();
    Features::new(n, d, v).unwrap()
}
