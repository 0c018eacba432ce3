//! Kernel rows of dense features kept in the SMO solver's order, column-major, so that a
//! row is computed for a contiguous range of positions with every lane of the SIMD
//! registers busy.
//!
//! The solver's shrinking permutes the variables (LIBSVM's `swap_index`), after which
//! the active set is a prefix `0..active` of the positions but a scattered set of the
//! original points. Kept in the original order, a row is a gather: one short dot
//! product per column, each ending in a horizontal sum (with `d = 10`, most of a kernel
//! row's time). Kept in the solver's order and transposed (`x_t[k]` for all positions
//! `t` contiguous), a block of columns is `d` multiply-adds of whole vectors: the
//! product of the transposed block with `x_i`, summed over `k` in order, as LIBSVM's
//! `dot` sums.

use super::functions::powi;
use super::matrix::DotMap;
use crate::simd::{exp_to_f32_lanes, with_simd};
use rayon::prelude::*;

/// Columns per block: the block's partial sums (`f64`) stay in L1.
const BLOCK: usize = 256;

/// Per-row work (multiply-adds, an `exp` counted as ~24) above which a row is split over
/// the rayon pool. A row of this layout is fast (about 1 ns an entry on 10 features), so
/// waking the other threads costs more than it saves until rows are long: measured on 2
/// idle cores (C = 4, γ = 0.5), splitting rows of 15,216 (magic) or 46,400
/// (shuttle-binary) entries made fits 20 % slower than one thread.
const PAR_WORK: usize = 4 << 20;

/// Widest feature dimension kept in the solver's order: a swap moves `d` values that lie
/// `n` apart (one cache miss each), which stays cheaper than the row cache's own swap
/// (a value in every cached row) up to about this many features; wider rows vectorise
/// well in their original layout.
const MAX_REORDERED_DIM: usize = 128;

/// Whether a column-major copy of `n` points of dimension `d` is worth holding: `d` at
/// most [`MAX_REORDERED_DIM`], and the copy within an eighth of the available memory
/// (a sparse set of many rows would otherwise be densified past what it fits in; the
/// rows are then computed in their original layout, only slower).
pub(crate) fn copy_fits(n: usize, d: usize) -> bool {
    let bytes = (n as u64).saturating_mul(d as u64).saturating_mul(8);
    d <= MAX_REORDERED_DIM && bytes <= crate::check::available_memory() / 8
}

/// Dense features of a dot-product kernel (RBF, linear, polynomial, sigmoid) stored
/// column-major in the solver's current order of the points, with their squared norms.
#[derive(Clone, Debug)]
pub struct ReorderedRows {
    map: DotMap,
    /// `x_p[k]` of the point at position `p` is `columns[k * n + p]`.
    columns: Vec<f64>,
    sq_norms: Vec<f64>,
    n: usize,
    d: usize,
    /// Non-zero values of the copy.
    nonzeros: usize,
}

impl ReorderedRows {
    /// The transposed copy of the rows `idx` (in that order) of `data` (row-major, `d`
    /// columns) for the dot-product kernel `map`.
    pub(crate) fn new(map: DotMap, data: &[f64], d: usize, idx: &[usize]) -> Self {
        Self::from_rows(map, d, idx, |p, row| {
            row.copy_from_slice(&data[p * d..(p + 1) * d])
        })
    }

    /// The same from rows written by `write_row(p, row)` (all `d` values of point `p`,
    /// zeros included: a sparse row is scattered). Squared norms are summed in order, as
    /// the dot products.
    pub(crate) fn from_rows(
        map: DotMap,
        d: usize,
        idx: &[usize],
        write_row: impl Fn(usize, &mut [f64]),
    ) -> Self {
        let n = idx.len();
        let mut columns = vec![0.0; n * d];
        let mut sq_norms = Vec::with_capacity(n);
        let mut row = vec![0.0; d];
        for (t, &p) in idx.iter().enumerate() {
            write_row(p, &mut row);
            for (k, &v) in row.iter().enumerate() {
                columns[k * n + t] = v;
            }
            sq_norms.push(row.iter().fold(0.0, |s, v| s + v * v));
        }
        let nonzeros = columns.iter().filter(|&&v| v != 0.0).count();
        Self {
            map,
            columns,
            sq_norms,
            n,
            d,
            nonzeros,
        }
    }

    /// Bytes a row reads on average: the columns of the row's point's non-zero features,
    /// `n` values each, i.e. every non-zero value of the copy once.
    pub(crate) fn row_bytes(&self) -> usize {
        self.nonzeros * std::mem::size_of::<f64>()
    }

