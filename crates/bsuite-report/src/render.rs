//! Draws a [`Drawing`] as SVG: facets in a grid with shared axes, strips, legends and clipping.

use crate::canvas::{finished_svg, text_height, text_width, Align, Canvas, Rect};
use crate::drawing::{Drawing, DrawingAxis, Facet, Key, Layer, Legend, Scale, Stroke};
use crate::style::{units, BLACK, DARK_GREY, GRID_GREY, MIN_TEXT_POINTS, STRIP_GREY, WHITE};
use crate::Error;

/// Font sizes in canvas units per em (6.5 to 8 points as printed).
pub(crate) const TITLE_SIZE: f64 = 8.0 * crate::style::UNITS_PER_POINT;
pub(crate) const AXIS_TITLE_SIZE: f64 = 7.5 * crate::style::UNITS_PER_POINT;
pub(crate) const TICK_SIZE: f64 = 6.5 * crate::style::UNITS_PER_POINT;
pub(crate) const STRIP_SIZE: f64 = 7.0 * crate::style::UNITS_PER_POINT;
pub(crate) const LEGEND_SIZE: f64 = 6.5 * crate::style::UNITS_PER_POINT;

const MARGIN: f64 = 3.0 * crate::style::UNITS_PER_POINT;
const GAP: f64 = 4.0 * crate::style::UNITS_PER_POINT;
const TICK_LENGTH: f64 = 2.0 * crate::style::UNITS_PER_POINT;
const KEY_WIDTH: f64 = 12.0 * crate::style::UNITS_PER_POINT;
/// Radius of a marker in a legend key.
const KEY_MARKER: f64 = 2.2 * crate::style::UNITS_PER_POINT;

/// Renders `figure` to an SVG document.
pub fn render_svg(figure: &Drawing) -> Result<String, Error> {
    let mut out = String::new();
    {
        let canvas = Canvas::new(&mut out, figure.size)?;
        draw_figure(&canvas, figure)?;
        canvas.finish()?;
    }
    Ok(finished_svg(&out))
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
            text_height(self.size) * self.lines.len() as f64 + units(1.5)
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
    // A title may break its own lines; otherwise it breaks once if it is too long.
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    if lines.len() == 1 && widest(&lines, AXIS_TITLE_SIZE) > room {
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
        (AXIS_TITLE_SIZE * room / width).max(units(MIN_TEXT_POINTS))
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
        Layer::Label { at, .. } => {
            xs.push(at.0);
            ys.push(at.1);
        }
    }
}

/// An entry's height: its lines and a little space.
fn entry_height(label: &str) -> f64 {
    legend_row_height() * label.lines().count().max(1) as f64 + units(1.0)
}

/// How a legend is laid out in at most `room` units of height: its columns (entries top to
/// bottom, then the next column), and its size.
fn legend_layout(legend: &Legend, room: f64) -> (Vec<Vec<usize>>, (f64, f64)) {
    let row = legend_row_height();
    let title_h = if legend.title.is_empty() { 0.0 } else { row };
    let room = (room - title_h).max(row);
    let mut columns: Vec<Vec<usize>> = vec![Vec::new()];
    let mut used = 0.0;
    for (i, (label, _)) in legend.entries.iter().enumerate() {
        let h = entry_height(label);
        if used + h > room && !columns.last().is_some_and(Vec::is_empty) {
            columns.push(Vec::new());
            used = 0.0;
        }
        used += h;
        if let Some(column) = columns.last_mut() {
            column.push(i);
        }
    }
    let column_width = |column: &[usize]| {
        KEY_WIDTH
            + units(2.0)
            + column
                .iter()
                .flat_map(|&i| legend.entries[i].0.lines())
                .map(|line| text_width(line, LEGEND_SIZE))
                .fold(0.0, f64::max)
    };
    let width: f64 =
        columns.iter().map(|c| column_width(c)).sum::<f64>() + GAP * (columns.len() as f64 - 1.0);
    let height = columns
        .iter()
        .map(|c| {
            c.iter()
                .map(|&i| entry_height(&legend.entries[i].0))
                .sum::<f64>()
        })
        .fold(0.0, f64::max);
    let title_w = text_width(&legend.title, LEGEND_SIZE);
    (columns, (title_w.max(width), title_h + height))
}

