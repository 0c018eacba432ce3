//! One-vs-one multiclass classification from binary machines, as LIBSVM does it: one
//! machine per class pair `(i, j)`, `i < j`, trained on the points of those two classes
//! (`+1` for class `i`), and a vote in which ties go to the earlier class.
//!
//! [`crate::svm::SvmModel`] stores its pairs in LIBSVM's packed layout; methods that
//! learn a kernel per pair (KNPL, DANK, MKL) use [`OneVsOne`] over their own binary
//! machine, with the same class order and voting.

use crate::data::Features;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};

/// How a classifier orders its classes (see `crate::svm::SvmParams::class_order`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClassOrder {
    /// LIBSVM: order of first appearance in the training labels (`+1` before `−1`).
    #[default]
    FirstSeen,
    /// scikit-learn: ascending label values.
    Sorted,
}

/// Classes in LIBSVM order (order of first appearance, except that `{−1, +1}` is put
/// as `[+1, −1]`) and, for each, the indices of its points.
pub(crate) fn class_groups(y: &[f64]) -> (Vec<f64>, Vec<Vec<usize>>) {
    let mut labels: Vec<f64> = Vec::new();
    let mut members: Vec<Vec<usize>> = Vec::new();
    for (i, &v) in y.iter().enumerate() {
        match labels.iter().position(|&l| l == v) {
            Some(k) => members[k].push(i),
            None => {
                labels.push(v);
                members.push(vec![i]);
            }
        }
    }
    if labels.len() == 2 && labels[0] == -1.0 && labels[1] == 1.0 {
        labels.swap(0, 1);
        members.swap(0, 1);
    }
    (labels, members)
}

/// [`class_groups`] in the given order: LIBSVM's, or sorted by label value.
pub(crate) fn ordered_class_groups(y: &[f64], order: ClassOrder) -> (Vec<f64>, Vec<Vec<usize>>) {
    let (labels, members) = class_groups(y);
    if order == ClassOrder::FirstSeen {
        return (labels, members);
    }
    let mut pairs: Vec<(f64, Vec<usize>)> = labels.into_iter().zip(members).collect();
    pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
    pairs.into_iter().unzip()
}

/// The class that wins the one-vs-one vote: pair `p` (in order (0,1), (0,2), …, (1,2), …)
/// votes for its first class when `dec[p] > 0`. Ties go to the earlier class.
pub(crate) fn vote(classes: &[f64], dec: &[f64]) -> f64 {
    let k = classes.len();
    let mut votes = vec![0usize; k];
    let mut p = 0;
    for i in 0..k {
        for j in i + 1..k {
            votes[if dec[p] > 0.0 { i } else { j }] += 1;
            p += 1;
        }
    }
    let mut best = 0;
    for c in 1..k {
        if votes[c] > votes[best] {
            best = c;
        }
    }
    classes[best]
}

/// A binary classifier usable in [`OneVsOne`]: positive decision value = the `+1` class.
pub trait BinaryMachine {
    /// One decision value per row of `x`.
    fn decision_values(&self, x: &Features) -> Result<Vec<f64>>;
}

/// One binary machine per class pair, LIBSVM's pair order and voting.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OneVsOne<M> {
    /// Class labels in LIBSVM order.
    pub classes: Vec<f64>,
    /// Machine of pair `(i, j)`, `i < j`, in order (0,1), (0,2), …, (1,2), …
    pub machines: Vec<M>,
}

impl<M> OneVsOne<M> {
    /// Checks the classes (finite, distinct, at least two) and that there is one machine
    /// per class pair, `k(k−1)/2`, each passing `machine` (its errors get the path
    /// `machines[i]`).
    pub(crate) fn validate(&self, machine: impl Fn(&M) -> Result<()>) -> Result<()> {
        use crate::validate::{classes, ensure, pair_count, within};
        classes("classes", &self.classes)?;
        let k = self.classes.len();
        let want = pair_count(k);
        ensure(self.machines.len() == want, || {
            format!(
                "machines has {} machines, {k} classes need {want} (one per class pair)",
                self.machines.len()
            )
        })?;
        for (i, m) in self.machines.iter().enumerate() {
            within(format!("machines[{i}]"), machine(m))?;
        }
        Ok(())
    }
}

impl<M: BinaryMachine> OneVsOne<M> {
    /// Trains `fit_pair(x_pair, y_pair)` for every class pair, with `y_pair = +1` for the
    /// pair's first class and `−1` for its second. Needs at least two classes.
    pub(crate) fn fit(
        x: &Features,
        y: &[f64],
        mut fit_pair: impl FnMut(&Features, &[f64]) -> Result<M>,
    ) -> Result<Self> {
        Self::fit_indexed(x, y, |xp, yp, _| fit_pair(xp, yp))
    }

