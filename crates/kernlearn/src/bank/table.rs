//! Gram matrices evaluated once for a selection's many fits, and the reuse of their
//! memory.
//!
//! [`GramTable`] holds, for one set of points, the Gram matrix of every base kernel
//! without a chain parent (a chained kernel is read as its root's column squared, the
//! same arithmetic as [`BaseKernels::column`]); banks read their kernel values from it
//! instead of evaluating them again. A table is large and built once per split, so while
//! a [`TableBufferReuse`] scope is open the buffer of the largest dropped table is kept
//! (`SpareTable`, process-wide) for the next table of a similar size.

#[cfg(doc)]
use super::KernelBank;
use super::{BaseKernels, ByFeature, KernelFamily};
use crate::data::Features;
use crate::simd::Squared;
use crate::Result;
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::Mutex;

/// Every base kernel's Gram matrix on one set of points (unnormalised, `f64`), evaluated
/// once so that the many fits of a selection — every candidate C and every fold, each on
/// a subset of these points — read kernel values instead of evaluating them again
/// (without it MWUMKL's selection spends 80 % of its time in `exp`). A bank finds its rows
/// by content ([`KernelBank::new_with`]), so a fold's training part or a class pair needs
/// no index bookkeeping; equal rows have equal kernel values, so any copy serves, and
/// a bank's copies of one row get distinct copies in the table while there are enough
/// (so that a fit with duplicate points still has its own table row for each).
pub(crate) struct GramTable {
    pub(super) family: KernelFamily,
    pub(super) n: usize,
    /// Number of base kernels.
    m: usize,
    /// The stored kernels' columns: `values[(a·s + slot_i)·n + b] = k_i(x_b, x_a)` (`s`
    /// stored kernels), bit for bit what [`BaseKernels::column`] computes (so cached and
    /// evaluated values are identical). Point-major: the columns of one point under
    /// every kernel are contiguous, because the fits read them together (MWUMKL's
    /// round, a row of a combined kernel).
    ///
    /// A chained kernel ([`BaseKernels::parent`]: `exp(−2γ·s)`, the square of its
    /// parent's value) is not stored: a read gives its chain root's column and the
    /// number of squarings, which the reading loop applies ([`GramTable::column`]).
    /// The thesis's family then stores 4 of its 12 kernels per feature set, so sonar's
    /// table (60 features) takes 21 MB instead of 63 MB: it is written three times
    /// faster and, read again every MWUMKL round, it stays in a 32 MB cache.
    values: Vec<f64>,
    /// Each kernel's slot in `values`, [`UNSTORED`] for a chained kernel.
    slot: Vec<u32>,
    /// Number of stored kernels.
    stored: usize,
    /// Each kernel's chain root (itself if it has no parent) and depth in the chain.
    root: Vec<u32>,
    depth: Vec<u32>,
    /// The table rows holding each distinct row, in order.
    rows: HashMap<Vec<u64>, Vec<usize>>,
}

impl std::fmt::Debug for GramTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "GramTable({} kernels on {} points)", self.m, self.n)
    }
}

/// No slot.
const UNSTORED: u32 = u32::MAX;

impl GramTable {
    /// Bytes the table of `family` on `x` takes (`s·n²` values, `s` stored kernels).
    pub(crate) fn bytes(family: &KernelFamily, x: &Features) -> usize {
        let n = x.n_rows();
        let stored = BaseKernels::compile(family, x.n_cols()).map_or_else(
            |_| family.len(x.n_cols()),
            |b| (0..b.len()).filter(|&i| b.parent(i).is_none()).count(),
        );
        stored
            .saturating_mul(n.saturating_mul(n))
            .saturating_mul(std::mem::size_of::<f64>())
    }

    /// The Gram matrices of `family` on `x`, in parallel over points: each point's
    /// column under every stored kernel.
    pub(crate) fn new(family: &KernelFamily, x: &Features) -> Result<Self> {
        let len = Self::bytes(family, x) / std::mem::size_of::<f64>();
        let values = spare_table()
            .take(len)
            .unwrap_or_else(|| crate::memory::huge_page_zeros(len));
        Self::new_in(family, x, values)
    }

