//! Least-recently-used cache of kernel (Q) rows with a memory budget, as in LIBSVM.

use crate::kernel::KernelSource;

/// Sentinel index of the circular LRU list.
const NIL: usize = usize::MAX;

/// Rows `Q_i[0..len)` stored as `f32`, evicted least-recently-used first once the budget
/// (in floats) is spent. A row may be cached partially: its first `len` entries.
pub(crate) struct RowCache {
    rows: Vec<Vec<f32>>,
    prev: Vec<usize>,
    next: Vec<usize>,
    head: usize,
    tail: usize,
    free_floats: usize,
    /// The longest row evicted since the last miss, kept to be the next missing row's
    /// storage: a fresh allocation would be zero-filled and page-faulted only to be
    /// overwritten (measured: ~4 % of a fit on magic went to `memset`). Its stale
    /// values are never read: `reserve` reports them as still to be computed.
    spare: Vec<f32>,
    /// The solver's swaps of two positions `(lo, hi)`, in order, not yet applied to
    /// every cached row: a row replays the ones after `applied[i]` when it is next
    /// reserved (see [`RowCache::swap_index`]).
    swaps: Vec<(u32, u32)>,
    applied: Vec<usize>,
    /// The budget in floats.
    budget: usize,
}

impl RowCache {
    /// A cache for `n` rows of at most `n` entries within `budget_bytes` (never less than
    /// two full rows, so that the two rows of a working pair always fit together).
    pub(crate) fn new(n: usize, budget_bytes: usize) -> Self {
        let floats = budget_bytes / std::mem::size_of::<f32>();
        Self {
            rows: vec![Vec::new(); n],
            prev: vec![NIL; n],
            next: vec![NIL; n],
            head: NIL,
            tail: NIL,
            free_floats: floats.max(2 * n),
            spare: Vec::new(),
            swaps: Vec::new(),
            applied: vec![0; n],
            budget: floats.max(2 * n),
        }
    }

    fn unlink(&mut self, i: usize) {
        let (p, n) = (self.prev[i], self.next[i]);
        if p == NIL {
            self.head = n;
        } else {
            self.next[p] = n;
        }
        if n == NIL {
            self.tail = p;
        } else {
            self.prev[n] = p;
        }
        self.prev[i] = NIL;
        self.next[i] = NIL;
    }

    fn push_back(&mut self, i: usize) {
        self.prev[i] = self.tail;
        self.next[i] = NIL;
        if self.tail == NIL {
            self.head = i;
        } else {
            self.next[self.tail] = i;
        }
        self.tail = i;
    }

    fn evict(&mut self, i: usize) {
        self.unlink(i);
        self.free_floats += self.rows[i].len();
        let row = std::mem::take(&mut self.rows[i]);
        if row.len() > self.spare.len() {
            self.spare = row;
        }
    }

    /// Makes row `i` hold at least `len` entries and marks it most recently used.
    /// Returns the index from which entries must still be computed (`len` when none).
    pub(crate) fn reserve(&mut self, i: usize, len: usize) -> usize {
        self.catch_up(i);
        let old = self.rows[i].len();
        if old > 0 {
            self.unlink(i);
        }
        let start = if len > old {
            let more = len - old;
            while self.free_floats < more && self.head != NIL {
                self.evict(self.head);
            }
            self.free_floats = self.free_floats.saturating_sub(more);
            if old == 0 && self.spare.len() >= len {
                let mut row = std::mem::take(&mut self.spare);
                row.truncate(len);
                // Capacity beyond `len` would escape the budget (rows shrink with the
                // active set); giving it back is a realloc in place, not a copy.
                row.shrink_to(len + len / 8);
                self.rows[i] = row;
            } else {
                self.rows[i].resize(len, 0.0);
            }
            old
        } else {
            len
        };
        self.push_back(i);
        start
    }

    /// Makes row `i` hold the kernel entries `source(i, cols[..])`, computing only the
    /// ones not cached yet, and returns it. For caches indexed like `source` itself.
    pub(crate) fn fill_from(
        &mut self,
        source: &dyn KernelSource,
        i: usize,
        cols: &[usize],
    ) -> &[f32] {
        let len = cols.len();
        let start = self.reserve(i, len);
        if start < len {
            source.fill_row(i, &cols[start..], &mut self.rows[i][start..len]);
        }
        &self.rows[i][..len]
    }

    /// Entries row `i` holds (it may hold fewer once the swaps logged for it are
    /// replayed, never more).
    #[inline]
    pub(crate) fn held(&self, i: usize) -> usize {
        self.rows[i].len()
    }

    /// Takes row `i` out to be written beside other rows; [`RowCache::put_back`] returns
    /// it. Nothing else may touch the cache in between.
    pub(crate) fn take_row(&mut self, i: usize) -> Vec<f32> {
        std::mem::take(&mut self.rows[i])
    }

    /// Returns row `i` taken by [`RowCache::take_row`].
    pub(crate) fn put_back(&mut self, i: usize, row: Vec<f32>) {
        self.rows[i] = row;
    }

    /// Whether a budget holds `rows` rows of `len` entries.
    pub(crate) fn holds(&self, rows: usize, len: usize) -> bool {
        self.budget >= rows.saturating_mul(len)
    }

    /// Row `i` (as long as last reserved).
    #[inline]
    pub(crate) fn row(&self, i: usize) -> &[f32] {
        &self.rows[i]
    }

    /// Mutable row `i`.
    #[inline]
    pub(crate) fn row_mut(&mut self, i: usize) -> &mut [f32] {
        &mut self.rows[i]
    }

