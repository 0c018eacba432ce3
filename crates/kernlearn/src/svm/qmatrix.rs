//! The `Q` matrices of the SVM duals, read row by row through the row cache.
//!
//! C-SVC / ν-SVC: `Q_ij = y_i y_j k(x_i, x_j)`; one-class: `Q_ij = k(x_i, x_j)`;
//! ε-SVR / ν-SVR: the `2l × 2l` matrix `[K −K; −K K]` (LIBSVM's `SVR_Q`).

use super::cache::RowCache;
use crate::kernel::{KernelSource, ReorderedRows, MAX_ROWS};
use crate::simd::with_simd;
use std::cell::Cell;

/// What the SMO solver needs from `Q`: rows (with the diagonal) restricted to the active set,
/// and the ability to follow a permutation of the variables (shrinking).
pub(crate) trait QMatrix {
    /// Row `i`, columns `0..len`, and the diagonal.
    fn row(&mut self, i: usize, len: usize) -> (&[f32], &[f64]);
    /// Rows `i` and `j` (distinct), columns `0..len`, and the diagonal.
    fn two_rows(&mut self, i: usize, j: usize, len: usize) -> (&[f32], &[f32], &[f64]);
    /// Swaps variables `i` and `j`.
    fn swap_index(&mut self, i: usize, j: usize);

    /// How many rows of `len` columns [`QMatrix::fill_rows`] computes in one pass; 1 when
    /// it computes them one at a time (then it is never called).
    fn batch_width(&self, _len: usize) -> usize {
        1
    }

    /// Whether row `i` holds columns `0..len` (a hint: it may still have to be computed).
    fn has_row(&self, _i: usize, _len: usize) -> bool {
        true
    }

    /// Computes the rows `rows` (at most [`QMatrix::batch_width`]), columns `0..len`,
    /// together, for [`QMatrix::row`] to read later without computing them.
    fn fill_rows(&mut self, _rows: &[usize], _len: usize) {}
}

/// Writes `out[t] = s_i s_t k(x_point, x_{cols[t]})`: a kernel row with the row's sign
/// `sign_i` and the columns' signs `col_signs`.
fn fill_signed(
    source: &dyn KernelSource,
    point: usize,
    cols: &[usize],
    sign_i: i8,
    col_signs: &[i8],
    out: &mut [f32],
) {
    source.fill_row(point, cols, out);
    apply_signs(sign_i, col_signs, out);
}

/// `out[t] ← s_i s_t out[t]`, by flipping the sign bit where the signs differ (the bits
/// of a negation, without a branch, so the loop vectorises).
fn apply_signs(sign_i: i8, col_signs: &[i8], out: &mut [f32]) {
    for (v, &s) in out.iter_mut().zip(col_signs) {
        let flip = u32::from(s != sign_i) << 31;
        *v = f32::from_bits(v.to_bits() ^ flip);
    }
}

/// `Q_ij = s_i s_j k(x_i, x_j)` with signs `s` (labels for SVC, all ones for one-class),
/// rows computed on demand and kept in the LRU [`RowCache`].
pub(crate) struct SignedKernelQ<S> {
    source: S,
    /// Current position → original point.
    index: Vec<usize>,
    sign: Vec<i8>,
    diag: Vec<f64>,
    cache: RowCache,
    /// The points in the solver's order, when the source offers them: rows are then
    /// computed on contiguous positions instead of through `index`.
    ordered: Option<ReorderedRows>,
    /// How rows are computed together in [`QMatrix::fill_rows`].
    batching: Batching,
}

impl<S: KernelSource> SignedKernelQ<S> {
    pub(crate) fn new(source: S, sign: &[i8], cache_bytes: usize) -> Self {
        let n = source.len();
        let diag = (0..n).map(|i| source.diag(i)).collect();
        let index: Vec<usize> = (0..n).collect();
        let ordered = source.reorderable(&index);
        let cache = RowCache::new(n, cache_bytes);
        let batching = Batching::new(ordered.as_ref(), &cache, n);
        Self {
            source,
            index,
            sign: sign.to_vec(),
            diag,
            cache,
            ordered,
            batching,
        }
    }

