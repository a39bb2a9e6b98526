//! The summary figures: the radar "snapshot" over the seven tags and the score grid (every
//! experiment's score, one column per agent), which share the summary page; and, for the
//! details, the bar plot of every experiment's score (one facet per agent), the comparison
//! bar plot (one facet per experiment) and the performance profile.
//!
//! Every figure is laid out for print (see [`crate::style`]): the summary's two side by side
//! within the narrowest text width, with every agent in its own style.

use std::f64::consts::PI;

use bsuite_analysis::experiments::in_plot_order;
use bsuite_analysis::plot::{self, BarChart, RadarChart, ORDERED_TYPES};

use crate::canvas::{finished_svg, text_height, text_width, Align, Canvas, Rect};
use crate::drawing::{BarMark, Drawing, DrawingAxis, Facet, Key, Layer, Legend, Marker, Stroke};
use crate::figure_drawing::facet_grid;
use crate::style::{
    agent_style, sequential, units, AgentStyle, Colour, BLACK, DARK_GREY, TEXT_WIDTH_POINTS,
};
use crate::Error;

/// The width of each of the summary's two figures, in points: half the narrowest text width,
/// less the gap between them.
pub const SUMMARY_FIGURE_POINTS: f64 = 0.49 * TEXT_WIDTH_POINTS;

const RADAR_LABEL_SIZE: f64 = 7.0;
const RADAR_TICK_SIZE: f64 = 6.0;
const LEGEND_SIZE: f64 = 6.5;
const GRID_TEXT_SIZE: f64 = 6.5;
/// Fill opacity of an agent's band on the radar.
const RADAR_BAND_OPACITY: f64 = 0.25;

fn everywhere() -> Rect {
    Rect {
        x0: f64::NEG_INFINITY,
        y0: f64::NEG_INFINITY,
        x1: f64::INFINITY,
        y1: f64::INFINITY,
    }
}

/// An agent's line in the legends and on the radar and profile.
fn agent_stroke(style: AgentStyle, width_points: f64) -> Stroke {
    Stroke::solid(style.colour, units(width_points)).dash(style.dash)
}

fn agent_marker(style: AgentStyle) -> Marker {
    Marker {
        shape: style.marker,
        filled: style.filled,
    }
}

/// The legend key of agent `k`: its line with its marker.
pub(crate) fn agent_key(k: usize) -> Key {
    let style = agent_style(k);
    Key::LineMarker(agent_stroke(style, 1.0), agent_marker(style))
}

/// Draws a legend of `entries` below a figure, in as many columns (filled top to bottom,
/// each as wide as its widest entry) as fit `width` units, from `top`; returns its height.
fn draw_legend_below(
    canvas: &Canvas,
    entries: &[(String, Key)],
    (left, top): (f64, f64),
    width: f64,
) -> Result<f64, Error> {
    let (rows, column_widths) = legend_below_layout(entries, width);
    let size = units(LEGEND_SIZE);
    let row = legend_row();
    let mut x = left;
    for (c, column_width) in column_widths.iter().enumerate() {
        for (r, (label, key)) in entries.iter().skip(c * rows).take(rows).enumerate() {
            let y = top + r as f64 * row + row / 2.0;
            draw_key(canvas, *key, (x, y))?;
            canvas.text(
                label,
                (x + KEY_ROOM, y),
                size,
                DARK_GREY,
                Align::Start,
                false,
            )?;
        }
        x += column_width;
    }
    Ok(rows as f64 * row)
}

/// Room of a key and its gap before the label, in a legend below a figure.
const KEY_ROOM: f64 = 12.0 * crate::style::UNITS_PER_POINT;

fn legend_row() -> f64 {
    text_height(units(LEGEND_SIZE)) + units(1.0)
}

/// Rows and column widths of a legend below a figure `width` units wide: the most columns
/// that fit.
fn legend_below_layout(entries: &[(String, Key)], width: f64) -> (usize, Vec<f64>) {
    let size = units(LEGEND_SIZE);
    let n = entries.len().max(1);
    for columns in (1..=n).rev() {
        let rows = n.div_ceil(columns);
        let widths: Vec<f64> = entries
            .chunks(rows)
            .map(|column| {
                let widest = column
                    .iter()
                    .map(|(label, _)| text_width(label, size))
                    .fold(0.0, f64::max);
                KEY_ROOM + widest + units(4.0)
            })
            .collect();
        if columns == 1 || widths.iter().sum::<f64>() <= width {
            return (rows, widths);
        }
    }
    (n, Vec::new())
}

fn legend_below_height(entries: &[(String, Key)], width: f64) -> f64 {
    if entries.is_empty() {
        return 0.0;
    }
    legend_below_layout(entries, width).0 as f64 * legend_row()
}