    /// Follows the solver's swap of positions `i` and `j`.
    pub(crate) fn swap(&mut self, i: usize, j: usize) {
        if i == j {
            return;
        }
        for column in self.columns.chunks_exact_mut(self.n) {
            column.swap(i, j);
        }
        self.sq_norms.swap(i, j);
    }

    /// `out[t] = k(x_i, x_{start + t})` for the points at positions `i` and
    /// `start..start + out.len()`; long rows are split over the rayon pool.
    pub(crate) fn fill(&self, i: usize, start: usize, out: &mut [f32]) {
        self.fill_split(i, start, out, PAR_WORK);
    }

    /// [`ReorderedRows::fill`], splitting rows of at least `par_work` multiply-adds over
    /// the rayon pool.
    fn fill_split(&self, i: usize, start: usize, out: &mut [f32], par_work: usize) {
        let mut point = Point::default();
        let nz = self.nonzeros(i, &mut point);
        let xi = point.sparse(nz);
        let run = |from: usize, o: &mut [f32]| fill_positions(self, xi, i, from, o);
        let threads = rayon::current_num_threads();
        if out.len() * (nz + 24) < par_work || threads < 2 {
            run(start, out);
            return;
        }
        let chunk = out.len().div_ceil(4 * threads).max(4 * BLOCK);
        out.par_chunks_mut(chunk)
            .enumerate()
            .for_each(|(c, o)| run(start + c * chunk, o));
    }

    /// Writes into `point` the non-zero features of the point at position `i` and returns
    /// how many there are. Only those take part in its dot products: a zero term leaves a
    /// sum unchanged (x + 0 = x exactly), so skipping it changes no bit, and one-hot or
    /// [0, 1] scaled data skip most of their columns.
    fn nonzeros(&self, i: usize, point: &mut Point) -> usize {
        let mut nz = 0;
        for k in 0..self.d {
            let v = self.columns[k * self.n + i];
            if v != 0.0 {
                point.features[nz] = k;
                point.values[nz] = v;
                nz += 1;
            }
        }
        nz
    }

    /// `outs[r][t] = k(x_{rows[r]}, x_{start + t})` for up to [`MAX_ROWS`] rows of one
    /// length, in one pass over the columns: each tile of positions is read from memory
    /// once for all the rows instead of once per row (a row of a large set is bound by
    /// that read). Every entry is computed by the operations of [`ReorderedRows::fill`] in
    /// the same order, so the rows equal its rows bit for bit.
    pub(crate) fn fill_rows(&self, rows: &[usize], start: usize, outs: &mut [&mut [f32]]) {
        self.fill_rows_split(rows, start, outs, PAR_WORK);
    }

    /// [`ReorderedRows::fill_rows`], splitting the positions over the rayon pool when the
    /// rows take at least `par_work` multiply-adds together.
    fn fill_rows_split(
        &self,
        rows: &[usize],
        start: usize,
        outs: &mut [&mut [f32]],
        par_work: usize,
    ) {
        assert!(rows.len() <= MAX_ROWS && rows.len() == outs.len());
        let mut points = [Point::default(); MAX_ROWS];
        let mut counts = [0usize; MAX_ROWS];
        for ((p, c), &i) in points.iter_mut().zip(&mut counts).zip(rows) {
            *c = self.nonzeros(i, p);
        }
        let mut xs = [Sparse::EMPTY; MAX_ROWS];
        for ((x, p), &c) in xs.iter_mut().zip(&points).zip(&counts) {
            *x = p.sparse(c);
        }
        let xs = &xs[..rows.len()];
        let len = outs.first().map_or(0, |o| o.len());
        let work = len * rows.len() * (counts.iter().max().unwrap_or(&0) + 24);
        let threads = rayon::current_num_threads();
        if work < par_work || threads < 2 {
            fill_positions_rows(self, xs, rows, start, outs);
            return;
        }
        let chunk = len.div_ceil(2 * threads).max(4 * BLOCK);
        let mut pieces: Vec<Vec<&mut [f32]>> = Vec::new();
        for out in outs.iter_mut() {
            for (c, piece) in out.chunks_mut(chunk).enumerate() {
                if pieces.len() <= c {
                    pieces.push(Vec::with_capacity(rows.len()));
                }
                pieces[c].push(piece);
            }
        }
        pieces
            .into_par_iter()
            .enumerate()
            .for_each(|(c, mut o)| fill_positions_rows(self, xs, rows, start + c * chunk, &mut o));
    }
}

/// Most rows [`ReorderedRows::fill_rows`] computes in one pass: their partial sums
/// (`MAX_ROWS × BLOCK` values, 16 KiB) stay in L1 beside the tile of columns they share.
pub(crate) const MAX_ROWS: usize = 8;

