//! Panels over the plane: decision regions and boundaries, and heat maps.

use super::grid::{check_points, GridValues};
use super::{render, tick_label, Drawn, Figure, FONT, PALETTE};
use crate::data::Features;
use crate::{Error, Result};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::colors::colormaps::ViridisRGB;
use std::path::Path;

/// Pixel size of one panel (square plotting area plus title and axes).
const PANEL: (u32, u32) = (520, 540);
/// Width of the colour bar strip of a heat map.
const COLOUR_BAR: u32 = 110;

/// Light fill of the region where the decision value is positive / not positive.
const FILL_POS: RGBColor = RGBColor(205, 222, 245);
const FILL_NEG: RGBColor = RGBColor(250, 215, 210);
/// Points of class `> 0` / `≤ 0`.
const POINT_POS: RGBColor = RGBColor(20, 110, 40);
const POINT_NEG: RGBColor = RGBColor(200, 30, 30);

type Chart<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// How a boundary is stroked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineKind {
    /// Continuous line.
    Solid,
    /// Dashed line (as the SVM-CV boundaries of the KNPL and DANK figures).
    Dashed,
}

/// One decision-boundary panel: training points with labels, the decision function on a
/// grid (its sign regions are filled, its zero level drawn), optionally support points
/// (ringed) and further boundaries overlaid, such as SVM-CV's beside a learned kernel's.
///
/// Points with a label `> 0` are drawn as green discs, the others as red crosses,
/// matching positive (blue) and non-positive (red) decision regions.
#[derive(Clone, Debug)]
pub struct Panel<'a> {
    /// Panel title (method and accuracy, say).
    pub title: String,
    /// Training points, `n × 2`.
    pub points: &'a Features,
    /// One label per point.
    pub labels: &'a [f64],
    /// Decision values on a grid; the panel shows the grid's box.
    pub decision: &'a GridValues,
    /// Legend name of the decision function's boundary (shown when there are overlays).
    pub boundary_name: String,
    /// Indices of support points, ringed.
    pub support: Option<&'a [usize]>,
    /// Extra zero contours: name, values (on any grid), line kind.
    pub overlays: Vec<(String, &'a GridValues, LineKind)>,
}

impl<'a> Panel<'a> {
    /// A panel without support points or overlays.
    pub fn new(
        title: impl Into<String>,
        points: &'a Features,
        labels: &'a [f64],
        decision: &'a GridValues,
    ) -> Self {
        Self {
            title: title.into(),
            points,
            labels,
            decision,
            boundary_name: "boundary".into(),
            support: None,
            overlays: Vec::new(),
        }
    }

    /// Rings the points with these indices.
    pub fn support(mut self, indices: &'a [usize]) -> Self {
        self.support = Some(indices);
        self
    }

    /// Names the main boundary in the legend.
    pub fn boundary_name(mut self, name: impl Into<String>) -> Self {
        self.boundary_name = name.into();
        self
    }

    /// Overlays the zero contour of another decision function.
    pub fn overlay(
        mut self,
        name: impl Into<String>,
        values: &'a GridValues,
        kind: LineKind,
    ) -> Self {
        self.overlays.push((name.into(), values, kind));
        self
    }

    fn check(&self) -> Result<()> {
        check_points(self.points)?;
        let n = self.points.n_rows();
        if self.labels.len() != n {
            return Err(Error::data(format!(
                "panel `{}`: {} labels for {n} points",
                self.title,
                self.labels.len()
            )));
        }
        if let Some(&i) = self.support.unwrap_or(&[]).iter().find(|&&i| i >= n) {
            return Err(Error::data(format!(
                "panel `{}`: support index {i} out of range for {n} points",
                self.title
            )));
        }
        Ok(())
    }
}

/// One heat-map panel: values on a grid, optionally with points (labels as in
/// [`Panel`]).
#[derive(Clone, Debug)]
pub struct HeatPanel<'a> {
    /// Panel title (the kernel a gate belongs to, say).
    pub title: String,
    /// Values on a grid.
    pub values: &'a GridValues,
    /// Points and their labels, drawn on top.
    pub points: Option<(&'a Features, &'a [f64])>,
}

