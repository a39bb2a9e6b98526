//! A small, plain description of a faceted x/y figure, drawn by [`crate::render`].
//!
//! Every per-experiment plot of the reference notebook is one of a few kinds (smoothed learning
//! curves with ribbons, raw lines per run, bars per group, points against a log-scaled sweep
//! variable) facetted by agent. Describing them as data keeps the experiment modules free of
//! drawing code and lets tests inspect what a figure will show.

use crate::style::{Colour, Dash, MarkerShape};

/// How an axis maps data to position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scale {
    /// Linear.
    #[default]
    Linear,
    /// Base-10 logarithmic; non-positive values are not drawn.
    Log10,
}

/// One axis, shared by every facet.
#[derive(Debug, Clone, Default)]
pub struct DrawingAxis {
    /// DrawingAxis title.
    pub label: String,
    /// Linear or logarithmic.
    pub scale: Scale,
    /// Fixed limits; `None` fits the data (with a small margin).
    pub limits: Option<(f64, f64)>,
    /// Tick positions; `None` picks round numbers.
    pub breaks: Option<Vec<f64>>,
    /// Non-empty for a categorical axis: value `i` is drawn at category `i`, labelled with it.
    pub categories: Vec<String>,
    /// Draw tick labels vertically (long categorical labels).
    pub vertical_labels: bool,
    /// Values the fitted range must include (e.g. 0 for regret axes).
    pub include: Vec<f64>,
}

impl DrawingAxis {
    /// A linear axis with a title and automatic limits and ticks.
    pub fn new(label: impl Into<String>) -> Self {
        Self {
            label: label.into(),
            ..Self::default()
        }
    }

    /// Sets fixed limits.
    pub fn limits(mut self, low: f64, high: f64) -> Self {
        self.limits = Some((low, high));
        self
    }

    /// Sets tick positions.
    pub fn breaks(mut self, breaks: &[f64]) -> Self {
        self.breaks = Some(breaks.to_vec());
        self
    }

    /// Makes the axis base-10 logarithmic.
    pub fn log10(mut self) -> Self {
        self.scale = Scale::Log10;
        self
    }

    /// Makes the axis categorical with these labels (value `i` is category `i`).
    pub fn categories<S: Into<String>>(mut self, labels: impl IntoIterator<Item = S>) -> Self {
        self.categories = labels.into_iter().map(Into::into).collect();
        self
    }
}

/// How a line is stroked.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stroke {
    /// Colour.
    pub colour: Colour,
    /// Width in canvas units.
    pub width: f64,
    /// Opacity in [0, 1].
    pub opacity: f64,
    /// Solid, dashed or dotted.
    pub dash: Dash,
}

impl Stroke {
    /// A solid, opaque stroke.
    pub fn solid(colour: Colour, width: f64) -> Self {
        Self {
            colour,
            width,
            opacity: 1.0,
            dash: Dash::Solid,
        }
    }

    /// A dashed stroke at half opacity, the reference's look for reference lines.
    pub fn reference(colour: Colour) -> Self {
        Self {
            colour,
            width: crate::style::units(0.6),
            opacity: 0.5,
            dash: Dash::Dashed,
        }
    }

    /// Sets the dash.
    pub fn dash(mut self, dash: Dash) -> Self {
        self.dash = dash;
        self
    }

    /// Sets the opacity.
    pub fn opacity(mut self, opacity: f64) -> Self {
        self.opacity = opacity;
        self
    }
}

/// A point marker: its shape and whether it is filled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Marker {
    /// The shape.
    pub shape: MarkerShape,
    /// Filled, or drawn as an outline.
    pub filled: bool,
}

impl Marker {
    /// A filled disc, the reference's point.
    pub const DISC: Marker = Marker {
        shape: MarkerShape::Circle,
        filled: true,
    };
    /// An "x" (the reference marks unfinished runs with it).
    pub const CROSS: Marker = Marker {
        shape: MarkerShape::Cross,
        filled: true,
    };
}

