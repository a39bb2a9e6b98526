//! Colours, agents' styles, print sizes and the one font every figure uses.
//!
//! Figures are drawn for print: every figure is laid out at the size the LaTeX places it, in
//! points, on a canvas of [`UNITS_PER_POINT`] units a point (plotters draws whole units, and a
//! point is too coarse a grid for markers and thin lines). Text is never smaller than
//! [`MIN_TEXT_POINTS`] as printed. Agents are told apart by a colour-blind-safe palette
//! (Okabe and Ito's) combined with markers and dash patterns ([`agent_style`]), so that up to
//! 16 agents have distinct styles; experiment types keep the reference's colours
//! (`bsuite/utils/plotting.py`). The font is DejaVu Serif, bundled in `fonts/` under the
//! Bitstream Vera licence: plotters measures text with it, and the SVG-to-PDF conversion draws
//! text with it, so labels are laid out and rendered with identical metrics and need no font
//! installed on the machine.

use std::sync::Once;

/// An sRGB colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Colour {
    /// Red channel.
    pub r: u8,
    /// Green channel.
    pub g: u8,
    /// Blue channel.
    pub b: u8,
}

impl Colour {
    /// Builds a colour from `0xRRGGBB`.
    ///
    /// ```
    /// use bsuite_report::style::Colour;
    /// assert_eq!(Colour::hex(0x313695).to_css(), "#313695");
    /// ```
    pub const fn hex(rgb: u32) -> Self {
        Self {
            r: (rgb >> 16) as u8,
            g: (rgb >> 8) as u8,
            b: rgb as u8,
        }
    }

    /// Parses `#rrggbb` (the analysis crate's colours); anything else is black, so a bad
    /// colour shows instead of failing a whole report.
    ///
    /// ```
    /// use bsuite_report::style::Colour;
    /// assert_eq!(Colour::parse("#d73027"), Colour::hex(0xd73027));
    /// ```
    pub fn parse(css: &str) -> Self {
        css.strip_prefix('#')
            .filter(|hex| hex.len() == 6)
            .and_then(|hex| u32::from_str_radix(hex, 16).ok())
            .map_or(BLACK, Colour::hex)
    }

    /// The colour as a CSS `#rrggbb` string.
    pub fn to_css(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.r, self.g, self.b)
    }

    pub(crate) fn rgb(self) -> plotters::style::RGBColor {
        plotters::style::RGBColor(self.r, self.g, self.b)
    }
}

/// Black.
pub const BLACK: Colour = Colour::hex(0x000000);
/// White.
pub const WHITE: Colour = Colour::hex(0xffffff);
/// Grey of axis text and panel borders.
pub const DARK_GREY: Colour = Colour::hex(0x333333);
/// Grey of reference grid lines (ggplot's `grey92`).
pub const GRID_GREY: Colour = Colour::hex(0xebebeb);
/// Background of facet title strips (ggplot's `grey85`).
pub const STRIP_GREY: Colour = Colour::hex(0xd9d9d9);
/// Canvas units per printed point: a figure `w` units wide is `w / UNITS_PER_POINT` points
/// wide on the page (the SVG's `width`, the PDF's page).
pub const UNITS_PER_POINT: f64 = 4.0;

/// The smallest text any figure prints, in points, at the size the LaTeX places it.
pub const MIN_TEXT_POINTS: f64 = 6.0;

/// The narrowest text width a report is laid out for, in points: the 5.5 in of ICLR and
/// NeurIPS (the standalone report and ICML's one-column appendix are wider). Figures are at
/// most this wide, so LaTeX places every one at its natural size.
pub const TEXT_WIDTH_POINTS: f64 = 396.0;

/// The tallest a figure is drawn, in points: a 9 in text height less a caption.
pub const MAX_FIGURE_HEIGHT_POINTS: f64 = 590.0;

/// `points` in canvas units.
pub(crate) fn units(points: f64) -> f64 {
    points * UNITS_PER_POINT
}

/// The shape of an agent's marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MarkerShape {
    /// A disc.
    Circle,
    /// A square.
    Square,
    /// A triangle pointing up.
    TriangleUp,
    /// A diamond.
    Diamond,
    /// A triangle pointing down.
    TriangleDown,
    /// A plus sign.
    Plus,
    /// An "x".
    Cross,
    /// A five-pointed star.
    Star,
}

/// How an agent's lines are stroked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dash {
    /// Solid.
    Solid,
    /// Long dashes.
    Dashed,
    /// Dots.
    Dotted,
}

/// How one agent is drawn in every figure of a report: its colour, marker and line dash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AgentStyle {
    /// Line, marker and bar colour.
    pub colour: Colour,
    /// Marker at the agent's points (radar vertices, profile, bar tops).
    pub marker: MarkerShape,
    /// Whether the marker is filled (hollow for the second round of colours).
    pub filled: bool,
    /// Line dash.
    pub dash: Dash,
}

/// Okabe and Ito's colour-blind-safe palette, without its yellow (too pale on white), with a
/// grey in its place: blue, vermillion, bluish green, reddish purple, orange, sky blue,
/// black, grey.
pub const AGENT_COLOURS: [Colour; 8] = [
    Colour::hex(0x0072b2),
    Colour::hex(0xd55e00),
    Colour::hex(0x009e73),
    Colour::hex(0xcc79a7),
    Colour::hex(0xe69f00),
    Colour::hex(0x56b4e9),
    Colour::hex(0x000000),
    Colour::hex(0x999999),
];

