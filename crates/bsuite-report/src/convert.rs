//! SVG to PDF (vector, text embedded as a font subset) with the bundled font only.
//!
//! The font database holds nothing but the bundled DejaVu Serif, so a PDF looks the same on
//! every machine and never depends on installed fonts.

use std::sync::Arc;

use crate::style::{FONT_BYTES, FONT_FAMILY};
use crate::Error;

/// Converts SVG documents drawn by this crate to PDF.
pub struct Converter {
    options: usvg::Options<'static>,
}

impl Default for Converter {
    fn default() -> Self {
        Self::new()
    }
}

impl Converter {
    /// A converter whose only font is the bundled one (also used for any generic family).
    pub fn new() -> Self {
        let mut fonts = usvg::fontdb::Database::new();
        fonts.load_font_data(FONT_BYTES.to_vec());
        fonts.set_serif_family(FONT_FAMILY);
        fonts.set_sans_serif_family(FONT_FAMILY);
        fonts.set_monospace_family(FONT_FAMILY);
        let options = usvg::Options {
            font_family: FONT_FAMILY.to_string(),
            fontdb: Arc::new(fonts),
            ..usvg::Options::default()
        };
        Self { options }
    }

    fn parse(&self, svg: &str) -> Result<usvg::Tree, Error> {
        usvg::Tree::from_str(svg, &self.options).map_err(|err| Error::Svg(err.to_string()))
    }

    /// A one-page PDF of the SVG, the page the size of the SVG in points.
    pub fn to_pdf(&self, svg: &str) -> Result<Vec<u8>, Error> {
        let tree = self.parse(svg)?;
        svg2pdf::to_pdf(
            &tree,
            svg2pdf::ConversionOptions::default(),
            svg2pdf::PageOptions::default(),
        )
        .map_err(|err| Error::Pdf(err.to_string()))
    }

    /// The SVG with text turned into outlines and element ids prefixed with `id_prefix`, so it
    /// shows identically without the font and can sit inline next to other figures in a page.
    pub fn to_outlined_svg(&self, svg: &str, id_prefix: &str) -> Result<String, Error> {
        let tree = self.parse(svg)?;
        let options = usvg::WriteOptions {
            id_prefix: Some(id_prefix.to_string()),
            coordinates_precision: 2,
            transforms_precision: 4,
            indent: usvg::Indent::None,
            attributes_indent: usvg::Indent::None,
            ..usvg::WriteOptions::default()
        };
        Ok(tree.to_string(&options))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SVG: &str = r#"<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40"><text x="5" y="25" font-family="DejaVu Serif" font-size="16">bsuite</text></svg>"#;

    #[test]
    fn pdf_has_one_page_and_embeds_the_font() {
        let pdf = Converter::new().to_pdf(SVG).unwrap();
        assert!(pdf.starts_with(b"%PDF-"));
        let text = String::from_utf8_lossy(&pdf);
        assert!(text.contains("DejaVu"), "font not embedded");
        assert!(text.contains("/MediaBox [0 0 120 40]"));
    }

    #[test]
    fn outlined_svg_has_no_text_elements() {
        let svg = Converter::new().to_outlined_svg(SVG, "f1-").unwrap();
        assert!(!svg.contains("<text"));
        assert!(svg.contains("<path"));
    }
}
