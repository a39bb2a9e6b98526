//! Pixel-level drawing on a plotters SVG backend, with text measured in the bundled font.
//!
//! Figures lay out their own axes, facets and legends (plotters' chart builder cannot draw
//! chosen log breaks, facet strips or legends outside the plot), so this layer offers only
//! primitives in pixel coordinates, clipping, and exact text widths.

use std::sync::OnceLock;

use ab_glyph::{Font, FontRef};
use plotters::coord::Shift;
use plotters::element::{Circle, DashedPathElement, PathElement, Polygon, Rectangle, Text};
use plotters::prelude::{DrawingArea, IntoDrawingArea, SVGBackend};
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{
    Color as _, FontDesc, FontFamily, FontStyle, FontTransform, ShapeStyle, TextStyle,
};

use crate::drawing::Stroke;
use crate::style::{self, Colour};
use crate::Error;

/// Horizontal alignment of a text anchor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Align {
    Start,
    Middle,
    End,
}

/// A pixel rectangle `[x0, x1] x [y0, y1]` (y grows downwards).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Rect {
    pub x0: f64,
    pub y0: f64,
    pub x1: f64,
    pub y1: f64,
}

impl Rect {
    fn contains(&self, (x, y): (f64, f64)) -> bool {
        let eps = 0.5;
        x >= self.x0 - eps && x <= self.x1 + eps && y >= self.y0 - eps && y <= self.y1 + eps
    }
}

fn font() -> &'static FontRef<'static> {
    static FONT: OnceLock<FontRef<'static>> = OnceLock::new();
    FONT.get_or_init(|| {
        FontRef::try_from_slice(style::FONT_BYTES)
            .unwrap_or_else(|_| panic!("the bundled font fonts/DejaVuSerif.ttf is corrupted"))
    })
}

/// Width in pixels of `text` set in the bundled font at `size` pixels per em.
pub(crate) fn text_width(text: &str, size: f64) -> f64 {
    let font = font();
    let units_per_em = f64::from(font.units_per_em().unwrap_or(2048.0));
    let mut width = 0.0f64;
    let mut previous = None;
    for c in text.chars() {
        let glyph = font.glyph_id(c);
        width += f64::from(font.h_advance_unscaled(glyph));
        if let Some(previous) = previous {
            width += f64::from(font.kern_unscaled(previous, glyph));
        }
        previous = Some(glyph);
    }
    width * size / units_per_em
}

/// Height in pixels of one line of text at `size` pixels per em (ascent plus descent).
pub(crate) fn text_height(size: f64) -> f64 {
    let font = font();
    let units_per_em = f64::from(font.units_per_em().unwrap_or(2048.0));
    f64::from(font.ascent_unscaled() - font.descent_unscaled()) * size / units_per_em
}

/// A drawing surface that renders into an SVG string.
pub(crate) struct Canvas<'a> {
    area: DrawingArea<SVGBackend<'a>, Shift>,
}

fn px(v: f64) -> i32 {
    v.round() as i32
}

fn draw_err(err: impl std::fmt::Display) -> Error {
    Error::Draw(err.to_string())
}

impl<'a> Canvas<'a> {
    /// A white canvas of `size` pixels drawing into `out`.
    pub fn new(out: &'a mut String, size: (u32, u32)) -> Result<Self, Error> {
        style::register_font();
        let area = SVGBackend::with_string(out, size).into_drawing_area();
        area.fill(&plotters::style::WHITE).map_err(draw_err)?;
        Ok(Self { area })
    }

    /// Writes the SVG out; must be called once drawing is done. Call [`paint_opacity`] on
    /// the result.
    pub fn finish(self) -> Result<(), Error> {
        self.area.present().map_err(draw_err)
    }

    /// Draws `text` with its anchor at `(x, y)`, vertically centred on `y`.
    #[allow(clippy::too_many_arguments)]
    pub fn text(
        &self,
        text: &str,
        (x, y): (f64, f64),
        size: f64,
        colour: Colour,
        align: Align,
        vertical: bool,
    ) -> Result<(), Error> {
        self.text_with_opacity(text, (x, y), size, colour, 1.0, align, vertical)
    }