fn draw_key(canvas: &Canvas, key: Key, (x, y): (f64, f64)) -> Result<(), Error> {
    let (a, b) = (x + units(0.5), x + units(10.5));
    match key {
        Key::LineMarker(stroke, marker) => {
            canvas.raw_polyline(&[(a, y), (b, y)], stroke)?;
            canvas.marker(
                ((a + b) / 2.0, y),
                units(2.0),
                marker,
                stroke.colour,
                1.0,
                everywhere(),
            )
        }
        Key::Line(stroke) => canvas.raw_polyline(&[(a, y), (b, y)], stroke),
        Key::Point(colour, marker) => canvas.marker(
            ((a + b) / 2.0, y),
            units(2.0),
            marker,
            colour,
            1.0,
            everywhere(),
        ),
        Key::Fill(colour) => canvas.rect(
            Rect {
                x0: (a + b) / 2.0 - units(2.2),
                y0: y - units(2.2),
                x1: (a + b) / 2.0 + units(2.2),
                y1: y + units(2.2),
            },
            Some((colour, 1.0)),
            None,
        ),
    }
}

/// Draws the radar plot: one closed polygon per agent over the seven tags, at the radii the
/// analysis computed (missing tags at the centre, every radius at least 0.05).
pub fn radar_svg(chart: &RadarChart) -> Result<String, Error> {
    radar_svg_with_bands(chart, &[])
}

