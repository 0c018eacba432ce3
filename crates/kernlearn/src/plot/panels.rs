//! Panels over the plane: decision regions and boundaries, and heat maps, each figure
//! with axis labels, a legend strip of its marks below the panels and, for heat maps, a
//! labelled colour bar.

use super::grid::{check_points, GridValues};
use super::legend::{self, Entry, Swatch};
use super::{draw_title, render, tick_label, title_height, Drawn, Figure, FONT, PALETTE};
use crate::data::Features;
use crate::{Error, Result};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::colors::colormaps::ViridisRGB;
use std::path::Path;

/// Pixel size of one panel below its title: a square plotting area with its axes.
const PANEL: (u32, u32) = (540, 530);
/// Width of the colour bar column of a heat map.
const COLOUR_BAR: u32 = 130;

/// Light fill of the region where the decision value is positive / not positive.
const FILL_POS: RGBColor = RGBColor(205, 222, 245);
const FILL_NEG: RGBColor = RGBColor(250, 215, 210);
/// Points of class `> 0` / `≤ 0`.
const POINT_POS: RGBColor = RGBColor(20, 110, 40);
const POINT_NEG: RGBColor = RGBColor(200, 30, 30);

/// Default axis labels.
const X_LABEL: &str = "x₁";
const Y_LABEL: &str = "x₂";

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
/// matching positive (blue) and non-positive (red) decision regions. The figure's legend
/// names the classes ([`Panel::class_names`]), the regions, the support rings and every
/// boundary line; the axes are labelled `x₁`, `x₂` unless [`Panel::axes`] says otherwise.
/// A title may hold a second line (after `\n`), drawn smaller.
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
    /// Legend name of the decision function's boundary.
    pub boundary_name: String,
    /// Indices of support points, ringed.
    pub support: Option<&'a [usize]>,
    /// Extra zero contours: name, values (on any grid), line kind.
    pub overlays: Vec<(String, &'a GridValues, LineKind)>,
    /// Axis labels (x, y).
    pub axes: (String, String),
    /// Legend names of the classes with labels `> 0` and `≤ 0`.
    pub class_names: (String, String),
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
            boundary_name: "decision boundary".into(),
            support: None,
            overlays: Vec::new(),
            axes: (X_LABEL.into(), Y_LABEL.into()),
            class_names: ("class +1".into(), "class −1".into()),
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

    /// Labels the axes (feature names, say).
    pub fn axes(mut self, x: impl Into<String>, y: impl Into<String>) -> Self {
        self.axes = (x.into(), y.into());
        self
    }

    /// Names the classes in the legend (labels `> 0`, labels `≤ 0`).
    #[cfg(test)]
    pub(crate) fn class_names(
        mut self,
        positive: impl Into<String>,
        negative: impl Into<String>,
    ) -> Self {
        self.class_names = (positive.into(), negative.into());
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
/// [`Panel`]) and the zero contour of a decision function.
#[derive(Clone, Debug)]
pub struct HeatPanel<'a> {
    /// Panel title (the kernel a gate belongs to, say); a second line after `\n`.
    pub title: String,
    /// Values on a grid.
    pub values: &'a GridValues,
    /// Points and their labels, drawn on top.
    pub points: Option<(&'a Features, &'a [f64])>,
    /// A decision function whose zero level is drawn on top, with its legend name.
    pub contour: Option<(String, &'a GridValues)>,
    /// Axis labels (x, y).
    pub axes: (String, String),
}

impl<'a> HeatPanel<'a> {
    /// A panel of `values` without points.
    pub fn new(title: impl Into<String>, values: &'a GridValues) -> Self {
        Self {
            title: title.into(),
            values,
            points: None,
            contour: None,
            axes: (X_LABEL.into(), Y_LABEL.into()),
        }
    }

    /// Draws these points on top.
    pub fn points(mut self, points: &'a Features, labels: &'a [f64]) -> Self {
        self.points = Some((points, labels));
        self
    }

    /// Draws the zero level of `decision` on top as a black line named `name` in the
    /// legend (a classifier's boundary over its gates, say).
    pub fn contour(mut self, name: impl Into<String>, decision: &'a GridValues) -> Self {
        self.contour = Some((name.into(), decision));
        self
    }

    /// Labels the axes.
    pub fn axes(mut self, x: impl Into<String>, y: impl Into<String>) -> Self {
        self.axes = (x.into(), y.into());
        self
    }
}

/// How heat-map values become colours.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum ColourScale {
    /// Viridis, dark blue at the low end of the range to yellow at the high end.
    Sequential,
    /// Purple below `centre`, white at it, orange above, each side stretched over its
    /// part of the range: for values with a natural middle, such as the gates of m
    /// kernels around the equal share 1/m. A centre outside the range is moved to its
    /// nearer end.
    Diverging {
        /// The value drawn white.
        centre: f64,
    },
}

/// Purple–white–orange (ColorBrewer PuOr), from the low to the high end.
const DIVERGING: [RGBColor; 5] = [
    RGBColor(84, 39, 136),
    RGBColor(153, 142, 195),
    RGBColor(247, 247, 247),
    RGBColor(241, 163, 64),
    RGBColor(179, 88, 6),
];

fn mix(a: RGBColor, b: RGBColor, t: f64) -> RGBColor {
    let c = |x: u8, y: u8| (x as f64 + t * (y as f64 - x as f64)).round() as u8;
    RGBColor(c(a.0, b.0), c(a.1, b.1), c(a.2, b.2))
}

impl ColourScale {
    /// The colour of `v` on the range `(lo, hi)` (values outside are clamped).
    fn colour(&self, v: f64, (lo, hi): (f64, f64)) -> RGBColor {
        let v = v.clamp(lo, hi);
        match *self {
            ColourScale::Sequential => ViridisRGB.get_color_normalized(v, lo, hi),
            ColourScale::Diverging { centre } => {
                let c = centre.clamp(lo, hi);
                // t ∈ [−1, 1]: −1 at lo, 0 at the centre, 1 at hi.
                let t = if v < c {
                    -(c - v) / (c - lo)
                } else if v > c {
                    (v - c) / (hi - c)
                } else {
                    0.0
                };
                let s = 2.0 * (t + 1.0); // 0 … 4 over the five stops
                let k = (s.floor() as usize).min(3);
                mix(DIVERGING[k], DIVERGING[k + 1], s - k as f64)
            }
        }
    }
}

/// Options of [`heatmap_with`]: the colour bar's label, range and scale, a figure title
/// (with subtitle lines after `\n`) and the legend names of the drawn points.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct HeatOptions {
    /// Label of the colour bar (drawn along it).
    pub colour_label: String,
    /// Fixed colour range; `None` spans the finite values of all panels.
    pub range: Option<(f64, f64)>,
    /// Sequential or diverging colours.
    pub scale: ColourScale,
    /// Figure title above all panels; empty for none.
    pub title: String,
    /// Legend names of the points with labels `> 0` and `≤ 0`.
    pub point_names: (String, String),
}

