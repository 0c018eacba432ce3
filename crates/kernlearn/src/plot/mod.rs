//! Figures as PNG or SVG files (chosen by the extension), drawn with `plotters`:
//!
//! - `line_plot`: curves against iterations (KNPL's ADMM residual, Fig. 3; DANK's
//!   objective for plain and Nesterov-accelerated projected gradient), optionally on a
//!   logarithmic y axis (noted in the axis label); when every x is a whole number (an
//!   iteration count) the x ticks are whole numbers too;
//! - [`decision_boundaries`]: side-by-side panels of 2-D training points, the sign
//!   regions and zero contour of a decision function on a [`PlaneGrid`], support points, and
//!   extra boundaries overlaid (the KNPL Fig. 2 / DANK Fig. 1 comparisons of SVM-CV,
//!   KNPL and DANK), with axis labels and a legend of the markers, regions and lines;
//! - `bar_chart`: named values as horizontal bars, largest first (a learned kernel's
//!   relevance of each feature);
//! - [`heatmap`] / [`heatmap_with`]: panels of a value on a grid (e.g. a localized-MKL
//!   gate per kernel) on one shared colour scale ([`ColourScale`]: sequential, or
//!   diverging around a middle value such as 1/m) with a labelled colour bar.
//!
//! Titles may hold several lines (`\n`): the first is the title, the others are drawn
//! smaller below it, as subtitles.
//!
//! Text is rendered with the DejaVu Sans font compiled into the library (the `dejavu`
//! crate through plotters' `ab_glyph` feature), so no system font, fontconfig or other
//! package is needed, and figures are identical on every machine.

mod bars;
mod grid;
mod legend;
mod panels;

pub(crate) use bars::bar_chart;

pub use grid::{GridValues, PlaneGrid};
pub use panels::{
    decision_boundaries, decision_boundaries_titled, heatmap, heatmap_with, ColourScale,
    HeatOptions, HeatPanel, LineKind, Panel,
};

use crate::{Error, Result};
use plotters::coord::combinators::LogCoord;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged, ValueFormatter};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;
use std::sync::Once;

/// Result of drawing on a backend.
type Drawn<DB> = std::result::Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// Font family every figure uses (registered once from the embedded DejaVu Sans).
const FONT: &str = "sans-serif";

/// Distinguishable line colours (matplotlib's "tab10").
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// Series with at most this many points also get a marker per point.
const MARKER_MAX_POINTS: usize = 60;

/// Output format, from the file extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Png,
    Svg,
}

/// Something that draws itself on any plotters backend.
trait Figure {
    fn size(&self) -> (u32, u32);
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, plotters::coord::Shift>)
        -> Drawn<DB>;
}

fn register_fonts() {
    static FONTS: Once = Once::new();
    FONTS.call_once(|| {
        // The embedded files are valid TrueType fonts; a failure would show as missing text.
        let _ = plotters::style::register_font(FONT, FontStyle::Normal, dejavu::sans::regular());
        let _ = plotters::style::register_font(FONT, FontStyle::Bold, dejavu::sans::bold());
    });
}

fn plot_error(path: &Path, reason: impl std::fmt::Display) -> Error {
    Error::Plot {
        path: path.display().to_string(),
        reason: reason.to_string(),
    }
}

/// The format of `path`, after checking that its directory exists.
fn output_format(path: &Path) -> Result<Format> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let format = match ext.as_deref() {
        Some("png") => Format::Png,
        Some("svg") => Format::Svg,
        _ => {
            return Err(plot_error(
                path,
                "unsupported file extension; use .png or .svg",
            ))
        }
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        return Err(plot_error(
            path,
            format!("directory {} does not exist", dir.display()),
        ));
    }
    Ok(format)
}