/// [`radar_svg`] with a band around the polygon of each agent that has one: `bands[k]`,
/// where present, gives agent `k`'s interval (low, high) per tag, in the chart's order (an
/// agent run over several seeds: its tag scores' bootstrap intervals). Agents without a
/// band are drawn as [`radar_svg`] draws them. The figure is
/// [`SUMMARY_FIGURE_POINTS`] wide, with the agents' legend below the radar.
pub fn radar_svg_with_bands(
    chart: &RadarChart,
    bands: &[Option<Vec<(f64, f64)>>],
) -> Result<String, Error> {
    let width = units(SUMMARY_FIGURE_POINTS);
    let label_size = units(RADAR_LABEL_SIZE);
    let pad = units(3.0);
    let direction = |k: usize| {
        let a = chart.angles[k];
        (a.cos(), a.sin())
    };
    // The largest radius whose labels still fit the width: labels right of the centre
    // reach out from it, and so do those left of it (the reference aligns labels between 90
    // and 270 degrees to the right).
    let margin = units(2.0);
    // Two-word labels go on two lines, which leaves the circle more room.
    let labels: Vec<Vec<&str>> = chart
        .labels
        .iter()
        .map(|l| l.split(' ').collect())
        .collect();
    let label_width = |lines: &[&str]| {
        lines
            .iter()
            .map(|l| text_width(l, label_size))
            .fold(0.0, f64::max)
    };
    let mut radius = width / 2.0;
    for (k, lines) in labels.iter().enumerate() {
        let (c, _) = direction(k);
        let text = label_width(lines);
        // The label's far end sits at (radius + pad)·|c| + text from the centre.
        let fits = (width / 2.0 - margin - text - pad * c.abs()) / c.abs().max(1e-9);
        radius = radius.min(fits);
    }
    radius = radius.min(units(78.0));
    // As in the reference, a single agent gets no legend (the analysis leaves it out).
    let names: Vec<String> = chart.agents.iter().map(|a| a.label.clone()).collect();
    let numbered = grid_numbers_agents(&names);
    let entries: Vec<(String, Key)> = match &chart.legend {
        Some(_) => (chart.agents.iter().enumerate())
            .map(|(k, a)| {
                let label = if numbered {
                    format!("{} {}", k + 1, a.label)
                } else {
                    a.label.clone()
                };
                (label, agent_key(k))
            })
            .collect(),
        None => Vec::new(),
    };
    let legend_h = legend_below_height(&entries, width - 2.0 * margin);
    let radar_h = 2.0 * (radius + pad + 2.0 * text_height(label_size)) + 2.0 * margin;
    let height = radar_h + legend_h + if entries.is_empty() { 0.0 } else { margin };
    let (cx, cy) = (width / 2.0, radar_h / 2.0);
    let point = |k: usize, r: f64| {
        let (c, s) = direction(k);
        (cx + r * radius * c, cy - r * radius * s)
    };

    let mut out = String::new();
    {
        let canvas = Canvas::new(&mut out, (width.ceil() as u32, height.ceil() as u32))?;
        for (r, opacity) in [(1.0, 0.02), (0.75, 0.03), (0.5, 0.05), (0.25, 0.05)] {
            canvas.disc((cx, cy), r * radius, BLACK, opacity, everywhere())?;
        }
        for (k, agent) in chart.agents.iter().enumerate() {
            let style = agent_style(k);
            let named = !agent.label.is_empty();
            if named {
                canvas.begin_agent(&agent.label)?;
            }
            if let Some(Some(band)) = bands.get(k) {
                // A ring: the high polygon one way round, the low one the other, so that
                // the nonzero fill rule leaves the inside of the low polygon empty.
                let at = |i: usize, r: f64| point(i, r.clamp(0.0, 1.0));
                let mut ring: Vec<(f64, f64)> =
                    band.iter().enumerate().map(|(i, b)| at(i, b.1)).collect();
                if let Some(&(lo, _)) = band.first() {
                    ring.push(ring[0]);
                    ring.push(at(0, lo));
                    ring.extend(
                        band.iter()
                            .enumerate()
                            .skip(1)
                            .rev()
                            .map(|(i, b)| at(i, b.0)),
                    );
                    ring.push(at(0, lo));
                    canvas.polygon(&ring, style.colour, RADAR_BAND_OPACITY, everywhere())?;
                }
            }
            let mut polygon: Vec<(f64, f64)> = agent
                .radii
                .iter()
                .enumerate()
                .map(|(k, r)| point(k, r.clamp(0.0, 1.0)))
                .collect();
            if !polygon.is_empty() {
                canvas.polygon(&polygon, style.colour, 0.1, everywhere())?;
                let marker = agent_marker(style);
                canvas.markers(
                    &polygon,
                    units(1.6),
                    marker,
                    style.colour,
                    1.0,
                    everywhere(),
                )?;
                polygon.push(polygon[0]);
                canvas.raw_polyline(&polygon, agent_stroke(style, 0.9).opacity(0.9))?;
            }
            if named {
                canvas.end_agent()?;
            }
        }
        // The grid goes above the data, as in the reference.
        let grid = Stroke {
            colour: Colour::hex(0x808080),
            width: units(0.4),
            opacity: 0.9,
            dash: crate::style::Dash::Dashed,
        };
        for r in [0.25, 0.5, 0.75, 1.0] {
            let ring: Vec<(f64, f64)> = (0..=120)
                .map(|i| {
                    let a = 2.0 * PI * f64::from(i) / 120.0;
                    (cx + r * radius * a.cos(), cy - r * radius * a.sin())
                })
                .collect();
            canvas.raw_polyline(&ring, grid)?;
        }
        let spokes: Vec<_> = (0..chart.angles.len())
            .map(|k| ((cx, cy), point(k, 1.0)))
            .collect();
        canvas.segments(&spokes, grid)?;
        // The rings' values go on the bisector between the first axis and the last, where
        // they neither run into each other nor sit on the first axis' data.
        let between = chart.angles[0] - PI / chart.angles.len() as f64;
        for (r, label) in [(0.25, ".25"), (0.5, ".5"), (0.75, ".75")] {
            canvas.text_with_opacity(
                label,
                (
                    cx + r * radius * between.cos(),
                    cy - r * radius * between.sin(),
                ),
                units(RADAR_TICK_SIZE),
                BLACK,
                0.75,
                Align::Middle,
                false,
            )?;
        }
        for (k, lines) in labels.iter().enumerate() {
            let (x, y) = point(k, (radius + pad) / radius);
            let align = if right_aligned(chart.angles[k]) {
                Align::End
            } else {
                Align::Start
            };
            // Labels near the top and bottom move away from the circle vertically.
            let line_h = text_height(label_size) * 0.9;
            let block = line_h * lines.len() as f64;
            let dy = -direction(k).1 * block * 0.5;
            for (i, line) in lines.iter().enumerate() {
                let offset = (i as f64 + 0.5) * line_h - block / 2.0;
                canvas.text(line, (x, y + dy + offset), label_size, BLACK, align, false)?;
            }
        }
        if !entries.is_empty() {
            draw_legend_below(&canvas, &entries, (margin, radar_h), width - 2.0 * margin)?;
        }
        canvas.finish()?;
    }
    Ok(finished_svg(&out))
}

fn right_aligned(angle: f64) -> bool {
    let degrees = angle.to_degrees();
    (90.0 - 1e-9..=270.0 + 1e-9).contains(&degrees)
}

