//! Turns the analysis crate's plot data into drawable [`Drawing`]s.
//!
//! The analysis crate states what the reference notebook shows (series, marks, reference
//! lines, ggplot sizes in its units); this module maps those onto the printed page: one facet
//! per agent, wrapped to the text width in a grid that shares both axes and one legend,
//! ggplot line and point sizes as printed widths and radii, legends from the series labels.

use bsuite_analysis::plot::{self, AxisScale, Mark, Shape};

use crate::drawing::{
    BarMark, Drawing, DrawingAxis, Facet, Key, Layer, Legend, Marker, Scale, Stroke,
};
use crate::style::{units, Colour, Dash, MAX_FIGURE_HEIGHT_POINTS, TEXT_WIDTH_POINTS};

/// A ggplot line `size` as a printed stroke width, in canvas units.
fn line_width(size: f64) -> f64 {
    units((size * 0.5).clamp(0.4, 1.5))
}

/// A ggplot point `size` as a printed marker radius, in canvas units.
fn point_radius(size: f64) -> f64 {
    units((size * 0.4).clamp(0.8, 2.2))
}

fn marker(shape: Shape) -> Marker {
    match shape {
        Shape::Circle => Marker::DISC,
        Shape::Cross => Marker::CROSS,
    }
}

fn dash(dashed: bool) -> Dash {
    if dashed {
        Dash::Dashed
    } else {
        Dash::Solid
    }
}

fn axis(source: &plot::Axis) -> DrawingAxis {
    DrawingAxis {
        label: source.label.clone(),
        scale: match source.scale {
            AxisScale::Linear => Scale::Linear,
            AxisScale::Log10 => Scale::Log10,
        },
        limits: source.limits,
        breaks: source.breaks.clone(),
        categories: source.categories.clone().unwrap_or_default(),
        vertical_labels: false,
        include: source.include.clone(),
    }
}

fn bar_width(series: &plot::Series, categorical: bool) -> f64 {
    if categorical {
        return 0.8;
    }
    let mut xs: Vec<f64> = series.points.iter().map(|p| p.x).collect();
    xs.sort_by(f64::total_cmp);
    let gap = xs
        .windows(2)
        .map(|w| w[1] - w[0])
        .filter(|d| *d > 0.0)
        .fold(f64::INFINITY, f64::min);
    if gap.is_finite() {
        0.8 * gap
    } else {
        0.8
    }
}

fn layers(series: &plot::Series, categorical_x: bool) -> Vec<Layer> {
    let colour = Colour::parse(series.colour);
    let xy: Vec<(f64, f64)> = series.points.iter().map(|p| (p.x, p.y)).collect();
    match series.mark {
        Mark::Line {
            width,
            alpha,
            dashed,
        } => {
            // Only a series merged over seeds has bands on a line: the seeds' spread.
            let mut out = ribbon(series, colour, SEED_BAND_OPACITY * alpha);
            out.push(Layer::Line {
                points: xy,
                stroke: Stroke {
                    colour,
                    width: line_width(width),
                    opacity: alpha,
                    dash: dash(dashed),
                },
            });
            out
        }
        Mark::Smooth {
            width,
            ribbon_alpha,
        } => {
            let mut out = ribbon(series, colour, ribbon_alpha);
            out.push(Layer::Line {
                points: xy,
                stroke: Stroke::solid(colour, line_width(width)),
            });
            out
        }
        Mark::Points { size, alpha, shape } => {
            let mut out = whiskers(series, colour, alpha, 0.0);
            out.push(Layer::Points {
                points: xy,
                colour,
                radius: point_radius(size),
                opacity: alpha,
                marker: marker(shape),
            });
            out
        }
        Mark::Bars { alpha } => {
            let width = bar_width(series, categorical_x);
            let mut out = vec![Layer::Bars(
                series
                    .points
                    .iter()
                    .map(|p| BarMark {
                        centre: p.x,
                        width,
                        value: p.y,
                        fill: colour,
                        opacity: alpha,
                    })
                    .collect(),
            )];
            out.extend(whiskers(series, crate::style::BLACK, 1.0, width * 0.3));
            out
        }
    }
}

/// Columns and rows of `n` facets on a page: one to three a row, four past nine.
pub(crate) fn facet_grid(n: usize) -> (usize, usize) {
    let columns = match n {
        0 | 1 => 1,
        2 | 4 => 2,
        3 | 5..=9 => 3,
        _ => 4,
    };
    (columns, n.max(1).div_ceil(columns))
}

/// Opacity of the band of a line merged over seeds, times the line's.
const SEED_BAND_OPACITY: f64 = 0.25;

/// The ribbon of the points' bands, if they have any.
fn ribbon(series: &plot::Series, colour: Colour, opacity: f64) -> Vec<Layer> {
    let band: Vec<(f64, f64, f64)> = series
        .points
        .iter()
        .filter_map(|p| p.band.map(|(lo, hi)| (p.x, lo, hi)))
        .collect();
    if band.is_empty() {
        return Vec::new();
    }
    vec![Layer::Ribbon {
        points: band,
        fill: colour,
        opacity,
    }]
}