/// Draws `figure` into `path` (PNG or SVG by extension).
fn render(path: &Path, figure: &impl Figure) -> Result<()> {
    let format = output_format(path)?;
    register_fonts();
    let size = figure.size();
    match format {
        Format::Png => {
            let root = BitMapBackend::new(path, size).into_drawing_area();
            figure.draw(&root).map_err(|e| plot_error(path, e))?;
            root.present().map_err(|e| plot_error(path, e))
        }
        Format::Svg => {
            let root = SVGBackend::new(path, size).into_drawing_area();
            figure.draw(&root).map_err(|e| plot_error(path, e))?;
            root.present().map_err(|e| plot_error(path, e))
        }
    }
}

/// Font size of a title's first line, and of its further (subtitle) lines.
const TITLE_SIZE: u32 = 21;
const SUBTITLE_SIZE: u32 = 15;
/// Colour of subtitle lines.
const SUBTITLE_COLOUR: RGBColor = RGBColor(70, 70, 70);

/// Pixel height [`draw_title`] takes for `title` (0 for an empty title).
fn title_height(title: &str) -> u32 {
    let mut lines = title.lines().filter(|l| !l.trim().is_empty());
    match lines.next() {
        None => 0,
        Some(_) => 8 + (TITLE_SIZE + 6) + lines.count() as u32 * (SUBTITLE_SIZE + 5),
    }
}

/// Draws `title` centred at the top of `area` (its first line as the title, further lines
/// smaller, as subtitles) and returns the area below it.
fn draw_title<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
) -> std::result::Result<DrawingArea<DB, Shift>, DrawingAreaErrorKind<DB::ErrorType>> {
    let height = title_height(title);
    if height == 0 {
        return Ok(area.clone());
    }
    let (top, rest) = area.split_vertically(height);
    let centre = top.dim_in_pixel().0 as i32 / 2;
    let mut y = 8;
    for (k, line) in title.lines().filter(|l| !l.trim().is_empty()).enumerate() {
        let (size, colour) = if k == 0 {
            (TITLE_SIZE, BLACK)
        } else {
            (SUBTITLE_SIZE, SUBTITLE_COLOUR)
        };
        let style = TextStyle::from((FONT, size).into_font())
            .color(&colour)
            .pos(Pos::new(HPos::Center, VPos::Top));
        top.draw(&Text::new(line.to_string(), (centre, y), style))?;
        y += size as i32 + if k == 0 { 6 } else { 5 };
    }
    Ok(rest)
}

/// Whole-number tick positions for an axis over `(lo, hi)` when every value in `xs` is a
/// whole number (iterations, rounds): steps of 1, 2, 5, 10, 20, … with at most about
/// twelve ticks. `None` when some value is fractional (the axis then keeps plotters' ticks).
fn integer_ticks(xs: impl Iterator<Item = f64>, (lo, hi): (f64, f64)) -> Option<Vec<f64>> {
    let mut any = false;
    for x in xs {
        if x.fract() != 0.0 || x.abs() > 1e15 {
            return None;
        }
        any = true;
    }
    if !any || lo.is_nan() || hi.is_nan() || hi <= lo {
        return None;
    }
    let mut step = 1.0;
    'grow: loop {
        for m in [1.0, 2.0, 5.0] {
            if (hi - lo) / (m * step) <= 12.0 {
                step *= m;
                break 'grow;
            }
        }
        step *= 10.0;
    }
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    Some((first..=last).map(|k| k as f64 * step).collect())
}