    /// As [`Canvas::text`], with an opacity.
    #[allow(clippy::too_many_arguments)]
    pub fn text_with_opacity(
        &self,
        text: &str,
        (x, y): (f64, f64),
        size: f64,
        colour: Colour,
        opacity: f64,
        align: Align,
        vertical: bool,
    ) -> Result<(), Error> {
        let h = match align {
            Align::Start => HPos::Left,
            Align::Middle => HPos::Center,
            Align::End => HPos::Right,
        };
        // plotters writes font-size = size / 1.24 into the SVG; undo that so `size` is the em.
        let font = FontDesc::new(
            FontFamily::Name(style::FONT_FAMILY),
            size * 1.24,
            FontStyle::Normal,
        );
        let font = if vertical {
            font.transform(FontTransform::Rotate270)
        } else {
            font
        };
        let colour = colour.rgb().mix(opacity);
        let style = TextStyle::from(font)
            .color(&colour)
            .pos(Pos::new(h, VPos::Center));
        self.area
            .draw(&Text::new(text.to_string(), (px(x), px(y)), style))
            .map_err(draw_err)
    }

    /// Draws a polyline clipped to `clip`.
    pub fn polyline(&self, points: &[(f64, f64)], stroke: Stroke, clip: Rect) -> Result<(), Error> {
        for piece in clip_polyline(points, clip) {
            self.raw_polyline(&piece, stroke)?;
        }
        Ok(())
    }

    /// Draws a polyline without clipping.
    pub fn raw_polyline(&self, points: &[(f64, f64)], stroke: Stroke) -> Result<(), Error> {
        if points.len() < 2 {
            return Ok(());
        }
        let style = ShapeStyle::from(stroke.colour.rgb().mix(stroke.opacity))
            .stroke_width(stroke.width.round().max(1.0) as u32);
        let coords: Vec<(i32, i32)> = dedup(points.iter().map(|&(x, y)| (px(x), px(y))));
        if stroke.dashed {
            let dash = (3.0 * stroke.width).max(6.0).round() as i32;
            let gap = (2.0 * stroke.width).max(4.0).round() as i32;
            self.area
                .draw(&DashedPathElement::new(coords, dash, gap, style))
                .map_err(draw_err)
        } else {
            self.area
                .draw(&PathElement::new(coords, style))
                .map_err(draw_err)
        }
    }

    /// Fills a polygon clipped to `clip`.
    pub fn polygon(
        &self,
        points: &[(f64, f64)],
        fill: Colour,
        opacity: f64,
        clip: Rect,
    ) -> Result<(), Error> {
        let clipped = clip_polygon(points, clip);
        if clipped.len() < 3 {
            return Ok(());
        }
        let coords: Vec<(i32, i32)> = dedup(clipped.iter().map(|&(x, y)| (px(x), px(y))));
        let style = ShapeStyle::from(fill.rgb().mix(opacity)).filled();
        self.area
            .draw(&Polygon::new(coords, style))
            .map_err(draw_err)
    }

    /// Fills (and optionally outlines) a rectangle.
    pub fn rect(
        &self,
        rect: Rect,
        fill: Option<(Colour, f64)>,
        border: Option<Stroke>,
    ) -> Result<(), Error> {
        let corners = [(px(rect.x0), px(rect.y0)), (px(rect.x1), px(rect.y1))];
        if let Some((colour, opacity)) = fill {
            let style = ShapeStyle::from(colour.rgb().mix(opacity)).filled();
            self.area
                .draw(&Rectangle::new(corners, style))
                .map_err(draw_err)?;
        }
        if let Some(stroke) = border {
            let style = ShapeStyle::from(stroke.colour.rgb().mix(stroke.opacity))
                .stroke_width(stroke.width.round().max(1.0) as u32);
            self.area
                .draw(&Rectangle::new(corners, style))
                .map_err(draw_err)?;
        }
        Ok(())
    }

    /// Draws a filled disc (skipped when its centre lies outside `clip`).
    pub fn disc(
        &self,
        centre: (f64, f64),
        radius: f64,
        colour: Colour,
        opacity: f64,
        clip: Rect,
    ) -> Result<(), Error> {
        if !clip.contains(centre) {
            return Ok(());
        }
        let style = ShapeStyle::from(colour.rgb().mix(opacity)).filled();
        self.area
            .draw(&Circle::new(
                (px(centre.0), px(centre.1)),
                radius.round().max(1.0) as u32,
                style,
            ))
            .map_err(draw_err)
    }