/// The score grid: one row per experiment (in the bar plot's order, a little apart between
/// types), one column per agent, each cell coloured by the score on a sequential scale and,
/// where the column is wide enough, the score written in it (an unfinished experiment's
/// with `*`, an undefined one `n/a`, a missing one `-`). The summary's compact form of the
/// bar plot: [`SUMMARY_FIGURE_POINTS`] wide, legible for 1 to 16 agents.
pub fn score_grid_svg(chart: &BarChart) -> Result<String, Error> {
    let width = units(SUMMARY_FIGURE_POINTS);
    let text = grid_text(chart.agents.len());
    let margin = units(2.0);
    let experiments: Vec<&str> = in_plot_order()
        .map(|e| e.name)
        .filter(|name| chart.experiments.contains(name))
        .collect();
    let left = grid_left(text);
    // Each row's offset: its row and the gaps between types above it.
    let type_gap = units(1.5);
    let mut row_top = Vec::with_capacity(experiments.len());
    let mut previous = None;
    let mut gaps = 0.0;
    for name in &experiments {
        let kind = in_plot_order().find(|e| e.name == *name).map(|e| e.kind());
        if previous.is_some() && kind != previous {
            gaps += type_gap;
        }
        previous = kind;
        row_top.push(gaps);
    }
    let cell_w = grid_cell_width(chart.agents.len());
    let cell_h = 1.2 * text;
    let header = GridHeader::of(&chart.agents);
    let line_h = 1.15 * text;
    let header_h = match &header {
        GridHeader::Upright(names) => {
            line_h * names.iter().map(Vec::len).max().unwrap_or(1) as f64 + units(1.5)
        }
        GridHeader::Turned => {
            (chart.agents.iter())
                .map(|a| text_width(a, text))
                .fold(0.0, f64::max)
                + units(2.0)
        }
        // Two lines, alternate numbers on each, so that two digits have two columns' room.
        GridHeader::Numbered => 2.0 * line_h + units(1.5),
    };
    let top = margin + header_h;
    let body_h = cell_h * experiments.len() as f64 + gaps;
    let scale_h = text_height(text) * 2.0 + units(4.0);
    let height = top + body_h + units(3.0) + scale_h + margin;
    let written = |v: f64| format!("{v:.2}");
    let shows_values = text_width("0.00*", text) <= cell_w - units(0.8);

    let mut out = String::new();
    {
        let canvas = Canvas::new(&mut out, (width.ceil() as u32, height.ceil() as u32))?;
        for (k, agent) in chart.agents.iter().enumerate() {
            let x = left + (k as f64 + 0.5) * cell_w;
            canvas.begin_agent(agent)?;
            match &header {
                GridHeader::Upright(names) => {
                    let lines = &names[k];
                    for (i, line) in lines.iter().enumerate() {
                        let from_bottom = (lines.len() - 1 - i) as f64;
                        let y = top - units(1.0) - line_h * (from_bottom + 0.5);
                        canvas.text(line, (x, y), text, BLACK, Align::Middle, false)?;
                    }
                }
                GridHeader::Turned => canvas.text(
                    agent,
                    (x, top - units(1.0)),
                    text,
                    BLACK,
                    Align::Start,
                    true,
                )?,
                GridHeader::Numbered => {
                    let y = top - units(1.0) - line_h * (0.5 + (k % 2) as f64);
                    canvas.text(
                        &(k + 1).to_string(),
                        (x, y),
                        text,
                        BLACK,
                        Align::Middle,
                        false,
                    )?
                }
            }
            canvas.end_agent()?;
        }
        for (row, name) in experiments.iter().enumerate() {
            let y0 = top + row as f64 * cell_h + row_top[row];
            let mid = y0 + cell_h / 2.0;
            canvas.text(
                name,
                (left - units(1.5), mid),
                text,
                BLACK,
                Align::End,
                false,
            )?;
            for (k, agent) in chart.agents.iter().enumerate() {
                let bar = chart
                    .bars
                    .iter()
                    .find(|b| b.agent == k && b.experiment == *name);
                let x0 = left + k as f64 * cell_w;
                let cell = Rect {
                    x0,
                    y0,
                    x1: x0 + cell_w,
                    y1: y0 + cell_h,
                };
                canvas.begin_agent(agent)?;
                let (fill, label) = match bar {
                    None => (Colour::hex(0xf2f2f2), "-".to_string()),
                    Some(b) => match b.score {
                        None => (Colour::hex(0xd9d9d9), "n/a".to_string()),
                        Some(v) if b.finished => (sequential(v), written(v)),
                        Some(v) => (sequential(v), format!("{}*", written(v))),
                    },
                };
                canvas.rect(
                    cell,
                    Some((fill, 1.0)),
                    Some(Stroke::solid(Colour::hex(0xffffff), units(0.3))),
                )?;
                if shows_values || bar.map_or(true, |b| b.score.is_none()) {
                    let ink = if fill.is_light() {
                        BLACK
                    } else {
                        Colour::hex(0xffffff)
                    };
                    if text_width(&label, text) <= cell_w - units(0.5) {
                        canvas.text(
                            &label,
                            ((cell.x0 + cell.x1) / 2.0, mid),
                            text,
                            ink,
                            Align::Middle,
                            false,
                        )?;
                    }
                }
                canvas.end_agent()?;
            }
        }
        // The colour scale: 0 to 1 under the cells.
        let scale_top = top + body_h + units(3.0);
        let bar_h = text_height(text);
        let (x0, x1) = (left, width - margin);
        let steps = 50;
        for i in 0..steps {
            let t0 = i as f64 / steps as f64;
            let t1 = (i + 1) as f64 / steps as f64;
            canvas.rect(
                Rect {
                    x0: x0 + t0 * (x1 - x0),
                    y0: scale_top,
                    // Overlapping by a unit: whole-unit edges would leave hairline gaps.
                    x1: x0 + t1 * (x1 - x0) + 1.0,
                    y1: scale_top + bar_h,
                },
                Some((sequential((t0 + t1) / 2.0), 1.0)),
                None,
            )?;
        }
        let ticks_y = scale_top + bar_h + text_height(text) / 2.0 + units(0.5);
        for (t, label) in [(0.0, "0"), (0.5, "0.5"), (1.0, "1")] {
            let align = match label {
                "0" => Align::Start,
                "1" => Align::End,
                _ => Align::Middle,
            };
            canvas.text(
                label,
                (x0 + t * (x1 - x0), ticks_y),
                text,
                DARK_GREY,
                align,
                false,
            )?;
        }
        canvas.text(
            "score",
            (x0 - units(1.5), scale_top + bar_h / 2.0),
            text,
            BLACK,
            Align::End,
            false,
        )?;
        canvas.finish()?;
    }
    Ok(finished_svg(&out))
}