/// Tick positions for a logarithmic axis over `(lo, hi)` (`0 < lo < hi`): powers of ten,
/// every k-th one over many decades; 1, 2, 5 × 10ᵏ over fewer than three decades; and,
/// over less than half a decade, a few evenly spaced values.
fn log_ticks((lo, hi): (f64, f64)) -> Vec<f64> {
    let decades = (hi / lo).log10();
    let (first, last) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    let within = |v: &f64| *v >= lo * (1.0 - 1e-9) && *v <= hi * (1.0 + 1e-9);
    if decades >= 3.0 {
        let every = (decades / 8.0).ceil().max(1.0) as i32;
        return (first..=last)
            .filter(|k| k.rem_euclid(every) == 0)
            .map(|k| 10f64.powi(k))
            .filter(within)
            .collect();
    }
    let ticks: Vec<f64> = (first..=last)
        .flat_map(|k| [1.0, 2.0, 5.0].map(|m| m * 10f64.powi(k)))
        .filter(within)
        .collect();
    if ticks.len() >= 3 {
        return ticks;
    }
    // A narrow range: about five evenly spaced round values.
    let step = nice_step((hi - lo) / 5.0);
    let start = (lo / step).ceil() as i64;
    let end = (hi / step).floor() as i64;
    (start..=end)
        .map(|k| k as f64 * step)
        .filter(|v| *v > 0.0)
        .collect()
}

/// The smallest of 1, 2, 5 × 10ᵏ at least `x > 0`.
fn nice_step(x: f64) -> f64 {
    let p = 10f64.powf(x.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * p)
        .find(|&v| v >= x)
        .unwrap_or(10.0 * p)
}

/// An axis (linear or logarithmic) with the given tick positions.
struct Ticked<R> {
    inner: R,
    ticks: Vec<f64>,
}

impl<R: Ranged<ValueType = f64>> Ranged for Ticked<R> {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.inner.map(value, limit)
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        // Bold ticks only: no light mesh lines between them.
        if hint.weight().allow_light_points() {
            vec![]
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.inner.range()
    }
}

/// `label`, with " (log scale)" added for a logarithmic axis unless it already says so.
fn axis_label(label: &str, log: bool) -> String {
    if log && !label.to_lowercase().contains("log") {
        format!("{label} (log scale)")
    } else {
        label.to_string()
    }
}

/// Short tick label: up to four decimals without trailing zeros in `[1e-3, 1e5)`,
/// otherwise one significant decimal in scientific notation (`1e-5`, `2.5e7`); plotters'
/// default prints log-axis ticks as `9.99999999e-5`.
fn tick_label(v: &f64) -> String {
    let trim = |s: String| {
        let (mantissa, exp) = s
            .split_once('e')
            .map_or((s.as_str(), None), |(m, e)| (m, Some(e)));
        let mantissa = if mantissa.contains('.') {
            mantissa.trim_end_matches('0').trim_end_matches('.')
        } else {
            mantissa
        };
        match exp {
            Some(e) => format!("{mantissa}e{e}"),
            None => mantissa.to_string(),
        }
    };
    let a = v.abs();
    let s = if a == 0.0 || (1e-3..1e5).contains(&a) {
        trim(format!("{v:.4}"))
    } else {
        trim(format!("{v:.1e}"))
    };
    if s == "-0" {
        "0".into()
    } else {
        s
    }
}

/// `(lo, hi)` of finite values, widened when degenerate.
fn padded_range(values: impl Iterator<Item = f64>, log: bool) -> (f64, f64) {
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    match (log, hi > lo) {
        (true, true) => (lo / 1.5, hi * 1.5),
        (true, false) => (lo / 2.0, hi * 2.0),
        (false, true) => (lo - 0.04 * (hi - lo), hi + 0.04 * (hi - lo)),
        (false, false) => (lo - 0.5 * lo.abs().max(1.0), hi + 0.5 * hi.abs().max(1.0)),
    }
}

/// Curves `(name, [(x, y), ...])` on one chart, with a legend; `log_y` for a logarithmic
/// y axis (convergence of residuals and objective gaps). Points that are not finite, and
/// on a log axis points with `y ≤ 0` (an exactly converged residual), are left out.
/// Written as PNG or SVG according to the extension of `path`.
///
/// Fails with [`Error::Plot`] on another extension, a missing directory or a write
/// error, and with [`Error::InvalidData`] when no point is left to draw.
pub(crate) fn line_plot<S: AsRef<str>>(
    path: impl AsRef<Path>,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[(S, Vec<(f64, f64)>)],
    log_y: bool,
) -> Result<()> {
    xy_plot(path.as_ref(), title, x_label, y_label, series, log_y, false)
}