    /// Draws an "x" marker (skipped when its centre lies outside `clip`).
    pub fn cross(
        &self,
        (x, y): (f64, f64),
        radius: f64,
        colour: Colour,
        opacity: f64,
        clip: Rect,
    ) -> Result<(), Error> {
        if !clip.contains((x, y)) {
            return Ok(());
        }
        let stroke = Stroke::solid(colour, (radius / 2.5).max(2.0)).opacity(opacity);
        let r = radius * 0.8;
        self.raw_polyline(&[(x - r, y - r), (x + r, y + r)], stroke)?;
        self.raw_polyline(&[(x - r, y + r), (x + r, y - r)], stroke)
    }
}

/// Rewrites plotters' element `opacity` into `fill-opacity` and `stroke-opacity`.
///
/// Every element plotters writes is either filled or stroked, so the two are equivalent, but
/// element opacity makes PDF converters wrap each element in its own transparency group: a
/// dashed grid then becomes thousands of objects. Paint opacity is one graphics-state entry.
pub(crate) fn paint_opacity(svg: &str) -> String {
    let mut out = String::with_capacity(svg.len() + svg.len() / 8);
    let mut rest = svg;
    while let Some(at) = rest.find(" opacity=\"") {
        out.push_str(&rest[..at]);
        let value_start = at + " opacity=\"".len();
        let Some(len) = rest[value_start..].find('"') else {
            rest = &rest[at..];
            break;
        };
        let value = &rest[value_start..value_start + len];
        if value != "1" {
            out.push_str(&format!(
                " fill-opacity=\"{value}\" stroke-opacity=\"{value}\""
            ));
        }
        rest = &rest[value_start + len + 1..];
    }
    out.push_str(rest);
    out
}

fn dedup(points: impl Iterator<Item = (i32, i32)>) -> Vec<(i32, i32)> {
    let mut out: Vec<(i32, i32)> = Vec::new();
    for p in points {
        if out.last() != Some(&p) {
            out.push(p);
        }
    }
    if out.len() == 1 {
        // Keep a degenerate segment so a single-pixel line still shows.
        out.push(out[0]);
    }
    out
}

/// Clips a polyline to `clip` (Liang-Barsky per segment), returning the visible pieces.
pub(crate) fn clip_polyline(points: &[(f64, f64)], clip: Rect) -> Vec<Vec<(f64, f64)>> {
    let mut pieces: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut current: Vec<(f64, f64)> = Vec::new();
    for pair in points.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        if !(a.0.is_finite() && a.1.is_finite() && b.0.is_finite() && b.1.is_finite()) {
            if current.len() > 1 {
                pieces.push(std::mem::take(&mut current));
            }
            current.clear();
            continue;
        }
        match clip_segment(a, b, clip) {
            Some((p, q)) => {
                if current.last() != Some(&p) {
                    if current.len() > 1 {
                        pieces.push(std::mem::take(&mut current));
                    }
                    current.clear();
                    current.push(p);
                }
                current.push(q);
                if q != b {
                    pieces.push(std::mem::take(&mut current));
                }
            }
            None => {
                if current.len() > 1 {
                    pieces.push(std::mem::take(&mut current));
                }
                current.clear();
            }
        }
    }
    if current.len() > 1 {
        pieces.push(current);
    }
    pieces
}

fn clip_segment(a: (f64, f64), b: (f64, f64), r: Rect) -> Option<((f64, f64), (f64, f64))> {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let mut t0 = 0.0f64;
    let mut t1 = 1.0f64;
    for (p, q) in [
        (-dx, a.0 - r.x0),
        (dx, r.x1 - a.0),
        (-dy, a.1 - r.y0),
        (dy, r.y1 - a.1),
    ] {
        if p == 0.0 {
            if q < 0.0 {
                return None;
            }
        } else {
            let t = q / p;
            if p < 0.0 {
                t0 = t0.max(t);
            } else {
                t1 = t1.min(t);
            }
            if t0 > t1 {
                return None;
            }
        }
    }
    let at = |t: f64| (a.0 + t * dx, a.1 + t * dy);
    Some((
        if t0 > 0.0 { at(t0) } else { a },
        if t1 < 1.0 { at(t1) } else { b },
    ))
}

