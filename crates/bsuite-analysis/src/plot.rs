//! Plot data: the tables behind the reference notebook's standard figures, ready to draw.
//!
//! Nothing here draws. A [`Figure`] says what the reference notebook (`analysis/results.ipynb`)
//! shows for one experiment plot: axes, one [`Panel`] per agent (the notebook's facets), and in
//! each panel the [`Series`] to draw with their colour and mark. Suite-level summaries are a
//! [`RadarChart`] and a [`BarChart`]. Colours, orders and sizes are the reference's constants,
//! so a renderer only maps these values onto its canvas.
//!
//! All types serialise with serde, so the same data can be written as JSON next to a report.

use bsuite_envs::Tag;
use serde::Serialize;

/// The reference's five-colour palette (`plotting.FIVE_COLOURS`): dark blue, light blue,
/// green, orange, red. Grouped plots colour group `k` with `FIVE_COLOURS[k % 5]`.
pub const FIVE_COLOURS: [&str; 5] = ["#313695", "#74add1", "#4daf4a", "#f46d43", "#d73027"];

/// The reference's categorical palette (`plotting.CATEGORICAL_COLOURS`): the five colours,
/// then purple, pink, yellow and black. Agent `k` is drawn in `CATEGORICAL_COLOURS[k % 9]`.
pub const CATEGORICAL_COLOURS: [&str; 9] = [
    "#313695", "#74add1", "#4daf4a", "#f46d43", "#d73027", "#984ea3", "#f781bf", "#ffc832",
    "#000000",
];

/// Colour of a single, ungrouped learning curve.
pub const SINGLE_COLOUR: &str = "#313695";

/// Colour of points that miss a threshold (the reference's red).
pub const BAD_COLOUR: &str = "#d73027";

/// Colour of points that meet a threshold (the reference's blue).
pub const GOOD_COLOUR: &str = "#313695";

/// Experiment types in the bar chart's legend order (`_ORDERED_TYPES`); type `k` is coloured
/// `CATEGORICAL_COLOURS[k]` (see [`type_colour`]).
pub const ORDERED_TYPES: [Tag; 6] = [
    Tag::Basic,
    Tag::Noise,
    Tag::Scale,
    Tag::Exploration,
    Tag::CreditAssignment,
    Tag::Memory,
];

/// The radar chart's axes: all seven tags sorted by name, as the reference sorts them.
pub const RADAR_TAGS: [Tag; 7] = [
    Tag::Basic,
    Tag::CreditAssignment,
    Tag::Exploration,
    Tag::Generalization,
    Tag::Memory,
    Tag::Noise,
    Tag::Scale,
];

/// `Φ⁻¹(0.975)`: the half-width of the smoother's 95% ribbon in standard errors.
pub const RIBBON_Z: f64 = 1.959963984540054;

/// Bar colour of an experiment type: `CATEGORICAL_COLOURS` in [`ORDERED_TYPES`] order
/// (basic `#313695`, noise `#74add1`, scale `#4daf4a`, exploration `#f46d43`,
/// credit_assignment `#d73027`, memory `#984ea3`). Generalization is never a type.
pub fn type_colour(kind: Tag) -> &'static str {
    match ORDERED_TYPES.iter().position(|t| *t == kind) {
        Some(k) => CATEGORICAL_COLOURS[k],
        None => CATEGORICAL_COLOURS[ORDERED_TYPES.len()],
    }
}