/// One point's non-zero features, as [`Sparse`] borrows them.
#[derive(Clone, Copy)]
struct Point {
    features: [usize; MAX_REORDERED_DIM],
    values: [f64; MAX_REORDERED_DIM],
}

impl Default for Point {
    fn default() -> Self {
        Self {
            features: [0; MAX_REORDERED_DIM],
            values: [0.0; MAX_REORDERED_DIM],
        }
    }
}

impl Point {
    fn sparse(&self, nz: usize) -> Sparse<'_> {
        Sparse {
            features: &self.features[..nz],
            values: &self.values[..nz],
        }
    }
}

with_simd! {
    /// `out[t] = map(x_iᵀx_{start+t}, ‖x_i‖², ‖x_{start+t}‖²)` on the calling thread, in
    /// blocks of [`BLOCK`] positions; `x_i` given by its non-zero features `xi`.
    fn fill_positions(
        rows: &ReorderedRows,
        xi: Sparse,
        i: usize,
        start: usize,
        out: &mut [f32]
    ) -> () = fill_positions_body
}

#[inline(always)]
fn fill_positions_body(rows: &ReorderedRows, xi: Sparse, i: usize, start: usize, out: &mut [f32]) {
    let (columns, n, sq) = (&rows.columns[..], rows.n, &rows.sq_norms[..]);
    let mut buf = [0.0f64; BLOCK];
    for (b, o) in out.chunks_mut(BLOCK).enumerate() {
        let from = start + b * BLOCK;
        let buf = &mut buf[..o.len()];
        for (t, tile) in buf.chunks_mut(TILE).enumerate() {
            dot_tile(columns, n, xi, from + t * TILE, tile);
        }
        map_block(rows.map, sq[i], &sq[from..from + o.len()], buf, o);
    }
}

with_simd! {
    /// [`fill_positions`] for several rows `points` of equal length at once: the blocks
    /// and tiles of positions are those of one row, and each tile's columns, read once,
    /// serve every row while they are in L1.
    fn fill_positions_rows(
        rows: &ReorderedRows,
        xs: &[Sparse],
        points: &[usize],
        start: usize,
        outs: &mut [&mut [f32]]
    ) -> () = fill_positions_rows_body
}

#[inline(always)]
fn fill_positions_rows_body(
    rows: &ReorderedRows,
    xs: &[Sparse],
    points: &[usize],
    start: usize,
    outs: &mut [&mut [f32]],
) {
    let (columns, n, sq) = (&rows.columns[..], rows.n, &rows.sq_norms[..]);
    let len = outs.first().map_or(0, |o| o.len());
    // Rows with the same non-zero features as the next one share its column loads.
    let mut shared = [false; MAX_ROWS];
    for (s, pair) in shared.iter_mut().zip(xs.windows(2)) {
        *s = pair[0].features == pair[1].features;
    }
    let mut bufs = [[0.0f64; BLOCK]; MAX_ROWS];
    for offset in (0..len).step_by(BLOCK) {
        let width = BLOCK.min(len - offset);
        let from = start + offset;
        for t in (0..width).step_by(TILE) {
            let tile = t..width.min(t + TILE);
            let mut r = 0;
            while r < xs.len() {
                let same = shared[r..xs.len() - 1]
                    .iter()
                    .take(GROUP - 1)
                    .take_while(|&&s| s)
                    .count();
                let group = &mut bufs[r..r + 1 + same];
                let at = from + t;
                match (tile.len() == TILE, &xs[r..r + 1 + same]) {
                    (true, [a, b]) => dot_tile_group(columns, n, [*a, *b], at, group, t),
                    (true, [a, b, c]) => dot_tile_group(columns, n, [*a, *b, *c], at, group, t),
                    (true, [a, b, c, d]) => {
                        dot_tile_group(columns, n, [*a, *b, *c, *d], at, group, t)
                    }
                    (_, group_xs) => {
                        for (buf, &xi) in group.iter_mut().zip(group_xs) {
                            dot_tile(columns, n, xi, at, &mut buf[tile.clone()]);
                        }
                    }
                }
                r += 1 + same;
            }
        }
        let sq_block = &sq[from..from + width];
        for ((buf, out), &i) in bufs.iter_mut().zip(outs.iter_mut()).zip(points) {
            let o = &mut out[offset..offset + width];
            map_block(rows.map, sq[i], sq_block, &mut buf[..width], o);
        }
    }
}

/// Rows whose tiles [`dot_tile_group`] computes together: `GROUP × TILE` partial sums
/// stay in registers (16 of the 32 AVX-512 registers).
const GROUP: usize = 4;

