//! A legend strip below the panels of a figure: one entry per kind of mark (training
//! points of each class, support points, region fills, boundary lines), laid out left to
//! right and wrapped into rows.

use super::{Drawn, FONT};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Font size of legend entries.
const SIZE: u32 = 15;
/// Height of one row of entries.
const ROW: u32 = 26;
/// Width of the swatch before an entry's text, and the gaps around it.
const SWATCH: u32 = 30;
const GAP: u32 = 8;
const ENTRY_GAP: u32 = 26;
/// Blank space above and below the rows.
const PAD: u32 = 8;

/// What an entry's swatch shows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Swatch {
    /// A filled disc, optionally with an outline.
    Disc(RGBColor, Option<RGBColor>),
    /// A cross, optionally over a wider white one (a halo, for coloured backgrounds).
    Cross(RGBColor, bool),
    /// An open ring (support points).
    Ring,
    /// A filled box with a thin grey outline (a region).
    Fill(RGBColor),
    /// A line, solid or dashed.
    Line(RGBColor, bool),
}

/// One legend entry.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Entry {
    pub swatch: Swatch,
    pub text: String,
}

impl Entry {
    pub(super) fn new(swatch: Swatch, text: impl Into<String>) -> Self {
        Self {
            swatch,
            text: text.into(),
        }
    }
}

/// Width of an entry's text; estimated from its length if the font cannot measure it.
fn text_width(text: &str) -> u32 {
    (FONT, SIZE)
        .into_font()
        .box_size(text)
        .map(|(w, _)| w)
        .unwrap_or(text.chars().count() as u32 * SIZE * 6 / 10)
}

/// The top-left corner of every entry in a strip `width` pixels wide, rows centred,
/// and the number of rows.
fn layout(entries: &[Entry], width: u32) -> (Vec<(i32, i32)>, u32) {
    let widths: Vec<u32> = entries
        .iter()
        .map(|e| SWATCH + GAP + text_width(&e.text))
        .collect();
    let mut rows: Vec<Vec<usize>> = vec![];
    let mut used = 0;
    for (i, &w) in widths.iter().enumerate() {
        match rows.last_mut() {
            Some(row) if used + ENTRY_GAP + w <= width.saturating_sub(2 * GAP) => {
                row.push(i);
                used += ENTRY_GAP + w;
            }
            _ => {
                rows.push(vec![i]);
                used = w;
            }
        }
    }
    let mut at = vec![(0, 0); entries.len()];
    for (r, row) in rows.iter().enumerate() {
        let total: u32 =
            row.iter().map(|&i| widths[i]).sum::<u32>() + ENTRY_GAP * (row.len() as u32 - 1);
        let mut x = width.saturating_sub(total) as i32 / 2;
        for &i in row {
            at[i] = (x, (PAD + r as u32 * ROW) as i32);
            x += (widths[i] + ENTRY_GAP) as i32;
        }
    }
    (at, rows.len() as u32)
}

/// Pixel height of the strip for `entries` in `width` pixels (0 without entries).
pub(super) fn height(entries: &[Entry], width: u32) -> u32 {
    if entries.is_empty() {
        return 0;
    }
    let (_, rows) = layout(entries, width);
    2 * PAD + rows * ROW
}

/// Draws the entries on `area` (as tall as [`height`] says), with a thin rule above.
pub(super) fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[Entry],
) -> Drawn<DB> {
    if entries.is_empty() {
        return Ok(());
    }
    let width = area.dim_in_pixel().0;
    area.draw(&PathElement::new(
        [(20, 1), (width as i32 - 20, 1)],
        BLACK.mix(0.25).stroke_width(1),
    ))?;
    let (at, _) = layout(entries, width);
    let text_style = TextStyle::from((FONT, SIZE).into_font())
        .color(&BLACK)
        .pos(Pos::new(HPos::Left, VPos::Center));
    for (entry, &(x, y)) in entries.iter().zip(&at) {
        let mid = y + ROW as i32 / 2;
        let centre = (x + SWATCH as i32 / 2, mid);
        match entry.swatch {
            Swatch::Disc(fill, edge) => {
                area.draw(&Circle::new(centre, 4, fill.filled()))?;
                if let Some(edge) = edge {
                    area.draw(&Circle::new(centre, 4, edge.stroke_width(1)))?;
                }
            }
            Swatch::Cross(colour, halo) => {
                if halo {
                    area.draw(&Cross::new(centre, 5, WHITE.stroke_width(5)))?;
                }
                area.draw(&Cross::new(centre, 5, colour.stroke_width(2)))?;
            }
            Swatch::Ring => {
                area.draw(&Circle::new(centre, 8, BLACK.stroke_width(1)))?;
            }
            Swatch::Fill(colour) => {
                let corners = [(x + 3, mid - 8), (x + SWATCH as i32 - 3, mid + 8)];
                area.draw(&Rectangle::new(corners, colour.filled()))?;
                area.draw(&Rectangle::new(corners, BLACK.mix(0.4).stroke_width(1)))?;
            }
            Swatch::Line(colour, dashed) => {
                let style = colour.stroke_width(2);
                if dashed {
                    for k in 0..3 {
                        let x0 = x + 1 + 10 * k;
                        area.draw(&PathElement::new([(x0, mid), (x0 + 6, mid)], style))?;
                    }
                } else {
                    area.draw(&PathElement::new(
                        [(x + 1, mid), (x + SWATCH as i32 - 1, mid)],
                        style,
                    ))?;
                }
            }
        }
        area.draw(&Text::new(
            entry.text.clone(),
            (x + (SWATCH + GAP) as i32, mid),
            text_style.clone(),
        ))?;
    }
    Ok(())
}