    /// [`GramTable::new`] in `values` (resized to fit; its old entries are all
    /// overwritten, so a reused buffer's values never show).
    fn new_in(family: &KernelFamily, x: &Features, mut values: Vec<f64>) -> Result<Self> {
        let base = BaseKernels::compile(family, x.n_cols())?;
        let pts = ByFeature::new(x);
        let (n, m) = (x.n_rows(), base.len());
        // Only chain roots are stored: the stored kernels' columns of every point (in
        // slot order), each chained kernel read as its root's squared.
        let mut stored = 0;
        let slot: Vec<u32> = (0..m)
            .map(|i| match base.parent(i) {
                None => (stored, stored += 1).0,
                Some(_) => UNSTORED,
            })
            .collect();
        let (root, depth): (Vec<u32>, Vec<u32>) = (0..m)
            .map(|i| {
                let (root, links) = base.chain(i);
                (root as u32, links)
            })
            .unzip();
        let stored = stored as usize;
        values.resize(stored * n * n, 0.0);
        values
            .par_chunks_mut((stored * n).max(1))
            .enumerate()
            .for_each_init(
                || vec![0.0; n],
                |sum, (a, block)| base.unchained_columns(&pts, x.row(a), (block, &slot), sum),
            );
        let mut rows: HashMap<Vec<u64>, Vec<usize>> = HashMap::new();
        x.rows()
            .enumerate()
            .for_each(|(a, r)| rows.entry(row_key(r)).or_default().push(a));
        Ok(Self {
            family: family.clone(),
            n,
            m,
            values,
            slot,
            stored,
            root,
            depth,
            rows,
        })
    }

    /// Number of points (rows) of the table.
    pub(crate) fn n_points(&self) -> usize {
        self.n
    }

    /// Whether a loop over `used` of the table's rows is faster over whole, contiguous
    /// table columns (then picking the rows) than gathering those rows: when they are at
    /// least a quarter of the table (vector loads against one load per row).
    pub(crate) fn whole_columns_pay(&self, used: usize) -> bool {
        4 * used >= self.n
    }

    /// Kernel `i`'s column at the table's point `a` (`k_i(x_b, x_a)` for every table
    /// point `b`): its chain root's stored column and the squarings from it to `i`'s
    /// values (the arithmetic of [`BaseKernels::column`], so the same bits).
    #[inline]
    pub(crate) fn column(&self, i: usize, a: usize) -> Squared<'_> {
        let slot = self.slot[self.root[i] as usize] as usize;
        let start = (a * self.stored + slot) * self.n;
        Squared {
            root: &self.values[start..start + self.n],
            squarings: self.depth[i],
        }
    }

    /// `out[t] = k_i(x_{at(t)}, x_a)` for the table points `at(t)` ([`GramTable::column`]).
    pub(crate) fn gather(&self, i: usize, a: usize, at: impl Fn(usize) -> usize, out: &mut [f64]) {
        self.column(i, a).gather(at, out);
    }

    /// The table row of every row of `x`, or `None` if one is not in the table: equal
    /// rows of `x` take the table's copies of that row in turn (the last again once they
    /// run out).
    pub(super) fn rows_of(&self, x: &Features) -> Option<Vec<usize>> {
        // Copies taken so far, by the first table row of their row.
        let mut taken: HashMap<usize, usize> = HashMap::new();
        x.rows()
            .map(|r| {
                let copies = &self.rows.get(&row_key(r))?[..];
                let next = taken.entry(copies[0]).or_insert(0);
                let row = copies[(*next).min(copies.len() - 1)];
                *next += 1;
                Some(row)
            })
            .collect()
    }
}

impl Drop for GramTable {
    fn drop(&mut self) {
        spare_table().keep(std::mem::take(&mut self.values));
    }
}

/// The buffer a dropped [`GramTable`] leaves for the next one while a
/// [`TableBufferReuse`] scope is open: at most one, the largest.
struct SpareTable {
    scopes: usize,
    buffer: Option<Vec<f64>>,
}

impl SpareTable {
    /// The kept buffer (stale contents) for a table of `len` values, if it has room for
    /// them and the table would use at least half of it (a small table — a class pair's,
    /// a localized fit's own — leaves it to the large one that follows).
    fn take(&mut self, len: usize) -> Option<Vec<f64>> {
        self.buffer
            .take_if(|b| b.capacity() >= len && 2 * len >= b.capacity())
    }

    /// Keeps `values` while a scope is open, if it is larger than the buffer kept and at
    /// most [`SPARE_TABLE_BYTES`].
    fn keep(&mut self, values: Vec<f64>) {
        let bytes = values.capacity() * std::mem::size_of::<f64>();
        let larger = (self.buffer.as_ref()).is_none_or(|b| b.capacity() < values.capacity());
        if self.scopes > 0 && larger && bytes <= SPARE_TABLE_BYTES {
            self.buffer = Some(values);
        }
    }
}

