//! Compiles a written report's standalone LaTeX document and checks the result: every
//! included figure exists, no reference or citation is left undefined, the summary fits on
//! one page, and the PDF has the pages the document says it should.
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

/// Targets of `\includegraphics` in a LaTeX source, with the report's macros expanded.
fn included_graphics(tex: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = tex;
    while let Some(at) = rest.find("\\includegraphics") {
        rest = &rest[at + "\\includegraphics".len()..];
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
            .replace("\\bsuitebarplot", "./images/bar_plot")
            .replace("\\bsuitereportdir", ".");
        out.push(target);
        rest = &body[end..];
    }
    out
}

/// Compiles `dir/bsuite_report.tex` (pdflatex, bibtex, pdflatex twice) in place and checks
/// the result.
pub fn compile_and_check(dir: &Path) -> Result<Checked, CheckError> {
    let stem = latex::STANDALONE.trim_end_matches(".tex");
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
        Err(CheckError::Problems(problems))
    }
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
    fn graphics_targets_expand_the_report_macros() {
        let tex = r"\includegraphics[width=\textwidth]{\bsuiteradarplot} \includegraphics{\bsuitereportdir/images/x/y}";
        assert_eq!(
            included_graphics(tex),
            vec![
                "./images/radar_plot".to_string(),
                "./images/x/y".to_string()
            ]
        );
    }
}
