//! Figures as PNG or SVG files (chosen by the extension), drawn with `plotters`:
//!
//! - [`line_plot`]: curves against iterations (KNPL's ADMM residual, Fig. 3; DANK's
//!   objective for plain and Nesterov-accelerated projected gradient), optionally on a
//!   logarithmic y axis;
//! - [`decision_boundaries`]: side-by-side panels of 2-D training points, the sign
//!   regions and zero contour of a decision function on a [`PlaneGrid`], support points, and
//!   extra boundaries overlaid (the KNPL Fig. 2 / DANK Fig. 1 comparisons of SVM-CV,
//!   KNPL and DANK);
//! - [`heatmap`]: panels of a value on a grid (e.g. a localized-MKL gate per kernel) on
//!   one shared colour scale.
//!
//! Text is rendered with the DejaVu Sans font compiled into the library (the `dejavu`
//! crate through plotters' `ab_glyph` feature), so no system font, fontconfig or other
//! package is needed, and figures are identical on every machine.

mod grid;
mod panels;

pub use grid::{GridValues, PlaneGrid};
pub use panels::{decision_boundaries, heatmap, HeatPanel, LineKind, Panel};

use crate::{Error, Result};
use plotters::coord::ranged1d::{Ranged, ValueFormatter};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
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
pub fn line_plot<S: AsRef<str>>(
    path: impl AsRef<Path>,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[(S, Vec<(f64, f64)>)],
    log_y: bool,
) -> Result<()> {
    let path = path.as_ref();
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
        },
    )
}

struct LinePlot<'a> {
    title: &'a str,
    x_label: &'a str,
    y_label: &'a str,
    series: Vec<(String, Vec<(f64, f64)>)>,
    log_y: bool,
}

impl Figure for LinePlot<'_> {
    fn size(&self) -> (u32, u32) {
        (900, 600)
    }

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, plotters::coord::Shift>,
    ) -> Drawn<DB> {
        root.fill(&WHITE)?;
        let all = || self.series.iter().flat_map(|(_, p)| p.iter());
        let x = padded_range(all().map(|p| p.0), false);
        let y = padded_range(all().map(|p| p.1), self.log_y);
        let mut builder = ChartBuilder::on(root);
        builder
            .caption(self.title, (FONT, 24))
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(80);
        if self.log_y {
            let chart = builder.build_cartesian_2d(x.0..x.1, (y.0..y.1).log_scale())?;
            self.draw_curves(chart)
        } else {
            let chart = builder.build_cartesian_2d(x.0..x.1, y.0..y.1)?;
            self.draw_curves(chart)
        }
    }
}

impl LinePlot<'_> {
    fn draw_curves<'c, DB: DrawingBackend + 'c, Y>(
        &self,
        mut chart: ChartContext<'c, DB, Cartesian2d<RangedCoordf64, Y>>,
    ) -> Drawn<DB>
    where
        Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
    {
        chart
            .configure_mesh()
            .x_desc(self.x_label)
            .y_desc(self.y_label)
            .x_label_formatter(&tick_label)
            .y_label_formatter(&tick_label)
            .label_style((FONT, 15))
            .axis_desc_style((FONT, 17))
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        for (k, (name, pts)) in self.series.iter().enumerate() {
            let colour = PALETTE[k % PALETTE.len()];
            let style = colour.stroke_width(2);
            chart
                .draw_series(LineSeries::new(pts.iter().copied(), style))?
                .label(name.as_str())
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 24, y)], style));
            if pts.len() <= MARKER_MAX_POINTS {
                chart.draw_series(pts.iter().map(|&p| Circle::new(p, 3, colour.filled())))?;
            }
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
