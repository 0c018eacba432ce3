//! Regular grids over the plane, values on them, and their zero contour (marching
//! squares), for decision-boundary and gate plots.

use crate::data::Features;
use crate::{Error, Result};
#[cfg(test)]
use rayon::prelude::*;
use std::collections::HashMap;

/// A contour segment between the crossing points on two grid edges (edge ids).
type Segment = (usize, usize);

/// `nx × ny` equally spaced nodes covering `[x₀, x₁] × [y₀, y₁]` (corners included).
/// Node `(ix, iy)` is at `(x₀ + ix·Δx, y₀ + iy·Δy)` and is row `iy·nx + ix` of
/// [`PlaneGrid::points`].
#[derive(Clone, Debug, PartialEq)]
pub struct PlaneGrid {
    x_range: (f64, f64),
    y_range: (f64, f64),
    nx: usize,
    ny: usize,
}

/// One value per node of a [`PlaneGrid`] (decision values, gate values, ...).
#[derive(Clone, Debug, PartialEq)]
pub struct GridValues {
    grid: PlaneGrid,
    values: Vec<f64>,
}

fn check_range(name: &str, (lo, hi): (f64, f64)) -> Result<()> {
    if lo.is_finite() && hi.is_finite() && lo < hi {
        Ok(())
    } else {
        Err(Error::param(
            name,
            format!("need finite lo < hi, got ({lo}, {hi})"),
        ))
    }
}

impl PlaneGrid {
    /// A grid of `nx × ny` nodes (each at least 2) over the given ranges.
    pub(crate) fn new(
        x_range: (f64, f64),
        y_range: (f64, f64),
        nx: usize,
        ny: usize,
    ) -> Result<Self> {
        check_range("x_range", x_range)?;
        check_range("y_range", y_range)?;
        if nx < 2 || ny < 2 {
            return Err(Error::param(
                "grid",
                format!("need at least 2 × 2 nodes, got {nx} × {ny}"),
            ));
        }
        Ok(Self {
            x_range,
            y_range,
            nx,
            ny,
        })
    }

    /// The bounding box of the 2-D `points`, widened on every side by `margin` times its
    /// extent (an extent of zero is widened by ±0.5). Fails unless `points` has two
    /// columns, at least one row and finite values.
    pub fn around(points: &Features, margin: f64, nx: usize, ny: usize) -> Result<Self> {
        check_points(points)?;
        crate::check::non_negative_finite("margin", margin)?;
        let span = |j: usize| {
            let (lo, hi) = points
                .rows()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), r| {
                    (lo.min(r[j]), hi.max(r[j]))
                });
            let pad = if hi > lo { margin * (hi - lo) } else { 0.5 };
            (lo - pad, hi + pad)
        };
        Self::new(span(0), span(1), nx, ny)
    }

    /// `(x₀, x₁)`.
    pub(crate) fn x_range(&self) -> (f64, f64) {
        self.x_range
    }

    /// `(y₀, y₁)`.
    pub(crate) fn y_range(&self) -> (f64, f64) {
        self.y_range
    }

    /// Nodes along x.
    pub(crate) fn nx(&self) -> usize {
        self.nx
    }

    /// Nodes along y.
    pub(crate) fn ny(&self) -> usize {
        self.ny
    }

    /// Number of nodes, `nx · ny`.
    pub(crate) fn len(&self) -> usize {
        self.nx * self.ny
    }

    /// Node spacing `(Δx, Δy)`.
    pub(crate) fn spacing(&self) -> (f64, f64) {
        (
            (self.x_range.1 - self.x_range.0) / (self.nx - 1) as f64,
            (self.y_range.1 - self.y_range.0) / (self.ny - 1) as f64,
        )
    }

    /// Coordinates of node `(ix, iy)`.
    pub(crate) fn node(&self, ix: usize, iy: usize) -> (f64, f64) {
        let (dx, dy) = self.spacing();
        (
            self.x_range.0 + ix as f64 * dx,
            self.y_range.0 + iy as f64 * dy,
        )
    }

    /// All nodes as an `nx·ny × 2` matrix (row `iy·nx + ix`), to evaluate a model on in
    /// one batch and pass the result to [`PlaneGrid::with_values`].
    pub fn points(&self) -> Features {
        let mut values = Vec::with_capacity(2 * self.len());
        for iy in 0..self.ny {
            for ix in 0..self.nx {
                let (x, y) = self.node(ix, iy);
                values.extend([x, y]);
            }
        }
        Features::new(self.len(), 2, values).expect("nx·ny × 2 values")
    }

    /// Evaluates `f` at every node, in parallel.
    #[cfg(test)]
    pub(crate) fn evaluate(&self, f: impl Fn(&[f64]) -> f64 + Send + Sync) -> GridValues {
        let pts = self.points();
        let values = pts.as_slice().par_chunks(2).map(f).collect();
        GridValues {
            grid: self.clone(),
            values,
        }
    }

    /// Attaches one value per node (row order of [`PlaneGrid::points`]); fails on a length
    /// mismatch. Non-finite values are allowed and left blank in plots.
    pub fn with_values(&self, values: Vec<f64>) -> Result<GridValues> {
        if values.len() != self.len() {
            return Err(Error::data(format!(
                "{} grid values for a {} × {} grid",
                values.len(),
                self.nx,
                self.ny
            )));
        }
        Ok(GridValues {
            grid: self.clone(),
            values,
        })
    }
}