impl Default for Marker {
    fn default() -> Self {
        Marker::DISC
    }
}

/// One bar; `centre` is in x data units (the category index on a categorical axis).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BarMark {
    /// Centre of the bar on the x axis.
    pub centre: f64,
    /// Width in x data units.
    pub width: f64,
    /// Height (the bar spans 0 to `value`).
    pub value: f64,
    /// Fill colour.
    pub fill: Colour,
    /// Fill opacity (the reference fades unfinished experiments to 0.3).
    pub opacity: f64,
}

/// Something drawn inside a facet, in data coordinates.
#[derive(Debug, Clone, PartialEq)]
pub enum Layer {
    /// A polyline.
    Line {
        /// The vertices, in order.
        points: Vec<(f64, f64)>,
        /// How it is stroked.
        stroke: Stroke,
    },
    /// Text at a data position (a heatmap's cell value, a count over a point).
    Label {
        /// Where, in data units: the text's centre.
        at: (f64, f64),
        /// The text.
        text: String,
        /// Size in canvas units.
        size: f64,
        /// Colour.
        colour: Colour,
    },
    /// A filled band between `low` and `high` (a confidence ribbon).
    Ribbon {
        /// `(x, low, high)` in x order.
        points: Vec<(f64, f64, f64)>,
        /// Fill colour.
        fill: Colour,
        /// Fill opacity.
        opacity: f64,
    },
    /// Point markers.
    Points {
        /// Positions.
        points: Vec<(f64, f64)>,
        /// Colour.
        colour: Colour,
        /// Radius in canvas units.
        radius: f64,
        /// Opacity.
        opacity: f64,
        /// Shape.
        marker: Marker,
    },
    /// Bars from zero.
    Bars(Vec<BarMark>),
    /// A horizontal line across the whole facet.
    HLine {
        /// Height.
        y: f64,
        /// How it is stroked.
        stroke: Stroke,
    },
}

/// One panel of a figure.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Facet {
    /// Strip title (e.g. `agent: dqn`); `None` draws no strip.
    pub title: Option<String>,
    /// The agent the facet shows, if it shows one: the HTML page hides the facet with the
    /// agent.
    pub agent: Option<String>,
    /// Layers, drawn in order.
    pub layers: Vec<Layer>,
}

/// What a legend key looks like.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Key {
    /// A short line.
    Line(Stroke),
    /// A short line with a marker on it (an agent's style).
    LineMarker(Stroke, Marker),
    /// A filled square.
    Fill(Colour),
    /// A marker.
    Point(Colour, Marker),
}

/// A legend, drawn to the right of the facets (in as many columns as its height needs).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Legend {
    /// Title above the entries.
    pub title: String,
    /// `(label, key)` pairs, top to bottom.
    pub entries: Vec<(String, Key)>,
}

/// A figure: facets sharing two axes, an optional title and legend.
#[derive(Debug, Clone)]
pub struct Drawing {
    /// Title above the facets.
    pub title: Option<String>,
    /// Size in canvas units ([`crate::style::UNITS_PER_POINT`] a printed point).
    pub size: (u32, u32),
    /// Horizontal axis.
    pub x: DrawingAxis,
    /// Vertical axis.
    pub y: DrawingAxis,
    /// Panels, filled row by row.
    pub facets: Vec<Facet>,
    /// Number of facet columns.
    pub columns: usize,
    /// Legends, stacked to the right of the facets.
    pub legends: Vec<Legend>,
}

impl Drawing {
    /// An empty figure with the given axes; facets are laid out in one row.
    pub fn new(x: DrawingAxis, y: DrawingAxis) -> Self {
        Self {
            title: None,
            size: (1584, 1000),
            x,
            y,
            facets: Vec::new(),
            columns: 0,
            legends: Vec::new(),
        }
    }
}
