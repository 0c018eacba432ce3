//! Horizontal bar charts of named non-negative values (a learned kernel's relevance of
//! each feature), largest first.

use super::{draw_title, output_format, render, title_height, Drawn, Figure, FONT, PALETTE};
use crate::{Error, Result};
use plotters::prelude::*;
use std::path::Path;

/// Most bars drawn: the largest values; the title says how many were left out.
pub(crate) const MOST_BARS: usize = 40;

/// `values` as horizontal bars named `names`, the largest [`MOST_BARS`] of them in
/// decreasing order, with `x_label` under the value axis. PNG or SVG by the extension of
/// `path`; fails like [`super::line_plot`], and on values that are negative or not finite.
pub(crate) fn bar_chart(
    path: impl AsRef<Path>,
    title: &str,
    x_label: &str,
    names: &[String],
    values: &[f64],
) -> Result<()> {
    let path = path.as_ref();
    output_format(path)?;
    if names.len() != values.len() || values.is_empty() {
        return Err(Error::data(format!(
            "bar chart {}: {} names for {} values",
            path.display(),
            names.len(),
            values.len()
        )));
    }
    if let Some(v) = values.iter().find(|v| !(v.is_finite() && **v >= 0.0)) {
        return Err(Error::data(format!(
            "bar chart {}: value {v} is negative or not finite",
            path.display()
        )));
    }
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[b].total_cmp(&values[a]).then(a.cmp(&b)));
    let shown = order.len().min(MOST_BARS);
    let mut title = title.to_string();
    if shown < order.len() {
        title += &format!("\nthe largest {shown} of {}", order.len());
    }
    let bars = order[..shown]
        .iter()
        .map(|&i| (names[i].clone(), values[i]))
        .collect();
    render(
        path,
        &BarChart {
            title: &title,
            x_label,
            bars,
        },
    )
}

struct BarChart<'a> {
    title: &'a str,
    x_label: &'a str,
    bars: Vec<(String, f64)>,
}

impl Figure for BarChart<'_> {
    fn size(&self) -> (u32, u32) {
        let rows = self.bars.len() as u32;
        (900, 120 + 22 * rows.max(4) + title_height(self.title))
    }

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, plotters::coord::Shift>,
    ) -> Drawn<DB> {
        root.fill(&WHITE)?;
        let area = draw_title(root, self.title)?;
        let k = self.bars.len();
        let top = self.bars.iter().map(|b| b.1).fold(0.0, f64::max);
        let hi = if top > 0.0 { top * 1.08 } else { 1.0 };
        let label_width = self
            .bars
            .iter()
            .map(|b| b.0.chars().count())
            .max()
            .unwrap_or(1);
        let mut chart = ChartBuilder::on(&area)
            .margin(15)
            .margin_top(5)
            .x_label_area_size(50)
            .y_label_area_size((label_width as u32 * 8 + 20).clamp(60, 300))
            .build_cartesian_2d(0.0..hi, -0.5..k as f64 - 0.5)?;
        let names: Vec<&str> = self.bars.iter().map(|b| b.0.as_str()).collect();
        let name_of = |v: &f64| {
            let i = v.round();
            if (v - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < k {
                // Row 0 at the top.
                names[k - 1 - i as usize].to_string()
            } else {
                String::new()
            }
        };
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(k)
            .y_label_formatter(&name_of)
            .x_desc(self.x_label)
            .label_style((FONT, 14))
            .axis_desc_style((FONT, 16))
            .draw()?;
        chart.draw_series(self.bars.iter().enumerate().map(|(r, (_, v))| {
            let y = (k - 1 - r) as f64;
            Rectangle::new([(0.0, y - 0.35), (*v, y + 0.35)], PALETTE[0].filled())
        }))?;
        Ok(())
    }
}