impl HeatOptions {
    /// A sequential scale over the data's range, no title, points named by class.
    pub fn new(colour_label: impl Into<String>) -> Self {
        Self {
            colour_label: colour_label.into(),
            range: None,
            scale: ColourScale::Sequential,
            title: String::new(),
            point_names: ("class +1".into(), "class −1".into()),
        }
    }

    /// Fixes the colour range.
    pub fn range(mut self, lo: f64, hi: f64) -> Self {
        self.range = Some((lo, hi));
        self
    }

    /// Sets the colour scale.
    pub fn scale(mut self, scale: ColourScale) -> Self {
        self.scale = scale;
        self
    }

    /// Sets the figure title (subtitle lines after `\n`).
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = title.into();
        self
    }

    /// Names the points in the legend.
    pub fn point_names(mut self, positive: impl Into<String>, negative: impl Into<String>) -> Self {
        self.point_names = (positive.into(), negative.into());
        self
    }
}

/// Decision-boundary panels side by side (as the KNPL Fig. 2 / DANK Fig. 1
/// comparisons), written as PNG or SVG according to the extension of `path`; see
/// [`decision_boundaries_titled`].
///
/// Fails on an empty panel list, points that are not `n × 2` and finite, a label count
/// that differs from the point count, an out-of-range support index, or a path that
/// cannot be written (see `super::line_plot`).
pub fn decision_boundaries(path: impl AsRef<Path>, panels: &[Panel<'_>]) -> Result<()> {
    decision_boundaries_titled(path, "", panels)
}

/// [`decision_boundaries`] under a figure title (subtitle lines after `\n`). Below the
/// panels, a legend explains the point markers of each class, the support rings (when a
/// panel has support points), the colour of the region predicted for each class, the
/// main boundary line and every overlaid one.
pub fn decision_boundaries_titled(
    path: impl AsRef<Path>,
    title: &str,
    panels: &[Panel<'_>],
) -> Result<()> {
    if panels.is_empty() {
        return Err(Error::data("no panel to draw"));
    }
    panels.iter().try_for_each(Panel::check)?;
    render(
        path.as_ref(),
        &DecisionFigure {
            title,
            panels,
            legend: decision_legend(panels),
        },
    )
}

/// Heat-map panels side by side on one colour scale with a colour bar: `range` fixes it
/// (gates in `[0, 1]`, say), `None` uses the finite values of all panels. Written as
/// PNG or SVG according to the extension of `path`. [`heatmap_with`] takes more options.
///
/// Fails on an empty panel list, an invalid range, no finite value to scale by, bad
/// points (as [`decision_boundaries`]) or a path that cannot be written.
pub fn heatmap(
    path: impl AsRef<Path>,
    panels: &[HeatPanel<'_>],
    colour_label: &str,
    range: Option<(f64, f64)>,
) -> Result<()> {
    let mut options = HeatOptions::new(colour_label);
    options.range = range;
    heatmap_with(path, panels, &options)
}

/// Heat-map panels side by side on one colour scale, with a colour bar labelled
/// `options.colour_label`, an optional figure title and a legend of the points and
/// contours drawn; see [`HeatOptions`] and [`heatmap`].
pub fn heatmap_with(
    path: impl AsRef<Path>,
    panels: &[HeatPanel<'_>],
    options: &HeatOptions,
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
    if let ColourScale::Diverging { centre } = options.scale {
        if !centre.is_finite() {
            return Err(Error::param(
                "centre",
                format!("must be finite, got {centre}"),
            ));
        }
    }
    let range = match options.range {
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
            options,
            range,
            legend: heat_legend(panels, options),
        },
    )
}

/// Legend of a decision figure: points, support rings, regions, lines.
fn decision_legend(panels: &[Panel<'_>]) -> Vec<Entry> {
    let (pos, neg) = &panels[0].class_names;
    let mut entries = vec![
        Entry::new(
            Swatch::Disc(POINT_POS, None),
            format!("training point, {pos}"),
        ),
        Entry::new(
            Swatch::Cross(POINT_NEG, false),
            format!("training point, {neg}"),
        ),
    ];
    if panels.iter().any(|p| p.support.is_some()) {
        entries.push(Entry::new(Swatch::Ring, "support vector"));
    }
    entries.push(Entry::new(
        Swatch::Fill(FILL_POS),
        format!("predicted {pos}"),
    ));
    entries.push(Entry::new(
        Swatch::Fill(FILL_NEG),
        format!("predicted {neg}"),
    ));
    let first = &panels[0].boundary_name;
    let main = if panels.iter().all(|p| &p.boundary_name == first) {
        first.clone()
    } else {
        "decision boundary of the panel's method".into()
    };
    entries.push(Entry::new(Swatch::Line(BLACK, false), main));
    let mut named: Vec<&str> = vec![];
    for p in panels {
        for (k, (name, _, kind)) in p.overlays.iter().enumerate() {
            if !named.contains(&name.as_str()) {
                named.push(name);
                let swatch = Swatch::Line(PALETTE[k % PALETTE.len()], *kind == LineKind::Dashed);
                entries.push(Entry::new(swatch, name.clone()));
            }
        }
    }
    entries
}

/// Legend of a heat map: its points and contours (none: no legend).
fn heat_legend(panels: &[HeatPanel<'_>], options: &HeatOptions) -> Vec<Entry> {
    let mut entries = vec![];
    if panels.iter().any(|p| p.points.is_some()) {
        let (pos, neg) = &options.point_names;
        entries.push(Entry::new(Swatch::Disc(WHITE, Some(BLACK)), pos.clone()));
        entries.push(Entry::new(Swatch::Cross(POINT_NEG, true), neg.clone()));
    }
    let mut named: Vec<&str> = vec![];
    for p in panels {
        if let Some((name, _)) = &p.contour {
            if !named.contains(&name.as_str()) {
                named.push(name);
                entries.push(Entry::new(Swatch::Line(BLACK, false), name.clone()));
            }
        }
    }
    entries
}

/// Height of the tallest of these panel titles.
fn panel_title_height<'t>(titles: impl Iterator<Item = &'t str>) -> u32 {
    titles.map(title_height).max().unwrap_or(0)
}

struct DecisionFigure<'p, 'a> {
    title: &'p str,
    panels: &'p [Panel<'a>],
    legend: Vec<Entry>,
}

impl DecisionFigure<'_, '_> {
    fn width(&self) -> u32 {
        PANEL.0 * self.panels.len() as u32
    }

    fn panel_height(&self) -> u32 {
        panel_title_height(self.panels.iter().map(|p| p.title.as_str())) + PANEL.1
    }
}

impl Figure for DecisionFigure<'_, '_> {
    fn size(&self) -> (u32, u32) {
        let w = self.width();
        (
            w,
            title_height(self.title) + self.panel_height() + legend::height(&self.legend, w),
        )
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Drawn<DB> {
        root.fill(&WHITE)?;
        let body = draw_title(root, self.title)?;
        let (row, strip) = body.split_vertically(self.panel_height());
        let title_h = panel_title_height(self.panels.iter().map(|p| p.title.as_str()));
        for (area, panel) in row
            .split_evenly((1, self.panels.len()))
            .iter()
            .zip(self.panels)
        {
            draw_decision_panel(area, title_h, panel)?;
        }
        legend::draw(&strip, &self.legend)
    }
}

struct HeatFigure<'p, 'a> {
    panels: &'p [HeatPanel<'a>],
    options: &'p HeatOptions,
    range: (f64, f64),
    legend: Vec<Entry>,
}

impl HeatFigure<'_, '_> {
    fn panel_height(&self) -> u32 {
        panel_title_height(self.panels.iter().map(|p| p.title.as_str())) + PANEL.1
    }
}

impl Figure for HeatFigure<'_, '_> {
    fn size(&self) -> (u32, u32) {
        let w = PANEL.0 * self.panels.len() as u32 + COLOUR_BAR;
        (
            w,
            title_height(&self.options.title)
                + self.panel_height()
                + legend::height(&self.legend, w),
        )
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Drawn<DB> {
        root.fill(&WHITE)?;
        let body = draw_title(root, &self.options.title)?;
        let (row, strip) = body.split_vertically(self.panel_height());
        let (left, bar) = row.split_horizontally(PANEL.0 * self.panels.len() as u32);
        let title_h = panel_title_height(self.panels.iter().map(|p| p.title.as_str()));
        for (area, panel) in left
            .split_evenly((1, self.panels.len()))
            .iter()
            .zip(self.panels)
        {
            let plot = titled(area, &panel.title, title_h)?;
            let mut chart = panel_chart(&plot, panel.values)?;
            fill_cells(&mut chart, panel.values, |v| {
                Some(self.options.scale.colour(v, self.range))
            })?;
            draw_axes(&mut chart, &panel.axes)?;
            if let Some((_, decision)) = &panel.contour {
                draw_contour(&mut chart, decision, LineKind::Solid, BLACK)?;
            }
            if let Some((x, y)) = panel.points {
                draw_points(&mut chart, x, y, None, true)?;
            }
        }
        let (_, bar) = bar.split_vertically(title_h);
        draw_colour_bar(
            &bar,
            &self.options.colour_label,
            self.options.scale,
            self.range,
        )?;
        legend::draw(&strip, &self.legend)
    }
}

/// Draws `title` in the top `height` pixels of `area` and returns the rest.
fn titled<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    height: u32,
) -> std::result::Result<DrawingArea<DB, Shift>, DrawingAreaErrorKind<DB::ErrorType>> {
    let (top, rest) = area.split_vertically(height);
    draw_title(&top, title)?;
    Ok(rest)
}

/// A chart over the grid's box, with room for tick labels and axis labels.
fn panel_chart<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    values: &GridValues,
) -> std::result::Result<Chart<'a, DB>, DrawingAreaErrorKind<DB::ErrorType>> {
    let (x, y) = (values.grid().x_range(), values.grid().y_range());
    ChartBuilder::on(area)
        .margin(10)
        .margin_top(4)
        .x_label_area_size(50)
        .y_label_area_size(62)
        .build_cartesian_2d(x.0..x.1, y.0..y.1)
}

fn draw_axes<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    (x, y): &(String, String),
) -> Drawn<DB> {
    chart
        .configure_mesh()
        .disable_mesh()
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 17))
        .x_desc(x.as_str())
        .y_desc(y.as_str())
        .x_labels(6)
        .y_labels(6)
        .x_label_formatter(&tick_label)
        .y_label_formatter(&tick_label)
        .draw()
}