    fn fill(&mut self, i: usize, len: usize) {
        let start = self.cache.reserve(i, len);
        self.compute(i, start, len);
    }

    /// Computes columns `start..len` of row `i`, reserved.
    fn compute(&mut self, i: usize, start: usize, len: usize) {
        if start < len {
            let out = &mut self.cache.row_mut(i)[start..len];
            let signs = &self.sign[start..len];
            match &self.ordered {
                Some(rows) => {
                    rows.fill(i, start, out);
                    apply_signs(self.sign[i], signs, out);
                }
                None => fill_signed(
                    &self.source,
                    self.index[i],
                    &self.index[start..len],
                    self.sign[i],
                    signs,
                    out,
                ),
            }
        }
    }
}

/// Rows computed together: [`SignedKernelQ`] computes a missing row with the rows the
/// solver names as likely next ([`QMatrix::fill_rows`]), in one pass over the reordered
/// copy of the points instead of one pass per row.
///
/// It pays only where a pass is bound by reading the copy: measured on 2 shared cores
/// (C-SVC, RBF), 50,000 points of 20 features (a row reads 8 MB; the cache holds a
/// fiftieth of `Q`), a row computed in a batch of four cost two thirds of a row alone
/// and 85 % of the rows computed ahead were read: the fit took 4 % less time on one
/// thread and 21 % less on two (a batch is long enough to split), while on magic
/// (15,216 × 10) and shuttle (46,400 × 9), whose rows read what one core's cache holds,
/// fits were 30–50 % slower (57 % and 42 % of the rows ahead read). So it is on only
/// where a row reads at least [`MIN_BATCH_BYTES`].
struct Batching {
    /// Rows per pass; 1: off.
    width: usize,
    /// Rows computed ahead of being asked for.
    made: usize,
}

/// Rows computed in one pass when batching is on.
const BATCH: usize = 4;

/// Fewest bytes a row must read (on average) for rows to be computed in batches: beyond
/// what one core's L2 holds, so that a pass is bound by reading them.
const MIN_BATCH_BYTES: usize = 4 << 20;

impl Batching {
    /// On when rows come from a reordered copy whose rows read at least
    /// [`MIN_BATCH_BYTES`] and the cache cannot hold `Q` (else each row is computed once
    /// anyway) but holds many batches (the two rows of a working pair must survive a
    /// batch for either).
    fn new(ordered: Option<&ReorderedRows>, cache: &RowCache, n: usize) -> Self {
        let on = ordered.is_some_and(|o| o.row_bytes() >= MIN_BATCH_BYTES)
            && !cache.holds(n, n)
            && cache.holds(8 * BATCH, n);
        Self::with_width(if on { BATCH } else { 1 })
    }

    /// `width` rows per pass (1: off).
    fn with_width(width: usize) -> Self {
        Self { width, made: 0 }
    }
}

impl<S: KernelSource> QMatrix for SignedKernelQ<S> {
    fn row(&mut self, i: usize, len: usize) -> (&[f32], &[f64]) {
        self.fill(i, len);
        (&self.cache.row(i)[..len], &self.diag)
    }

    fn two_rows(&mut self, i: usize, j: usize, len: usize) -> (&[f32], &[f32], &[f64]) {
        self.fill(i, len);
        self.fill(j, len);
        let (a, b) = self.cache.two_rows(i, j);
        (&a[..len], &b[..len], &self.diag)
    }

    fn swap_index(&mut self, i: usize, j: usize) {
        self.cache.swap_index(i, j);
        self.index.swap(i, j);
        self.sign.swap(i, j);
        self.diag.swap(i, j);
        if let Some(rows) = &mut self.ordered {
            rows.swap(i, j);
        }
    }

    fn batch_width(&self, _len: usize) -> usize {
        self.batching.width
    }

