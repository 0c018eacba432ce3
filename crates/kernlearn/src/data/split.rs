//! Seeded, deterministic train/test splits and cross-validation folds.
//!
//! Every function shuffles with `ChaCha8Rng::seed_from_u64(seed)`, so the same inputs and
//! seed give the same indices on every platform. Index lists are returned sorted.

use crate::{Error, Result};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Sorted distinct values of `y` (`-0.0` and `0.0` count as one).
pub fn class_labels(y: &[f64]) -> Vec<f64> {
    let mut c = y.to_vec();
    c.sort_by(f64::total_cmp);
    c.dedup_by(|a, b| a == b);
    c
}

/// `(class, count)` for every distinct value of `y`, sorted by class.
pub fn class_counts(y: &[f64]) -> Vec<(f64, usize)> {
    class_indices(y)
        .into_iter()
        .map(|(c, idx)| (c, idx.len()))
        .collect()
}

/// Sample indices of every class, sorted by class.
fn class_indices(y: &[f64]) -> Vec<(f64, Vec<usize>)> {
    let mut order: Vec<usize> = (0..y.len()).collect();
    order.sort_by(|&a, &b| y[a].total_cmp(&y[b]).then(a.cmp(&b)));
    let mut groups: Vec<(f64, Vec<usize>)> = Vec::new();
    for i in order {
        match groups.last_mut() {
            Some((c, idx)) if *c == y[i] => idx.push(i),
            _ => groups.push((y[i], vec![i])),
        }
    }
    groups
}

/// The indices in `0..n` that are not in `part` (e.g. the training indices of a fold).
pub fn complement(n: usize, part: &[usize]) -> Vec<usize> {
    let mut in_part = vec![false; n];
    for &i in part {
        in_part[i] = true;
    }
    (0..n).filter(|&i| !in_part[i]).collect()
}

fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

fn check_fraction(test_fraction: f64) -> Result<()> {
    if test_fraction > 0.0 && test_fraction < 1.0 {
        Ok(())
    } else {
        Err(Error::param(
            "test_fraction",
            format!("test fraction must be in (0, 1), got {test_fraction}"),
        ))
    }
}

fn check_sides(n: usize, n_test: usize, test_fraction: f64) -> Result<()> {
    let empty = match n_test {
        0 => "test",
        t if t == n => "training",
        _ => return Ok(()),
    };
    Err(Error::param(
        "test_fraction",
        format!("a test fraction of {test_fraction} of {n} samples leaves the {empty} set empty"),
    ))
}

/// Splits `0..n` at random into `(train, test)` with `round(n · test_fraction)` test
/// indices. Fails when the fraction is outside `(0, 1)` or a side would be empty.
pub fn train_test_split(
    n: usize,
    test_fraction: f64,
    seed: u64,
) -> Result<(Vec<usize>, Vec<usize>)> {
    check_fraction(test_fraction)?;
    let n_test = (n as f64 * test_fraction).round() as usize;
    check_sides(n, n_test, test_fraction)?;
    let mut perm: Vec<usize> = (0..n).collect();
    perm.shuffle(&mut rng(seed));
    let mut test = perm[..n_test].to_vec();
    let mut train = perm[n_test..].to_vec();
    test.sort_unstable();
    train.sort_unstable();
    Ok((train, test))
}

/// Splits sample indices into `(train, test)` keeping class proportions: each class
/// contributes `floor` or `ceil` of `count · test_fraction` test samples (largest
/// remainders first, so the test set has `round(n · test_fraction)` samples when
/// possible), and every class with at least 2 samples has one on each side. A class with
/// a single sample goes to the training side.
pub fn stratified_split(
    y: &[f64],
    test_fraction: f64,
    seed: u64,
) -> Result<(Vec<usize>, Vec<usize>)> {
    check_fraction(test_fraction)?;
    check_labels(y)?;
    let groups = class_indices(y);
    let counts: Vec<usize> = groups.iter().map(|(_, idx)| idx.len()).collect();
    let quota = stratified_quota(&counts, test_fraction, y.len());
    check_sides(y.len(), quota.iter().sum(), test_fraction)?;

    let mut rng = rng(seed);
    let (mut train, mut test) = (Vec::new(), Vec::new());
    for ((_, mut idx), q) in groups.into_iter().zip(quota) {
        idx.shuffle(&mut rng);
        test.extend_from_slice(&idx[..q]);
        train.extend_from_slice(&idx[q..]);
    }
    test.sort_unstable();
    train.sort_unstable();
    Ok((train, test))
}

