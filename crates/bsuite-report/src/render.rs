//! Draws a [`Drawing`] as SVG: facets in a grid with shared axes, strips, legends and clipping.

use crate::canvas::{paint_opacity, text_height, text_width, Align, Canvas, Rect};
use crate::drawing::{Drawing, DrawingAxis, Facet, Key, Layer, Legend, Marker, Scale, Stroke};
use crate::style::{BLACK, DARK_GREY, GRID_GREY, STRIP_GREY, WHITE};
use crate::Error;

/// Font sizes in pixels per em.
pub(crate) const TITLE_SIZE: f64 = 22.0;
pub(crate) const AXIS_TITLE_SIZE: f64 = 19.0;
pub(crate) const TICK_SIZE: f64 = 16.0;
pub(crate) const STRIP_SIZE: f64 = 16.0;
pub(crate) const LEGEND_SIZE: f64 = 16.0;

const MARGIN: f64 = 14.0;
const GAP: f64 = 12.0;
const TICK_LENGTH: f64 = 5.0;
const KEY_WIDTH: f64 = 28.0;

/// Renders `figure` to an SVG document.
pub fn render_svg(figure: &Drawing) -> Result<String, Error> {
    let mut out = String::new();
    {
        let canvas = Canvas::new(&mut out, figure.size)?;
        draw_figure(&canvas, figure)?;
        canvas.finish()?;
    }
    Ok(paint_opacity(&out))
}

/// Maps data values on one axis to pixels.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Mapping {
    scale: Scale,
    low: f64,
    high: f64,
    from: f64,
    to: f64,
}

impl Mapping {
    fn transform(scale: Scale, v: f64) -> f64 {
        match scale {
            Scale::Linear => v,
            Scale::Log10 => v.log10(),
        }
    }

    pub fn map(&self, v: f64) -> f64 {
        let t = Self::transform(self.scale, v);
        if !t.is_finite() {
            return f64::NAN;
        }
        self.from + (t - self.low) / (self.high - self.low) * (self.to - self.from)
    }
}

/// Limits (in transformed units) and breaks of one axis after looking at the data.
#[derive(Debug, Clone)]
pub(crate) struct Resolved {
    scale: Scale,
    /// Transformed limits, expanded for drawing.
    low: f64,
    high: f64,
    /// Ticks in data units with their labels.
    ticks: Vec<(f64, String)>,
}

impl Resolved {
    fn mapping(&self, from: f64, to: f64) -> Mapping {
        Mapping {
            scale: self.scale,
            low: self.low,
            high: self.high,
            from,
            to,
        }
    }
}

pub(crate) fn resolve(axis: &DrawingAxis, values: &[f64]) -> Resolved {
    if !axis.categories.is_empty() {
        let n = axis.categories.len() as f64;
        return Resolved {
            scale: Scale::Linear,
            low: -0.6,
            high: n - 0.4,
            ticks: axis
                .categories
                .iter()
                .enumerate()
                .map(|(i, label)| (i as f64, label.clone()))
                .collect(),
        };
    }
    let scale = axis.scale;
    let transformed: Vec<f64> = values
        .iter()
        .map(|&v| Mapping::transform(scale, v))
        .filter(|t| t.is_finite())
        .collect();
    let (mut low, mut high) = match axis.limits {
        Some((low, high)) => (
            Mapping::transform(scale, low),
            Mapping::transform(scale, high),
        ),
        None if transformed.is_empty() => (0.0, 1.0),
        None => transformed
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &t| {
                (lo.min(t), hi.max(t))
            }),
    };
    if !(low.is_finite() && high.is_finite()) {
        (low, high) = (0.0, 1.0);
    }
    if high - low < 1e-12 {
        let pad = if low.abs() > 1e-12 {
            low.abs() * 0.1
        } else {
            0.5
        };
        (low, high) = (low - pad, high + pad);
    }
    let ticks = match &axis.breaks {
        Some(breaks) => breaks
            .iter()
            .copied()
            .filter(|&b| {
                let t = Mapping::transform(scale, b);
                t.is_finite() && t >= low - 1e-9 && t <= high + 1e-9
            })
            .map(|b| (b, format_tick(b)))
            .collect(),
        None => auto_ticks(scale, low, high),
    };
    let pad = (high - low) * 0.04;
    Resolved {
        scale,
        low: low - pad,
        high: high + pad,
        ticks,
    }
}