impl<'a> HeatPanel<'a> {
    /// A panel of `values` without points.
    pub fn new(title: impl Into<String>, values: &'a GridValues) -> Self {
        Self {
            title: title.into(),
            values,
            points: None,
        }
    }

    /// Draws these points on top.
    pub fn points(mut self, points: &'a Features, labels: &'a [f64]) -> Self {
        self.points = Some((points, labels));
        self
    }
}

/// Decision-boundary panels side by side (as the KNPL Fig. 2 / DANK Fig. 1
/// comparisons), written as PNG or SVG according to the extension of `path`.
///
/// Fails on an empty panel list, points that are not `n × 2` and finite, a label count
/// that differs from the point count, an out-of-range support index, or a path that
/// cannot be written (see [`super::line_plot`]).
pub fn decision_boundaries(path: impl AsRef<Path>, panels: &[Panel<'_>]) -> Result<()> {
    if panels.is_empty() {
        return Err(Error::data("no panel to draw"));
    }
    panels.iter().try_for_each(Panel::check)?;
    render(path.as_ref(), &DecisionFigure(panels))
}

/// Heat-map panels side by side on one colour scale with a colour bar: `range` fixes it
/// (gates in `[0, 1]`, say), `None` uses the finite values of all panels. Written as
/// PNG or SVG according to the extension of `path`.
///
/// Fails on an empty panel list, an invalid range, no finite value to scale by, bad
/// points (as [`decision_boundaries`]) or a path that cannot be written.
pub fn heatmap(
    path: impl AsRef<Path>,
    panels: &[HeatPanel<'_>],
    colour_label: &str,
    range: Option<(f64, f64)>,
) -> Result<()> {
    if panels.is_empty() {
        return Err(Error::data("no panel to draw"));
    }
    for p in panels {
        if let Some((x, y)) = p.points {
            check_points(x)?;
            if y.len() != x.n_rows() {
                return Err(Error::data(format!(
                    "panel `{}`: {} labels for {} points",
                    p.title,
                    y.len(),
                    x.n_rows()
                )));
            }
        }
    }
    let range = match range {
        Some((lo, hi)) if lo.is_finite() && hi.is_finite() && lo < hi => (lo, hi),
        Some((lo, hi)) => {
            return Err(Error::param(
                "range",
                format!("need finite lo < hi, got ({lo}, {hi})"),
            ))
        }
        None => {
            let (lo, hi) = panels
                .iter()
                .filter_map(|p| p.values.finite_range())
                .reduce(|a, b| (a.0.min(b.0), a.1.max(b.1)))
                .ok_or_else(|| Error::data("no finite value to draw in any panel"))?;
            if hi > lo {
                (lo, hi)
            } else {
                (lo - 0.5, hi + 0.5)
            }
        }
    };
    render(
        path.as_ref(),
        &HeatFigure {
            panels,
            colour_label,
            range,
        },
    )
}

struct DecisionFigure<'p, 'a>(&'p [Panel<'a>]);

impl Figure for DecisionFigure<'_, '_> {
    fn size(&self) -> (u32, u32) {
        (PANEL.0 * self.0.len() as u32, PANEL.1)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Drawn<DB> {
        root.fill(&WHITE)?;
        for (area, panel) in root.split_evenly((1, self.0.len())).iter().zip(self.0) {
            draw_decision_panel(area, panel)?;
        }
        Ok(())
    }
}

struct HeatFigure<'p, 'a> {
    panels: &'p [HeatPanel<'a>],
    colour_label: &'p str,
    range: (f64, f64),
}

impl Figure for HeatFigure<'_, '_> {
    fn size(&self) -> (u32, u32) {
        (PANEL.0 * self.panels.len() as u32 + COLOUR_BAR, PANEL.1)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Drawn<DB> {
        root.fill(&WHITE)?;
        let (left, bar) = root.split_horizontally(PANEL.0 * self.panels.len() as u32);
        for (area, panel) in left
            .split_evenly((1, self.panels.len()))
            .iter()
            .zip(self.panels)
        {
            let mut chart = panel_chart(area, &panel.title, panel.values)?;
            fill_cells(&mut chart, panel.values, |v| {
                let (lo, hi) = self.range;
                Some(ViridisRGB.get_color_normalized(v.clamp(lo, hi), lo, hi))
            })?;
            draw_axes(&mut chart)?;
            if let Some((x, y)) = panel.points {
                draw_points(&mut chart, x, y, None, true)?;
            }
        }
        draw_colour_bar(&bar, self.colour_label, self.range)
    }
}

/// A chart over the grid's box, with a title.
fn panel_chart<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    title: &str,
    values: &GridValues,
) -> std::result::Result<Chart<'a, DB>, DrawingAreaErrorKind<DB::ErrorType>> {
    let (x, y) = (values.grid().x_range(), values.grid().y_range());
    ChartBuilder::on(area)
        .caption(title, (FONT, 20))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(45)
        .build_cartesian_2d(x.0..x.1, y.0..y.1)
}