static SPARE_TABLE: Mutex<SpareTable> = Mutex::new(SpareTable {
    scopes: 0,
    buffer: None,
});

fn spare_table() -> std::sync::MutexGuard<'static, SpareTable> {
    // The state stays consistent whatever a panicking holder did (two plain fields).
    SPARE_TABLE.lock().unwrap_or_else(|e| e.into_inner())
}

/// While it lives, the buffer of the largest [`GramTable`] dropped (up to
/// [`SPARE_TABLE_BYTES`]) is kept and reused by the next table of a similar size instead
/// of fresh memory, whose pages the kernel must zero on first touch (a sixth of
/// UNIFORM's selection on sonar when its table per split was 63 MB). The buffer is
/// freed when the last scope ends, so nothing is held after the runs that asked for it
/// ([`crate::experiment::Experiment::run`] opens one for its repeats). The scope is
/// process-wide: while one is open, any thread's tables keep and take the buffer.
#[must_use = "the buffer is kept only while the scope lives"]
pub(crate) struct TableBufferReuse(());

impl TableBufferReuse {
    /// Opens a scope (scopes nest and may overlap across threads).
    pub(crate) fn begin() -> Self {
        spare_table().scopes += 1;
        Self(())
    }
}

impl Drop for TableBufferReuse {
    fn drop(&mut self) {
        let mut spare = spare_table();
        spare.scopes -= 1;
        if spare.scopes == 0 {
            spare.buffer = None;
        }
    }
}

/// Largest buffer kept ([`TableBufferReuse`]), in bytes: a kept buffer is held until the
/// next table is built (through the next split's SVM-CV, with the fallback), so it adds
/// to the peak memory of what runs before; 256 MiB bounds what is added (sonar's table
/// is 21 MB).
const SPARE_TABLE_BYTES: usize = 256 << 20;

/// A row's bits, the key of [`GramTable`]'s row lookup.
fn row_key(row: &[f64]) -> Vec<u64> {
    row.iter().map(|v| v.to_bits()).collect()
}

#[cfg(test)]
mod tests {
    use super::super::points;
    use super::*;
    use crate::kernel::Kernel;
    use crate::simd::{add_scaled, add_scaled_squared};

    /// A table built in a reused buffer (longer than it, full of NaN) has the values a
    /// computation of every column gives: no stale entry shows, also where a χ² term is
    /// skipped (a zero feature).
    #[test]
    fn a_reused_table_buffer_shows_no_stale_value() {
        let family: KernelFamily = "family12@each;chi2(gamma=0.3)".parse().unwrap();
        let x = points(41, 3, 8, 0.0);
        let x = Features::new(
            41,
            3,
            (0..123)
                .map(|v| x.row(v / 3)[v % 3] * (v % 3) as f64)
                .collect(),
        )
        .unwrap();
        let base = BaseKernels::compile(&family, 3).unwrap();
        let table = GramTable::new_in(&family, &x, vec![f64::NAN; 50 * 50 * base.len()]).unwrap();
        let pts = ByFeature::new(&x);
        let (mut col, mut got) = (vec![0.0; 41], vec![0.0; 41]);
        for a in 0..41 {
            for i in 0..base.len() {
                base.column(i, &pts, x.row(a), &mut col);
                table.gather(i, a, |t| t, &mut got);
                let same = got.iter().zip(&col);
                assert!(same.into_iter().all(|(t, c)| t.to_bits() == c.to_bits()));
            }
        }
    }