/// Clips a polygon to `clip` (Sutherland-Hodgman).
pub(crate) fn clip_polygon(points: &[(f64, f64)], clip: Rect) -> Vec<(f64, f64)> {
    type Inside = fn(&Rect, (f64, f64)) -> bool;
    type Cross = fn(&Rect, (f64, f64), (f64, f64)) -> (f64, f64);
    let edges: [(Inside, Cross); 4] = [
        (|r, p| p.0 >= r.x0, |r, a, b| lerp_x(a, b, r.x0)),
        (|r, p| p.0 <= r.x1, |r, a, b| lerp_x(a, b, r.x1)),
        (|r, p| p.1 >= r.y0, |r, a, b| lerp_y(a, b, r.y0)),
        (|r, p| p.1 <= r.y1, |r, a, b| lerp_y(a, b, r.y1)),
    ];
    let mut polygon: Vec<(f64, f64)> = points
        .iter()
        .copied()
        .filter(|p| p.0.is_finite() && p.1.is_finite())
        .collect();
    for (inside, cross) in edges {
        if polygon.is_empty() {
            break;
        }
        let input = std::mem::take(&mut polygon);
        let mut previous = input[input.len() - 1];
        for &point in &input {
            match (inside(&clip, point), inside(&clip, previous)) {
                (true, true) => polygon.push(point),
                (true, false) => {
                    polygon.push(cross(&clip, previous, point));
                    polygon.push(point);
                }
                (false, true) => polygon.push(cross(&clip, previous, point)),
                (false, false) => {}
            }
            previous = point;
        }
    }
    polygon
}

fn lerp_x(a: (f64, f64), b: (f64, f64), x: f64) -> (f64, f64) {
    let t = (x - a.0) / (b.0 - a.0);
    (x, a.1 + t * (b.1 - a.1))
}

fn lerp_y(a: (f64, f64), b: (f64, f64), y: f64) -> (f64, f64) {
    let t = (y - a.1) / (b.1 - a.1);
    (a.0 + t * (b.0 - a.0), y)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOX: Rect = Rect {
        x0: 0.0,
        y0: 0.0,
        x1: 10.0,
        y1: 10.0,
    };

    #[test]
    fn polyline_leaving_and_reentering_the_box_splits_in_two() {
        let pieces = clip_polyline(&[(1.0, 5.0), (5.0, 15.0), (9.0, 5.0)], BOX);
        assert_eq!(pieces.len(), 2);
        assert_eq!(pieces[0], vec![(1.0, 5.0), (3.0, 10.0)]);
        assert_eq!(pieces[1], vec![(7.0, 10.0), (9.0, 5.0)]);
    }

    #[test]
    fn polygon_is_cut_to_the_box() {
        let clipped = clip_polygon(&[(-5.0, 2.0), (5.0, 2.0), (5.0, 8.0), (-5.0, 8.0)], BOX);
        let xs: Vec<f64> = clipped.iter().map(|p| p.0).collect();
        assert!(xs.iter().all(|&x| (0.0..=5.0).contains(&x)));
        assert!(xs.contains(&0.0));
    }

    #[test]
    fn element_opacity_becomes_paint_opacity() {
        let svg = r#"<polyline opacity="0.5" stroke="red"/><rect opacity="1" fill="blue"/>"#;
        assert_eq!(
            paint_opacity(svg),
            r#"<polyline fill-opacity="0.5" stroke-opacity="0.5" stroke="red"/><rect fill="blue"/>"#
        );
    }

    #[test]
    fn text_width_grows_with_text_and_size() {
        let short = text_width("bandit", 10.0);
        assert!(short > 20.0 && short < 50.0, "{short}");
        assert!((text_width("bandit", 20.0) - 2.0 * short).abs() < 1e-9);
        assert!(text_width("bandit_noise", 10.0) > short);
    }
}