fn draw_axes<DB: DrawingBackend>(chart: &mut Chart<'_, DB>) -> Drawn<DB> {
    chart
        .configure_mesh()
        .disable_mesh()
        .label_style((FONT, 13))
        .x_labels(6)
        .y_labels(6)
        .x_label_formatter(&tick_label)
        .y_label_formatter(&tick_label)
        .draw()
}

fn draw_decision_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    panel: &Panel<'_>,
) -> Drawn<DB> {
    let mut chart = panel_chart(area, &panel.title, panel.decision)?;
    fill_cells(&mut chart, panel.decision, |v| {
        Some(if v > 0.0 { FILL_POS } else { FILL_NEG })
    })?;
    draw_axes(&mut chart)?;
    let main = (
        panel.boundary_name.as_str(),
        panel.decision,
        LineKind::Solid,
        BLACK,
    );
    let overlays = panel
        .overlays
        .iter()
        .enumerate()
        .map(|(k, (name, v, kind))| (name.as_str(), *v, *kind, PALETTE[k % PALETTE.len()]));
    for (name, values, kind, colour) in std::iter::once(main).chain(overlays) {
        draw_contour(&mut chart, values, kind, colour, name)?;
    }
    draw_points(&mut chart, panel.points, panel.labels, panel.support, false)?;
    if !panel.overlays.is_empty() {
        chart
            .configure_series_labels()
            .label_font((FONT, 13))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.5))
            .position(SeriesLabelPosition::UpperLeft)
            .draw()?;
    }
    Ok(())
}

/// Fills the cell around every node with `colour(value)`, merging runs of equal colour
/// along a row into one rectangle (far fewer SVG elements for sign regions).
/// Non-finite values are left blank.
fn fill_cells<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    values: &GridValues,
    colour: impl Fn(f64) -> Option<RGBColor>,
) -> Drawn<DB> {
    let g = values.grid();
    let (dx, dy) = g.spacing();
    let mut cells = Vec::new();
    for iy in 0..g.ny() {
        let mut ix = 0;
        while ix < g.nx() {
            let v = values.value(ix, iy);
            let c = if v.is_finite() { colour(v) } else { None };
            let start = ix;
            ix += 1;
            while ix < g.nx() && {
                let w = values.value(ix, iy);
                (if w.is_finite() { colour(w) } else { None }) == c
            } {
                ix += 1;
            }
            if let Some(c) = c {
                let (x0, y) = g.node(start, iy);
                let (x1, _) = g.node(ix - 1, iy);
                let corners = [(x0 - dx / 2.0, y - dy / 2.0), (x1 + dx / 2.0, y + dy / 2.0)];
                cells.push(Rectangle::new(corners, c.filled()));
            }
        }
    }
    chart.draw_series(cells)?;
    Ok(())
}