const MARKERS: [MarkerShape; 8] = [
    MarkerShape::Circle,
    MarkerShape::Square,
    MarkerShape::TriangleUp,
    MarkerShape::Diamond,
    MarkerShape::TriangleDown,
    MarkerShape::Plus,
    MarkerShape::Cross,
    MarkerShape::Star,
];

/// The style of the `k`-th agent of a report. Agents 0-7 get the eight colours with solid
/// lines and filled markers; agents 8-15 the same colours dashed, with hollow markers of the
/// next shape, so that no two of the first 16 share colour and marker; agents past 16
/// repeat with dotted lines.
///
/// ```
/// use bsuite_report::style::{agent_style, Dash};
/// assert_eq!(agent_style(0).dash, Dash::Solid);
/// assert_eq!(agent_style(8).colour, agent_style(0).colour);
/// assert_ne!(agent_style(8).marker, agent_style(0).marker);
/// assert_eq!(agent_style(8).dash, Dash::Dashed);
/// ```
pub fn agent_style(k: usize) -> AgentStyle {
    let round = k / AGENT_COLOURS.len();
    AgentStyle {
        colour: AGENT_COLOURS[k % AGENT_COLOURS.len()],
        marker: MARKERS[(k + round) % MARKERS.len()],
        filled: round % 2 == 0,
        dash: match round {
            0 => Dash::Solid,
            1 => Dash::Dashed,
            _ => Dash::Dotted,
        },
    }
}

/// Viridis at eleven stops (0, 0.1, ..., 1): a perceptually uniform sequential scale, dark
/// purple to yellow, legible in grey and to colour-blind readers.
const VIRIDIS: [u32; 11] = [
    0x440154, 0x482475, 0x414487, 0x355f8d, 0x2a788e, 0x21918c, 0x22a884, 0x44bf70, 0x7ad151,
    0xbddf26, 0xfde725,
];

/// A point of the sequential scale at `t` in [0, 1] (clamped), interpolated between
/// viridis's stops: the colour of a score in the score grid, and of the `k`-th of many
/// settings in a panel.
///
/// ```
/// use bsuite_report::style::{sequential, Colour};
/// assert_eq!(sequential(0.0), Colour::hex(0x440154));
/// assert_eq!(sequential(1.0), Colour::hex(0xfde725));
/// ```
pub fn sequential(t: f64) -> Colour {
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let at = t * (VIRIDIS.len() - 1) as f64;
    let (i, f) = (at.floor() as usize, at.fract());
    let a = Colour::hex(VIRIDIS[i.min(VIRIDIS.len() - 1)]);
    let b = Colour::hex(VIRIDIS[(i + 1).min(VIRIDIS.len() - 1)]);
    let mix = |x: u8, y: u8| (f64::from(x) + f * (f64::from(y) - f64::from(x))).round() as u8;
    Colour {
        r: mix(a.r, b.r),
        g: mix(a.g, b.g),
        b: mix(a.b, b.b),
    }
}

impl Colour {
    /// Whether dark text reads better than white on this colour (relative luminance above
    /// a half).
    pub fn is_light(self) -> bool {
        let l =
            0.2126 * f64::from(self.r) + 0.7152 * f64::from(self.g) + 0.0722 * f64::from(self.b);
        l > 140.0
    }
}

/// The family name under which the bundled font is registered and referenced in SVG.
pub const FONT_FAMILY: &str = "DejaVu Serif";

/// The bundled font file (DejaVu Serif, Bitstream Vera licence, see `fonts/LICENSE-DejaVu.txt`).
pub const FONT_BYTES: &[u8] = include_bytes!("../fonts/DejaVuSerif.ttf");

/// Makes the bundled font known to plotters' text measurement; idempotent.
pub(crate) fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        for style in [
            plotters::style::FontStyle::Normal,
            plotters::style::FontStyle::Bold,
        ] {
            if plotters::style::register_font(FONT_FAMILY, style, FONT_BYTES).is_err() {
                // The bytes are compiled in; a parse failure means a corrupted checkout.
                panic!("the bundled font fonts/DejaVuSerif.ttf is not a valid font file");
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sixteen agents are told apart in every figure: no two share a style, and none
    /// shares both colour and marker with another (bars and markers show no dash).
    #[test]
    fn sixteen_agents_have_distinct_styles() {
        let styles: Vec<AgentStyle> = (0..16).map(agent_style).collect();
        for (i, a) in styles.iter().enumerate() {
            for (j, b) in styles.iter().enumerate().skip(i + 1) {
                assert_ne!(a, b, "agents {i} and {j}");
                assert!(
                    (a.colour, a.marker) != (b.colour, b.marker),
                    "agents {i} and {j} share colour and marker"
                );
            }
        }
        // The palette has no white (which would vanish on the page) and no colour twice.
        for (i, a) in AGENT_COLOURS.iter().enumerate() {
            assert_ne!(*a, WHITE, "{i}");
            assert!(AGENT_COLOURS[i + 1..].iter().all(|b| b != a), "{i}");
        }
    }
}