fn legend_row_height() -> f64 {
    text_height(LEGEND_SIZE) + units(0.8)
}

/// Draws the legends stacked and vertically centred on `centre_y`, starting at `x`, each in
/// as many columns as fit it within `room` units of height.
pub(crate) fn draw_legends(
    canvas: &Canvas,
    legends: &[Legend],
    x: f64,
    centre_y: f64,
    room: f64,
) -> Result<(), Error> {
    let layouts: Vec<_> = legends.iter().map(|l| legend_layout(l, room)).collect();
    let total: f64 =
        layouts.iter().map(|l| l.1 .1).sum::<f64>() + GAP * (legends.len() as f64 - 1.0);
    let mut y = centre_y - total / 2.0;
    let row = legend_row_height();
    for (legend, (columns, (_, height))) in legends.iter().zip(&layouts) {
        let top = y;
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
        let mut column_x = x;
        for column in columns {
            let mut entry_y = y;
            let mut widest: f64 = 0.0;
            for &i in column {
                let (label, key) = &legend.entries[i];
                let lines: Vec<&str> = label.lines().collect();
                let h = entry_height(label);
                let mid = entry_y + h / 2.0;
                draw_key(canvas, *key, (column_x, mid))?;
                for (j, line) in lines.iter().enumerate() {
                    let line_y = mid + (j as f64 - (lines.len() as f64 - 1.0) / 2.0) * row;
                    canvas.text(
                        line,
                        (column_x + KEY_WIDTH + units(2.0), line_y),
                        LEGEND_SIZE,
                        DARK_GREY,
                        Align::Start,
                        false,
                    )?;
                    widest = widest.max(text_width(line, LEGEND_SIZE));
                }
                entry_y += h;
            }
            column_x += KEY_WIDTH + units(2.0) + widest + GAP;
        }
        y = top + height + GAP;
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
    let line = |stroke: Stroke| {
        let stroke = Stroke {
            width: stroke.width.clamp(units(0.5), units(1.5)),
            opacity: stroke.opacity.max(0.6),
            ..stroke
        };
        canvas.raw_polyline(
            &[(x + units(0.5), y), (x + KEY_WIDTH - units(0.5), y)],
            stroke,
        )
    };
    let centre = (x + KEY_WIDTH / 2.0, y);
    match key {
        Key::Line(stroke) => line(stroke),
        Key::LineMarker(stroke, marker) => {
            line(stroke)?;
            canvas.marker(centre, KEY_MARKER, marker, stroke.colour, 1.0, everywhere)
        }
        Key::Fill(colour) => {
            let half = units(2.2);
            canvas.rect(
                Rect {
                    x0: centre.0 - half,
                    y0: y - half,
                    x1: centre.0 + half,
                    y1: y + half,
                },
                Some((colour, 1.0)),
                None,
            )
        }
        Key::Point(colour, marker) => {
            canvas.marker(centre, KEY_MARKER * 0.8, marker, colour, 1.0, everywhere)
        }
    }
}

/// Width needed by the legends laid out within `room` units of height (zero without
/// legends), with the gap before them.
pub(crate) fn legends_width(legends: &[Legend], room: f64) -> f64 {
    legends
        .iter()
        .map(|l| legend_layout(l, room).1 .0 + 2.0 * GAP)
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
    let right = width - MARGIN - legends_width(&figure.legends, height - top - MARGIN);
    let y_ticks_width = y_axis
        .ticks
        .iter()
        .map(|(_, label)| text_width(label, TICK_SIZE))
        .fold(0.0, f64::max)
        + TICK_LENGTH
        + units(1.5);
    let x_title = fit_title(&figure.x.label, right - MARGIN);
    let bottom = height - MARGIN - x_title.band();
    let y_title = fit_title(&figure.y.label, bottom - top);
    let left = MARGIN + y_title.band() + y_ticks_width;
    let no_tick_labels = x_axis.ticks.iter().all(|(_, label)| label.is_empty());
    let x_ticks_height = if no_tick_labels {
        TICK_LENGTH
    } else if figure.x.vertical_labels {
        x_axis
            .ticks
            .iter()
            .map(|(_, label)| text_width(label, TICK_SIZE))
            .fold(0.0, f64::max)
    } else {
        text_height(TICK_SIZE)
    } + TICK_LENGTH
        + units(1.5);

    let n = figure.facets.len().max(1);
    let columns = figure.columns.clamp(1, n);
    let rows = n.div_ceil(columns);
    let cell_width = (right - left - GAP * (columns as f64 - 1.0)) / columns as f64;
    // Strips share one size, shrunk (not below the smallest legible) to fit the widest title.
    let strip_size = (figure.facets.iter())
        .filter_map(|f| f.title.as_deref())
        .map(|t| STRIP_SIZE * ((cell_width - units(2.0)) / text_width(t, STRIP_SIZE)).min(1.0))
        .fold(STRIP_SIZE, f64::min)
        .max(units(MIN_TEXT_POINTS));
    let strip = if figure.facets.iter().any(|f| f.title.is_some()) {
        text_height(strip_size) + units(2.0)
    } else {
        0.0
    };
    // x tick labels go under the facets with no facet below them: the last row, and the
    // row above it where the last row is incomplete.
    let labelled = |index: usize| index + columns >= n;
    let row_has_labels = |row: usize| (row * columns..((row + 1) * columns).min(n)).any(labelled);
    let labelled_rows = (0..rows).filter(|&r| row_has_labels(r)).count();
    let cell_w = cell_width;
    let panel_h = ((bottom - top)
        - GAP * (rows as f64 - 1.0)
        - strip * rows as f64
        - x_ticks_height * labelled_rows as f64)
        / rows as f64;
    let panel_h = panel_h.max(units(5.0));
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
        if let Some(agent) = &facet.agent {
            canvas.begin_agent(agent)?;
        }
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
                strip_size,
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
        if facet.agent.is_some() {
            canvas.end_agent()?;
        }
    }

    let panels_mid_x = (left + right) / 2.0;
    for (i, line) in x_title.lines.iter().enumerate() {
        let line_height = text_height(x_title.size);
        let first = height - MARGIN - x_title.band() + units(1.5) + line_height / 2.0;
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
            height - top - MARGIN,
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
    let grid = Stroke::solid(GRID_GREY, units(0.4));
    let mut lines: Vec<crate::canvas::Segment> = (y_axis.ticks.iter())
        .map(|(v, _)| my.map(*v))
        .map(|y| ((panel.x0, y), (panel.x1, y)))
        .collect();
    if !categorical_x {
        lines.extend(
            (x_axis.ticks.iter())
                .map(|(v, _)| mx.map(*v))
                .map(|x| ((x, panel.y0), (x, panel.y1))),
        );
    }
    canvas.segments(&lines, grid)?;

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

    let axis_stroke = Stroke::solid(DARK_GREY, units(0.4));
    canvas.rect(panel, None, Some(axis_stroke))?;
    let ticks: Vec<crate::canvas::Segment> = (x_axis.ticks.iter())
        .map(|(v, _)| mx.map(*v))
        .map(|x| ((x, panel.y1), (x, panel.y1 + TICK_LENGTH)))
        .chain(
            (y_axis.ticks.iter())
                .map(|(v, _)| my.map(*v))
                .map(|y| ((panel.x0 - TICK_LENGTH, y), (panel.x0, y))),
        )
        .collect();
    canvas.segments(&ticks, axis_stroke)?;
    for (v, label) in &x_axis.ticks {
        let x = mx.map(*v);
        let Some(vertical) = x_labels else {
            continue;
        };
        if vertical {
            canvas.text(
                label,
                (x, panel.y1 + TICK_LENGTH + units(1.0)),
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
                    panel.y1 + TICK_LENGTH + units(0.8) + text_height(TICK_SIZE) / 2.0,
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
        if y_labels {
            canvas.text(
                label,
                (panel.x0 - TICK_LENGTH - units(1.0), y),
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
        Layer::HLine { .. } | Layer::Label { .. } => false,
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
            let centres: Vec<(f64, f64)> = points
                .iter()
                .map(|&(x, y)| (mx.map(x), my.map(y)))
                .collect();
            canvas.markers(&centres, *radius, *marker, *colour, *opacity, panel)
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
        Layer::Label {
            at,
            text,
            size,
            colour,
        } => {
            let centre = (mx.map(at.0), my.map(at.1));
            if !(centre.0.is_finite() && centre.1.is_finite()) {
                return Ok(());
            }
            canvas.text(text, centre, *size, *colour, Align::Middle, false)
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