/// [`dot_tile`] of a full tile for `R` rows with the same non-zero features, into
/// `bufs[r][t..t + TILE]`: each column value is loaded once for the `R` rows, and the
/// `R` independent sums per position keep the adders busy. Each sum takes the terms of
/// [`dot_tile`] in the same order, so the values are its values bit for bit.
#[inline(always)]
fn dot_tile_group<const R: usize>(
    columns: &[f64],
    n: usize,
    xs: [Sparse; R],
    from: usize,
    bufs: &mut [[f64; BLOCK]],
    t: usize,
) {
    let features = xs[0].features;
    let values: [&[f64]; R] = std::array::from_fn(|r| &xs[r].values[..features.len()]);
    let mut acc = [[0.0f64; TILE]; R];
    for (q, &k) in features.iter().enumerate() {
        let column: &[f64; TILE] = columns[k * n + from..k * n + from + TILE]
            .try_into()
            .expect("a full tile");
        let x: [f64; R] = std::array::from_fn(|r| values[r][q]);
        for (t, &v) in column.iter().enumerate() {
            for r in 0..R {
                acc[r][t] += x[r] * v;
            }
        }
    }
    for (buf, a) in bufs.iter_mut().zip(&acc) {
        buf[t..t + TILE].copy_from_slice(a);
    }
}

/// `o[t] = map(buf[t], ‖x_i‖², sq[t])`: a block of dot products turned into kernel values.
#[inline(always)]
fn map_block(map: DotMap, sq_i: f64, sq: &[f64], buf: &mut [f64], o: &mut [f32]) {
    match map {
        DotMap::Rbf { gamma } => {
            for (s, &sq_t) in buf.iter_mut().zip(sq) {
                *s = -gamma * (sq_i + sq_t - 2.0 * *s).max(0.0);
            }
            exp_to_f32_lanes(buf, o);
        }
        DotMap::Linear => {
            for (o, &s) in o.iter_mut().zip(buf.iter()) {
                *o = s as f32;
            }
        }
        DotMap::Poly {
            gamma,
            coef0,
            degree,
        } => {
            for (o, &s) in o.iter_mut().zip(buf.iter()) {
                *o = powi(gamma * s + coef0, degree) as f32;
            }
        }
        DotMap::Sigmoid { gamma, coef0 } => {
            for (o, &s) in o.iter_mut().zip(buf.iter()) {
                *o = (gamma * s + coef0).tanh() as f32;
            }
        }
    }
}

/// Positions whose partial sums stay in registers while `k` runs over the features
/// (four AVX-512 or eight AVX2 registers).
const TILE: usize = 32;

/// The non-zero features of one point, in increasing order.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sparse<'a> {
    features: &'a [usize],
    values: &'a [f64],
}

impl Sparse<'_> {
    const EMPTY: Sparse<'static> = Sparse {
        features: &[],
        values: &[],
    };
}