/// Test samples per class: floors of the exact shares, plus one for the classes with the
/// largest remainders until the total reaches `round(n · f)`, within `[1, count - 1]`
/// for classes of at least 2 samples (and 0 for singletons).
fn stratified_quota(counts: &[usize], f: f64, n: usize) -> Vec<usize> {
    let bounds = |c: usize| if c >= 2 { (1, c - 1) } else { (0, 0) };
    let exact: Vec<f64> = counts.iter().map(|&c| c as f64 * f).collect();
    let mut quota: Vec<usize> = counts
        .iter()
        .zip(&exact)
        .map(|(&c, &e)| {
            let (lo, hi) = bounds(c);
            (e.floor() as usize).clamp(lo, hi)
        })
        .collect();
    let target = (n as f64 * f).round() as usize;
    let mut order: Vec<usize> = (0..counts.len()).collect();
    order.sort_by(|&a, &b| (exact[b] - exact[b].floor()).total_cmp(&(exact[a] - exact[a].floor())));
    for k in order {
        if quota.iter().sum::<usize>() >= target {
            break;
        }
        if quota[k] < bounds(counts[k]).1 && (quota[k] as f64) < exact[k] {
            quota[k] += 1;
        }
    }
    quota
}

fn check_labels(y: &[f64]) -> Result<()> {
    if let Some(i) = y.iter().position(|v| !v.is_finite()) {
        return Err(Error::data(format!(
            "label {} of sample {} is not finite",
            y[i],
            i + 1
        )));
    }
    Ok(())
}

fn check_k(n: usize, k: usize) -> Result<()> {
    if k < 2 {
        return Err(Error::param(
            "folds",
            format!("cross-validation needs at least 2 folds, got {k}"),
        ));
    }
    if k > n {
        return Err(Error::param(
            "folds",
            format!("{k} folds is more than the {n} samples"),
        ));
    }
    Ok(())
}

/// Deals `0..n`, shuffled, into `k` test folds whose sizes differ by at most one. Each
/// fold is sorted; its training set is [`complement`]`(n, fold)`.
pub fn kfold(n: usize, k: usize, seed: u64) -> Result<Vec<Vec<usize>>> {
    check_k(n, k)?;
    let mut perm: Vec<usize> = (0..n).collect();
    perm.shuffle(&mut rng(seed));
    let mut folds = vec![Vec::with_capacity(n / k + 1); k];
    for (t, i) in perm.into_iter().enumerate() {
        folds[t % k].push(i);
    }
    for f in &mut folds {
        f.sort_unstable();
    }
    Ok(folds)
}

