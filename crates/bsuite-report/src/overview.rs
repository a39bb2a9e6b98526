//! The summary figures: the radar "snapshot" over the seven tags, the bar plot of every
//! experiment's score (one facet per agent) and, for several agents, the comparison bar plot
//! (one facet per experiment).

use std::f64::consts::PI;

use bsuite_analysis::experiments::in_plot_order;
use bsuite_analysis::plot::{self, BarChart, RadarChart, ORDERED_TYPES};

use crate::canvas::{paint_opacity, text_height, text_width, Align, Canvas, Rect};
use crate::drawing::{BarMark, Drawing, DrawingAxis, Facet, Key, Layer, Legend, Stroke};
use crate::render::{draw_legends, legends_width};
use crate::style::{Colour, BLACK, DARK_GREY};
use crate::Error;

const RADAR_LABEL_SIZE: f64 = 21.0;
const RADAR_TICK_SIZE: f64 = 15.0;
const RADAR_RADIUS: f64 = 230.0;
/// Fill opacity of an agent's band on the radar.
const RADAR_BAND_OPACITY: f64 = 0.3;

/// Draws the radar plot: one closed polygon per agent over the seven tags, at the radii the
/// analysis computed (missing tags at the centre, every radius at least 0.05).
pub fn radar_svg(chart: &RadarChart) -> Result<String, Error> {
    radar_svg_with_bands(chart, &[])
}

/// [`radar_svg`] with a band around the polygon of each agent that has one: `bands[k]`,
/// where present, gives agent `k`'s interval (low, high) per tag, in the chart's order (an
/// agent run over several seeds: its tag scores' bootstrap intervals). Agents without a
/// band are drawn as [`radar_svg`] draws them.
pub fn radar_svg_with_bands(
    chart: &RadarChart,
    bands: &[Option<Vec<(f64, f64)>>],
) -> Result<String, Error> {
    let radius = RADAR_RADIUS;
    let pad = 14.0;
    let direction = |k: usize| {
        let a = chart.angles[k];
        (a.cos(), a.sin())
    };
    // Room for the labels: left-aligned ones right of the centre, right-aligned ones left of
    // it (the reference aligns labels between 90 and 270 degrees to the right).
    let mut left_room: f64 = radius;
    let mut right_room: f64 = radius;
    for (k, label) in chart.labels.iter().enumerate() {
        let reach = (radius + pad) * direction(k).0;
        let width = text_width(label, RADAR_LABEL_SIZE);
        if right_aligned(chart.angles[k]) {
            left_room = left_room.max(-reach + width);
        } else {
            right_room = right_room.max(reach + width);
        }
    }
    // As in the reference, a single agent gets no legend (the analysis leaves it out).
    let legends: Vec<Legend> = match &chart.legend {
        Some(title) if !chart.agents.is_empty() => vec![Legend {
            title: title.clone(),
            entries: chart
                .agents
                .iter()
                .map(|a| {
                    let colour = Colour::parse(a.colour);
                    (a.label.clone(), Key::Line(Stroke::solid(colour, 5.0)))
                })
                .collect(),
        }],
        _ => Vec::new(),
    };
    let margin = 24.0;
    let cx = margin + left_room;
    let plot_right = cx + right_room + margin;
    let width = plot_right + legends_width(&legends);
    let height = 2.0 * (radius + pad + text_height(RADAR_LABEL_SIZE)) + 2.0 * margin;
    let cy = height / 2.0;
    let point = |k: usize, r: f64| {
        let (c, s) = direction(k);
        (cx + r * radius * c, cy - r * radius * s)
    };
    let everywhere = Rect {
        x0: f64::NEG_INFINITY,
        y0: f64::NEG_INFINITY,
        x1: f64::INFINITY,
        y1: f64::INFINITY,
    };

    let mut out = String::new();
    {
        let canvas = Canvas::new(&mut out, (width.ceil() as u32, height.ceil() as u32))?;
        for (r, opacity) in [(1.0, 0.01), (0.75, 0.03), (0.5, 0.05), (0.25, 0.05)] {
            canvas.disc((cx, cy), r * radius, BLACK, opacity, everywhere)?;
        }
        for (k, agent) in chart.agents.iter().enumerate() {
            let colour = Colour::parse(agent.colour);
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
                    canvas.polygon(&ring, colour, RADAR_BAND_OPACITY, everywhere)?;
                }
            }
            let mut polygon: Vec<(f64, f64)> = agent
                .radii
                .iter()
                .enumerate()
                .map(|(k, r)| point(k, r.clamp(0.0, 1.0)))
                .collect();
            if polygon.is_empty() {
                continue;
            }
            canvas.polygon(&polygon, colour, 0.2, everywhere)?;
            polygon.push(polygon[0]);
            canvas.raw_polyline(&polygon, Stroke::solid(colour, 5.0).opacity(0.85))?;
        }
        // The grid goes above the data, as in the reference.
        let grid = Stroke {
            colour: Colour::hex(0x808080),
            width: 2.0,
            opacity: 0.95,
            dashed: true,
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
        for k in 0..chart.angles.len() {
            canvas.raw_polyline(&[(cx, cy), point(k, 1.0)], grid)?;
        }
        for (r, label) in [(0.25, ".25"), (0.5, ".5"), (0.75, ".75"), (1.0, "1")] {
            canvas.text_with_opacity(
                label,
                (cx + r * radius + 3.0, cy - 10.0),
                RADAR_TICK_SIZE,
                BLACK,
                0.75,
                Align::Start,
                false,
            )?;
        }
        for (k, label) in chart.labels.iter().enumerate() {
            let (x, y) = point(k, (radius + pad) / radius);
            let align = if right_aligned(chart.angles[k]) {
                Align::End
            } else {
                Align::Start
            };
            // Labels near the top and bottom move away from the circle vertically.
            let dy = -direction(k).1 * text_height(RADAR_LABEL_SIZE) * 0.4;
            canvas.text(label, (x, y + dy), RADAR_LABEL_SIZE, BLACK, align, false)?;
        }
        if !legends.is_empty() {
            draw_legends(&canvas, &legends, plot_right + 10.0, cy)?;
        }
        canvas.finish()?;
    }
    Ok(paint_opacity(&out))
}