/// `tile[t] = Σ_k xi[k] x_{from+t}[k]` over the non-zero `xi[k]`, summed in order of `k`:
/// a full tile keeps its sums in registers for the whole pass over the features.
#[inline(always)]
fn dot_tile(columns: &[f64], n: usize, xi: Sparse, from: usize, tile: &mut [f64]) {
    let terms = xi.features.iter().zip(xi.values);
    if tile.len() == TILE {
        let mut acc = [0.0f64; TILE];
        for (&k, &x) in terms {
            let column = &columns[k * n + from..k * n + from + TILE];
            for (a, &v) in acc.iter_mut().zip(column) {
                *a += x * v;
            }
        }
        tile.copy_from_slice(&acc);
    } else {
        tile.fill(0.0);
        for (&k, &x) in terms {
            let column = &columns[k * n + from..k * n + from + tile.len()];
            for (a, &v) in tile.iter_mut().zip(column) {
                *a += x * v;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{Features, SparseFeatures};
    use crate::kernel::matrix::tests::{all_kernels, random_features};
    use crate::kernel::matrix::Route;
    use crate::kernel::Kernel;
    use crate::kernel::{FeatureKernel, KernelSource, SparseFeatureKernel};

    /// Rows in the solver's order equal the rows of the original order, within the
    /// rounding of a different order of summation, after any sequence of swaps; for
    /// dense features and for the same features in CSR form (a third of them zero).
    #[test]
    fn reordered_rows_follow_swaps() {
        // Several chunks per thread when split; non-negative for chi-squared.
        let (n, d) = (2500, 7);
        let dense = random_features(n, d, 3, 0.0);
        let values = dense
            .as_slice()
            .iter()
            .map(|&v| if v < 0.3 { 0.0 } else { v });
        let dense = Features::new(n, d, values.collect()).unwrap();
        let sparse = SparseFeatures::from_dense(&dense).unwrap();
        for kernel in all_kernels(d) {
            let on_dense = FeatureKernel::new(&kernel, &dense).unwrap();
            let on_sparse = SparseFeatureKernel::new(&kernel, &sparse).unwrap();
            for source in [&on_dense as &dyn KernelSource, &on_sparse] {
                check_against_source(&kernel, source, n, d);
            }
        }
    }

    /// Rows computed together (sharing column loads in groups of up to four where their
    /// points have the same non-zero features, as dense points do), on one thread or
    /// split over the pool, equal the rows computed alone bit for bit, for every
    /// dot-product kernel, at starts and lengths that are not multiples of a tile.
    #[test]
    fn rows_computed_together_equal_rows_alone() {
        let (n, d) = (1500, 9);
        let x = random_features(n, d, 11, 0.0);
        let mut with_zero = x.as_slice().to_vec();
        with_zero[4 * d + 2] = 0.0;
        let x = Features::new(n, d, with_zero).unwrap();
        let whole: Vec<usize> = (0..n).collect();
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        for kernel in all_kernels(d) {
            let source = FeatureKernel::new(&kernel, &x).unwrap();
            let Some(rows) = source.reorderable(&whole) else {
                continue;
            };
            // Row 4 has a zero: groups break around it.
            let points = [7, 4, 9, 1300, 2, 2, 640, 11];
            for (start, width) in [(0, 8), (33, 5), (1, 4), (1499, 3), (700, 1)] {
                let len = n - start;
                for par_work in [PAR_WORK, 0] {
                    let mut got = vec![vec![0f32; len]; width];
                    let mut outs: Vec<&mut [f32]> = got.iter_mut().map(|r| &mut r[..]).collect();
                    rows.fill_rows_split(&points[..width], start, &mut outs, par_work);
                    for (r, &p) in got.iter().zip(&points) {
                        let mut alone = vec![0f32; len];
                        rows.fill(p, start, &mut alone);
                        assert_eq!(bits(r), bits(&alone), "{kernel:?}: row {p}, start {start}");
                    }
                }
            }
        }
    }

    fn check_against_source(kernel: &Kernel, source: &dyn KernelSource, n: usize, d: usize) {
        let whole: Vec<usize> = (0..n).collect();
        let Some(mut rows) = source.reorderable(&whole) else {
            let dot_product = matches!(kernel.route(), Route::Dot { .. });
            assert!(
                !(dot_product && copy_fits(n, d)),
                "{kernel:?} should be reorderable"
            );
            return;
        };
        let mut index: Vec<usize> = (0..n).collect();
        for s in 0..3000usize {
            let (i, j) = ((s * 7919) % n, (s * 104_729 + 13) % n);
            rows.swap(i, j);
            index.swap(i, j);
        }
        for &(i, start) in &[(0usize, 0usize), (5, 17), (n - 1, 300), (42, n - 3)] {
            let len = n - start;
            let mut got = vec![0f32; len];
            rows.fill(i, start, &mut got);
            // The same row split over the rayon pool: the chunks' offsets must line up.
            let mut split = vec![0f32; len];
            rows.fill_split(i, start, &mut split, 0);
            assert_eq!(got, split, "{kernel:?}: row {i} split over threads");
            // The same row computed beside others, from other points (some with zeros
            // elsewhere): bit for bit the row computed alone.
            let others = [i, (i + 1) % n, (i * 31 + 7) % n, n / 2, 3];
            for width in [1, 2, others.len()] {
                let mut rows_out = vec![vec![0f32; len]; width];
                let mut outs: Vec<&mut [f32]> = rows_out.iter_mut().map(|r| &mut r[..]).collect();
                rows.fill_rows(&others[..width], start, &mut outs);
                for (r, &p) in rows_out.iter().zip(&others) {
                    let mut alone = vec![0f32; len];
                    rows.fill(p, start, &mut alone);
                    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                    assert_eq!(bits(r), bits(&alone), "{kernel:?}: row {p} of {width}");
                }
            }
            let mut want = vec![0f32; len];
            source.fill_row(index[i], &index[start..], &mut want);
            for (t, (g, w)) in got.iter().zip(&want).enumerate() {
                let tol = 1e-6 * w.abs().max(1.0);
                assert!(
                    (g - w).abs() <= tol,
                    "{kernel:?}: row {i}, column {}: {g} vs {w}",
                    start + t
                );
            }
        }
    }
}
