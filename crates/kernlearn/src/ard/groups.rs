//! Columns that share one ARD width: the blocks of a one-hot encoded attribute. A
//! symbolic attribute with `v` values becomes `v` 0/1 columns, exactly one of them 1 in
//! every row; a width per column would let the alignment weigh the values of one
//! attribute differently (a distance that depends on which two values differ), and
//! spread one attribute's relevance over `v` widths learned from `v` times fewer
//! differences each. One width per block keeps the attribute one input, as the
//! Hamming distance on the original symbols.

use crate::data::Dataset;
use crate::{Error, Result};

/// The feature → width map of `blocks` on `d` features (each block one width, every
/// other column its own), or empty when there is no block.
pub(crate) fn width_map(blocks: &[Vec<usize>], d: usize) -> Vec<usize> {
    if blocks.is_empty() {
        return Vec::new();
    }
    let mut of = vec![usize::MAX; d];
    blocks
        .iter()
        .enumerate()
        .for_each(|(g, cols)| cols.iter().for_each(|&c| of[c] = g));
    let free = of.iter_mut().filter(|w| **w == usize::MAX);
    (blocks.len()..).zip(free).for_each(|(next, w)| *w = next);
    of
}

/// The one-hot blocks of `data`: runs of at least two adjacent columns whose names share
/// the text before their last `_` or `=` (`workclass_Private`, `workclass_State-gov`),
/// whose values are all 0 or 1, and exactly one of which is 1 in every row.
pub(crate) fn one_hot_blocks(data: &Dataset) -> Vec<Vec<usize>> {
    let names = &data.feature_names;
    let d = data.x.n_cols();
    if names.len() != d {
        return Vec::new();
    }
    let prefix = |k: usize| names[k].rfind(['_', '=']).map(|at| &names[k][..at]);
    let binary = |k: usize| (0..data.len()).all(|i| matches!(data.x.row(i)[k], 0.0 | 1.0));
    let mut blocks = Vec::new();
    let mut start = 0;
    while start < d {
        let mut end = start + 1;
        if prefix(start).is_some() {
            while end < d && prefix(end) == prefix(start) {
                end += 1;
            }
        }
        let cols: Vec<usize> = (start..end).collect();
        let one_hot = cols.len() >= 2
            && cols.iter().all(|&k| binary(k))
            && (0..data.len()).all(|i| cols.iter().map(|&k| data.x.row(i)[k]).sum::<f64>() == 1.0);
        if one_hot {
            blocks.push(cols);
        }
        start = end;
    }
    blocks
}

/// Blocks given as text: groups separated by `;`, each a comma list of 0-based column
/// indices or inclusive ranges `a-b` (`"0-3;7,9"`); every column in at most one group of
/// at least two columns, all below `d`.
pub(crate) fn parse_blocks(spec: &str, d: usize) -> Result<Vec<Vec<usize>>> {
    let bad = |why: String| Error::param("ard-groups", why);
    let mut seen = vec![false; d];
    let mut blocks = Vec::new();
    for group in spec.split(';').map(str::trim).filter(|g| !g.is_empty()) {
        let mut cols = Vec::new();
        for item in group.split(',').map(str::trim) {
            let index = |t: &str| {
                t.trim().parse::<usize>().map_err(|_| {
                    bad(format!(
                        "`{t}` in `{group}` is not a 0-based column index (e.g. «0-3;7,9»)"
                    ))
                })
            };
            let (lo, hi) = match item.split_once('-') {
                Some((a, b)) => (index(a)?, index(b)?),
                None => (index(item)?, index(item)?),
            };
            if lo > hi || hi >= d {
                return Err(bad(format!(
                    "`{item}` is not a range of columns 0…{}",
                    d - 1
                )));
            }
            cols.extend(lo..=hi);
        }
        if cols.len() < 2 {
            return Err(bad(format!(
                "group `{group}` has one column; a group shares a width between two or more"
            )));
        }
        for &c in &cols {
            if std::mem::replace(&mut seen[c], true) {
                return Err(bad(format!("column {c} is in two groups")));
            }
        }
        blocks.push(cols);
    }
    Ok(blocks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Features;

    fn dataset(names: &[&str], rows: &[Vec<f64>]) -> Dataset {
        Dataset {
            x: Features::from_rows(rows).unwrap(),
            y: vec![1.0; rows.len()],
            feature_names: names.iter().map(|s| s.to_string()).collect(),
            target_name: "label".into(),
        }
    }

    /// A one-hot block is found by its names and its values; a 0/1 run that is not one
    /// hot per row, a lone dummy and a numeric column are not blocks.
    #[test]
    fn one_hot_blocks_need_names_and_one_hot_rows() {
        let names = [
            "age",
            "color_red",
            "color_blue",
            "size_s",
            "size_m",
            "flag_t",
            "x_1",
        ];
        let rows = vec![
            vec![0.3, 1.0, 0.0, 1.0, 1.0, 0.0, 0.5],
            vec![0.7, 0.0, 1.0, 0.0, 1.0, 1.0, 0.1],
        ];
        let data = dataset(&names, &rows);
        assert_eq!(one_hot_blocks(&data), vec![vec![1, 2]]);
        assert_eq!(width_map(&[vec![1, 2]], 7), vec![1, 0, 0, 2, 3, 4, 5]);
        assert!(width_map(&[], 7).is_empty());
    }

    #[test]
    fn explicit_blocks_are_checked() {
        assert_eq!(
            parse_blocks("0-2; 5,7", 8).unwrap(),
            vec![vec![0, 1, 2], vec![5, 7]]
        );
        for (spec, why) in [
            ("0-9", "range of columns"),
            ("1,2;2,3", "two groups"),
            ("4", "one column"),
            ("a-b", "not a 0-based column index"),
        ] {
            let e = parse_blocks(spec, 8).unwrap_err().to_string();
            assert!(e.contains("ard-groups") && e.contains(why), "{spec}: {e}");
        }
    }
}