    fn has_row(&self, i: usize, len: usize) -> bool {
        self.cache.held(i) >= len
    }

    fn fill_rows(&mut self, rows: &[usize], len: usize) {
        if self.ordered.is_none() {
            for &i in rows {
                self.fill(i, len);
            }
            return;
        }
        let mut missing = [0usize; MAX_ROWS];
        let mut count = 0;
        for &i in rows {
            let start = self.cache.reserve(i, len);
            if start == 0 && len > 0 {
                missing[count] = i;
                count += 1;
            } else {
                // Partly held: the rest alone (an entry does not depend on the range).
                self.compute(i, start, len);
            }
        }
        let Some(ordered) = &self.ordered else {
            return;
        };
        let missing = &missing[..count];
        // Taken out of the cache to be written side by side, then put back.
        let mut taken: Vec<Vec<f32>> = missing.iter().map(|&i| self.cache.take_row(i)).collect();
        let mut outs: Vec<&mut [f32]> = taken.iter_mut().map(|r| &mut r[..len]).collect();
        ordered.fill_rows(missing, 0, &mut outs);
        for (out, &i) in outs.iter_mut().zip(missing) {
            apply_signs(self.sign[i], &self.sign[..len], out);
        }
        for (row, &i) in taken.into_iter().zip(missing) {
            self.cache.put_back(i, row);
        }
        // The first row is the one asked for; the others are computed ahead.
        self.batching.made += count - usize::from(missing.first() == rows.first());
    }
}

/// Never brought up to date (see [`DenseQ`]).
const STALE: usize = usize::MAX;

/// The same `Q` as [`SignedKernelQ`], held whole in memory (`l²` `f32`), for problems
/// whose matrix fits the cache budget and that are solved many times (grid search along
/// C): no eviction, no recomputation between solves.
///
/// Row `r` of the storage is the row of original point `r`, its columns in the solver's
/// current order. Instead of swapping two columns in every row at each `swap_index`
/// (what LIBSVM's cache does, `O(l)` scattered writes), swaps are appended to a log and a
/// row replays the ones it missed when it is next read, or is refilled from the source
/// when it missed many.
pub(crate) struct DenseQ<S> {
    source: S,
    l: usize,
    /// Current position → original point.
    index: Vec<usize>,
    /// Signs by current position, and by original point.
    sign: Vec<i8>,
    point_sign: Vec<i8>,
    diag: Vec<f64>,
    values: Vec<f32>,
    /// Per stored row: length of `log` when it was last brought up to date.
    seen: Vec<usize>,
    log: Vec<(u32, u32)>,
    /// When the source is a view of a matrix held in memory (a fold of a grid search's
    /// Gram matrix): the stored column of each current position, so that a row is
    /// refilled by one gather from the stored row, its signs applied on the way.
    stored_cols: Option<Vec<u32>>,
    /// Sign bit of `f32` (`0` or `0x8000_0000`) of each current position's sign.
    sign_bits: Vec<u32>,
}

/// The `f32` sign bit for a sign `±1`.
fn sign_bit(s: i8) -> u32 {
    if s < 0 {
        0x8000_0000
    } else {
        0
    }
}

with_simd! {
    /// `out_t = src[cols_t]` with its sign bit flipped by `bits_t ^ flip`.
    fn gather_signed(src: &[f32], cols: &[u32], bits: &[u32], flip: u32, out: &mut [f32]) -> () = gather_signed_body
}

#[inline(always)]
fn gather_signed_body(src: &[f32], cols: &[u32], bits: &[u32], flip: u32, out: &mut [f32]) {
    for ((o, &c), &b) in out.iter_mut().zip(cols).zip(bits) {
        *o = f32::from_bits(src[c as usize].to_bits() ^ b ^ flip);
    }
}

thread_local! {
    /// Storage of the last `DenseQ` dropped on this thread, for the next one: grid search
    /// builds one per (σ, fold), and a fresh allocation of that size costs a page fault
    /// per 4 KiB on first touch.
    static SPARE: Cell<Vec<f32>> = const { Cell::new(Vec::new()) };
}