/// A tag as the radar chart labels it: underscores become spaces, words are title-cased
/// ("Credit Assignment").
pub fn tag_label(tag: Tag) -> String {
    tag.as_str()
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(first) => first.to_uppercase().chain(c).collect::<String>(),
                None => String::new(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Which standard plot a [`Figure`] is (the reference's function name in the experiment's
/// `analysis.py`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FigureKind {
    /// `plot_learning`: average regret per episode against episodes, smoothed or raw.
    Learning,
    /// `plot_average`: bar per noise or reward scale of the average regret at the last episode.
    Average,
    /// `plot_scale`: a per-size or per-length summary point against a threshold.
    Scale,
    /// `plot_scaling`: deep_sea's episodes to solve against size, with the 2^N baseline.
    Scaling,
    /// `plot_scaling_log`: the same on log-log axes.
    ScalingLog,
    /// `plot_regret`: deep_sea's fraction of bad episodes through time, one line per size.
    Regret,
    /// `plot_seeds`: one line per run of the per-episode return between log points.
    Seeds,
}

/// One standard per-experiment plot.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Figure {
    /// Stable slug usable as a file name: `<experiment>_<kind>`, e.g. `deep_sea_scaling`.
    pub name: String,
    /// The experiment plotted.
    pub experiment: &'static str,
    /// Which standard plot this is.
    pub kind: FigureKind,
    /// A one-line title.
    pub title: String,
    /// The horizontal axis.
    pub x: Axis,
    /// The vertical axis.
    pub y: Axis,
    /// One panel per agent, in agent order (the reference's facets; one panel for one agent).
    pub panels: Vec<Panel>,
    /// Horizontal reference lines drawn in every panel.
    pub hlines: Vec<HLine>,
    /// Legend title, when the series carry legend labels; `None` hides the legend.
    pub legend: Option<String>,
    /// The reference's figure size in inches (width, height).
    pub size: (f64, f64),
    /// Why some or all of the data is missing (e.g. no run reached the episode the plot
    /// needs); `None` when the figure is complete.
    pub note: Option<String>,
}

/// Axis description.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Axis {
    /// Axis title.
    pub label: String,
    /// Linear or log10.
    pub scale: AxisScale,
    /// Fixed visible range (`coord_cartesian`); `None` fits the data.
    pub limits: Option<(f64, f64)>,
    /// Tick positions; `None` lets the renderer choose.
    pub breaks: Option<Vec<f64>>,
    /// For a categorical axis, the category names: category `k` sits at coordinate `k`.
    pub categories: Option<Vec<String>>,
    /// Values the fitted range must include (the reference's invisible "axis hack" lines
    /// at 0).
    pub include: Vec<f64>,
}

/// Axis scale.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AxisScale {
    /// Linear.
    Linear,
    /// Base-10 logarithmic.
    Log10,
}

/// The data of one agent in a figure.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Panel {
    /// The agent's name (the facet label).
    pub agent: String,
    /// What to draw, in drawing order.
    pub series: Vec<Series>,
}

/// One line, ribbon, set of points or set of bars.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Series {
    /// Legend entry (a group value such as `"0.1"`); empty when the series needs none.
    pub label: String,
    /// Hex colour `#rrggbb`.
    pub colour: &'static str,
    /// How to draw it.
    pub mark: Mark,
    /// The data, sorted by x for lines.
    pub points: Vec<PlotPoint>,
}

/// How a [`Series`] is drawn, with the reference's sizes and opacities.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum Mark {
    /// A polyline through the points.
    Line {
        /// Line width (ggplot `size`).
        width: f64,
        /// Opacity.
        alpha: f64,
        /// Dashed instead of solid.
        dashed: bool,
    },
    /// A smoothed line with a confidence ribbon from each point's `band`.
    Smooth {
        /// Line width.
        width: f64,
        /// Opacity of the ribbon (the line is opaque).
        ribbon_alpha: f64,
    },
    /// Markers.
    Points {
        /// Marker size.
        size: f64,
        /// Opacity.
        alpha: f64,
        /// Marker shape.
        shape: Shape,
    },
    /// Bars from 0 to y, centred on x (categorical x: 0, 1, 2, ...).
    Bars {
        /// Opacity.
        alpha: f64,
    },
}

/// Marker shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    /// Filled circle (finished runs).
    Circle,
    /// Cross (unfinished runs).
    Cross,
}

/// One data point.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PlotPoint {
    /// Horizontal coordinate.
    pub x: f64,
    /// Vertical coordinate.
    pub y: f64,
    /// Lower and upper edge of the confidence ribbon at this x (smoothed lines only).
    pub band: Option<(f64, f64)>,
}