/// Stratified `k` test folds: each class's shuffled indices are dealt round-robin, the
/// deal continuing where the previous class stopped, so every fold's count of each class
/// and every fold's size differ by at most one. Fails when a class has fewer than `k`
/// samples.
pub fn stratified_kfold(y: &[f64], k: usize, seed: u64) -> Result<Vec<Vec<usize>>> {
    check_k(y.len(), k)?;
    check_labels(y)?;
    let groups = class_indices(y);
    if let Some((c, idx)) = groups.iter().find(|(_, idx)| idx.len() < k) {
        let s = if idx.len() == 1 { "" } else { "s" };
        return Err(Error::param(
            "folds",
            format!(
                "class {c} has only {} sample{s}, fewer than {k} folds",
                idx.len()
            ),
        ));
    }
    let mut rng = rng(seed);
    let mut folds = vec![Vec::with_capacity(y.len() / k + 1); k];
    let mut next = 0;
    for (_, mut idx) in groups {
        idx.shuffle(&mut rng);
        for i in idx {
            folds[next].push(i);
            next = (next + 1) % k;
        }
    }
    for f in &mut folds {
        f.sort_unstable();
    }
    Ok(folds)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(counts: &[(f64, usize)]) -> Vec<f64> {
        // Interleave classes so indices of a class are not contiguous.
        let mut y = Vec::new();
        let mut left: Vec<(f64, usize)> = counts.to_vec();
        while left.iter().any(|&(_, c)| c > 0) {
            for (v, c) in &mut left {
                if *c > 0 {
                    y.push(*v);
                    *c -= 1;
                }
            }
        }
        y
    }

    fn assert_partition(n: usize, parts: &[&[usize]]) {
        let mut all: Vec<usize> = parts.iter().flat_map(|p| p.iter().copied()).collect();
        for p in parts {
            assert!(p.windows(2).all(|w| w[0] < w[1]), "sorted, no duplicates");
        }
        all.sort_unstable();
        assert_eq!(all, (0..n).collect::<Vec<_>>(), "disjoint and covering");
    }

    fn count_of(y: &[f64], idx: &[usize], class: f64) -> usize {
        idx.iter().filter(|&&i| y[i] == class).count()
    }

    fn param_msg(r: Result<impl std::fmt::Debug>) -> String {
        match r {
            Err(e @ Error::InvalidParameter { .. }) => e.to_string(),
            other => panic!("expected InvalidParameter, got {other:?}"),
        }
    }

    #[test]
    fn labels_and_counts() {
        let y = [3.0, -1.0, 3.0, 0.0, -0.0, 3.0];
        assert_eq!(class_labels(&y), vec![-1.0, 0.0, 3.0]);
        assert_eq!(class_counts(&y), vec![(-1.0, 1), (0.0, 2), (3.0, 3)]);
        assert_eq!(complement(5, &[3, 1]), vec![0, 2, 4]);
    }

    #[test]
    fn train_test_split_partitions_deterministically() {
        let (train, test) = train_test_split(103, 0.25, 7).unwrap();
        assert_eq!(test.len(), 26);
        assert_partition(103, &[&train, &test]);
        assert_eq!(
            train_test_split(103, 0.25, 7).unwrap(),
            (train.clone(), test)
        );
        assert_ne!(train_test_split(103, 0.25, 8).unwrap().0, train);
    }

    #[test]
    fn train_test_split_errors() {
        let m = param_msg(train_test_split(10, 1.5, 0));
        assert!(
            m.contains("test fraction must be in (0, 1), got 1.5"),
            "{m}"
        );
        param_msg(train_test_split(10, 0.0, 0));
        param_msg(train_test_split(10, f64::NAN, 0));
        let m = param_msg(train_test_split(10, 0.01, 0));
        assert!(m.contains("test set empty"), "{m}");
        let m = param_msg(train_test_split(10, 0.99, 0));
        assert!(m.contains("training set empty"), "{m}");
        param_msg(train_test_split(0, 0.5, 0));
    }

    #[test]
    fn stratified_split_keeps_proportions() {
        let y = labels(&[(1.0, 50), (2.0, 30), (3.0, 17), (4.0, 2), (5.0, 1)]);
        for seed in 0..5 {
            let (train, test) = stratified_split(&y, 0.3, seed).unwrap();
            assert_partition(y.len(), &[&train, &test]);
            assert_eq!(test.len(), 30);
            for (c, n) in class_counts(&y) {
                let t = count_of(&y, &test, c);
                let exact = n as f64 * 0.3;
                if n >= 2 {
                    assert!(t >= 1 && t < n, "class {c}: {t} of {n}");
                    assert!((t as f64 - exact).abs() < 1.0, "class {c}: {t} vs {exact}");
                } else {
                    assert_eq!(t, 0);
                }
            }
            assert_eq!(stratified_split(&y, 0.3, seed).unwrap(), (train, test));
        }
    }

    #[test]
    fn stratified_split_small_classes_get_both_sides() {
        let y = labels(&[(-1.0, 40), (1.0, 2)]);
        let (train, test) = stratified_split(&y, 0.1, 1).unwrap();
        assert_eq!(count_of(&y, &test, 1.0), 1);
        assert_eq!(count_of(&y, &train, 1.0), 1);
        assert_eq!(count_of(&y, &test, -1.0), 4);
    }

    #[test]
    fn stratified_split_errors() {
        param_msg(stratified_split(&[1.0, 2.0], 1.0, 0));
        let m = param_msg(stratified_split(&[1.0, 2.0, 3.0], 0.5, 0));
        assert!(m.contains("test set empty"), "{m}");
        assert!(matches!(
            stratified_split(&[1.0, f64::NAN, 1.0, 2.0], 0.5, 0),
            Err(Error::InvalidData(_))
        ));
    }

    #[test]
    fn kfold_partitions_with_balanced_sizes() {
        let folds = kfold(23, 5, 3).unwrap();
        let parts: Vec<&[usize]> = folds.iter().map(Vec::as_slice).collect();
        assert_partition(23, &parts);
        let sizes: Vec<usize> = folds.iter().map(Vec::len).collect();
        assert!(sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1);
        assert_eq!(kfold(23, 5, 3).unwrap(), folds);
        assert_ne!(kfold(23, 5, 4).unwrap(), folds);
        let train = complement(23, &folds[0]);
        assert_partition(23, &[&train, &folds[0]]);
    }

    #[test]
    fn kfold_errors() {
        assert!(param_msg(kfold(10, 1, 0)).contains("at least 2 folds, got 1"));
        assert!(param_msg(kfold(3, 4, 0)).contains("4 folds is more than the 3 samples"));
    }

    #[test]
    fn stratified_kfold_balances_classes_and_sizes() {
        let y = labels(&[(0.0, 31), (1.0, 12), (7.0, 5)]);
        let k = 5;
        let folds = stratified_kfold(&y, k, 11).unwrap();
        let parts: Vec<&[usize]> = folds.iter().map(Vec::as_slice).collect();
        assert_partition(y.len(), &parts);
        let sizes: Vec<usize> = folds.iter().map(Vec::len).collect();
        assert!(sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1);
        for c in class_labels(&y) {
            let per: Vec<usize> = folds.iter().map(|f| count_of(&y, f, c)).collect();
            assert!(
                per.iter().max().unwrap() - per.iter().min().unwrap() <= 1,
                "{per:?}"
            );
        }
        assert_eq!(stratified_kfold(&y, k, 11).unwrap(), folds);
    }

    #[test]
    fn stratified_kfold_errors() {
        let y = labels(&[(1.0, 10), (3.0, 2)]);
        let m = param_msg(stratified_kfold(&y, 5, 0));
        assert!(
            m.contains("class 3 has only 2 samples, fewer than 5 folds"),
            "{m}"
        );
        param_msg(stratified_kfold(&y, 1, 0));
        param_msg(stratified_kfold(&y[..3], 4, 0));
    }
}