/// Frees the storage this thread keeps for the next [`DenseQ`].
pub(crate) fn release_dense_storage() {
    SPARE.with(|s| drop(s.take()));
}

impl<S: KernelSource> DenseQ<S> {
    pub(crate) fn new(source: S, sign: &[i8]) -> Self {
        let l = source.len();
        let diag = (0..l).map(|i| source.diag(i)).collect();
        // Old contents are harmless: every row is filled before it is read (`STALE`).
        let mut values = SPARE.with(|s| s.take());
        if values.capacity() < l * l {
            values = crate::memory::huge_page_zeros(l * l);
        }
        values.resize(l * l, 0.0);
        let stored_cols = source.as_subset().and_then(|(inner, idx)| {
            let stored = idx.first().is_some_and(|&p| inner.stored_row(p).is_some());
            let fits = u32::try_from(inner.len()).is_ok();
            (stored && fits).then(|| idx.iter().map(|&c| c as u32).collect())
        });
        Self {
            source,
            l,
            index: (0..l).collect(),
            sign: sign.to_vec(),
            point_sign: sign.to_vec(),
            diag,
            values,
            seen: vec![STALE; l],
            log: Vec::new(),
            stored_cols,
            sign_bits: sign.iter().map(|&v| sign_bit(v)).collect(),
        }
    }

    /// Bytes a `DenseQ` of `l` variables holds.
    pub(crate) fn bytes(l: usize) -> usize {
        l.saturating_mul(l)
            .saturating_mul(std::mem::size_of::<f32>())
    }

    /// Brings the stored row of original point `r` to the current column order.
    fn refresh(&mut self, r: usize) {
        let l = self.l;
        let seen = self.seen[r];
        if seen == self.log.len() {
            return;
        }
        let row = &mut self.values[r * l..(r + 1) * l];
        // Replaying a swap touches two entries; refilling gathers every entry through the
        // source's index maps from memory. Measured on grid searches: replaying stays
        // cheaper up to about l swaps (a threshold of l/32 made them 30 % slower).
        if seen == STALE || self.log.len() - seen > l {
            let flip = sign_bit(self.point_sign[r]);
            let stored = self.source.as_subset().and_then(|(inner, idx)| {
                let cols = self.stored_cols.as_deref()?;
                Some((inner.stored_row(idx[r])?, cols))
            });
            match stored {
                Some((src, cols)) => gather_signed(src, cols, &self.sign_bits, flip, row),
                None => fill_signed(
                    &self.source,
                    r,
                    &self.index,
                    self.point_sign[r],
                    &self.sign,
                    row,
                ),
            }
        } else {
            for &(a, b) in &self.log[seen..] {
                row.swap(a as usize, b as usize);
            }
        }
        self.seen[r] = self.log.len();
    }
}

impl<S> Drop for DenseQ<S> {
    fn drop(&mut self) {
        let values = std::mem::take(&mut self.values);
        SPARE.with(|s| {
            let spare = s.take();
            s.set(if spare.capacity() > values.capacity() {
                spare
            } else {
                values
            });
        });
    }
}

impl<S: KernelSource> QMatrix for DenseQ<S> {
    fn row(&mut self, i: usize, len: usize) -> (&[f32], &[f64]) {
        let r = self.index[i];
        self.refresh(r);
        (&self.values[r * self.l..r * self.l + len], &self.diag)
    }

    fn two_rows(&mut self, i: usize, j: usize, len: usize) -> (&[f32], &[f32], &[f64]) {
        let (ri, rj) = (self.index[i], self.index[j]);
        self.refresh(ri);
        self.refresh(rj);
        let l = self.l;
        (
            &self.values[ri * l..ri * l + len],
            &self.values[rj * l..rj * l + len],
            &self.diag,
        )
    }