fn draw_decision_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title_height: u32,
    panel: &Panel<'_>,
) -> Drawn<DB> {
    let plot = titled(area, &panel.title, title_height)?;
    let mut chart = panel_chart(&plot, panel.decision)?;
    fill_cells(&mut chart, panel.decision, |v| {
        Some(if v > 0.0 { FILL_POS } else { FILL_NEG })
    })?;
    draw_axes(&mut chart, &panel.axes)?;
    let main = (panel.decision, LineKind::Solid, BLACK);
    let overlays = panel
        .overlays
        .iter()
        .enumerate()
        .map(|(k, (_, v, kind))| (*v, *kind, PALETTE[k % PALETTE.len()]));
    for (values, kind, colour) in std::iter::once(main).chain(overlays) {
        draw_contour(&mut chart, values, kind, colour)?;
    }
    draw_points(&mut chart, panel.points, panel.labels, panel.support, false)
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
) -> Drawn<DB> {
    let style = colour.stroke_width(2);
    for curve in values.zero_contour() {
        match kind {
            LineKind::Solid => chart.draw_series(LineSeries::new(curve, style))?,
            LineKind::Dashed => chart.draw_series(DashedLineSeries::new(curve, 7, 5, style))?,
        };
    }
    Ok(())
}

/// Class `> 0` as discs (green, or white with a black edge on a heat map, where green
/// would vanish), the others as red crosses (with a white halo on a heat map); support
/// points ringed.
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
    let negative = || (0..x.n_rows()).filter(|&i| y[i] <= 0.0 || y[i].is_nan());
    if on_heat_map {
        chart.draw_series(negative().map(|i| Cross::new(at(i), 4, WHITE.stroke_width(5))))?;
    }
    chart.draw_series(negative().map(|i| Cross::new(at(i), 4, POINT_NEG.stroke_width(2))))?;
    if let Some(idx) = support {
        chart.draw_series(
            idx.iter()
                .map(|&i| Circle::new(at(i), 7, BLACK.stroke_width(1))),
        )?;
    }
    Ok(())
}

