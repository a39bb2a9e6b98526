//! Compiles a written report's standalone LaTeX document and checks the result: every
//! included figure exists, no reference or citation is left undefined, the summary fits on
//! one page, no box runs more than a point past its line, every figure's text prints at 6
//! points or more at the size LaTeX placed it, and the PDF has the pages the document says
//! it should.
//!
//! Needs `pdflatex` and `bibtex` (Debian: `texlive-latex-base`, `texlive-latex-recommended`,
//! `texlive-latex-extra`).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::latex;

/// Why a report failed its LaTeX check.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// A program could not be started.
    #[error("could not run {program}: {source} (install TeX Live: texlive-latex-base, texlive-latex-recommended, texlive-latex-extra)")]
    Spawn {
        /// The program.
        program: String,
        /// What failed.
        source: std::io::Error,
    },
    /// A program ran and failed.
    #[error("{program} failed on {}; see {}", .dir.display(), .log.display())]
    Failed {
        /// The program.
        program: String,
        /// The report directory.
        dir: PathBuf,
        /// Its log file.
        log: PathBuf,
    },
    /// A file could not be read.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
    /// The document compiled but something in it is wrong.
    #[error("the report's LaTeX has problems:\n  {}", .0.join("\n  "))]
    Problems(Vec<String>),
}

/// What the check found in a report that passed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    /// The compiled PDF.
    pub pdf: PathBuf,
    /// Its number of pages.
    pub pages: u32,
    /// Figures the LaTeX includes (all of which exist).
    pub figures: usize,
}

/// True when `pdflatex` can be started.
pub fn pdflatex_available() -> bool {
    Command::new("pdflatex")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn run(program: &str, args: &[&str], dir: &Path, log: &Path) -> Result<(), CheckError> {
    let output = Command::new(program)
        .args(args)
        .current_dir(dir)
        // One log line per message, however long: the checks read whole lines.
        .env("max_print_line", "100000")
        .output()
        .map_err(|source| CheckError::Spawn {
            program: program.to_string(),
            source,
        })?;
    if output.status.success() {
        Ok(())
    } else {
        Err(CheckError::Failed {
            program: program.to_string(),
            dir: dir.to_path_buf(),
            log: log.to_path_buf(),
        })
    }
}

fn read(path: &Path) -> Result<String, CheckError> {
    fs::read(path)
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .map_err(|source| CheckError::Io {
            path: path.to_path_buf(),
            source,
        })
}

/// The page a `\label` landed on, from the `.aux` file
/// (`\newlabel{name}{{number}{page}...}`).
fn label_page(aux: &str, label: &str) -> Option<u32> {
    let needle = format!("\\newlabel{{{label}}}{{{{");
    let rest = &aux[aux.find(&needle)? + needle.len()..];
    let rest = &rest[rest.find("}{")? + 2..];
    rest[..rest.find('}')?].parse().ok()
}

/// The page count pdflatex reports at the end of its log ("Output written on ... (N pages").
fn logged_pages(log: &str) -> Option<u32> {
    let at = log.rfind("Output written on")?;
    let rest = &log[at..];
    let rest = &rest[rest.find('(')? + 1..];
    rest.split_whitespace().next()?.parse().ok()
}

/// Targets of `\bsuitefigure` in a LaTeX source, with the report's macros expanded.
fn included_graphics(tex: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = tex;
    while let Some(at) = rest.find("\\bsuitefigure{") {
        rest = &rest[at + "\\bsuitefigure".len()..];
        if rest.starts_with('[') {
            match rest.find(']') {
                Some(end) => rest = &rest[end + 1..],
                None => break,
            }
        }
        let Some(body) = rest.strip_prefix('{') else {
            continue;
        };
        let Some(end) = body.find('}') else {
            break;
        };
        let target = body[..end]
            .replace("\\bsuiteradarplot", "./images/radar_plot")
            .replace("\\bsuitescoregrid", "./images/score_grid")
            .replace("\\bsuitereportdir", ".");
        out.push(target);
        rest = &body[end..];
    }
    out
}

/// A page geometry the appendix is checked in: the report's own host document, or a host
/// with a conference's text block (plain `article`, so no style file is needed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Geometry {
    /// `bsuite_report.tex`: article, 10 pt, 2 cm margins on letter paper.
    Standalone,
    /// ICLR's and NeurIPS's text block: one column 5.5 in by 9 in, 10 pt.
    SingleColumn,
    /// ICML's: two columns of 3.25 in (6.75 in in all) by 9 in, 10 pt; the appendix
    /// switches to one column, as bsuite's does.
    TwoColumn,
}

impl Geometry {
    /// All three.
    pub const ALL: [Geometry; 3] = [
        Geometry::Standalone,
        Geometry::SingleColumn,
        Geometry::TwoColumn,
    ];