/// The grid's text size: many agents' grids are tall, and a smaller (still legible) size
/// keeps them within the summary page.
fn grid_text(agents: usize) -> f64 {
    units(if agents > 8 { 6.2 } else { GRID_TEXT_SIZE })
}

/// Where the grid's cells start: after the longest experiment name.
fn grid_left(text: f64) -> f64 {
    let widest = in_plot_order()
        .map(|e| text_width(e.name, text))
        .fold(0.0, f64::max);
    units(2.0) + widest + units(1.5)
}

/// The width of one agent's column of the grid.
fn grid_cell_width(agents: usize) -> f64 {
    let width = units(SUMMARY_FIGURE_POINTS);
    ((width - units(2.0) - grid_left(grid_text(agents))) / agents.max(1) as f64).min(units(40.0))
}

/// How the grid names its columns.
enum GridHeader {
    /// Upright, each name in lines broken after underscores to fit its column.
    Upright(Vec<Vec<String>>),
    /// Turned up the column, for a few agents with long names.
    Turned,
    /// By number, for many agents whose names fit no other way within the page: the radar's
    /// legend gives each agent's number.
    Numbered,
}

impl GridHeader {
    fn of(agents: &[String]) -> GridHeader {
        let text = grid_text(agents.len());
        let cell_w = grid_cell_width(agents.len());
        let fits = |line: &str| text_width(line, text) <= cell_w - units(1.0);
        let broken: Option<Vec<Vec<String>>> = agents
            .iter()
            .map(|a| break_at_underscores(a, &fits))
            .collect();
        match broken {
            Some(names) => GridHeader::Upright(names),
            None if agents.len() > 8 => GridHeader::Numbered,
            None => GridHeader::Turned,
        }
    }
}

/// Whether the score grid of `agents` names its columns by number (then the radar's legend
/// numbers the agents).
pub fn grid_numbers_agents(agents: &[String]) -> bool {
    matches!(GridHeader::of(agents), GridHeader::Numbered)
}

/// `name` in lines that each `fit`, broken after underscores (`actor_`, `critic_rnn`);
/// `None` where some piece does not fit however it is broken.
fn break_at_underscores(name: &str, fits: &dyn Fn(&str) -> bool) -> Option<Vec<String>> {
    let mut lines: Vec<String> = Vec::new();
    for piece in name.split_inclusive('_') {
        match lines.last_mut() {
            Some(line) if fits(&format!("{line}{piece}")) => line.push_str(piece),
            _ => lines.push(piece.to_string()),
        }
    }
    lines.iter().all(|l| fits(l)).then_some(lines)
}

fn type_legend() -> Legend {
    Legend {
        title: "type".into(),
        entries: ORDERED_TYPES
            .iter()
            .map(|tag| {
                let colour = Colour::parse(plot::type_colour(*tag));
                (tag.as_str().replace('_', " "), Key::Fill(colour))
            })
            .collect(),
    }
}

fn finished_legend() -> Legend {
    Legend {
        title: "finished".into(),
        entries: vec![
            ("yes".into(), Key::Fill(DARK_GREY)),
            ("no (faded)".into(), Key::Fill(Colour::hex(0xc2c2c2))),
        ],
    }
}