/// A vertical colour bar over `(lo, hi)` with ticks on its right and `label` along it.
fn draw_colour_bar<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    label: &str,
    scale: ColourScale,
    (lo, hi): (f64, f64),
) -> Drawn<DB> {
    let mut chart = ChartBuilder::on(area)
        .margin_top(12)
        .margin_bottom(56)
        .margin_left(8)
        .margin_right(4)
        .set_label_area_size(LabelAreaPosition::Right, 60)
        .build_cartesian_2d(0.0..1.0, lo..hi)?;
    let steps = 160;
    let h = (hi - lo) / steps as f64;
    chart.draw_series((0..steps).map(|s| {
        let v0 = lo + s as f64 * h;
        let c = scale.colour(v0 + h / 2.0, (lo, hi));
        Rectangle::new([(0.0, v0), (1.0, v0 + h)], c.filled())
    }))?;
    chart.draw_series(std::iter::once(Rectangle::new(
        [(0.0, lo), (1.0, hi)],
        BLACK.mix(0.6).stroke_width(1),
    )))?;
    chart
        .configure_mesh()
        .disable_mesh()
        .disable_x_axis()
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 15))
        .y_desc(label)
        .y_labels(7)
        .y_label_formatter(&tick_label)
        .draw()
}

#[cfg(test)]
mod tests {
    use super::super::tests::{decode_png, has_text, svg_counts, svg_texts, TempDir};
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
            Panel::new("SVM-CV\ntest accuracy 90.0 %", &x, &y, &line),
            Panel::new("KNPL", &x, &y, &circle).support(&sv),
            Panel::new("DANK", &x, &y, &circle).overlay("SVM-CV boundary", &line, LineKind::Dashed),
        ];
        let png = dir.0.join("fig.png");
        decision_boundaries(&png, &panels).unwrap();
        let ((w, h), ink) = decode_png(&png);
        assert_eq!(w, 3 * PANEL.0);
        assert!(h > PANEL.1 + 40, "title and legend rows: {h}");
        assert!(
            ink > (w * h / 2) as usize,
            "regions are filled: {ink} pixels"
        );

        let svg = dir.0.join("fig.svg");
        decision_boundaries_titled(&svg, "Decision boundaries\non a toy set", &panels).unwrap();
        let [rects, circles, texts] = svg_counts(&svg, &["rect", "circle", "text"])[..] else {
            unreachable!()
        };
        // Run-length fill: at most a few runs per grid row, far fewer than 3 × 90² cells.
        assert!(rects > 3 * 90 && rects < 3 * 90 * 6, "{rects} rects");
        // 30 positive discs per panel, the support rings, and a disc and a ring in the legend.
        assert_eq!(circles, 3 * 30 + sv.len() + 2);
        assert!(texts > 3 * 6);
        let texts = svg_texts(&svg);
        for want in [
            // Titles, subtitle lines, axis labels.
            "Decision boundaries",
            "on a toy set",
            "SVM-CV",
            "test accuracy 90.0 %",
            "KNPL",
            "DANK",
            "x₁",
            "x₂",
            // The legend: markers, regions, lines.
            "training point, class +1",
            "training point, class −1",
            "support vector",
            "predicted class +1",
            "predicted class −1",
            "decision boundary",
            "SVM-CV boundary",
        ] {
            assert!(has_text(&texts, want), "`{want}` missing: {texts:?}");
        }
        // Feature names and class names replace the defaults; no support ring, no entry.
        let named = [Panel::new("p", &x, &y, &line)
            .axes("age", "income")
            .class_names("buys", "does not buy")
            .boundary_name("SVM")];
        decision_boundaries(&svg, &named).unwrap();
        let texts = svg_texts(&svg);
        for want in [
            "age",
            "income",
            "training point, buys",
            "predicted does not buy",
            "SVM",
        ] {
            assert!(has_text(&texts, want), "`{want}` missing: {texts:?}");
        }
        assert!(!has_text(&texts, "support vector") && !has_text(&texts, "x₁"));
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
        let (w, h) = decode_png(&png).0;
        assert_eq!(w, 2 * PANEL.0 + COLOUR_BAR);
        assert!(h > PANEL.1, "{h}");
        let svg = dir.0.join("gates.svg");
        heatmap(&svg, &panels, "value", None).unwrap();
        let [rects] = svg_counts(&svg, &["rect"])[..] else {
            unreachable!()
        };
        assert!(rects >= 128, "{rects}");
        // The colour bar is labelled and has a scale; the legend names the points.
        let texts = svg_texts(&svg);
        for want in ["value", "class +1", "class −1", "x₁", "x₂"] {
            assert!(has_text(&texts, want), "`{want}` missing: {texts:?}");
        }
        let ticks = texts.iter().filter(|t| t.2.parse::<f64>().is_ok()).count();
        assert!(ticks >= 2 * 6 + 4, "{ticks} tick labels");
    }

    #[test]
    fn gate_maps_with_a_diverging_scale_title_and_boundary() {
        let dir = TempDir::new("gates");
        let (x, y, circle, _) = toy();
        let g1 = circle.grid().evaluate(|p| 0.5 + 0.2 * p[0].tanh());
        let g2 = circle.grid().evaluate(|p| 0.5 - 0.2 * p[0].tanh());
        let panels = [
            HeatPanel::new("gate of kernel 1: linear", &g1)
                .points(&x, &y)
                .contour("classifier boundary", &circle),
            HeatPanel::new("gate of kernel 2: rbf", &g2)
                .points(&x, &y)
                .contour("classifier boundary", &circle),
        ];
        let options = HeatOptions::new("gate (white = 1/2)")
            .range(0.3, 0.7)
            .scale(ColourScale::Diverging { centre: 0.5 })
            .title("Where each kernel is used\nthe gates are uniform (not really)")
            .point_names("support point, class +1", "support point, class −1");
        let svg = dir.0.join("g.svg");
        heatmap_with(&svg, &panels, &options).unwrap();
        let texts = svg_texts(&svg);
        for want in [
            "Where each kernel is used",
            "the gates are uniform (not really)",
            "gate (white = 1/2)",
            "support point, class +1",
            "support point, class −1",
            "classifier boundary",
            "gate of kernel 1: linear",
            "0.5",
        ] {
            assert!(has_text(&texts, want), "`{want}` missing: {texts:?}");
        }
        // The boundary is drawn once per panel plus the legend swatch.
        let [lines] = svg_counts(&svg, &["polyline"])[..] else {
            unreachable!()
        };
        assert!(lines >= 3, "{lines}");
        // Diverging colours: white at the centre, purple below, orange above; the ends of
        // the range are the ends of the map, values outside are clamped.
        let scale = ColourScale::Diverging { centre: 0.5 };
        assert_eq!(scale.colour(0.5, (0.3, 0.7)), DIVERGING[2]);
        assert_eq!(scale.colour(0.3, (0.3, 0.7)), DIVERGING[0]);
        assert_eq!(scale.colour(0.9, (0.3, 0.7)), DIVERGING[4]);
        assert_eq!(scale.colour(0.6, (0.3, 0.7)), DIVERGING[3]);
        // An off-centre range: each side stretched to its own end.
        let off = ColourScale::Diverging { centre: 0.25 };
        assert_eq!(off.colour(0.0, (0.0, 1.0)), DIVERGING[0]);
        assert_eq!(off.colour(1.0, (0.0, 1.0)), DIVERGING[4]);
        assert_eq!(off.colour(0.25, (0.0, 1.0)), DIVERGING[2]);
        let bad = HeatOptions::new("g").scale(ColourScale::Diverging { centre: f64::NAN });
        assert!(heatmap_with(dir.0.join("b.svg"), &panels, &bad).is_err());
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