    fn swap_index(&mut self, i: usize, j: usize) {
        if i == j {
            return;
        }
        self.index.swap(i, j);
        self.sign.swap(i, j);
        self.sign_bits.swap(i, j);
        if let Some(cols) = &mut self.stored_cols {
            cols.swap(i, j);
        }
        self.diag.swap(i, j);
        // A long log only means refills: past a few full sweeps, start over.
        if self.log.len() >= 16 * self.l {
            self.log.clear();
            self.seen.fill(STALE);
        }
        self.log.push((i as u32, j as u32));
    }
}

/// Signs of the `2l` SVR variables: `+1` for `α`, `−1` for `α*`.
pub(crate) fn svr_signs(l: usize) -> Vec<i8> {
    std::iter::repeat_n(1, l)
        .chain(std::iter::repeat_n(-1, l))
        .collect()
}

/// The ε-SVR / ν-SVR matrix: variable `t < l` is `α_t`, variable `t ≥ l` is `α*_{t−l}`;
/// `Q_st = σ_s σ_t k(x_{s mod l}, x_{t mod l})` with `σ = +1` then `−1`.
/// Kernel rows are cached unpermuted (length `l`), and signed rows are assembled into two
/// alternating buffers.
pub(crate) struct SvrQ<'a> {
    source: &'a dyn KernelSource,
    all_points: Vec<usize>,
    index: Vec<usize>,
    sign: Vec<i8>,
    diag: Vec<f64>,
    cache: RowCache,
    buffers: [Vec<f32>; 2],
}

impl<'a> SvrQ<'a> {
    pub(crate) fn new(source: &'a dyn KernelSource, cache_bytes: usize) -> Self {
        let l = source.len();
        let diag: Vec<f64> = (0..l).map(|i| source.diag(i)).collect();
        Self {
            source,
            all_points: (0..l).collect(),
            index: (0..l).chain(0..l).collect(),
            sign: svr_signs(l),
            diag: diag.iter().chain(diag.iter()).copied().collect(),
            cache: RowCache::new(l, cache_bytes),
            buffers: [vec![0.0; 2 * l], vec![0.0; 2 * l]],
        }
    }

    /// Writes signed row `i` (columns `0..len`) into buffer `b`.
    fn assemble(&mut self, i: usize, len: usize, b: usize) {
        let real = self.index[i];
        let data = self.cache.fill_from(self.source, real, &self.all_points);
        let si = self.sign[i];
        let buf = &mut self.buffers[b][..len];
        for ((v, &s), &k) in buf
            .iter_mut()
            .zip(&self.sign[..len])
            .zip(&self.index[..len])
        {
            let q = data[k];
            *v = if s == si { q } else { -q };
        }
    }
}

