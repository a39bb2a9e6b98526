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
        let pdf = svg2pdf::to_pdf(
            &tree,
            svg2pdf::ConversionOptions::default(),
            svg2pdf::PageOptions::default(),
        )
        .map_err(|err| Error::Pdf(err.to_string()))?;
        Ok(sorted_resources(pdf))
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

/// `pdf` with the entries of its resource dictionaries (lines `/Name N 0 R`, one per
/// line, outside streams) in sorted order. svg2pdf writes them in the order of a hash map,
/// which differs from run to run; sorting lines in place keeps every byte offset, so the
/// cross-reference table stays valid and the same figure gives the same bytes.
fn sorted_resources(mut pdf: Vec<u8>) -> Vec<u8> {
    fn is_reference(line: &[u8]) -> bool {
        let text = String::from_utf8_lossy(line);
        let mut words = text.split_whitespace();
        matches!(
            (words.next(), words.next(), words.next(), words.next(), words.next()),
            (Some(name), Some(number), Some("0"), Some("R"), None)
                if name.starts_with('/') && number.bytes().all(|b| b.is_ascii_digit())
        )
    }
    let mut at = 0;
    while at < pdf.len() {
        let line_end = end_of_line(&pdf, at);
        let line = &pdf[at..line_end];
        if line.ends_with(b"stream\n") && !line.ends_with(b"endstream\n") {
            // Skip the stream's binary body.
            at = find(&pdf, b"\nendstream", line_end).map_or(pdf.len(), |i| i + 1);
            continue;
        }
        if line.ends_with(b"<<\n") {
            let mut end = line_end;
            let mut lines: Vec<Vec<u8>> = Vec::new();
            while end < pdf.len() {
                let next = end_of_line(&pdf, end);
                let entry = &pdf[end..next];
                if !is_reference(entry) || !entry.ends_with(b"\n") {
                    break;
                }
                lines.push(entry.to_vec());
                end = next;
            }
            if lines.len() > 1 && pdf[end..].trim_ascii_start().starts_with(b">>") {
                lines.sort();
                pdf[line_end..end].copy_from_slice(&lines.concat());
            }
        }
        at = line_end;
    }
    pdf
}

/// Where the line starting at `from` ends: just past its `\n`, or at the end of `bytes`.
fn end_of_line(bytes: &[u8], from: usize) -> usize {
    find(bytes, b"\n", from).map_or(bytes.len(), |i| i + 1)
}

fn find(haystack: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    haystack[from..]
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|i| from + i)
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

    /// svg2pdf lists resources in hash-map order; every conversion must still give the
    /// same bytes (a figure with many opacities has many resources to order).
    #[test]
    fn the_same_figure_gives_the_same_pdf() {
        let shapes: String = (1..30)
            .map(|i| {
                format!(r#"<rect x="{i}" y="1" width="3" height="3" fill-opacity="0.{i:02}"/>"#)
            })
            .collect();
        let svg = format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="40" height="10">{shapes}</svg>"#
        );
        let converter = Converter::new();
        let first = converter.to_pdf(&svg).unwrap();
        assert!(String::from_utf8_lossy(&first).contains("/ExtGState <<"));
        for _ in 0..5 {
            assert_eq!(converter.to_pdf(&svg).unwrap(), first);
        }
    }

    #[test]
    fn outlined_svg_has_no_text_elements() {
        let svg = Converter::new().to_outlined_svg(SVG, "f1-").unwrap();
        assert!(!svg.contains("<text"));
        assert!(svg.contains("<path"));
    }
}