/// Round-number ticks between transformed limits.
fn auto_ticks(scale: Scale, low: f64, high: f64) -> Vec<(f64, String)> {
    match scale {
        Scale::Linear => {
            let raw = (high - low) / 5.0;
            let magnitude = 10f64.powf(raw.log10().floor());
            let step = [1.0, 2.0, 2.5, 5.0, 10.0]
                .iter()
                .map(|m| m * magnitude)
                .find(|s| *s >= raw)
                .unwrap_or(10.0 * magnitude);
            let first = (low / step).ceil() as i64;
            let last = (high / step).floor() as i64;
            (first..=last)
                .map(|k| {
                    let v = k as f64 * step;
                    (v, format_tick(v))
                })
                .collect()
        }
        Scale::Log10 => {
            for mantissas in [&[1.0][..], &[1.0, 3.0], &[1.0, 2.0, 5.0]] {
                let mut ticks = Vec::new();
                for e in (low.floor() as i32)..=(high.ceil() as i32) {
                    for m in mantissas {
                        let v = m * 10f64.powi(e);
                        let t = v.log10();
                        if t >= low - 1e-9 && t <= high + 1e-9 {
                            ticks.push((v, format_tick(v)));
                        }
                    }
                }
                if ticks.len() >= 3 {
                    return ticks;
                }
            }
            vec![
                (10f64.powf(low), format_tick(10f64.powf(low))),
                (10f64.powf(high), format_tick(10f64.powf(high))),
            ]
        }
    }
}