fn right_aligned(angle: f64) -> bool {
    let degrees = angle.to_degrees();
    (90.0 - 1e-9..=270.0 + 1e-9).contains(&degrees)
}

fn type_legend() -> Legend {
    Legend {
        title: "type".into(),
        entries: ORDERED_TYPES
            .iter()
            .map(|tag| {
                let colour = Colour::parse(plot::type_colour(*tag));
                (tag.as_str().to_string(), Key::Fill(colour))
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
/// coloured by type, a dashed line at 1, unfinished experiments faded; one facet per agent.
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
    let rows = facets.len().max(1) as u32;
    Drawing {
        title: None,
        size: (820, 210 * rows + 210),
        x,
        y: score_axis(&[0.0, 0.25, 0.5, 0.75, 1.0]),
        facets,
        columns: 1,
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
    /// Its colour (`#rrggbb`).
    pub colour: &'static str,
    /// `(threshold, fraction, low, high)`, thresholds increasing.
    pub points: Vec<(f64, f64, f64, f64)>,
}

/// The performance profile in rliable's form: for each score threshold τ in [0, 1], the
/// fraction of an agent's runs (seed and experiment) scoring above τ, one line per agent
/// with its bootstrap interval as a band.
pub fn profile_drawing(profiles: &[ProfileLine]) -> Drawing {
    let mut layers = Vec::new();
    let mut entries = Vec::new();
    for ProfileLine {
        agent: name,
        colour,
        points,
    } in profiles
    {
        let colour = Colour::parse(colour);
        layers.push(Layer::Ribbon {
            points: points.iter().map(|&(x, _, lo, hi)| (x, lo, hi)).collect(),
            fill: colour,
            opacity: 0.25,
        });
        layers.push(Layer::Line {
            points: points.iter().map(|&(x, y, _, _)| (x, y)).collect(),
            stroke: Stroke::solid(colour, 3.0),
        });
        entries.push((name.clone(), Key::Line(Stroke::solid(colour, 3.0))));
    }
    let breaks = [0.0, 0.25, 0.5, 0.75, 1.0];
    Drawing {
        title: None,
        size: (820, 560),
        x: DrawingAxis::new("score threshold")
            .limits(0.0, 1.0)
            .breaks(&breaks),
        y: DrawingAxis::new("fraction of runs with score > threshold")
            .limits(0.0, 1.0)
            .breaks(&breaks),
        facets: vec![Facet {
            title: None,
            layers,
        }],
        columns: 1,
        legends: vec![Legend {
            title: "agent".into(),
            entries,
        }],
    }
}

/// The comparison bar plot: one facet per experiment, one bar per agent.
pub fn compare_drawing(chart: &BarChart) -> Drawing {
    let facets: Vec<Facet> = in_plot_order()
        .map(|e| e.name)
        .map(|name| {
            let bars = chart
                .bars
                .iter()
                .filter(|b| b.experiment == name)
                .filter_map(|b| {
                    Some(BarMark {
                        centre: b.agent as f64,
                        width: 0.8,
                        value: b.score?,
                        fill: Colour::parse(b.agent_colour),
                        opacity: b.alpha,
                    })
                })
                .collect();
            Facet {
                title: Some((*name).to_string()),
                layers: vec![Layer::Bars(bars), reference_line()],
            }
        })
        .collect();
    let columns = 5;
    let rows = facets.len().div_ceil(columns) as u32;
    let mut x = DrawingAxis::new("agent").categories(chart.agents.iter().cloned());
    x.vertical_labels = true;
    let agent_legend = Legend {
        title: "agent".into(),
        entries: chart
            .agents
            .iter()
            .enumerate()
            .map(|(k, name)| {
                let colour = chart
                    .bars
                    .iter()
                    .find(|b| b.agent == k)
                    .map_or(BLACK, |b| Colour::parse(b.agent_colour));
                (name.clone(), Key::Fill(colour))
            })
            .collect(),
    };
    let mut legends = vec![agent_legend];
    if chart.any_unfinished {
        legends.push(finished_legend());
    }
    Drawing {
        title: None,
        size: (1400, 230 * rows + 160),
        x,
        y: score_axis(&[0.0, 0.5, 1.0]),
        facets,
        columns,
        legends,
    }
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
    fn the_profile_has_a_band_and_a_line_per_agent() {
        let line = |agent: &str| ProfileLine {
            agent: agent.into(),
            colour: "#313695",
            points: vec![(0.0, 1.0, 0.9, 1.0), (1.0, 0.0, 0.0, 0.1)],
        };
        let drawing = profile_drawing(&[line("a"), line("b")]);
        let layers = &drawing.facets[0].layers;
        assert_eq!(layers.len(), 4);
        assert!(matches!(&layers[0], Layer::Ribbon { points, .. } if points[1] == (1.0, 0.0, 0.1)));
        assert!(matches!(&layers[1], Layer::Line { points, .. } if points[0] == (0.0, 1.0)));
        assert_eq!(drawing.legends[0].entries.len(), 2);
    }
}