    /// Its name on the command line and in messages.
    pub fn name(self) -> &'static str {
        match self {
            Geometry::Standalone => "standalone",
            Geometry::SingleColumn => "single-column 5.5 in (ICLR, NeurIPS)",
            Geometry::TwoColumn => "two-column 6.75 in (ICML)",
        }
    }

    /// The host document's file stem in the report directory, and its text (`None` for the
    /// report's own).
    fn host(self) -> (&'static str, Option<String>) {
        let (stem, class, geometry) = match self {
            Geometry::Standalone => return (latex::STANDALONE.trim_end_matches(".tex"), None),
            Geometry::SingleColumn => (
                "bsuite_check_single_column",
                "[10pt]{article}",
                "textwidth=5.5in, textheight=9in",
            ),
            Geometry::TwoColumn => (
                "bsuite_check_two_column",
                "[10pt, twocolumn]{article}",
                "textwidth=6.75in, textheight=9in, columnsep=0.25in",
            ),
        };
        let text = format!(
            "% The appendix in a conference's text block, written by `bsuite report-check`.
\\documentclass{class}
\\usepackage[letterpaper, centering, {geometry}]{{geometry}}
\\input{{bsuite_preamble}}
\\usepackage{{hyperref}}
\\begin{{document}}
\\section{{Introduction}}
The paper's text comes here.
\\appendix
\\input{{bsuite_appendix}}
\\bibliographystyle{{plain}}
\\bibliography{{references}}
\\end{{document}}
"
        );
        (stem, Some(text))
    }
}

/// Compiles `dir/bsuite_report.tex` (pdflatex, bibtex, pdflatex twice) in place and checks
/// the result.
pub fn compile_and_check(dir: &Path) -> Result<Checked, CheckError> {
    compile_and_check_in(dir, Geometry::Standalone)
}

/// Compiles the appendix of the report in `dir` in `geometry` (writing its host document
/// there, for any but the standalone) and checks the result as [`compile_and_check`] does.
pub fn compile_and_check_in(dir: &Path, geometry: Geometry) -> Result<Checked, CheckError> {
    let (stem, host) = geometry.host();
    if let Some(text) = host {
        let path = dir.join(format!("{stem}.tex"));
        fs::write(&path, text).map_err(|source| CheckError::Io { path, source })?;
    }
    let log_path = dir.join(format!("{stem}.log"));
    let pdflatex = ["-interaction=nonstopmode", "-halt-on-error", stem];
    run("pdflatex", &pdflatex, dir, &log_path)?;
    run("bibtex", &[stem], dir, &dir.join(format!("{stem}.blg")))?;
    run("pdflatex", &pdflatex, dir, &log_path)?;
    run("pdflatex", &pdflatex, dir, &log_path)?;

    let mut problems = Vec::new();
    let mut figures = 0;
    for name in [latex::APPENDIX, latex::DETAILS] {
        let tex = read(&dir.join(name))?;
        for target in included_graphics(&tex) {
            figures += 1;
            let pdf = dir.join(format!("{target}.pdf"));
            if !pdf.is_file() {
                problems.push(format!(
                    "{name} includes {target}, but {} is missing",
                    pdf.display()
                ));
            }
        }
    }
    if figures == 0 {
        problems.push("the appendix includes no figures".into());
    }

    let log = read(&log_path)?;
    for line in log.lines() {
        let undefined = line.contains("LaTeX Warning: Reference")
            || line.contains("LaTeX Warning: Citation")
            || line.contains("There were undefined references");
        if undefined || line.contains("not found") {
            problems.push(format!("pdflatex: {}", line.trim()));
        }
    }
    problems.extend(overfull_boxes(&log, 1.0));
    problems.extend(small_text(dir, &log)?);

    let aux = read(&dir.join(format!("{stem}.aux")))?;
    let first = label_page(&aux, "app:bsuite-report");
    let summary_end = label_page(&aux, "app:bsuite-summary-end");
    let last = label_page(&aux, "app:bsuite-end");
    match (first, summary_end) {
        (Some(a), Some(b)) if a == b => {}
        (Some(a), Some(b)) => problems.push(format!(
            "the summary runs from page {a} to page {b}; it should fit on one page"
        )),
        _ => problems.push("the summary's labels are missing from the .aux file".into()),
    }
    let pages = logged_pages(&log).unwrap_or(0);
    match last {
        // The bibliography may start a page after the last figure.
        Some(last) if pages == last || pages == last + 1 => {}
        Some(last) => problems.push(format!(
            "the PDF has {pages} pages, but the report ends on page {last}"
        )),
        None => problems.push("the end label is missing from the .aux file".into()),
    }

    if problems.is_empty() {
        Ok(Checked {
            pdf: dir.join(format!("{stem}.pdf")),
            pages,
            figures,
        })
    } else {
        Err(CheckError::Problems(
            problems
                .into_iter()
                .map(|p| format!("{}: {p}", geometry.name()))
                .collect(),
        ))
    }
}

