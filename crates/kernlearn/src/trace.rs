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