fn score_axis(breaks: &[f64]) -> DrawingAxis {
    DrawingAxis::new("score").limits(0.0, 1.0).breaks(breaks)
}

fn reference_line() -> Layer {
    Layer::HLine {
        y: 1.0,
        stroke: Stroke::reference(BLACK),
    }
}

/// The bar plot of every experiment's score: experiments on x in the reference's order, bars
/// coloured by type, a dashed line at 1, unfinished experiments faded; one facet per agent,
/// two facets a row at the text width.
pub fn bar_drawing(chart: &BarChart) -> Drawing {
    let several = chart.agents.len() > 1;
    let facets: Vec<Facet> = chart
        .agents
        .iter()
        .enumerate()
        .map(|(k, name)| {
            let bars = chart
                .bars
                .iter()
                .filter(|b| b.agent == k)
                .filter_map(|b| {
                    Some(BarMark {
                        centre: in_plot_order().position(|e| e.name == b.experiment)? as f64,
                        width: 0.8,
                        value: b.score?,
                        fill: Colour::parse(b.type_colour),
                        opacity: b.alpha,
                    })
                })
                .collect();
            Facet {
                title: several.then(|| format!("agent: {name}")),
                agent: Some(name.clone()),
                layers: vec![Layer::Bars(bars), reference_line()],
            }
        })
        .collect();
    let mut legends = vec![type_legend()];
    if chart.any_unfinished {
        legends.push(finished_legend());
    }
    let mut x = DrawingAxis::new("").categories(in_plot_order().map(|e| e.name));
    x.vertical_labels = true;
    // 23 labels turned up need a panel some 190 points wide: two a row at most.
    let columns = if facets.len() > 1 { 2 } else { 1 };
    let rows = facets.len().max(1).div_ceil(columns);
    let row = if rows > 4 { 62.0 } else { 80.0 };
    let height = (row * rows as f64 + 95.0).min(crate::style::MAX_FIGURE_HEIGHT_POINTS);
    Drawing {
        title: None,
        size: (
            units(TEXT_WIDTH_POINTS).round() as u32,
            units(height).round() as u32,
        ),
        x,
        y: score_axis(&[0.0, 0.5, 1.0]),
        facets,
        columns,
        legends,
    }
}

/// A bar plot of [`bar_drawing`] or [`compare_drawing`] with whiskers: `intervals[k]`,
/// where present, gives agent `k`'s interval (experiment, low, high) per experiment (an
/// agent run over several seeds). `per_agent` says which of the two the drawing is: one
/// facet per agent ([`bar_drawing`]) or one per experiment ([`compare_drawing`]).
pub fn add_whiskers(
    drawing: &mut Drawing,
    intervals: &[Option<Vec<ExperimentInterval>>],
    per_agent: bool,
) {
    for (k, agent) in intervals.iter().enumerate() {
        let Some(agent) = agent else { continue };
        for &(experiment, lo, hi) in agent {
            let Some(position) = in_plot_order().position(|e| e.name == experiment) else {
                continue;
            };
            let (facet, x) = if per_agent {
                (k, position as f64)
            } else {
                (position, k as f64)
            };
            if let Some(facet) = drawing.facets.get_mut(facet) {
                facet.layers.extend(crate::figure_drawing::whisker_layers(
                    [(x, lo, hi)],
                    BLACK,
                    1.0,
                    0.2,
                ));
            }
        }
    }
}