    /// [`OneVsOne::fit`] with each pair's rows of `x` (in the order of its points) given
    /// to `fit_pair` too, so that it can pick per-row values (e.g. sample weights).
    pub(crate) fn fit_indexed(
        x: &Features,
        y: &[f64],
        mut fit_pair: impl FnMut(&Features, &[f64], &[usize]) -> Result<M>,
    ) -> Result<Self> {
        let (classes, members) = class_groups(y);
        if classes.len() < 2 {
            return Err(Error::data(format!(
                "classification needs at least two classes, the training labels are all {}",
                classes.first().copied().unwrap_or(f64::NAN)
            )));
        }
        let mut machines = Vec::new();
        for i in 0..classes.len() {
            for j in i + 1..classes.len() {
                let idx: Vec<usize> = members[i].iter().chain(&members[j]).copied().collect();
                let yp: Vec<f64> = members[i]
                    .iter()
                    .map(|_| 1.0)
                    .chain(members[j].iter().map(|_| -1.0))
                    .collect();
                machines.push(fit_pair(&x.select_rows(&idx), &yp, &idx)?);
            }
        }
        Ok(Self { classes, machines })
    }

    /// Decision values per row of `x`, one per class pair.
    pub(crate) fn decision_function(&self, x: &Features) -> Result<Vec<Vec<f64>>> {
        self.decision_function_by(x.n_rows(), |m| m.decision_values(x))
    }

    /// Voted class per row of `x`.
    pub(crate) fn predict(&self, x: &Features) -> Result<Vec<f64>> {
        self.predict_by(x.n_rows(), |m| m.decision_values(x))
    }
}

impl<M> OneVsOne<M> {
    /// Decision values per row of `rows` queries, one per class pair, `decide(machine)`
    /// giving a machine's values on all of them.
    pub(crate) fn decision_function_by(
        &self,
        rows: usize,
        decide: impl Fn(&M) -> Result<Vec<f64>>,
    ) -> Result<Vec<Vec<f64>>> {
        let per_pair: Vec<Vec<f64>> = self.machines.iter().map(decide).collect::<Result<_>>()?;
        Ok((0..rows)
            .map(|r| per_pair.iter().map(|d| d[r]).collect())
            .collect())
    }

    /// Voted class per query of [`OneVsOne::decision_function_by`].
    pub(crate) fn predict_by(
        &self,
        rows: usize,
        decide: impl Fn(&M) -> Result<Vec<f64>>,
    ) -> Result<Vec<f64>> {
        Ok(self
            .decision_function_by(rows, decide)?
            .iter()
            .map(|d| vote(&self.classes, d))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decides by the sign of feature 0 minus a threshold.
    struct Threshold(f64);
    impl BinaryMachine for Threshold {
        fn decision_values(&self, x: &Features) -> Result<Vec<f64>> {
            Ok((0..x.n_rows()).map(|r| self.0 - x.row(r)[0]).collect())
        }
    }

    #[test]
    fn classes_in_libsvm_order() {
        assert_eq!(class_groups(&[-1.0, 1.0, 1.0]).0, vec![1.0, -1.0]);
        let sorted = ordered_class_groups(&[3.0, -1.0, 3.0, 2.0], ClassOrder::Sorted);
        assert_eq!(
            sorted,
            (vec![-1.0, 2.0, 3.0], vec![vec![1], vec![3], vec![0, 2]])
        );
        let (c, m) = class_groups(&[3.0, 1.0, 3.0, 2.0]);
        assert_eq!(c, vec![3.0, 1.0, 2.0]);
        assert_eq!(m, vec![vec![0, 2], vec![1], vec![3]]);
    }

    #[test]
    fn vote_breaks_ties_towards_earlier_class() {
        // Three classes, each wins one pair: class 0 wins.
        assert_eq!(vote(&[5.0, 6.0, 7.0], &[1.0, -1.0, 1.0]), 5.0);
        assert_eq!(vote(&[5.0, 6.0, 7.0], &[-1.0, -1.0, -1.0]), 7.0);
    }

    #[test]
    fn one_vs_one_separates_intervals() {
        // Class a on [0,1), b on [1,2), c on [2,3): pair thresholds at the boundaries.
        let xs: Vec<f64> = (0..30).map(|i| i as f64 / 10.0 + 0.05).collect();
        let y: Vec<f64> = xs.iter().map(|v| v.floor() * 10.0).collect();
        let x = Features::new(30, 1, xs).unwrap();
        let m = OneVsOne::fit(&x, &y, |xp, yp| {
            // Boundary between the pair's classes: midpoint of the closest points.
            let pos_max = (0..xp.n_rows())
                .filter(|&r| yp[r] > 0.0)
                .map(|r| xp.row(r)[0])
                .fold(f64::MIN, f64::max);
            let neg_min = (0..xp.n_rows())
                .filter(|&r| yp[r] < 0.0)
                .map(|r| xp.row(r)[0])
                .fold(f64::MAX, f64::min);
            Ok(Threshold((pos_max + neg_min) / 2.0))
        })
        .unwrap();
        assert_eq!(m.machines.len(), 3);
        assert_eq!(m.predict(&x).unwrap(), y);
        assert!(OneVsOne::fit(&x, &vec![1.0; 30], |_, _| Ok(Threshold(0.0))).is_err());
    }
}
