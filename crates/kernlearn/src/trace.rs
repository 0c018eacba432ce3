//! Per-iteration values recorded while fitting (KNPL's ADMM residual and objective, its
//! Fig. 3; DANK's `H(α, F)` and `‖α_t − α_{t−1}‖`, its Fig. 4), written as CSV and
//! plotted by the CLI's `--trace`.

use serde::{Deserialize, Serialize};

/// A table of per-iteration values: named columns, one row per recorded iteration.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    /// Column names, e.g. `["outer", "inner", "diff", "objective"]`.
    pub columns: Vec<String>,
    /// One row per record, `columns.len()` values each.
    pub rows: Vec<Vec<f64>>,
}

impl Trace {
    /// An empty trace with these columns.
    pub(crate) fn new(columns: &[&str]) -> Self {
        Self {
            columns: columns.iter().map(|c| c.to_string()).collect(),
            rows: Vec::new(),
        }
    }

    /// Appends one record (one value per column).
    pub(crate) fn push(&mut self, row: Vec<f64>) {
        debug_assert_eq!(row.len(), self.columns.len());
        self.rows.push(row);
    }

    /// The values of column `name`, if present.
    #[cfg(any(test, feature = "plot"))]
    pub(crate) fn column(&self, name: &str) -> Option<Vec<f64>> {
        let k = self.columns.iter().position(|c| c == name)?;
        Some(self.rows.iter().map(|r| r[k]).collect())
    }

    /// CSV text: a header line, then one line per record (shortest round-trip floats).
    pub fn to_csv(&self) -> String {
        let mut s = self.columns.join(",");
        s.push('\n');
        for r in &self.rows {
            let cells: Vec<String> = r.iter().map(|v| v.to_string()).collect();
            s.push_str(&cells.join(","));
            s.push('\n');
        }
        s
    }
}

/// Largest change in the last outer round, relative to `max(1, |value|)`, that still
/// counts as converged (SMO's tolerance moves the objectives by about this much).
pub const ALTERNATION_TOL: f64 = 1e-3;

/// How an alternation of fixed length ended, judged from a quantity recorded after each
/// outer round t = 0, …, T (KNPL's Algorithm 2: the SVM dual objective of the α-step,
/// which its warnings and trace plots use, or `H(α_t, G_t)` itself). Such an
/// alternation has no stopping rule: it always runs T rounds, so "converged" means that
/// the last round no longer moved the quantity.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Alternation {
    /// The last round changed the value by at most [`ALTERNATION_TOL`] (relative), or
    /// there is no round to judge (T = 0, or nothing recorded).
    Converged,
    /// The value alternates between two levels: the last round moved it by `change`
    /// (relative), but v_T ≈ v_{T−2} and v_{T−1} ≈ v_{T−3} (a 2-cycle of the
    /// best-response iteration: a large G shrinks α, whose small Γ(α) gives back
    /// G ≈ 11ᵀ).
    TwoCycle {
        /// The two levels, lower first.
        levels: (f64, f64),
        /// Relative change in the last round.
        change: f64,
    },
    /// The value still moved by `change` (relative) in the last round, without a
    /// 2-cycle.
    NotConverged {
        /// Relative change in the last round.
        change: f64,
    },
}

/// [`Alternation`] of a sequence `v_0, …, v_T` recorded after each round.
pub fn alternation(values: &[f64]) -> Alternation {
    let t = values.len();
    if t < 2 {
        return Alternation::Converged;
    }
    let h = |k: usize| values[t - 1 - k];
    let scale = h(0).abs().max(1.0);
    let rel = |a: f64, b: f64| (a - b).abs() / scale;
    let change = rel(h(0), h(1));
    if change.is_nan() || change <= ALTERNATION_TOL {
        return Alternation::Converged;
    }
    // A 2-cycle: every other value repeats (to a tenth of the swing), over the last
    // four values (three when only three were recorded).
    let repeats = |k: usize| rel(h(k), h(k + 2)) <= 0.1 * change;
    if t >= 3 && repeats(0) && (t < 4 || repeats(1)) {
        let levels = (h(0).min(h(1)), h(0).max(h(1)));
        return Alternation::TwoCycle { levels, change };
    }
    Alternation::NotConverged { change }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_has_header_and_rows() {
        let mut t = Trace::new(&["iter", "objective"]);
        t.push(vec![1.0, 0.5]);
        t.push(vec![2.0, 0.25]);
        assert_eq!(t.to_csv(), "iter,objective\n1,0.5\n2,0.25\n");
        assert_eq!(t.column("objective"), Some(vec![0.5, 0.25]));
        assert_eq!(t.column("nope"), None);
    }
}