/// Groups of points `(name, [(x, y), ...])` as coloured markers on one chart, with a
/// legend (e.g. a 2-D projection coloured by class). Same formats and errors as
/// `line_plot`.
pub fn scatter_plot<S: AsRef<str>>(
    path: impl AsRef<Path>,
    title: &str,
    x_label: &str,
    y_label: &str,
    groups: &[(S, Vec<(f64, f64)>)],
) -> Result<()> {
    xy_plot(path.as_ref(), title, x_label, y_label, groups, false, true)
}

fn xy_plot<S: AsRef<str>>(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[(S, Vec<(f64, f64)>)],
    log_y: bool,
    scatter: bool,
) -> Result<()> {
    output_format(path)?;
    let kept: Vec<(String, Vec<(f64, f64)>)> = series
        .iter()
        .map(|(name, pts)| {
            let pts = pts
                .iter()
                .copied()
                .filter(|(x, y)| x.is_finite() && y.is_finite() && (!log_y || *y > 0.0))
                .collect();
            (name.as_ref().to_string(), pts)
        })
        .collect();
    if kept.iter().all(|(_, p)| p.is_empty()) {
        return Err(Error::data(format!(
            "nothing to plot in {}: no finite{} point in {} series",
            path.display(),
            if log_y { ", positive" } else { "" },
            series.len()
        )));
    }
    render(
        path,
        &LinePlot {
            title,
            x_label,
            y_label,
            series: kept,
            log_y,
            scatter,
        },
    )
}

struct LinePlot<'a> {
    title: &'a str,
    x_label: &'a str,
    y_label: &'a str,
    series: Vec<(String, Vec<(f64, f64)>)>,
    log_y: bool,
    /// Markers only, no lines.
    scatter: bool,
}

impl Figure for LinePlot<'_> {
    fn size(&self) -> (u32, u32) {
        (
            900,
            600 + title_height(self.title).saturating_sub(title_height("t")),
        )
    }

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, plotters::coord::Shift>,
    ) -> Drawn<DB> {
        root.fill(&WHITE)?;
        let area = draw_title(root, self.title)?;
        let all = || self.series.iter().flat_map(|(_, p)| p.iter());
        let x = padded_range(all().map(|p| p.0), false);
        let y = padded_range(all().map(|p| p.1), self.log_y);
        let x_ticks = integer_ticks(all().map(|p| p.0), x);
        let mut builder = ChartBuilder::on(&area);
        builder
            .margin(15)
            .margin_top(5)
            .x_label_area_size(50)
            .y_label_area_size(85);
        let log_y = || Ticked {
            inner: LogCoord::<f64>::from((y.0..y.1).log_scale()),
            ticks: log_ticks(y),
        };
        // Four combinations of axis types; each is a different chart type.
        match x_ticks {
            Some(ticks) => {
                let x = Ticked {
                    inner: RangedCoordf64::from(x.0..x.1),
                    ticks,
                };
                if self.log_y {
                    self.draw_curves(builder.build_cartesian_2d(x, log_y())?)
                } else {
                    self.draw_curves(builder.build_cartesian_2d(x, y.0..y.1)?)
                }
            }
            None if self.log_y => self.draw_curves(builder.build_cartesian_2d(x.0..x.1, log_y())?),
            None => self.draw_curves(builder.build_cartesian_2d(x.0..x.1, y.0..y.1)?),
        }
    }
}

