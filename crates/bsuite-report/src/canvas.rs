//! Pixel-level drawing on a plotters SVG backend, with text measured in the bundled font.
//!
//! Figures lay out their own axes, facets and legends (plotters' chart builder cannot draw
//! chosen log breaks, facet strips or legends outside the plot), so this layer offers only
//! primitives in pixel coordinates, clipping, and exact text widths.

use std::sync::OnceLock;

use ab_glyph::{Font, FontRef};
use plotters::coord::Shift;
use plotters::element::{Rectangle, Text};
use plotters::prelude::{DrawingArea, IntoDrawingArea, SVGBackend};
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{
    Color as _, FontDesc, FontFamily, FontStyle, FontTransform, ShapeStyle, TextStyle,
};

use crate::drawing::{Marker, Stroke};
use crate::style::{self, Colour, Dash, MarkerShape};
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

/// A line segment from one point to another, in canvas units.
pub(crate) type Segment = ((f64, f64), (f64, f64));

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

    /// Writes the SVG out; must be called once drawing is done. Call [`finished_svg`] on
    /// the result.
    pub fn finish(self) -> Result<(), Error> {
        self.area.present().map_err(draw_err)
    }

    /// Starts the elements of one agent (a facet, a polygon), closed by [`Canvas::end_agent`]:
    /// [`finished_svg`] turns the pair into a `<g data-agent="...">` group, which the HTML
    /// page hides with the agent.
    pub fn begin_agent(&self, agent: &str) -> Result<(), Error> {
        let hex: String = agent.bytes().map(|b| format!("{b:02x}")).collect();
        self.delimiter(&format!("{GROUP_MARK}g{hex}"))
    }

    /// Ends the elements [`Canvas::begin_agent`] started.
    pub fn end_agent(&self) -> Result<(), Error> {
        self.delimiter(&format!("{GROUP_MARK}/"))
    }

    /// Writes `element` into the SVG as it is, in drawing order (plotters cannot write what
    /// it has no element for, such as a dash pattern).
    fn raw_element(&self, element: &str) -> Result<(), Error> {
        let hex: String = element.bytes().map(|b| format!("{b:02x}")).collect();
        self.delimiter(&format!("{GROUP_MARK}r{hex}"))
    }

    fn delimiter(&self, text: &str) -> Result<(), Error> {
        let font = FontDesc::new(FontFamily::Name(style::FONT_FAMILY), 1.0, FontStyle::Normal);
        self.area
            .draw(&Text::new(text.to_string(), (0, 0), TextStyle::from(font)))
            .map_err(draw_err)
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

    /// Draws a polyline clipped to `clip`: its visible pieces in one element.
    pub fn polyline(&self, points: &[(f64, f64)], stroke: Stroke, clip: Rect) -> Result<(), Error> {
        let pieces: Vec<Vec<(i32, i32)>> = clip_polyline(points, clip)
            .iter()
            .map(|piece| simplify(&dedup(piece.iter().map(|&(x, y)| (px(x), px(y))))))
            .collect();
        self.stroked(&pieces, false, stroke)
    }

    /// Draws a polyline without clipping.
    pub fn raw_polyline(&self, points: &[(f64, f64)], stroke: Stroke) -> Result<(), Error> {
        if points.len() < 2 {
            return Ok(());
        }
        let coords = simplify(&dedup(points.iter().map(|&(x, y)| (px(x), px(y)))));
        self.stroked(&[coords], false, stroke)
    }

    /// Draws line segments, all in one element (a panel's grid lines or ticks).
    pub fn segments(&self, segments: &[Segment], stroke: Stroke) -> Result<(), Error> {
        let pieces: Vec<Vec<(i32, i32)>> = segments
            .iter()
            .map(|&(a, b)| vec![(px(a.0), px(a.1)), (px(b.0), px(b.1))])
            .collect();
        self.stroked(&pieces, false, stroke)
    }

    /// Strokes `pieces` (closed when `closed`) as one path.
    fn stroked(
        &self,
        pieces: &[Vec<(i32, i32)>],
        closed: bool,
        stroke: Stroke,
    ) -> Result<(), Error> {
        let data = path_data(pieces, closed);
        if data.is_empty() {
            return Ok(());
        }
        let dash = match stroke.dash {
            Dash::Solid => String::new(),
            Dash::Dashed => format!(
                r#" stroke-dasharray="{} {}""#,
                (3.0 * stroke.width).max(style::units(2.0)).round(),
                (2.0 * stroke.width).max(style::units(1.2)).round()
            ),
            Dash::Dotted => format!(
                r#" stroke-dasharray="{} {}""#,
                stroke.width.max(style::units(0.5)).round(),
                (1.5 * stroke.width).max(style::units(1.0)).round()
            ),
        };
        self.raw_element(&format!(
            r#"<path fill="none" stroke="{}"{} stroke-width="{}"{dash} d="{data}"/>"#,
            stroke.colour.to_css(),
            opacity_attribute("stroke-opacity", stroke.opacity),
            stroke.width.round().max(1.0),
        ))
    }

    /// Fills `pieces` (each closed) as one path.
    fn filled(&self, pieces: &[Vec<(i32, i32)>], fill: Colour, opacity: f64) -> Result<(), Error> {
        let data = path_data(pieces, true);
        if data.is_empty() {
            return Ok(());
        }
        self.raw_element(&format!(
            r#"<path fill="{}"{} d="{data}"/>"#,
            fill.to_css(),
            opacity_attribute("fill-opacity", opacity)
        ))
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
        let coords = simplify(&dedup(clipped.iter().map(|&(x, y)| (px(x), px(y)))));
        self.filled(&[coords], fill, opacity)
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
        self.markers(&[centre], radius, Marker::DISC, colour, opacity, clip)
    }

    /// Draws `marker` centred on `centre`, `radius` units from centre to edge (skipped when
    /// its centre lies outside `clip`).
    pub fn marker(
        &self,
        centre: (f64, f64),
        radius: f64,
        marker: Marker,
        colour: Colour,
        opacity: f64,
        clip: Rect,
    ) -> Result<(), Error> {
        self.markers(&[centre], radius, marker, colour, opacity, clip)
    }

    /// Draws `marker` at each of `centres` inside `clip`, all in one element; hollow
    /// markers and the line shapes (plus, cross) are stroked a fifth of the radius wide.
    pub fn markers(
        &self,
        centres: &[(f64, f64)],
        radius: f64,
        marker: Marker,
        colour: Colour,
        opacity: f64,
        clip: Rect,
    ) -> Result<(), Error> {
        let centres: Vec<(f64, f64)> = centres
            .iter()
            .copied()
            .filter(|&(x, y)| x.is_finite() && y.is_finite() && clip.contains((x, y)))
            .collect();
        if centres.is_empty() {
            return Ok(());
        }
        let stroke = Stroke::solid(colour, (radius / 2.5).max(2.0)).opacity(opacity);
        if marker.shape == MarkerShape::Circle {
            // Two arcs a disc, every disc in one path.
            let r = radius.max(1.0);
            let data: String = centres
                .iter()
                .map(|&(x, y)| {
                    format!(
                        "M{} {}a{r} {r} 0 1 0 {d} 0a{r} {r} 0 1 0 -{d} 0",
                        round1(x - r),
                        round1(y),
                        r = round1(r),
                        d = round1(2.0 * r)
                    )
                })
                .collect();
            let paint = if marker.filled {
                format!(
                    r#"fill="{}"{}"#,
                    colour.to_css(),
                    opacity_attribute("fill-opacity", opacity)
                )
            } else {
                format!(
                    r#"fill="none" stroke="{}"{} stroke-width="{}""#,
                    colour.to_css(),
                    opacity_attribute("stroke-opacity", opacity),
                    stroke.width.round()
                )
            };
            return self.raw_element(&format!(r#"<path {paint} d="{data}"/>"#));
        }
        let around = |(x, y): (f64, f64), corners: usize, start: f64, r: f64| -> Vec<(i32, i32)> {
            (0..corners)
                .map(|i| {
                    let a = start + 2.0 * std::f64::consts::PI * i as f64 / corners as f64;
                    (px(x + r * a.cos()), px(y - r * a.sin()))
                })
                .collect()
        };
        use std::f64::consts::{FRAC_PI_2, PI};
        let shape = |c: (f64, f64)| -> Vec<Vec<(i32, i32)>> {
            let (x, y) = c;
            match marker.shape {
                MarkerShape::Circle => Vec::new(),
                MarkerShape::Square => vec![around(c, 4, FRAC_PI_2 / 2.0, radius * 1.15)],
                MarkerShape::Diamond => vec![around(c, 4, FRAC_PI_2, radius * 1.25)],
                MarkerShape::TriangleUp => vec![around(c, 3, FRAC_PI_2, radius * 1.3)],
                MarkerShape::TriangleDown => vec![around(c, 3, -FRAC_PI_2, radius * 1.3)],
                MarkerShape::Star => {
                    let outer = around(c, 5, FRAC_PI_2, radius * 1.4);
                    let inner = around(c, 5, FRAC_PI_2 + PI / 5.0, radius * 0.6);
                    vec![outer
                        .into_iter()
                        .zip(inner)
                        .flat_map(|(a, b)| [a, b])
                        .collect()]
                }
                MarkerShape::Plus => {
                    let r = radius * 1.2;
                    vec![
                        vec![(px(x - r), px(y)), (px(x + r), px(y))],
                        vec![(px(x), px(y - r)), (px(x), px(y + r))],
                    ]
                }
                MarkerShape::Cross => {
                    let r = radius * 0.8;
                    vec![
                        vec![(px(x - r), px(y - r)), (px(x + r), px(y + r))],
                        vec![(px(x - r), px(y + r)), (px(x + r), px(y - r))],
                    ]
                }
            }
        };
        let pieces: Vec<Vec<(i32, i32)>> = centres.iter().flat_map(|&c| shape(c)).collect();
        let lines = matches!(marker.shape, MarkerShape::Plus | MarkerShape::Cross);
        if lines || !marker.filled {
            self.stroked(&pieces, !lines, stroke)
        } else {
            self.filled(&pieces, colour, opacity)
        }
    }
}

/// `name="opacity"`, or nothing for an opaque paint.
fn opacity_attribute(name: &str, opacity: f64) -> String {
    if opacity >= 1.0 {
        String::new()
    } else {
        format!(r#" {name}="{}""#, round2(opacity))
    }
}

fn round1(v: f64) -> f64 {
    (v * 10.0).round() / 10.0
}

fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

/// SVG path data for `pieces`: each an absolute move, then relative lines (short numbers),
/// closed when `closed`.
fn path_data(pieces: &[Vec<(i32, i32)>], closed: bool) -> String {
    let mut d = String::new();
    for piece in pieces.iter().filter(|p| p.len() >= 2) {
        let (mut x, mut y) = piece[0];
        d.push_str(&format!("M{x} {y}l"));
        for (i, &(nx, ny)) in piece[1..].iter().enumerate() {
            if i > 0 {
                d.push(' ');
            }
            d.push_str(&format!("{} {}", nx - x, ny - y));
            (x, y) = (nx, ny);
        }
        if closed {
            d.push('z');
        }
    }
    d
}

/// Marks the start of the delimiters [`Canvas::begin_agent`] draws (a private-use character,
/// which no label holds).
const GROUP_MARK: char = '\u{e000}';

/// The SVG a canvas wrote, ready for files and pages: paint opacity (see [`paint_opacity`]),
/// agents' delimiters turned into `<g data-agent>` groups, and the root sized in printed
/// points with a `viewBox` over the canvas, so that every consumer (LaTeX through the PDF,
/// the browser) shows it at [`style::UNITS_PER_POINT`] units a point.
pub(crate) fn finished_svg(svg: &str) -> String {
    print_size(&shared_font(&agent_groups(&paint_opacity(svg))))
}

/// The font family said once, on the root (which every text inherits), not on each text.
fn shared_font(svg: &str) -> String {
    let attribute = format!(" font-family=\"{}\"", style::FONT_FAMILY);
    let Some(end) = svg.find('>') else {
        return svg.to_string();
    };
    let body = svg[end..].replace(&attribute, "");
    format!("{}{attribute}{body}", &svg[..end])
}

/// `<svg width="W" height="H"` as plotters writes it, rewritten to
/// `<svg width="W/k" height="H/k" viewBox="0 0 W H"`.
fn print_size(svg: &str) -> String {
    let Some(end) = svg.find('>') else {
        return svg.to_string();
    };
    let head = &svg[..end];
    let attribute = |name: &str| -> Option<f64> {
        let pattern = format!(" {name}=\"");
        let at = head.find(&pattern)? + pattern.len();
        head[at..at + head[at..].find('"')?].parse().ok()
    };
    let (Some(w), Some(h)) = (attribute("width"), attribute("height")) else {
        return svg.to_string();
    };
    let k = style::UNITS_PER_POINT;
    // plotters writes a viewBox of its own; one is added where it does not.
    let view_box = if head.contains("viewBox=") {
        String::new()
    } else {
        format!(" viewBox=\"0 0 {w} {h}\"")
    };
    let head = head
        .replacen(
            &format!(" width=\"{w}\""),
            &format!(" width=\"{}\"", w / k),
            1,
        )
        .replacen(
            &format!(" height=\"{h}\""),
            &format!(" height=\"{}\"{view_box}", h / k),
            1,
        );
    format!("{head}{}", &svg[end..])
}

/// Replaces the delimiter texts of [`Canvas::begin_agent`] and [`Canvas::end_agent`] with
/// the opening and closing tags of a group, and those of [`Canvas::raw_element`] with their
/// element.
fn agent_groups(svg: &str) -> String {
    let mut out = String::with_capacity(svg.len());
    let mut rest = svg;
    while let Some(mark) = rest.find(GROUP_MARK) {
        let Some(open) = rest[..mark].rfind("<text") else {
            break;
        };
        let Some(close) = rest[mark..].find("</text>") else {
            break;
        };
        out.push_str(&rest[..open]);
        let content = &rest[mark + GROUP_MARK.len_utf8()..mark + close];
        let decoded = |hex: &str| {
            let bytes: Vec<u8> = (0..hex.len() / 2)
                .filter_map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok())
                .collect();
            String::from_utf8_lossy(&bytes).into_owned()
        };
        if let Some(hex) = content.strip_prefix('g') {
            out.push_str(&format!(
                "<g data-agent=\"{}\">",
                crate::html::escape(&decoded(hex))
            ));
        } else if let Some(hex) = content.strip_prefix('r') {
            out.push_str(&decoded(hex));
        } else {
            out.push_str("</g>");
        }
        rest = &rest[mark + close + "</text>".len()..];
    }
    out.push_str(rest);
    out
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

/// `points` with the vertices dropped that lie within two units (half a printed point, a
/// sixth of a millimetre) of the line their neighbours kept draw (Ramer, Douglas and
/// Peucker): the same line to a reader, with a fraction of the vertices of a long learning
/// curve.
fn simplify(points: &[(i32, i32)]) -> Vec<(i32, i32)> {
    if points.len() < 3 {
        return points.to_vec();
    }
    let mut keep = vec![false; points.len()];
    keep[0] = true;
    keep[points.len() - 1] = true;
    let mut stack = vec![(0, points.len() - 1)];
    while let Some((a, b)) = stack.pop() {
        let (ax, ay) = (f64::from(points[a].0), f64::from(points[a].1));
        let (bx, by) = (f64::from(points[b].0), f64::from(points[b].1));
        let (dx, dy) = (bx - ax, by - ay);
        let length = dx.hypot(dy);
        let mut farthest = (0.0, a);
        for (i, &(x, y)) in points.iter().enumerate().take(b).skip(a + 1) {
            let (x, y) = (f64::from(x), f64::from(y));
            let distance = if length == 0.0 {
                (x - ax).hypot(y - ay)
            } else {
                (dy * (x - ax) - dx * (y - ay)).abs() / length
            };
            if distance > farthest.0 {
                farthest = (distance, i);
            }
        }
        if farthest.0 > 2.0 {
            keep[farthest.1] = true;
            stack.push((a, farthest.1));
            stack.push((farthest.1, b));
        }
    }
    (points.iter().zip(keep))
        .filter(|(_, k)| *k)
        .map(|(p, _)| *p)
        .collect()
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
    fn agent_delimiters_become_groups_and_the_root_is_sized_in_points() {
        let mut out = String::new();
        {
            let canvas = Canvas::new(&mut out, (400, 200)).unwrap();
            canvas.begin_agent("dqn <1>").unwrap();
            canvas.rect(BOX, Some((style::BLACK, 1.0)), None).unwrap();
            canvas.end_agent().unwrap();
            canvas.finish().unwrap();
        }
        let svg = finished_svg(&out);
        assert!(
            svg.starts_with(r#"<svg width="100" height="50""#)
                && svg.contains(r#"viewBox="0 0 400 200""#),
            "{svg}"
        );
        let group = svg.find(r#"<g data-agent="dqn &lt;1&gt;">"#).unwrap();
        let end = svg.find("</g>").unwrap();
        assert!(svg[group..end].contains("<rect"), "{svg}");
        assert!(!svg.contains(GROUP_MARK));
        crate::convert::Converter::new().to_pdf(&svg).unwrap();
    }

    #[test]
    fn simplified_lines_keep_their_shape_within_a_unit() {
        let line: Vec<(i32, i32)> = (0..100).map(|x| (x, x / 20)).collect();
        let kept = simplify(&line);
        assert!(kept.len() < 10, "{kept:?}");
        // Within the tolerance of the kept line everywhere.
        for &(x, y) in &line {
            let at = kept
                .windows(2)
                .find(|w| w[0].0 <= x && x <= w[1].0)
                .unwrap();
            let t = f64::from(x - at[0].0) / f64::from((at[1].0 - at[0].0).max(1));
            let on = f64::from(at[0].1) + t * f64::from(at[1].1 - at[0].1);
            assert!((on - f64::from(y)).abs() <= 2.0, "{x}: {y} vs {on}");
        }
        assert_eq!((kept[0], kept[kept.len() - 1]), (line[0], line[99]));
        let corner = [(0, 0), (10, 0), (10, 10)];
        assert_eq!(simplify(&corner), corner);
    }

    #[test]
    fn dashed_lines_are_one_element_with_a_dash_pattern() {
        let mut out = String::new();
        {
            let canvas = Canvas::new(&mut out, (400, 200)).unwrap();
            let stroke = Stroke::solid(style::BLACK, 4.0).dash(Dash::Dashed);
            canvas
                .raw_polyline(&[(0.0, 10.0), (300.0, 10.0)], stroke)
                .unwrap();
            canvas.finish().unwrap();
        }
        let svg = finished_svg(&out);
        assert_eq!(svg.matches("<path").count(), 1, "{svg}");
        assert!(svg.contains(r#"stroke-dasharray="12 8""#), "{svg}");
        crate::convert::Converter::new().to_pdf(&svg).unwrap();
    }

    #[test]
    fn text_width_grows_with_text_and_size() {
        let short = text_width("bandit", 10.0);
        assert!(short > 20.0 && short < 50.0, "{short}");
        assert!((text_width("bandit", 20.0) - 2.0 * short).abs() < 1e-9);
        assert!(text_width("bandit_noise", 10.0) > short);
    }
}