/// The boxes pdflatex reports as overfull by more than `tolerance` points, with the
/// line that says where.
fn overfull_boxes(log: &str, tolerance: f64) -> Vec<String> {
    log.lines()
        .filter_map(|line| {
            let rest = line.strip_prefix("Overfull \\hbox (")?;
            let points: f64 = rest[..rest.find("pt too wide")?].parse().ok()?;
            (points > tolerance).then(|| format!("pdflatex: {}", line.trim()))
        })
        .collect()
}

/// Each figure `\bsuitefigure` placed (the log's [`latex::PLACED_FIGURE_LOG`] lines) whose
/// smallest text, scaled from the width it was drawn at ([`crate::report::FIGURES_JSON`])
/// to the width it was placed at, prints under [`crate::style::MIN_TEXT_POINTS`].
fn small_text(dir: &Path, log: &str) -> Result<Vec<String>, CheckError> {
    let path = dir.join(crate::report::FIGURES_JSON);
    let figures: serde_json::Value = serde_json::from_str(&read(&path)?).map_err(|e| {
        CheckError::Problems(vec![format!(
            "{}: not the report's JSON: {e}",
            path.display()
        )])
    })?;
    let drawn = |stem: &str| -> Option<(f64, Option<f64>)> {
        let f = figures.as_array()?.iter().find(|f| f["stem"] == stem)?;
        Some((f["width_pt"].as_f64()?, f["min_text_pt"].as_f64()))
    };
    let mut problems = Vec::new();
    let mut placed = 0;
    for line in log.lines() {
        let Some(rest) = line.strip_prefix(latex::PLACED_FIGURE_LOG) else {
            continue;
        };
        let Some((file, width)) = rest.trim().rsplit_once(' ') else {
            continue;
        };
        let Some(width) = width.strip_suffix("pt").and_then(|w| w.parse::<f64>().ok()) else {
            continue;
        };
        let stem = file.trim_start_matches("./");
        // TeX's points are 1/72.27 in; the figures' (PDF's) are 1/72 in.
        let width = width * 72.0 / 72.27;
        placed += 1;
        match drawn(stem) {
            None => problems.push(format!("{stem} is placed but not in figures.json")),
            Some((drawn_width, Some(text))) => {
                let printed = text * width / drawn_width;
                if printed < crate::style::MIN_TEXT_POINTS - 0.01 {
                    problems.push(format!(
                        "{stem}: its smallest text prints at {printed:.1} pt (drawn at \
                         {drawn_width:.0} pt wide, placed at {width:.0} pt); at least \
                         {} pt is legible",
                        crate::style::MIN_TEXT_POINTS
                    ));
                }
            }
            Some((_, None)) => {}
        }
    }
    if placed == 0 {
        problems
            .push("the log names no placed figure (is the preamble's \\bsuitefigure used?)".into());
    }
    Ok(problems)
}

/// Renders page `page` (from 1) of `pdf` as a PNG at `dpi` dots per inch with `pdftoppm`
/// (Debian: poppler-utils), to `png`: what a reader of the paper sees.
pub fn page_png(pdf: &Path, page: u32, dpi: u32, png: &Path) -> Result<(), CheckError> {
    let stem = png.with_extension("");
    let output = Command::new("pdftoppm")
        .args(["-png", "-singlefile", "-r", &dpi.to_string()])
        .args(["-f", &page.to_string(), "-l", &page.to_string()])
        .arg(pdf)
        .arg(&stem)
        .output()
        .map_err(|source| CheckError::Spawn {
            program: "pdftoppm (install poppler-utils)".into(),
            source,
        })?;
    if !output.status.success() || !png.is_file() {
        return Err(CheckError::Problems(vec![format!(
            "pdftoppm could not render page {page} of {}: {}",
            pdf.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        )]));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_pages_are_read_from_the_aux_file() {
        let aux = "\\newlabel{app:bsuite-end}{{C.4}{7}{Scores}{subsection.C.4}{}}\n";
        assert_eq!(label_page(aux, "app:bsuite-end"), Some(7));
        assert_eq!(label_page(aux, "app:other"), None);
    }

    #[test]
    fn page_count_is_read_from_the_log() {
        let log = "...\nOutput written on bsuite_report.pdf (12 pages, 345678 bytes).\n";
        assert_eq!(logged_pages(log), Some(12));
    }

    #[test]
    fn overfull_boxes_past_the_tolerance_are_problems() {
        let log = "Overfull \\hbox (310.5pt too wide) in paragraph at lines 4--9\nOverfull \\hbox (0.4pt too wide) in alignment\n";
        let found = overfull_boxes(log, 1.0);
        assert_eq!(found.len(), 1);
        assert!(found[0].contains("310.5pt"));
    }

    #[test]
    fn graphics_targets_expand_the_report_macros() {
        let tex = r"\bsuitefigure{\bsuiteradarplot} \bsuitefigure{\bsuitereportdir/images/x/y}";
        assert_eq!(
            included_graphics(tex),
            vec![
                "./images/radar_plot".to_string(),
                "./images/x/y".to_string()
            ]
        );
    }
}