fn draw_contour<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    values: &GridValues,
    kind: LineKind,
    colour: RGBColor,
    name: &str,
) -> Drawn<DB> {
    let style = colour.stroke_width(2);
    let curves = values.zero_contour();
    for (k, curve) in curves.iter().enumerate() {
        let anno = match kind {
            LineKind::Solid => chart.draw_series(LineSeries::new(curve.iter().copied(), style))?,
            LineKind::Dashed => {
                chart.draw_series(DashedLineSeries::new(curve.iter().copied(), 7, 5, style))?
            }
        };
        if k == 0 {
            anno.label(name)
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 24, y)], style));
        }
    }
    Ok(())
}

/// Class `> 0` as discs (green, or white with a black edge on a heat map, where green
/// would vanish), the others as red crosses; support points ringed.
fn draw_points<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    x: &Features,
    y: &[f64],
    support: Option<&[usize]>,
    on_heat_map: bool,
) -> Drawn<DB> {
    let at = |i: usize| (x.row(i)[0], x.row(i)[1]);
    let positive = || (0..x.n_rows()).filter(|&i| y[i] > 0.0);
    let fill = if on_heat_map { WHITE } else { POINT_POS };
    chart.draw_series(positive().map(|i| Circle::new(at(i), 3, fill.filled())))?;
    if on_heat_map {
        chart.draw_series(positive().map(|i| Circle::new(at(i), 3, BLACK.stroke_width(1))))?;
    }
    let negative = (0..x.n_rows()).filter(|&i| y[i] <= 0.0 || y[i].is_nan());
    chart.draw_series(negative.map(|i| Cross::new(at(i), 4, POINT_NEG.stroke_width(2))))?;
    if let Some(idx) = support {
        chart.draw_series(
            idx.iter()
                .map(|&i| Circle::new(at(i), 7, BLACK.stroke_width(1))),
        )?;
    }
    Ok(())
}

fn draw_colour_bar<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    label: &str,
    (lo, hi): (f64, f64),
) -> Drawn<DB> {
    let mut chart = ChartBuilder::on(area)
        .margin_top(45)
        .margin_bottom(45)
        .margin_left(5)
        .set_label_area_size(LabelAreaPosition::Right, 55)
        .caption(label, (FONT, 15))
        .build_cartesian_2d(0.0..1.0, lo..hi)?;
    let steps = 128;
    let h = (hi - lo) / steps as f64;
    chart.draw_series((0..steps).map(|s| {
        let v0 = lo + s as f64 * h;
        let c = ViridisRGB.get_color_normalized(v0 + h / 2.0, lo, hi);
        Rectangle::new([(0.0, v0), (1.0, v0 + h)], c.filled())
    }))?;
    chart
        .configure_mesh()
        .disable_mesh()
        .disable_x_axis()
        .label_style((FONT, 13))
        .y_labels(6)
        .y_label_formatter(&tick_label)
        .draw()
}

#[cfg(test)]
mod tests {
    use super::super::tests::{decode_png, svg_counts, TempDir};
    use super::super::PlaneGrid;
    use super::*;

    /// Two classes in the plane and a circle-shaped decision function.
    fn toy() -> (Features, Vec<f64>, GridValues, GridValues) {
        let rows: Vec<Vec<f64>> = (0..60)
            .map(|i| {
                let t = i as f64 * 0.7;
                let r = if i % 2 == 0 { 0.5 } else { 1.6 };
                vec![r * t.cos(), r * t.sin()]
            })
            .collect();
        let x = Features::from_rows(&rows).unwrap();
        let y = (0..60)
            .map(|i| if i % 2 == 0 { 1.0 } else { -1.0 })
            .collect();
        let grid = PlaneGrid::around(&x, 0.1, 90, 90).unwrap();
        let circle = grid.evaluate(|p| 1.0 - (p[0] * p[0] + p[1] * p[1]));
        let line = grid.evaluate(|p| 0.5 - p[0]);
        (x, y, circle, line)
    }

