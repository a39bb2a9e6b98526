//! `bsuite report-check`: compile a written report's LaTeX appendix with pdflatex in the
//! three page geometries of the venues and check it as placed (one summary page, every
//! figure, no overfull box, no text under 6 pt).

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Result};
use clap::Args;

/// Options of `bsuite report-check`.
#[derive(Args, Debug)]
pub struct ReportCheckArgs {
    /// The report directory written by `bsuite report`.
    #[arg(value_name = "DIR", default_value = "report")]
    pub dir: PathBuf,
    /// The page geometries to compile the appendix in: `all` (default), `standalone`,
    /// `single-column` (ICLR, NeurIPS: 5.5 in by 9 in) or `two-column` (ICML: 6.75 in).
    #[arg(long, value_name = "WHICH", default_value = "all")]
    pub geometry: String,
    /// Also render the summary page of the standalone PDF as this PNG file (110 dpi, with
    /// pdftoppm): what a reader of the paper sees.
    #[arg(long, value_name = "FILE.png")]
    pub png: Option<PathBuf>,
}

/// Runs `bsuite report-check`.
pub fn run(args: &ReportCheckArgs) -> Result<()> {
    let start = Instant::now();
    if !args.dir.join(bsuite_report::latex::STANDALONE).is_file() {
        bail!(
            "{} has no {}; write a report first with bsuite report",
            args.dir.display(),
            bsuite_report::latex::STANDALONE
        );
    }
    use bsuite_report::check::{self, Geometry};
    let geometries: Vec<Geometry> = match args.geometry.as_str() {
        "all" => Geometry::ALL.to_vec(),
        "standalone" => vec![Geometry::Standalone],
        "single-column" => vec![Geometry::SingleColumn],
        "two-column" => vec![Geometry::TwoColumn],
        other => {
            bail!("--geometry {other:?}: expected all, standalone, single-column or two-column")
        }
    };
    for geometry in geometries {
        let checked = check::compile_and_check_in(&args.dir, geometry)?;
        bsuite_baselines::outln!(
            "report-check: {} ({}) compiled, {} pages, {} figures included, all present: the \
             summary on one page, no overfull box, no text under 6 pt ({:.1} s)",
            checked.pdf.display(),
            geometry.name(),
            checked.pages,
            checked.figures,
            start.elapsed().as_secs_f64()
        );
        if let (Some(png), Geometry::Standalone) = (&args.png, geometry) {
            check::page_png(&checked.pdf, 1, 110, png)?;
            bsuite_baselines::outln!("report-check: page 1 rendered as {}", png.display());
        }
    }
    Ok(())
}