/// A vertical whisker through each point's band (points merged over seeds), capped
/// `cap` x units either side when `cap` is positive.
pub(crate) fn whisker_layers(
    bands: impl IntoIterator<Item = (f64, f64, f64)>,
    colour: Colour,
    opacity: f64,
    cap: f64,
) -> Vec<Layer> {
    let stroke = Stroke::solid(colour, units(0.5)).opacity(opacity);
    let mut out = Vec::new();
    for (x, lo, hi) in bands {
        out.push(Layer::Line {
            points: vec![(x, lo), (x, hi)],
            stroke,
        });
        if cap > 0.0 {
            for y in [lo, hi] {
                out.push(Layer::Line {
                    points: vec![(x - cap, y), (x + cap, y)],
                    stroke,
                });
            }
        }
    }
    out
}

fn whiskers(series: &plot::Series, colour: Colour, opacity: f64, cap: f64) -> Vec<Layer> {
    whisker_layers(
        series
            .points
            .iter()
            .filter_map(|p| p.band.map(|(lo, hi)| (p.x, lo, hi))),
        colour,
        opacity,
        cap,
    )
}

fn key(mark: Mark, colour: Colour) -> Key {
    match mark {
        Mark::Line { width, dashed, .. } => Key::Line(Stroke {
            colour,
            width: line_width(width),
            opacity: 1.0,
            dash: dash(dashed),
        }),
        Mark::Smooth { width, .. } => Key::Line(Stroke::solid(colour, line_width(width))),
        Mark::Points { shape, .. } => Key::Point(colour, marker(shape)),
        Mark::Bars { .. } => Key::Fill(colour),
    }
}

/// The drawable figure of one standard plot: one facet per agent, wrapped to the text width
/// (one to four columns) and sized for print, with a legend of the labelled series when the
/// plot has one.
pub fn drawing(source: &plot::Figure) -> Drawing {
    let categorical_x = source.x.categories.is_some();
    let facets: Vec<Facet> = source
        .panels
        .iter()
        .map(|panel| {
            let mut layers: Vec<Layer> = panel
                .series
                .iter()
                .flat_map(|s| layers(s, categorical_x))
                .collect();
            layers.extend(source.hlines.iter().map(|h| Layer::HLine {
                y: h.y,
                stroke: Stroke {
                    colour: Colour::parse(h.colour),
                    width: line_width(h.width),
                    opacity: h.alpha,
                    dash: dash(h.dashed),
                },
            }));
            Facet {
                title: Some(format!("agent: {}", panel.agent)),
                agent: Some(panel.agent.clone()),
                layers,
            }
        })
        .collect();

    let mut legends = Vec::new();
    if let Some(title) = &source.legend {
        let mut entries: Vec<(String, Key)> = Vec::new();
        for series in source.panels.iter().flat_map(|p| &p.series) {
            if series.label.is_empty() || entries.iter().any(|(l, _)| *l == series.label) {
                continue;
            }
            entries.push((
                series.label.clone(),
                key(series.mark, Colour::parse(series.colour)),
            ));
        }
        // The mean over seeds, where pooled points have one, ends the legend.
        let mean = entries
            .iter()
            .position(|(l, _)| l == crate::seeds::MEAN_LABEL)
            .map(|at| entries.remove(at));
        // Panels list only their own groups; merged, numeric groups go back in order.
        if entries.iter().all(|(l, _)| l.parse::<f64>().is_ok()) {
            entries.sort_by(|a, b| {
                let key = |l: &str| l.parse::<f64>().unwrap_or(f64::NAN);
                key(&a.0).total_cmp(&key(&b.0))
            });
        }
        entries.extend(mean);
        if !entries.is_empty() {
            legends.push(Legend {
                title: title.clone(),
                entries,
            });
        }
    }

    let n = facets.len().max(1);
    let (columns, rows) = facet_grid(n);
    let mut x = axis(&source.x);
    x.vertical_labels = categorical_x && x.categories.iter().map(|c| c.len()).sum::<usize>() > 40;
    let width = if columns == 1 {
        250.0
    } else {
        TEXT_WIDTH_POINTS
    };
    // A panel a row, and the axes' titles and ticks once; rows shrink to keep a tall grid
    // within a page.
    let vertical_labels = if x.vertical_labels { 40.0 } else { 0.0 };
    let row = if columns == 1 { 130.0 } else { 88.0 };
    let height = (row * rows as f64 + 34.0 + vertical_labels).min(MAX_FIGURE_HEIGHT_POINTS);
    Drawing {
        title: None,
        size: (units(width).round() as u32, units(height).round() as u32),
        x,
        y: axis(&source.y),
        facets,
        columns,
        legends,
    }
}