    /// Only the kernels without a parent are stored (4 of the thesis's 12 per feature
    /// set: the 3 polynomials and the widest Gaussian), and a column read from the table
    /// — summed into a vector, or gathered at some rows — has the bits of
    /// [`BaseKernels::column`]; those are within 10⁻¹³ of a direct `exp`.
    #[test]
    fn chained_kernels_are_squared_from_stored_columns_with_the_same_bits() {
        // The thesis's family on each feature and on all, an unchained width, a Laplacian
        // chain beside a Gaussian of half its rate (no link across kernel types), and a
        // chain of 11 widths (more squarings than the loops' constant cases).
        let deep: Vec<String> = (0..11)
            .map(|k| format!("rbf(gamma={})@[1,2]", 0.5f64.powi(k)))
            .collect();
        let spec = format!(
            "family12@each;family12;rbf(gamma=3)@[1];laplacian(gamma=0.5)@[0];laplacian(gamma=0.25)@[0];{}",
            deep.join(";")
        );
        let family: KernelFamily = spec.parse().unwrap();
        let x = points(23, 3, 5, -0.5);
        let base = BaseKernels::compile(&family, 3).unwrap();
        let table = GramTable::new(&family, &x).unwrap();
        let m = base.len();
        assert_eq!(m, 49 + 2 + 11);
        assert_eq!(table.stored, 4 * 4 + 1 + 1 + 1);
        assert_eq!(GramTable::bytes(&family, &x), 19 * 23 * 23 * 8);
        let pts = ByFeature::new(&x);
        let mut col = vec![0.0; 23];
        for a in [0, 9, 22] {
            // Summed into a vector, as the fits read them.
            let mut sum = vec![0.5; 23];
            let mut expected = sum.clone();
            for i in 0..m {
                base.column(i, &pts, x.row(a), &mut col);
                add_scaled_squared(&mut sum, 0.3 + i as f64, table.column(i, a));
                add_scaled(&mut expected, 0.3 + i as f64, &col);
            }
            assert!((0..23).all(|t| sum[t].to_bits() == expected[t].to_bits()));
            let rows = [3, 3, 0, 22];
            let mut part = vec![0.0; 4];
            for i in 0..m {
                base.column(i, &pts, x.row(a), &mut col);
                table.gather(i, a, |t| rows[t], &mut part);
                assert!((0..4).all(|t| part[t].to_bits() == col[rows[t]].to_bits()));
                let (gamma, power) = match base.kernels[i].kernel {
                    Kernel::Rbf { gamma } => (gamma, 2),
                    Kernel::Laplacian { gamma } => (gamma, 1),
                    _ => continue,
                };
                // Each squaring doubles the relative error: about 2^links ulp.
                let tol = 6e-16 * 2f64.powi(base.chain(i).1 as i32);
                for (b, &v) in col.iter().enumerate() {
                    let d: f64 = (base.cols(i).iter())
                        .map(|&f| {
                            (x.row(a)[f as usize] - x.row(b)[f as usize])
                                .abs()
                                .powi(power)
                        })
                        .sum();
                    assert!((v - (-gamma * d).exp()).abs() <= tol * v, "{i}");
                }
            }
            // Values of columns with different squarings, read side by side.
            let (c0, c1) = (table.column(m - 11, a), table.column(m - 2, a));
            let pair = Squared::at_each([(c0, 4), (c1, 17)]);
            assert_eq!(
                pair.map(f64::to_bits),
                [c0.at(4).to_bits(), c1.at(17).to_bits()]
            );
        }
        // The widest width of a chain is its root; γ = 3 has no γ = 1.5 to square, and
        // the Laplacian of rate 0.25 has no Laplacian of rate 0.125 (the Gaussian of that
        // rate on its feature is no parent of it).
        for i in 0..m {
            let widest = if base.cols(i) == [1, 2] {
                1.0 / 1024.0
            } else {
                1.0 / 256.0
            };
            let chained = match base.kernels[i].kernel {
                Kernel::Rbf { gamma } => gamma > widest && gamma != 3.0,
                Kernel::Laplacian { gamma } => gamma == 0.5,
                _ => false,
            };
            assert_eq!(base.parent(i).is_some(), chained, "{i}");
        }
        assert_eq!(base.chain(m - 11), (m - 1, 10));
    }

    /// The spare buffer goes to a table of a similar size (at least half of it), only
    /// the largest is kept, none above [`SPARE_TABLE_BYTES`], and none without a scope.
    #[test]
    fn the_spare_buffer_serves_tables_of_a_similar_size() {
        let mut spare = SpareTable {
            scopes: 0,
            buffer: None,
        };
        spare.keep(vec![0.0; 100]);
        assert!(spare.buffer.is_none());
        spare.scopes = 1;
        spare.keep(vec![0.0; 100]);
        spare.keep(vec![0.0; 60]);
        assert_eq!(spare.buffer.as_ref().map(Vec::capacity), Some(100));
        spare.keep(Vec::with_capacity(SPARE_TABLE_BYTES / 8 + 1));
        assert_eq!(spare.buffer.as_ref().map(Vec::capacity), Some(100));
        assert!(spare.take(101).is_none() && spare.take(49).is_none());
        assert_eq!(spare.take(50).map(|b| b.capacity()), Some(100));
        assert!(spare.buffer.is_none());
    }
}