    /// Two distinct rows at once.
    pub(crate) fn two_rows(&self, i: usize, j: usize) -> (&[f32], &[f32]) {
        (&self.rows[i], &self.rows[j])
    }

    /// Follows a swap of variables `i` and `j` in the solver: swaps the rows, and the two
    /// columns inside every cached row; a row holding only one of the two is dropped (as
    /// LIBSVM's `Cache::swap_index`). The columns are swapped lazily: the swap is logged
    /// and each row replays the log when it is next reserved, so a swap costs O(1)
    /// instead of a pass over every cached row (on magic that pass was a fifth of a
    /// fit), and rows evicted before their next use never pay. The rows read are the
    /// same, so the solver's iterations are unchanged.
    pub(crate) fn swap_index(&mut self, i: usize, j: usize) {
        if i == j {
            return;
        }
        let (had_i, had_j) = (!self.rows[i].is_empty(), !self.rows[j].is_empty());
        if had_i {
            self.unlink(i);
        }
        if had_j {
            self.unlink(j);
        }
        self.rows.swap(i, j);
        self.applied.swap(i, j);
        if !self.rows[i].is_empty() {
            self.push_back(i);
        }
        if !self.rows[j].is_empty() {
            self.push_back(j);
        }
        let (lo, hi) = if i < j { (i, j) } else { (j, i) };
        self.swaps.push((lo as u32, hi as u32));
        // A long log is applied to every cached row at once and cleared, so it stays
        // within 4n entries; each row replays at most the swaps the eager pass would
        // have applied to it.
        if self.swaps.len() > 4 * self.rows.len() + 1024 {
            let mut h = self.head;
            while h != NIL {
                let next = self.next[h];
                self.catch_up(h);
                h = next;
            }
            self.swaps.clear();
            self.applied.iter_mut().for_each(|a| *a = 0);
        }
    }

    /// Applies to row `i` the swaps logged since it was last brought up to date: the two
    /// columns exchanged where the row holds both, the row dropped where it holds only
    /// the first.
    fn catch_up(&mut self, i: usize) {
        let from = self.applied[i];
        self.applied[i] = self.swaps.len();
        if self.rows[i].is_empty() {
            return;
        }
        for t in from..self.swaps.len() {
            let (lo, hi) = (self.swaps[t].0 as usize, self.swaps[t].1 as usize);
            let len = self.rows[i].len();
            if len > lo {
                if len > hi {
                    self.rows[i].swap(lo, hi);
                } else {
                    self.evict(i);
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn evicts_least_recently_used_row() {
        // Budget of exactly two rows of length 4.
        let mut c = RowCache::new(4, 8 * 4);
        assert_eq!(c.reserve(0, 4), 0);
        assert_eq!(c.reserve(1, 4), 0);
        assert_eq!(c.reserve(0, 4), 4); // hit, 0 becomes most recent
        assert_eq!(c.reserve(2, 4), 0); // evicts 1
        assert_eq!(c.reserve(1, 4), 0); // miss again, evicts 0
        assert_eq!(c.reserve(2, 2), 2); // still there
    }

    #[test]
    fn partial_rows_grow() {
        let mut c = RowCache::new(5, 1 << 20);
        assert_eq!(c.reserve(3, 2), 0);
        c.row_mut(3).copy_from_slice(&[1.0, 2.0]);
        assert_eq!(c.reserve(3, 5), 2);
        assert_eq!(&c.row(3)[..2], &[1.0, 2.0]);
    }

    #[test]
    fn swap_moves_rows_and_columns() {
        let mut c = RowCache::new(4, 1 << 20);
        c.reserve(0, 4);
        c.row_mut(0).copy_from_slice(&[0.0, 1.0, 2.0, 3.0]);
        c.reserve(1, 2);
        c.row_mut(1).copy_from_slice(&[10.0, 11.0]);
        c.swap_index(1, 3);
        // Row 0 had both columns: swapped. Row 1 moved to 3, then dropped (holds col 1 only).
        assert_eq!(c.reserve(0, 4), 4);
        assert_eq!(c.row(0), &[0.0, 3.0, 2.0, 1.0]);
        assert_eq!(c.reserve(1, 2), 0);
        assert_eq!(c.reserve(3, 2), 0);
    }

    /// Under random swaps, reservations and a tight budget, every cached entry a
    /// reservation reports as ready is the kernel value of the points now at those
    /// positions (the lazily replayed swaps equal LIBSVM's eager ones), also across the
    /// log's periodic clearing.
    #[test]
    fn lazy_swaps_keep_every_cached_entry_right() {
        let n = 40;
        let value = |a: usize, b: usize| (a * 1000 + b) as f32;
        let mut perm: Vec<usize> = (0..n).collect();
        let mut c = RowCache::new(n, 12 * n * 4);
        let mut rng = ChaCha8Rng::seed_from_u64(12345);
        let mut next = |m: usize| rng.random_range(0..m);
        for _ in 0..20_000 {
            if next(3) == 0 {
                let (i, j) = (next(n), next(n));
                c.swap_index(i, j);
                perm.swap(i, j);
            } else {
                let (i, len) = (next(n), 1 + next(n));
                let start = c.reserve(i, len);
                let row = c.row_mut(i);
                for (q, v) in row.iter().enumerate().take(start.min(len)) {
                    assert_eq!(*v, value(perm[i], perm[q]), "row {i}, column {q}");
                }
                for (q, v) in row.iter_mut().enumerate().take(len).skip(start) {
                    *v = value(perm[i], perm[q]);
                }
            }
        }
    }
}