/// An experiment's score interval: (experiment, low, high).
pub type ExperimentInterval = (&'static str, f64, f64);

/// One agent's line of a performance profile.
#[derive(Debug, Clone)]
pub struct ProfileLine {
    /// The agent's name, in the legend.
    pub agent: String,
    /// Its index among the report's agents, which gives its style.
    pub index: usize,
    /// `(threshold, fraction, low, high)`, thresholds increasing.
    pub points: Vec<(f64, f64, f64, f64)>,
}

/// The performance profile in rliable's form: for each score threshold τ in [0, 1], the
/// fraction of an agent's runs (seed and experiment) scoring above τ, one line per agent
/// in its style (markers every tenth of the thresholds) with its bootstrap interval as a
/// band.
pub fn profile_drawing(profiles: &[ProfileLine]) -> Drawing {
    let mut facet_layers = Vec::new();
    let mut entries = Vec::new();
    for line in profiles {
        let style = agent_style(line.index);
        facet_layers.push(Layer::Ribbon {
            points: line
                .points
                .iter()
                .map(|&(x, _, lo, hi)| (x, lo, hi))
                .collect(),
            fill: style.colour,
            opacity: 0.15,
        });
        facet_layers.push(Layer::Line {
            points: line.points.iter().map(|&(x, y, _, _)| (x, y)).collect(),
            stroke: agent_stroke(style, 0.9),
        });
        let every = (line.points.len() / 10).max(1);
        facet_layers.push(Layer::Points {
            points: (line.points.iter().step_by(every))
                .map(|&(x, y, _, _)| (x, y))
                .collect(),
            colour: style.colour,
            radius: units(1.5),
            opacity: 1.0,
            marker: agent_marker(style),
        });
        entries.push((line.agent.clone(), agent_key(line.index)));
    }
    let breaks = [0.0, 0.25, 0.5, 0.75, 1.0];
    let rows = entries.len();
    let height = (170.0_f64).max(11.0 * rows as f64 / 2.0 + 40.0);
    Drawing {
        title: None,
        size: (
            units(TEXT_WIDTH_POINTS * 0.8).round() as u32,
            units(height).round() as u32,
        ),
        x: DrawingAxis::new("score threshold τ")
            .limits(0.0, 1.0)
            .breaks(&breaks),
        y: DrawingAxis::new("fraction of runs with score > τ")
            .limits(0.0, 1.0)
            .breaks(&breaks),
        facets: vec![Facet {
            title: None,
            agent: None,
            layers: facet_layers,
        }],
        columns: 1,
        legends: vec![Legend {
            title: "agent".into(),
            entries,
        }],
    }
}

/// The comparison bar plot: one facet per experiment, one bar per agent in the agent's
/// colour with its marker on top, four facets a row; the agents are named in the legend
/// (names under every bar would not fit 16 agents).
pub fn compare_drawing(chart: &BarChart) -> Drawing {
    let facets: Vec<Facet> = in_plot_order()
        .map(|e| e.name)
        .filter(|name| chart.experiments.contains(name))
        .map(|name| {
            let present: Vec<_> = chart.bars.iter().filter(|b| b.experiment == name).collect();
            let bars = present
                .iter()
                .filter_map(|b| {
                    Some(BarMark {
                        centre: b.agent as f64,
                        width: 0.8,
                        value: b.score?,
                        fill: agent_style(b.agent).colour,
                        opacity: b.alpha,
                    })
                })
                .collect();
            let mut layers = vec![Layer::Bars(bars), reference_line()];
            for b in &present {
                let Some(value) = b.score else { continue };
                let style = agent_style(b.agent);
                layers.push(Layer::Points {
                    points: vec![(b.agent as f64, value)],
                    colour: style.colour,
                    radius: units(1.4),
                    opacity: 1.0,
                    marker: agent_marker(style),
                });
            }
            Facet {
                title: Some(name.to_string()),
                agent: None,
                layers,
            }
        })
        .collect();
    let (columns, rows) = facet_grid(facets.len().max(10));
    let mut x = DrawingAxis::new("").categories(chart.agents.iter().map(|_| ""));
    x.label = String::new();
    let entries: Vec<(String, Key)> = (chart.agents.iter().enumerate())
        .map(|(k, name)| {
            let style = agent_style(k);
            (name.clone(), Key::Point(style.colour, agent_marker(style)))
        })
        .collect();
    let mut legends = vec![Legend {
        title: "agent".into(),
        entries,
    }];
    if chart.any_unfinished {
        legends.push(finished_legend());
    }
    let height = (66.0 * rows as f64 + 30.0).min(crate::style::MAX_FIGURE_HEIGHT_POINTS);
    Drawing {
        title: None,
        size: (
            units(TEXT_WIDTH_POINTS).round() as u32,
            units(height).round() as u32,
        ),
        x,
        y: score_axis(&[0.0, 0.5, 1.0]),
        facets,
        columns,
        legends,
    }
}

/// The smallest text, in points as printed at natural size, of an SVG this crate drew (its
/// `font-size` attributes in canvas units, over the root's `viewBox` scale); `None` for an
/// SVG without text.
pub fn min_text_points(svg: &str) -> Option<f64> {
    let scale = view_box_scale(svg).unwrap_or(1.0);
    let mut smallest: Option<f64> = None;
    let mut rest = svg;
    while let Some(at) = rest.find("font-size=\"") {
        rest = &rest[at + "font-size=\"".len()..];
        let Some(end) = rest.find('"') else { break };
        if let Ok(size) = rest[..end].trim_end_matches("px").parse::<f64>() {
            // Delimiters of agents' groups are size-1 texts that finish() removed; a
            // remaining tiny size is real text.
            let points = size * scale;
            smallest = Some(smallest.map_or(points, |s: f64| s.min(points)));
        }
        rest = &rest[end..];
    }
    smallest
}

/// Printed points per canvas unit of an SVG: its `width` over its `viewBox` width.
fn view_box_scale(svg: &str) -> Option<f64> {
    let head = &svg[..svg.find('>')?];
    let width: f64 = {
        let at = head.find(" width=\"")? + " width=\"".len();
        head[at..at + head[at..].find('"')?].parse().ok()?
    };
    let at = head.find("viewBox=\"")? + "viewBox=\"".len();
    let view: Vec<f64> = head[at..at + head[at..].find('"')?]
        .split_whitespace()
        .filter_map(|v| v.parse().ok())
        .collect();
    (view.len() == 4 && view[2] > 0.0).then(|| width / view[2])
}

#[cfg(test)]
mod tests {
    use super::*;
    use bsuite_analysis::{figures, AgentResults};

    fn bars() -> BarChart {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/random_results");
        let agent = AgentResults::load("random", &dir).unwrap();
        let other = AgentResults::load("other", &dir).unwrap();
        figures::bar_chart(&bsuite_analysis::compare(&[agent, other]))
    }

    fn lines(facet: &Facet) -> Vec<&Vec<(f64, f64)>> {
        (facet.layers.iter())
            .filter_map(|l| match l {
                Layer::Line { points, .. } => Some(points),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn whiskers_go_on_the_bars_of_agents_with_intervals_only() {
        let chart = bars();
        let intervals = vec![None, Some(vec![("catch", 0.2, 0.4)])];
        let mut per_agent = bar_drawing(&chart);
        let before = per_agent.clone();
        add_whiskers(&mut per_agent, &intervals, true);
        assert_eq!(per_agent.facets[0], before.facets[0]);
        let catch = in_plot_order().position(|e| e.name == "catch").unwrap() as f64;
        // The whisker and its two caps, at catch's bar in the second agent's facet.
        let added = lines(&per_agent.facets[1]);
        assert_eq!(added.len(), 3);
        assert_eq!(*added[0], vec![(catch, 0.2), (catch, 0.4)]);
        assert_eq!(*added[1], vec![(catch - 0.2, 0.2), (catch + 0.2, 0.2)]);

        let mut side_by_side = compare_drawing(&chart);
        add_whiskers(&mut side_by_side, &intervals, false);
        let facet = &side_by_side.facets[catch as usize];
        assert_eq!(facet.title.as_deref(), Some("catch"));
        assert_eq!(*lines(facet)[0], vec![(1.0, 0.2), (1.0, 0.4)]);
    }

    #[test]
    fn the_profile_has_a_band_a_line_and_markers_per_agent() {
        let line = |agent: &str, index: usize| ProfileLine {
            agent: agent.into(),
            index,
            points: vec![(0.0, 1.0, 0.9, 1.0), (1.0, 0.0, 0.0, 0.1)],
        };
        let drawing = profile_drawing(&[line("a", 0), line("b", 1)]);
        let layers = &drawing.facets[0].layers;
        assert_eq!(layers.len(), 6);
        assert!(matches!(&layers[0], Layer::Ribbon { points, .. } if points[1] == (1.0, 0.0, 0.1)));
        assert!(matches!(&layers[1], Layer::Line { points, .. } if points[0] == (0.0, 1.0)));
        assert_eq!(drawing.legends[0].entries.len(), 2);
    }

    #[test]
    fn the_summary_figures_print_legibly_for_one_to_sixteen_agents() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/random_results");
        for n in [1, 4, 12, 16] {
            let agents: Vec<AgentResults> = (0..n)
                .map(|k| AgentResults::load(format!("agent_{k}_long_name"), &dir).unwrap())
                .collect();
            let summaries = bsuite_analysis::compare(&agents);
            let radar = radar_svg(&figures::radar_chart(&summaries)).unwrap();
            let grid = score_grid_svg(&figures::bar_chart(&summaries)).unwrap();
            for (name, svg) in [("radar", &radar), ("grid", &grid)] {
                let points = min_text_points(svg).unwrap();
                let least = crate::style::MIN_TEXT_POINTS;
                assert!(points >= least, "{n} agents, {name}: {points} pt");
                // Drawn at UNITS_PER_POINT units a point, printed SUMMARY_FIGURE_POINTS wide.
                let scale = view_box_scale(svg).unwrap();
                assert!(
                    (scale - 1.0 / crate::style::UNITS_PER_POINT).abs() < 1e-3,
                    "{scale}"
                );
                assert!(svg.starts_with(&format!(
                    "<svg width=\"{}\"",
                    (units(SUMMARY_FIGURE_POINTS).ceil()) / crate::style::UNITS_PER_POINT
                )));
            }
            // Every agent's cells and polygon are grouped, for the page's toggles (a lone
            // agent's polygon, which the radar leaves unnamed as bsuite's does, is not).
            for k in 0..n {
                let group = format!("<g data-agent=\"agent_{k}_long_name\">");
                assert!(grid.contains(&group), "{group}");
                assert!(radar.contains(&group) || n == 1, "{group}");
            }
        }
    }
}