impl QMatrix for SvrQ<'_> {
    fn row(&mut self, i: usize, len: usize) -> (&[f32], &[f64]) {
        self.assemble(i, len, 0);
        (&self.buffers[0][..len], &self.diag)
    }

    fn two_rows(&mut self, i: usize, j: usize, len: usize) -> (&[f32], &[f32], &[f64]) {
        self.assemble(i, len, 0);
        self.assemble(j, len, 1);
        (&self.buffers[0][..len], &self.buffers[1][..len], &self.diag)
    }

    fn swap_index(&mut self, i: usize, j: usize) {
        self.index.swap(i, j);
        self.sign.swap(i, j);
        self.diag.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Features;
    use crate::kernel::{FeatureKernel, Kernel};
    use crate::svm::solver::{solve, SolverOptions, Variant};
    use crate::svm::SubsetSource;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// A C-SVC solve whose missing rows are computed in batches with the rows the solver
    /// names as likely next is the solve with rows computed one at a time: the same
    /// iterations, objective, offset and α, bit for bit (each entry is computed by the
    /// same operations), on a cache holding a tenth of `Q`, with and without shrinking.
    #[test]
    fn batched_rows_leave_the_solve_unchanged() {
        let (n, d) = (900, 6);
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let values: Vec<f64> = (0..n * d).map(|_| rng.random_range(-1.0..1.0)).collect();
        let x = Features::new(n, d, values).unwrap();
        let y: Vec<i8> = (0..n)
            .map(|t| {
                let r = x.row(t);
                let noisy = r[0] * r[1] + 0.3 * r[2] + rng.random_range(-0.2..0.2);
                if noisy > 0.0 {
                    1
                } else {
                    -1
                }
            })
            .collect();
        let kernel = Kernel::Rbf { gamma: 2.0 };
        let source = FeatureKernel::new(&kernel, &x).unwrap();
        for shrinking in [true, false] {
            let opts = SolverOptions {
                eps: 1e-3,
                shrinking,
                max_iter: 1_000_000,
            };
            let run = |width: usize| {
                let mut q = SignedKernelQ::new(&source, &y, n * n * 4 / 10);
                q.batching = Batching::with_width(width);
                let sol = solve(
                    &mut q,
                    &vec![-1.0; n],
                    &y,
                    vec![0.0; n],
                    vec![1.0; n],
                    Variant::Standard,
                    opts,
                );
                (sol, q.batching.made)
            };
            let (one, _) = run(1);
            let (batched, ahead) = run(BATCH);
            assert!(ahead > 0, "rows were computed ahead");
            assert_eq!(one.iterations, batched.iterations);
            assert_eq!(one.obj.to_bits(), batched.obj.to_bits());
            assert_eq!(one.rho.to_bits(), batched.rho.to_bits());
            let bits = |a: &[f64]| a.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&one.alpha), bits(&batched.alpha));
        }
    }

    /// A matrix held as `f32` rows, as a grid search's Gram matrix.
    struct Stored {
        n: usize,
        values: Vec<f32>,
    }

    impl KernelSource for Stored {
        fn len(&self) -> usize {
            self.n
        }

        fn diag(&self, i: usize) -> f64 {
            self.values[i * self.n + i] as f64
        }

        fn fill_row(&self, i: usize, cols: &[usize], out: &mut [f32]) {
            let row = &self.values[i * self.n..(i + 1) * self.n];
            for (o, &c) in out.iter_mut().zip(cols) {
                *o = row[c];
            }
        }

        fn stored_row(&self, i: usize) -> Option<&[f32]> {
            Some(&self.values[i * self.n..(i + 1) * self.n])
        }
    }

    /// On a view of a stored matrix, `DenseQ` (rows gathered from the stored rows with
    /// their signs, or brought up to date by replaying swaps) reads the same rows as
    /// `SignedKernelQ` (rows computed through the view), bit for bit, through thousands
    /// of swaps.
    #[test]
    fn dense_q_of_a_stored_view_follows_swaps() {
        let n = 90;
        let values: Vec<f32> = (0..n * n)
            .map(|ij| (((ij / n) * 31 + (ij % n) * 17) % 101) as f32 / 50.0 - 1.0)
            .collect();
        let stored = Stored { n, values };
        let idx: Vec<usize> = (0..n).filter(|i| i % 3 != 1).rev().collect();
        let l = idx.len();
        let signs: Vec<i8> = (0..l).map(|t| if t % 5 < 2 { -1 } else { 1 }).collect();
        let mut dense = DenseQ::new(SubsetSource::new(&stored, idx.clone()), &signs);
        assert!(dense.stored_cols.is_some(), "the view's rows are gathered");
        let mut cached = SignedKernelQ::new(SubsetSource::new(&stored, idx), &signs, 1 << 20);
        let mut state: u64 = 5;
        let mut next = |m: usize| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as usize % m
        };
        for step in 0..4000 {
            let (i, j) = (next(l), next(l));
            dense.swap_index(i, j);
            cached.swap_index(i, j);
            if step % 7 == 0 {
                let (r, len) = (next(l), 1 + next(l));
                let a: Vec<u32> = dense.row(r, len).0.iter().map(|v| v.to_bits()).collect();
                let b: Vec<u32> = cached.row(r, len).0.iter().map(|v| v.to_bits()).collect();
                assert_eq!(a, b, "step {step}, row {r}");
            }
        }
    }
}