impl GridValues {
    /// The grid.
    pub(crate) fn grid(&self) -> &PlaneGrid {
        &self.grid
    }

    /// Value at node `(ix, iy)`.
    pub(crate) fn value(&self, ix: usize, iy: usize) -> f64 {
        self.values[iy * self.grid.nx + ix]
    }

    /// Smallest and largest finite value, if any.
    pub fn finite_range(&self) -> Option<(f64, f64)> {
        self.values
            .iter()
            .filter(|v| v.is_finite())
            .fold(None, |acc, &v| match acc {
                None => Some((v, v)),
                Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
            })
    }

    /// The level-0 set `{f = 0}` as polylines (marching squares with linear
    /// interpolation along cell edges; a saddle cell is resolved by the mean of its four
    /// corners). "Positive" means `f > 0`. A closed curve repeats its first point at the
    /// end. Cells with a non-finite corner are skipped.
    pub(crate) fn zero_contour(&self) -> Vec<Vec<(f64, f64)>> {
        let (segments, crossings) = self.contour_segments();
        chain_segments(&segments)
            .into_iter()
            .map(|edges| edges.iter().map(|e| crossings[e]).collect())
            .collect()
    }

    /// Segments as pairs of grid-edge ids, and the crossing point on each edge.
    fn contour_segments(&self) -> (Vec<Segment>, HashMap<usize, (f64, f64)>) {
        let nx = self.grid.nx;
        // Edge ids: 2·node for the edge to the right of a node, 2·node + 1 for the one above.
        let h = |ix: usize, iy: usize| 2 * (iy * nx + ix);
        let v = |ix: usize, iy: usize| 2 * (iy * nx + ix) + 1;
        let mut segments = Vec::new();
        let mut crossings = HashMap::new();
        for iy in 0..self.grid.ny - 1 {
            for ix in 0..nx - 1 {
                // Corners a (bottom-left), b (bottom-right), c (top-right), d (top-left).
                let corners = [(ix, iy), (ix + 1, iy), (ix + 1, iy + 1), (ix, iy + 1)];
                let f = corners.map(|(i, j)| self.value(i, j));
                if f.iter().any(|x| !x.is_finite()) {
                    continue;
                }
                // Edge k joins corner k and corner k+1: bottom, right, top, left.
                let edge_ids = [h(ix, iy), v(ix + 1, iy), h(ix, iy + 1), v(ix, iy)];
                let pos = f.map(|x| x > 0.0);
                let mut cut = Vec::with_capacity(4);
                for k in 0..4 {
                    let l = (k + 1) % 4;
                    if pos[k] != pos[l] {
                        let t = f[k] / (f[k] - f[l]);
                        let (p, q) = (
                            self.grid.node(corners[k].0, corners[k].1),
                            self.grid.node(corners[l].0, corners[l].1),
                        );
                        crossings
                            .insert(edge_ids[k], (p.0 + t * (q.0 - p.0), p.1 + t * (q.1 - p.1)));
                        cut.push(k);
                    }
                }
                match cut.len() {
                    2 => segments.push((edge_ids[cut[0]], edge_ids[cut[1]])),
                    4 => {
                        // Saddle: isolate the corners whose sign differs from the centre's;
                        // corner k touches edges k−1 and k.
                        let centre_pos = f.iter().sum::<f64>() / 4.0 > 0.0;
                        for k in (0..4).filter(|&k| pos[k] != centre_pos) {
                            segments.push((edge_ids[(k + 3) % 4], edge_ids[k]));
                        }
                    }
                    _ => {}
                }
            }
        }
        (segments, crossings)
    }
}

/// Joins segments sharing an edge id into maximal chains of edge ids.
fn chain_segments(segments: &[Segment]) -> Vec<Vec<usize>> {
    let mut by_edge: HashMap<usize, Vec<usize>> = HashMap::new();
    for (s, &(a, b)) in segments.iter().enumerate() {
        by_edge.entry(a).or_default().push(s);
        by_edge.entry(b).or_default().push(s);
    }
    let mut used = vec![false; segments.len()];
    let mut chains = Vec::new();
    for s in 0..segments.len() {
        if used[s] {
            continue;
        }
        used[s] = true;
        let mut forward = vec![segments[s].0, segments[s].1];
        extend_chain(&mut forward, segments, &by_edge, &mut used);
        let mut backward = vec![segments[s].0];
        extend_chain(&mut backward, segments, &by_edge, &mut used);
        backward.reverse();
        backward.extend_from_slice(&forward[1..]);
        chains.push(backward);
    }
    chains
}