impl LinePlot<'_> {
    fn draw_curves<'c, DB: DrawingBackend + 'c, X, Y>(
        &self,
        mut chart: ChartContext<'c, DB, Cartesian2d<X, Y>>,
    ) -> Drawn<DB>
    where
        X: Ranged<ValueType = f64> + ValueFormatter<f64>,
        Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
    {
        chart
            .configure_mesh()
            .x_desc(self.x_label)
            .y_desc(axis_label(self.y_label, self.log_y))
            .x_label_formatter(&tick_label)
            .y_label_formatter(&tick_label)
            .label_style((FONT, 15))
            .axis_desc_style((FONT, 17))
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        for (k, (name, pts)) in self.series.iter().enumerate() {
            let colour = PALETTE[k % PALETTE.len()];
            if self.scatter {
                chart
                    .draw_series(pts.iter().map(|&p| Circle::new(p, 3, colour.filled())))?
                    .label(name.as_str())
                    .legend(move |(x, y)| Circle::new((x + 12, y), 4, colour.filled()));
                continue;
            }
            let style = colour.stroke_width(2);
            chart
                .draw_series(LineSeries::new(pts.iter().copied(), style))?
                .label(name.as_str())
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 24, y)], style));
            if pts.len() <= MARKER_MAX_POINTS {
                chart.draw_series(pts.iter().map(|&p| Circle::new(p, 3, colour.filled())))?;
            }
        }
        // One curve is named by the title; a legend box would only hide part of it.
        if self.series.len() < 2 {
            return Ok(());
        }
        chart
            .configure_series_labels()
            .label_font((FONT, 15))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.5))
            .position(SeriesLabelPosition::UpperRight)
            .draw()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::path::PathBuf;

    /// A fresh directory under the system temp dir, removed on drop.
    pub(crate) struct TempDir(pub PathBuf);

    impl TempDir {
        pub(crate) fn new(tag: &str) -> Self {
            let dir = std::env::temp_dir().join(format!(
                "kernlearn-plot-{tag}-{}-{:?}",
                std::process::id(),
                std::thread::current().id()
            ));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            Self(dir)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// Decodes a PNG; returns its size and the number of pixels that are not white.
    pub(crate) fn decode_png(path: &Path) -> ((u32, u32), usize) {
        let bytes = std::fs::read(path).unwrap();
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "PNG signature");
        let img = image::load_from_memory_with_format(&bytes, image::ImageFormat::Png)
            .unwrap()
            .to_rgb8();
        let ink = img.pixels().filter(|p| p.0 != [255, 255, 255]).count();
        (img.dimensions(), ink)
    }

    /// Every `<text>` element of an SVG: its position and its content.
    pub(crate) fn svg_texts(path: &Path) -> Vec<(f64, f64, String)> {
        let text = std::fs::read_to_string(path).unwrap();
        let doc = roxmltree::Document::parse(&text).unwrap();
        doc.descendants()
            .filter(|n| n.tag_name().name() == "text")
            .map(|n| {
                let at = |a: &str| {
                    n.attribute(a)
                        .and_then(|v| v.parse().ok())
                        .unwrap_or(f64::NAN)
                };
                let content: String = n
                    .descendants()
                    .filter(|d| d.is_text())
                    .filter_map(|d| d.text())
                    .collect::<Vec<_>>()
                    .concat();
                (at("x"), at("y"), content.trim().to_string())
            })
            .collect()
    }

    /// Whether some `<text>` of the SVG reads exactly `want`.
    pub(crate) fn has_text(texts: &[(f64, f64, String)], want: &str) -> bool {
        texts.iter().any(|t| t.2 == want)
    }

    /// Parses an SVG; returns the number of elements with each tag name in `tags`.
    pub(crate) fn svg_counts(path: &Path, tags: &[&str]) -> Vec<usize> {
        let text = std::fs::read_to_string(path).unwrap();
        let doc = roxmltree::Document::parse(&text).unwrap();
        assert_eq!(doc.root_element().tag_name().name(), "svg");
        tags.iter()
            .map(|t| {
                doc.descendants()
                    .filter(|n| n.tag_name().name() == *t)
                    .count()
            })
            .collect()
    }

    fn curves() -> Vec<(&'static str, Vec<(f64, f64)>)> {
        let plain = (0..40)
            .map(|t| (t as f64, 10f64.powf(-0.1 * t as f64)))
            .collect();
        let nesterov = (0..25)
            .map(|t| (t as f64, 10f64.powf(-0.3 * t as f64)))
            .collect();
        vec![("plain", plain), ("Nesterov", nesterov)]
    }

    #[test]
    fn line_plot_writes_png_and_svg() {
        let dir = TempDir::new("line");
        let png = dir.0.join("conv.png");
        line_plot(&png, "DANK objective", "iteration", "gap", &curves(), true).unwrap();
        let ((w, h), ink) = decode_png(&png);
        assert_eq!((w, h), (900, 600));
        assert!(ink > 5000, "{ink} drawn pixels");
        let svg = dir.0.join("conv.SVG");
        line_plot(&svg, "DANK objective", "iteration", "gap", &curves(), false).unwrap();
        let [texts, lines] = svg_counts(&svg, &["text", "polyline"])[..] else {
            unreachable!()
        };
        // Title, axis descriptions, tick labels, legend entries.
        assert!(texts >= 8, "{texts} text elements");
        assert!(lines >= 2, "{lines} polylines");
        let text = std::fs::read_to_string(&svg).unwrap();
        assert!(text.contains("DANK objective") && text.contains("Nesterov"));
    }

    /// The tick labels of the x axis: the numeric texts lowest in the picture.
    fn x_tick_labels(texts: &[(f64, f64, String)]) -> Vec<String> {
        let numeric: Vec<&(f64, f64, String)> = texts
            .iter()
            .filter(|t| t.2.parse::<f64>().is_ok())
            .collect();
        let bottom = numeric.iter().map(|t| t.1).fold(f64::MIN, f64::max);
        numeric
            .iter()
            .filter(|t| (t.1 - bottom).abs() < 1.0)
            .map(|t| t.2.clone())
            .collect()
    }

    #[test]
    fn iteration_axes_have_whole_number_ticks_and_labels_say_log() {
        let dir = TempDir::new("ticks");
        // A two-iteration run (DANK's Newton steps): ticks 0 and 1 only, no 0.5.
        let svg = dir.0.join("two.svg");
        let series = [("DANK", vec![(0.0, 1.3), (1.0, 0.11)])];
        line_plot(
            &svg,
            "DANK: change in α per iteration\nsecond line",
            "iteration t",
            "‖αₜ − αₜ₋₁‖",
            &series,
            true,
        )
        .unwrap();
        let texts = svg_texts(&svg);
        assert_eq!(x_tick_labels(&texts), ["0", "1"], "{texts:?}");
        for want in [
            "DANK: change in α per iteration",
            "second line",
            "iteration t",
            "‖αₜ − αₜ₋₁‖ (log scale)",
        ] {
            assert!(has_text(&texts, want), "{want}: {texts:?}");
        }
        // One curve: no legend box repeating the title.
        assert!(!has_text(&texts, "DANK"), "{texts:?}");
        // Eleven outer rounds: every whole number, nothing in between.
        let svg = dir.0.join("rounds.svg");
        let rounds: Vec<(f64, f64)> = (0..=10).map(|t| (t as f64, 1.0 + (t % 2) as f64)).collect();
        line_plot(
            &svg,
            "KNPL",
            "outer round t",
            "objective H(α, G)",
            &[("KNPL", rounds)],
            false,
        )
        .unwrap();
        let ticks = x_tick_labels(&svg_texts(&svg));
        let want: Vec<String> = (0..=10).map(|t| t.to_string()).collect();
        assert_eq!(ticks, want);
        // Fractional x keeps plotters' ticks; a label that says log already is kept.
        let svg = dir.0.join("frac.svg");
        let pts = [("a", vec![(0.5, 1.0), (1.25, 10.0)])];
        line_plot(&svg, "t", "x", "log10 y", &pts, true).unwrap();
        let texts = svg_texts(&svg);
        assert!(has_text(&texts, "log10 y"), "{texts:?}");
    }

    #[test]
    fn whole_number_and_log_ticks() {
        let ints = |xs: &[f64], r| integer_ticks(xs.iter().copied(), r);
        assert_eq!(ints(&[0.0, 1.0], (-0.04, 1.04)), Some(vec![0.0, 1.0]));
        assert_eq!(ints(&[1.0], (0.5, 1.5)), Some(vec![1.0]));
        assert_eq!(ints(&[0.0, 0.5], (-0.1, 0.6)), None);
        let long = ints(&[1.0, 150.0], (-5.0, 156.0)).unwrap();
        assert_eq!(long.first(), Some(&0.0));
        assert!(long.windows(2).all(|w| w[1] - w[0] == 20.0), "{long:?}");
        assert!(long.iter().all(|t| t.fract() == 0.0));
        // Many decades: powers of ten; few: 1, 2, 5 steps; a narrow range: even steps.
        assert_eq!(log_ticks((2e-3, 300.0)), vec![0.01, 0.1, 1.0, 10.0, 100.0]);
        assert_eq!(log_ticks((0.07, 2.0)), vec![0.1, 0.2, 0.5, 1.0, 2.0]);
        let narrow = log_ticks((477.9, 478.3));
        assert!(narrow.len() >= 3 && narrow.iter().all(|t| (477.9..=478.3).contains(t)));
    }

    #[test]
    fn tick_labels_are_short() {
        let cases = [
            (0.0, "0"),
            (-0.0, "0"),
            (5.0, "5"),
            (-2.5, "-2.5"),
            (0.001, "0.001"),
            (9.99999999e-5, "1e-4"),
            (1e-7, "1e-7"),
            (2.5e7, "2.5e7"),
            (0.12345678, "0.1235"),
        ];
        for (v, want) in cases {
            assert_eq!(tick_label(&v), want, "{v}");
        }
    }

    #[test]
    fn log_axis_drops_non_positive_points() {
        let dir = TempDir::new("log");
        let series = [(
            "residual",
            vec![(0.0, 1.0), (1.0, 0.1), (2.0, 0.0), (3.0, f64::NAN)],
        )];
        line_plot(dir.0.join("r.png"), "ADMM", "k", "Diff", &series, true).unwrap();
        let only_zero = [("residual", vec![(0.0, 0.0)])];
        let e = line_plot(dir.0.join("z.png"), "t", "x", "y", &only_zero, true).unwrap_err();
        assert!(e.to_string().contains("nothing to plot"), "{e}");
        // A single point still gets a non-degenerate range.
        line_plot(
            dir.0.join("one.svg"),
            "t",
            "x",
            "y",
            &[("a", vec![(1.0, 2.0)])],
            false,
        )
        .unwrap();
    }

    #[test]
    fn bad_paths_are_reported() {
        let dir = TempDir::new("bad");
        let s = curves();
        let e = line_plot(dir.0.join("conv.pdf"), "t", "x", "y", &s, false).unwrap_err();
        assert!(matches!(e, Error::Plot { .. }));
        assert!(
            e.to_string()
                .contains("unsupported file extension; use .png or .svg"),
            "{e}"
        );
        let e = line_plot(dir.0.join("noext"), "t", "x", "y", &s, false).unwrap_err();
        assert!(e.to_string().contains("unsupported file extension"), "{e}");
        let e = line_plot(dir.0.join("missing/conv.png"), "t", "x", "y", &s, false).unwrap_err();
        assert!(e.to_string().contains("does not exist"), "{e}");
        // A directory where the file should go: the write itself fails.
        std::fs::create_dir(dir.0.join("taken.png")).unwrap();
        let e = line_plot(dir.0.join("taken.png"), "t", "x", "y", &s, false).unwrap_err();
        assert!(matches!(e, Error::Plot { .. }), "{e}");
        let none: [(&str, Vec<(f64, f64)>); 0] = [];
        assert!(line_plot(dir.0.join("e.png"), "t", "x", "y", &none, false).is_err());
    }
}
