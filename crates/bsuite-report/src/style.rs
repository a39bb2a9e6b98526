//! Colours, palettes and the one font every figure uses.
//!
//! The palettes are the reference's (`bsuite/utils/plotting.py`), so figures read the same as the
//! ones in published bsuite reports. The font is DejaVu Serif, bundled in `fonts/` under the
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