/// A short tick label: integers without decimals, others with at most four significant digits.
pub(crate) fn format_tick(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    if (v - v.round()).abs() < 1e-9 * v.abs().max(1.0) && v.abs() < 1e7 {
        return format!("{}", v.round() as i64);
    }
    let digits = (4 - 1 - v.abs().log10().floor() as i32).clamp(0, 10) as usize;
    let s = format!("{v:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// An axis title broken into at most two lines and shrunk if need be to fit `room` pixels.
struct Title {
    lines: Vec<String>,
    size: f64,
}

impl Title {
    /// Room the title takes across its lines, including the gap to the tick labels.
    fn band(&self) -> f64 {
        if self.lines.is_empty() {
            0.0
        } else {
            text_height(self.size) * self.lines.len() as f64 + 6.0
        }
    }
}

fn fit_title(text: &str, room: f64) -> Title {
    let widest = |lines: &[String], size: f64| {
        lines
            .iter()
            .map(|l| text_width(l, size))
            .fold(0.0, f64::max)
    };
    if text.is_empty() {
        return Title {
            lines: Vec::new(),
            size: AXIS_TITLE_SIZE,
        };
    }
    let mut lines = vec![text.to_string()];
    if widest(&lines, AXIS_TITLE_SIZE) > room {
        // Break at the space that best balances the two lines.
        let words: Vec<&str> = text.split(' ').collect();
        if let Some(split) = (1..words.len()).min_by(|&a, &b| {
            let cost = |k: usize| {
                let (head, tail) = (words[..k].join(" "), words[k..].join(" "));
                text_width(&head, AXIS_TITLE_SIZE).max(text_width(&tail, AXIS_TITLE_SIZE))
            };
            cost(a).total_cmp(&cost(b))
        }) {
            lines = vec![words[..split].join(" "), words[split..].join(" ")];
        }
    }
    let width = widest(&lines, AXIS_TITLE_SIZE);
    let size = if width > room && room > 0.0 {
        (AXIS_TITLE_SIZE * room / width).max(10.0)
    } else {
        AXIS_TITLE_SIZE
    };
    Title { lines, size }
}

fn layer_extent(layer: &Layer, xs: &mut Vec<f64>, ys: &mut Vec<f64>) {
    match layer {
        Layer::Line { points, .. } | Layer::Points { points, .. } => {
            for &(x, y) in points {
                xs.push(x);
                ys.push(y);
            }
        }
        Layer::Ribbon { points, .. } => {
            for &(x, lo, hi) in points {
                xs.push(x);
                ys.push(lo);
                ys.push(hi);
            }
        }
        Layer::Bars(bars) => {
            for bar in bars {
                xs.push(bar.centre - bar.width / 2.0);
                xs.push(bar.centre + bar.width / 2.0);
                ys.push(0.0);
                ys.push(bar.value);
            }
        }
        Layer::HLine { y, .. } => ys.push(*y),
    }
}

fn legend_size(legend: &Legend) -> (f64, f64) {
    let row = legend_row_height();
    let title_w = text_width(&legend.title, LEGEND_SIZE);
    let entries_w = legend
        .entries
        .iter()
        .flat_map(|(label, _)| label.lines())
        .map(|line| text_width(line, LEGEND_SIZE))
        .fold(0.0, f64::max);
    let lines: usize = legend
        .entries
        .iter()
        .map(|(label, _)| label.lines().count().max(1))
        .sum();
    let title_h = if legend.title.is_empty() { 0.0 } else { row };
    (
        title_w.max(KEY_WIDTH + 8.0 + entries_w),
        title_h + row * lines as f64 + 4.0 * legend.entries.len() as f64,
    )
}

fn legend_row_height() -> f64 {
    text_height(LEGEND_SIZE) + 4.0
}

/// Draws the legends stacked and vertically centred on `centre_y`, starting at `x`.
pub(crate) fn draw_legends(
    canvas: &Canvas,
    legends: &[Legend],
    x: f64,
    centre_y: f64,
) -> Result<(), Error> {
    let sizes: Vec<(f64, f64)> = legends.iter().map(legend_size).collect();
    let total: f64 =
        sizes.iter().map(|s| s.1).sum::<f64>() + GAP * 2.0 * (legends.len() as f64 - 1.0);
    let mut y = centre_y - total / 2.0;
    let row = legend_row_height();
    for legend in legends {
        if !legend.title.is_empty() {
            canvas.text(
                &legend.title,
                (x, y + row / 2.0),
                LEGEND_SIZE,
                BLACK,
                Align::Start,
                false,
            )?;
            y += row;
        }
        for (label, key) in &legend.entries {
            let lines: Vec<&str> = label.lines().collect();
            let height = row * lines.len().max(1) as f64 + 4.0;
            let mid = y + height / 2.0;
            draw_key(canvas, *key, (x, mid))?;
            for (i, line) in lines.iter().enumerate() {
                let line_y = mid + (i as f64 - (lines.len() as f64 - 1.0) / 2.0) * row;
                canvas.text(
                    line,
                    (x + KEY_WIDTH + 8.0, line_y),
                    LEGEND_SIZE,
                    DARK_GREY,
                    Align::Start,
                    false,
                )?;
            }
            y += height;
        }
        y += GAP * 2.0;
    }
    Ok(())
}

fn draw_key(canvas: &Canvas, key: Key, (x, y): (f64, f64)) -> Result<(), Error> {
    let everywhere = Rect {
        x0: f64::NEG_INFINITY,
        y0: f64::NEG_INFINITY,
        x1: f64::INFINITY,
        y1: f64::INFINITY,
    };
    match key {
        Key::Line(stroke) => {
            let stroke = Stroke {
                width: stroke.width.clamp(2.0, 5.0),
                opacity: stroke.opacity.max(0.6),
                ..stroke
            };
            canvas.raw_polyline(&[(x + 2.0, y), (x + KEY_WIDTH - 2.0, y)], stroke)
        }
        Key::Fill(colour) => canvas.rect(
            Rect {
                x0: x + 5.0,
                y0: y - 9.0,
                x1: x + 23.0,
                y1: y + 9.0,
            },
            Some((colour, 1.0)),
            None,
        ),
        Key::Point(colour, Marker::Disc) => {
            canvas.disc((x + KEY_WIDTH / 2.0, y), 6.0, colour, 1.0, everywhere)
        }
        Key::Point(colour, Marker::Cross) => {
            canvas.cross((x + KEY_WIDTH / 2.0, y), 6.0, colour, 1.0, everywhere)
        }
    }
}

/// Width needed by the legends (zero without legends).
pub(crate) fn legends_width(legends: &[Legend]) -> f64 {
    legends
        .iter()
        .map(|l| legend_size(l).0 + 2.0 * GAP)
        .fold(0.0, f64::max)
}

fn draw_figure(canvas: &Canvas, figure: &Drawing) -> Result<(), Error> {
    let (width, height) = (f64::from(figure.size.0), f64::from(figure.size.1));
    let mut xs = Vec::new();
    let mut ys = Vec::new();
    for facet in &figure.facets {
        for layer in &facet.layers {
            layer_extent(layer, &mut xs, &mut ys);
        }
    }
    xs.extend_from_slice(&figure.x.include);
    ys.extend_from_slice(&figure.y.include);
    let x_axis = resolve(&figure.x, &xs);
    let y_axis = resolve(&figure.y, &ys);

    let mut top = MARGIN;
    if let Some(title) = &figure.title {
        canvas.text(
            title,
            (width / 2.0, top + text_height(TITLE_SIZE) / 2.0),
            TITLE_SIZE,
            BLACK,
            Align::Middle,
            false,
        )?;
        top += text_height(TITLE_SIZE) + GAP;
    }
    let right = width - MARGIN - legends_width(&figure.legends);
    let y_ticks_width = y_axis
        .ticks
        .iter()
        .map(|(_, label)| text_width(label, TICK_SIZE))
        .fold(0.0, f64::max)
        + TICK_LENGTH
        + 6.0;
    let x_title = fit_title(&figure.x.label, right - MARGIN);
    let bottom = height - MARGIN - x_title.band();
    let y_title = fit_title(&figure.y.label, bottom - top);
    let left = MARGIN + y_title.band() + y_ticks_width;
    let x_ticks_height = if figure.x.vertical_labels {
        x_axis
            .ticks
            .iter()
            .map(|(_, label)| text_width(label, TICK_SIZE))
            .fold(0.0, f64::max)
    } else {
        text_height(TICK_SIZE)
    } + TICK_LENGTH
        + 6.0;

    let n = figure.facets.len().max(1);
    let columns = figure.columns.clamp(1, n);
    let rows = n.div_ceil(columns);
    let strip = if figure.facets.iter().any(|f| f.title.is_some()) {
        text_height(STRIP_SIZE) + 8.0
    } else {
        0.0
    };
    // x tick labels go under the facets with no facet below them: the last row, and the
    // row above it where the last row is incomplete.
    let labelled = |index: usize| index + columns >= n;
    let row_has_labels = |row: usize| (row * columns..((row + 1) * columns).min(n)).any(labelled);
    let labelled_rows = (0..rows).filter(|&r| row_has_labels(r)).count();
    let cell_w = (right - left - GAP * (columns as f64 - 1.0)) / columns as f64;
    let panel_h = ((bottom - top)
        - GAP * (rows as f64 - 1.0)
        - strip * rows as f64
        - x_ticks_height * labelled_rows as f64)
        / rows as f64;
    let panel_h = panel_h.max(20.0);
    let mut row_top = vec![top; rows];
    for row in 1..rows {
        let above = row - 1;
        row_top[row] = row_top[above]
            + strip
            + panel_h
            + if row_has_labels(above) {
                x_ticks_height
            } else {
                0.0
            }
            + GAP;
    }

    for (index, facet) in figure.facets.iter().enumerate() {
        let (row, column) = (index / columns, index % columns);
        let x0 = left + column as f64 * (cell_w + GAP);
        let y0 = row_top[row];
        let panel = Rect {
            x0,
            y0: y0 + strip,
            x1: x0 + cell_w,
            y1: y0 + strip + panel_h,
        };
        if let Some(title) = &facet.title {
            let strip_rect = Rect {
                x0,
                y0,
                x1: x0 + cell_w,
                y1: y0 + strip,
            };
            canvas.rect(
                strip_rect,
                Some((STRIP_GREY, 1.0)),
                Some(Stroke::solid(DARK_GREY, 1.0)),
            )?;
            canvas.text(
                title,
                (x0 + cell_w / 2.0, y0 + strip / 2.0),
                STRIP_SIZE,
                BLACK,
                Align::Middle,
                false,
            )?;
        }
        draw_panel(
            canvas,
            facet,
            panel,
            (&x_axis, &y_axis),
            !figure.x.categories.is_empty(),
            labelled(index).then_some(figure.x.vertical_labels),
            column == 0,
        )?;
    }

    let panels_mid_x = (left + right) / 2.0;
    for (i, line) in x_title.lines.iter().enumerate() {
        let line_height = text_height(x_title.size);
        let first = height - MARGIN - x_title.band() + 6.0 + line_height / 2.0;
        canvas.text(
            line,
            (panels_mid_x, first + i as f64 * line_height),
            x_title.size,
            BLACK,
            Align::Middle,
            false,
        )?;
    }
    for (i, line) in y_title.lines.iter().enumerate() {
        let line_height = text_height(y_title.size);
        canvas.text(
            line,
            (
                MARGIN + line_height / 2.0 + i as f64 * line_height,
                (top + bottom) / 2.0,
            ),
            y_title.size,
            BLACK,
            Align::Middle,
            true,
        )?;
    }
    if !figure.legends.is_empty() {
        draw_legends(
            canvas,
            &figure.legends,
            right + 2.0 * GAP,
            (top + bottom) / 2.0,
        )?;
    }
    Ok(())
}

fn draw_panel(
    canvas: &Canvas,
    facet: &Facet,
    panel: Rect,
    (x_axis, y_axis): (&Resolved, &Resolved),
    categorical_x: bool,
    x_labels: Option<bool>,
    y_labels: bool,
) -> Result<(), Error> {
    let mx = x_axis.mapping(panel.x0, panel.x1);
    let my = y_axis.mapping(panel.y1, panel.y0);
    canvas.rect(panel, Some((WHITE, 1.0)), None)?;
    let grid = Stroke::solid(GRID_GREY, 1.0);
    for (v, _) in &y_axis.ticks {
        let y = my.map(*v);
        canvas.raw_polyline(&[(panel.x0, y), (panel.x1, y)], grid)?;
    }
    if !categorical_x {
        for (v, _) in &x_axis.ticks {
            let x = mx.map(*v);
            canvas.raw_polyline(&[(x, panel.y0), (x, panel.y1)], grid)?;
        }
    }

    for layer in &facet.layers {
        draw_layer(canvas, layer, panel, &mx, &my)?;
    }
    if !facet.layers.iter().any(has_data) {
        canvas.text(
            "no data",
            ((panel.x0 + panel.x1) / 2.0, (panel.y0 + panel.y1) / 2.0),
            TICK_SIZE,
            DARK_GREY,
            Align::Middle,
            false,
        )?;
    }

    let axis_stroke = Stroke::solid(DARK_GREY, 1.0);
    canvas.rect(panel, None, Some(axis_stroke))?;
    for (v, label) in &x_axis.ticks {
        let x = mx.map(*v);
        canvas.raw_polyline(&[(x, panel.y1), (x, panel.y1 + TICK_LENGTH)], axis_stroke)?;
        let Some(vertical) = x_labels else {
            continue;
        };
        if vertical {
            canvas.text(
                label,
                (x, panel.y1 + TICK_LENGTH + 4.0),
                TICK_SIZE,
                DARK_GREY,
                Align::End,
                true,
            )?;
        } else {
            canvas.text(
                label,
                (
                    x,
                    panel.y1 + TICK_LENGTH + 3.0 + text_height(TICK_SIZE) / 2.0,
                ),
                TICK_SIZE,
                DARK_GREY,
                Align::Middle,
                false,
            )?;
        }
    }
    for (v, label) in &y_axis.ticks {
        let y = my.map(*v);
        canvas.raw_polyline(&[(panel.x0 - TICK_LENGTH, y), (panel.x0, y)], axis_stroke)?;
        if y_labels {
            canvas.text(
                label,
                (panel.x0 - TICK_LENGTH - 4.0, y),
                TICK_SIZE,
                DARK_GREY,
                Align::End,
                false,
            )?;
        }
    }
    Ok(())
}

fn has_data(layer: &Layer) -> bool {
    match layer {
        Layer::Line { points, .. } | Layer::Points { points, .. } => !points.is_empty(),
        Layer::Ribbon { points, .. } => !points.is_empty(),
        Layer::Bars(bars) => !bars.is_empty(),
        Layer::HLine { .. } => false,
    }
}

fn draw_layer(
    canvas: &Canvas,
    layer: &Layer,
    panel: Rect,
    mx: &Mapping,
    my: &Mapping,
) -> Result<(), Error> {
    match layer {
        Layer::Line { points, stroke } => {
            let pixels: Vec<(f64, f64)> = points
                .iter()
                .map(|&(x, y)| (mx.map(x), my.map(y)))
                .collect();
            canvas.polyline(&pixels, *stroke, panel)
        }
        Layer::Ribbon {
            points,
            fill,
            opacity,
        } => {
            let mut outline: Vec<(f64, f64)> = points
                .iter()
                .map(|&(x, _, hi)| (mx.map(x), my.map(hi)))
                .collect();
            outline.extend(
                points
                    .iter()
                    .rev()
                    .map(|&(x, lo, _)| (mx.map(x), my.map(lo))),
            );
            canvas.polygon(&outline, *fill, *opacity, panel)
        }
        Layer::Points {
            points,
            colour,
            radius,
            opacity,
            marker,
        } => {
            for &(x, y) in points {
                let centre = (mx.map(x), my.map(y));
                if !(centre.0.is_finite() && centre.1.is_finite()) {
                    continue;
                }
                match marker {
                    Marker::Disc => canvas.disc(centre, *radius, *colour, *opacity, panel)?,
                    Marker::Cross => canvas.cross(centre, *radius, *colour, *opacity, panel)?,
                }
            }
            Ok(())
        }
        Layer::Bars(bars) => {
            for bar in bars {
                let x0 = mx.map(bar.centre - bar.width / 2.0).max(panel.x0);
                let x1 = mx.map(bar.centre + bar.width / 2.0).min(panel.x1);
                let (ya, yb) = (my.map(0.0), my.map(bar.value));
                let (y0, y1) = (ya.min(yb).max(panel.y0), ya.max(yb).min(panel.y1));
                if !(x0 < x1 && y0 <= y1) {
                    continue;
                }
                canvas.rect(Rect { x0, y0, x1, y1 }, Some((bar.fill, bar.opacity)), None)?;
            }
            Ok(())
        }
        Layer::HLine { y, stroke } => {
            let py = my.map(*y);
            canvas.polyline(&[(panel.x0, py), (panel.x1, py)], *stroke, panel)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::drawing::{Drawing, DrawingAxis};

    #[test]
    fn tick_labels_are_short() {
        assert_eq!(format_tick(0.25), "0.25");
        assert_eq!(format_tick(10000.0), "10000");
        assert_eq!(format_tick(0.1 + 0.2), "0.3");
        assert_eq!(format_tick(-100.0), "-100");
    }

    #[test]
    fn log_axis_ticks_follow_one_three_steps_over_small_ranges() {
        let axis = resolve(&DrawingAxis::new("x").log10(), &[1.0, 100.0]);
        let ticks: Vec<f64> = axis.ticks.iter().map(|t| t.0).collect();
        assert_eq!(ticks, vec![1.0, 10.0, 100.0]);
        let axis = resolve(&DrawingAxis::new("x").log10(), &[3.0, 20.0]);
        let ticks: Vec<f64> = axis.ticks.iter().map(|t| t.0).collect();
        assert_eq!(ticks, vec![5.0, 10.0, 20.0]);
    }

    #[test]
    fn fixed_breaks_outside_the_limits_are_dropped() {
        let axis = resolve(
            &DrawingAxis::new("y")
                .limits(0.0, 1.0)
                .breaks(&[0.0, 0.5, 1.0, 2.0]),
            &[],
        );
        assert_eq!(axis.ticks.len(), 3);
    }

    #[test]
    fn an_empty_figure_still_renders() {
        let svg = render_svg(&Drawing::new(DrawingAxis::new("x"), DrawingAxis::new("y"))).unwrap();
        assert!(svg.starts_with("<svg"));
    }
}