/// Appends edges while an unused segment continues from the chain's last edge.
fn extend_chain(
    chain: &mut Vec<usize>,
    segments: &[Segment],
    by_edge: &HashMap<usize, Vec<usize>>,
    used: &mut [bool],
) {
    loop {
        let end = *chain.last().expect("non-empty chain");
        let Some(&t) = by_edge[&end].iter().find(|&&t| !used[t]) else {
            return;
        };
        used[t] = true;
        let (a, b) = segments[t];
        chain.push(if a == end { b } else { a });
    }
}

/// Two columns, at least one row, finite values.
pub(crate) fn check_points(points: &Features) -> Result<()> {
    if points.n_cols() != 2 || points.n_rows() == 0 {
        return Err(Error::data(format!(
            "plots need 2-D points, got {} × {}",
            points.n_rows(),
            points.n_cols()
        )));
    }
    points.check_finite("plotted")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(n: usize) -> PlaneGrid {
        PlaneGrid::new((-2.0, 2.0), (-2.0, 2.0), n, n).unwrap()
    }

    #[test]
    fn nodes_cover_the_box_in_row_order() {
        let g = PlaneGrid::new((0.0, 1.0), (10.0, 12.0), 3, 2).unwrap();
        let p = g.points();
        assert_eq!(
            p.as_slice(),
            &[0.0, 10.0, 0.5, 10.0, 1.0, 10.0, 0.0, 12.0, 0.5, 12.0, 1.0, 12.0]
        );
        let v = g.evaluate(|q| q[0] + q[1]);
        assert_eq!(v.value(2, 1), 13.0);
        assert_eq!(v.finite_range(), Some((10.0, 13.0)));
        assert!(g.with_values(vec![0.0; 5]).is_err());
    }

    #[test]
    fn around_pads_the_bounding_box() {
        let x = Features::from_rows(&[vec![0.0, 1.0], vec![2.0, 1.0]]).unwrap();
        let g = PlaneGrid::around(&x, 0.1, 4, 4).unwrap();
        assert_eq!(g.x_range(), (-0.2, 2.2));
        assert_eq!(g.y_range(), (0.5, 1.5));
        assert!(PlaneGrid::around(&Features::new(2, 3, vec![0.0; 6]).unwrap(), 0.1, 4, 4).is_err());
        assert!(PlaneGrid::new((1.0, 1.0), (0.0, 1.0), 4, 4).is_err());
        assert!(PlaneGrid::new((0.0, 1.0), (0.0, 1.0), 1, 4).is_err());
    }

    #[test]
    fn circle_contour_is_one_closed_curve_on_the_circle() {
        let v = grid(81).evaluate(|p| 1.0 - (p[0] * p[0] + p[1] * p[1]));
        let curves = v.zero_contour();
        assert_eq!(curves.len(), 1);
        let c = &curves[0];
        assert_eq!(c.first(), c.last());
        assert!(c.len() > 50);
        for &(x, y) in c {
            // Linear interpolation of a quadratic: error O(Δ²) = O(0.0025).
            assert!(((x * x + y * y).sqrt() - 1.0).abs() < 3e-3, "({x}, {y})");
        }
    }

    #[test]
    fn line_contour_is_exact_and_open() {
        // f = x − 0.3y + 0.1 is linear, so interpolation is exact.
        let v = grid(30).evaluate(|p| p[0] - 0.3 * p[1] + 0.1);
        let curves = v.zero_contour();
        assert_eq!(curves.len(), 1);
        assert_ne!(curves[0].first(), curves[0].last());
        for &(x, y) in &curves[0] {
            assert!((x - 0.3 * y + 0.1).abs() < 1e-12);
        }
        let ys: Vec<f64> = curves[0].iter().map(|p| p.1).collect();
        let (lo, hi) = ys
            .iter()
            .fold((f64::MAX, f64::MIN), |(l, h), &y| (l.min(y), h.max(y)));
        assert!(lo <= -1.999 && hi >= 1.999);
    }

    #[test]
    fn saddle_and_missing_values() {
        // f = xy: the level set is the two axes, crossing at a saddle.
        let v = grid(5).evaluate(|p| (p[0] + 0.01) * (p[1] + 0.01));
        let pts: usize = v.zero_contour().iter().map(Vec::len).sum();
        assert!(pts >= 8);
        for c in v.zero_contour() {
            for (x, y) in c {
                assert!((x + 0.01).abs() < 1e-12 || (y + 0.01).abs() < 1e-12);
            }
        }
        // No sign change or all-NaN: no contour.
        assert!(grid(5).evaluate(|_| 1.0).zero_contour().is_empty());
        assert!(grid(5).evaluate(|_| f64::NAN).zero_contour().is_empty());
        assert_eq!(grid(5).evaluate(|_| f64::NAN).finite_range(), None);
    }
}