/// A horizontal reference line.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct HLine {
    /// Height.
    pub y: f64,
    /// Hex colour.
    pub colour: &'static str,
    /// Line width.
    pub width: f64,
    /// Opacity.
    pub alpha: f64,
    /// Dashed instead of solid.
    pub dashed: bool,
}

/// The radar summary (`bsuite_radar_plot`): one polygon per agent over the seven tags.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RadarChart {
    /// The axes in drawing order ([`RADAR_TAGS`]): axis `k` points at angle `angles[k]`.
    #[serde(serialize_with = "serialize_tags")]
    pub tags: Vec<Tag>,
    /// Axis labels ([`tag_label`]).
    pub labels: Vec<String>,
    /// Angle of each axis in radians, `k·2π/7`, counterclockwise from east.
    pub angles: Vec<f64>,
    /// One polygon per agent, in agent order.
    pub agents: Vec<RadarAgent>,
    /// Legend title (`"agent"` when several agents are compared), `None` for one agent.
    pub legend: Option<String>,
    /// Figure size in inches.
    pub size: (f64, f64),
}

/// One agent's polygon on the radar chart.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RadarAgent {
    /// Legend label.
    pub label: String,
    /// Hex colour (`CATEGORICAL_COLOURS[k]`).
    pub colour: &'static str,
    /// The tag scores, `None` where no experiment of the tag was scored.
    pub scores: Vec<Option<f64>>,
    /// The radius drawn per axis: the score, 0 where it is missing, and at least 0.05 so the
    /// polygon never collapses (the reference's rule).
    pub radii: Vec<f64>,
}

/// The bar summary (`bsuite_bar_plot` and `bsuite_bar_plot_compare`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BarChart {
    /// The agents, in order (one facet row each in the per-agent chart).
    pub agents: Vec<String>,
    /// The x order of experiments ([`crate::experiments::in_plot_order`] restricted to those scored).
    pub experiments: Vec<&'static str>,
    /// One bar per agent and scored experiment.
    pub bars: Vec<Bar>,
    /// True when some bar is unfinished: the reference then draws unfinished bars faint.
    pub any_unfinished: bool,
    /// Figure size of the per-agent chart in inches: `(14, 3·agents + 1)`.
    pub size: (f64, f64),
}

/// One bar of the bar summary.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Bar {
    /// Index into [`BarChart::agents`].
    pub agent: usize,
    /// The experiment.
    pub experiment: &'static str,
    /// The experiment's type (its first tag).
    #[serde(serialize_with = "serialize_tag")]
    pub kind: Tag,
    /// Colour by type ([`type_colour`]), used by the per-agent chart.
    pub type_colour: &'static str,
    /// Colour by agent (`CATEGORICAL_COLOURS[agent]`), used by the comparison chart.
    pub agent_colour: &'static str,
    /// The score; `None` when the reference's score is NaN (no bar is drawn).
    pub score: Option<f64>,
    /// Every present id reached the experiment's episode count.
    pub finished: bool,
    /// Opacity: 1.0, or 0.3 for an unfinished bar when some bar is unfinished.
    pub alpha: f64,
}

fn serialize_tag<S: serde::Serializer>(tag: &Tag, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(tag.as_str())
}

fn serialize_tags<S: serde::Serializer>(tags: &[Tag], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(tags.iter().map(|t| t.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_follow_the_reference() {
        assert_eq!(type_colour(Tag::Basic), "#313695");
        assert_eq!(type_colour(Tag::Memory), "#984ea3");
        assert_eq!(type_colour(Tag::CreditAssignment), "#d73027");
        assert_eq!(tag_label(Tag::CreditAssignment), "Credit Assignment");
        let mut sorted = RADAR_TAGS.map(Tag::as_str);
        sorted.sort();
        assert_eq!(sorted, RADAR_TAGS.map(Tag::as_str));
    }
}