    #[test]
    fn decision_panels_as_png_and_svg() {
        let dir = TempDir::new("decision");
        let (x, y, circle, line) = toy();
        let sv: Vec<usize> = (0..60).step_by(7).collect();
        let panels = [
            Panel::new("SVM-CV", &x, &y, &line),
            Panel::new("KNPL", &x, &y, &circle).support(&sv),
            Panel::new("DANK", &x, &y, &circle)
                .boundary_name("DANK")
                .overlay("SVM-CV", &line, LineKind::Dashed),
        ];
        let png = dir.0.join("fig.png");
        decision_boundaries(&png, &panels).unwrap();
        let ((w, h), ink) = decode_png(&png);
        assert_eq!((w, h), (3 * PANEL.0, PANEL.1));
        assert!(
            ink > (w * h / 2) as usize,
            "regions are filled: {ink} pixels"
        );

        let svg = dir.0.join("fig.svg");
        decision_boundaries(&svg, &panels).unwrap();
        let [rects, circles, texts] = svg_counts(&svg, &["rect", "circle", "text"])[..] else {
            unreachable!()
        };
        // Run-length fill: at most a few runs per grid row, far fewer than 3 × 90² cells.
        assert!(rects > 3 * 90 && rects < 3 * 90 * 6, "{rects} rects");
        // 30 positive discs per panel, plus the support rings.
        assert_eq!(circles, 3 * 30 + sv.len());
        let text = std::fs::read_to_string(&svg).unwrap();
        for title in ["SVM-CV", "KNPL", "DANK"] {
            assert!(text.contains(title));
        }
        assert!(texts > 3 * 6);
    }

    #[test]
    fn heatmap_as_png_and_svg() {
        let dir = TempDir::new("heat");
        let (x, y, circle, line) = toy();
        let gate = circle
            .grid()
            .evaluate(|p| 1.0 / (1.0 + (-3.0 * p[0]).exp()));
        let panels = [
            HeatPanel::new("gate 1", &gate).points(&x, &y),
            HeatPanel::new("gate 2", &line),
        ];
        let png = dir.0.join("gates.png");
        heatmap(&png, &panels, "gate", Some((0.0, 1.0))).unwrap();
        assert_eq!(decode_png(&png).0, (2 * PANEL.0 + COLOUR_BAR, PANEL.1));
        let svg = dir.0.join("gates.svg");
        heatmap(&svg, &panels, "value", None).unwrap();
        let [rects] = svg_counts(&svg, &["rect"])[..] else {
            unreachable!()
        };
        assert!(rects >= 128, "{rects}");
    }

    #[test]
    fn bad_panels_are_rejected() {
        let dir = TempDir::new("badpanel");
        let (x, y, circle, _) = toy();
        let p = dir.0.join("p.png");
        assert!(decision_boundaries(&p, &[]).is_err());
        let e = decision_boundaries(&p, &[Panel::new("a", &x, &y[1..], &circle)]).unwrap_err();
        assert!(e.to_string().contains("59 labels for 60 points"), "{e}");
        let e = decision_boundaries(&p, &[Panel::new("a", &x, &y, &circle).support(&[60])])
            .unwrap_err();
        assert!(e.to_string().contains("support index 60"), "{e}");
        let x3 = Features::new(2, 3, vec![0.0; 6]).unwrap();
        assert!(decision_boundaries(&p, &[Panel::new("a", &x3, &[1.0, -1.0], &circle)]).is_err());
        let e = decision_boundaries(dir.0.join("p.jpg"), &[Panel::new("a", &x, &y, &circle)])
            .unwrap_err();
        assert!(e.to_string().contains("use .png or .svg"), "{e}");
        assert!(heatmap(&p, &[], "v", None).is_err());
        assert!(heatmap(&p, &[HeatPanel::new("a", &circle)], "v", Some((1.0, 0.0))).is_err());
        let nan = circle.grid().evaluate(|_| f64::NAN);
        let e = heatmap(&p, &[HeatPanel::new("a", &nan)], "v", None).unwrap_err();
        assert!(e.to_string().contains("no finite value"), "{e}");
        assert!(!p.exists());
    }
}
