//! The conference appendix: a preamble, a one-page summary with placeholders for the
//! commentary, a details file (score tables and every per-experiment figure), a standalone
//! host document and the bibliography.
//!
//! The preamble and appendix follow the structure of bsuite's `reports/` templates so they
//! drop into the ICLR, NeurIPS and ICML styles the same way: `\input` the preamble before
//! `\begin{document}` and the appendix after `\appendix`. The summary fits one page of the
//! narrowest of them (5.5 in by 9 in; ICML's two columns are left for one, as bsuite's
//! appendix does) for up to 16 agents: lists go to two columns past four agents, and the
//! figures are drawn at the size they print (see [`crate::style`]), so LaTeX places each at
//! its natural size. Wide tables are split by agents. Paths are relative to
//! `\bsuitereportdir` (default `.`), so a host document elsewhere sets that macro first.

use std::fmt::Write as _;
use std::ops::Range;

use bsuite_analysis::experiments::in_plot_order;
use bsuite_analysis::plot::RADAR_TAGS;
use bsuite_analysis::seeds::PairComparison;
use bsuite_analysis::stats::Estimate;
use bsuite_analysis::Score;

use crate::model::{ExperimentSection, FigureFile, Model, SeedsModel};
use crate::report::sentences;
use crate::style::TEXT_WIDTH_POINTS;

/// File name of the preamble.
pub const PREAMBLE: &str = "bsuite_preamble.tex";
/// File name of the one-page appendix.
pub const APPENDIX: &str = "bsuite_appendix.tex";
/// File name of the per-experiment details the appendix inputs.
pub const DETAILS: &str = "bsuite_details.tex";
/// File name of the standalone host document.
pub const STANDALONE: &str = "bsuite_report.tex";
/// File name of the bibliography.
pub const BIBLIOGRAPHY: &str = "references.bib";

/// Placeholder title, to be replaced by the paper's.
pub const DEFAULT_TITLE: &str = "Your Paper Title";

/// The line `\bsuitefigure` writes to the log for each figure it places: the figure's file
/// and its placed width, which [`crate::check`] compares with the width it was drawn at.
pub const PLACED_FIGURE_LOG: &str = "bsuite-figure:";

/// Past this many agents, the summary's lists go in two columns in a smaller size.
const COMPACT_AFTER: usize = 4;

/// Escapes text for LaTeX's text mode; `^` followed by a word (`2^N`) becomes a
/// superscript.
///
/// ```
/// assert_eq!(bsuite_report::latex::escape("deep_sea 50%"), r"deep\_sea 50\%");
/// assert_eq!(bsuite_report::latex::escape("2^N"), r"2\textsuperscript{N}");
/// ```
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push_str(r"\textbackslash{}"),
            '&' | '%' | '$' | '#' | '_' | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            '~' => out.push_str(r"\textasciitilde{}"),
            '^' if chars.peek().is_some_and(|n| n.is_ascii_alphanumeric()) => {
                out.push_str(r"\textsuperscript{");
                while let Some(n) = chars.next_if(|n| n.is_ascii_alphanumeric()) {
                    out.push(n);
                }
                out.push('}');
            }
            '^' => out.push_str(r"\textasciicircum{}"),
            '<' => out.push_str(r"\textless{}"),
            '>' => out.push_str(r"\textgreater{}"),
            _ => out.push(c),
        }
    }
    out
}

/// [`escape`], with a break allowed after each underscore, for running text full of
/// experiment names, which TeX cannot hyphenate.
fn escape_breakable(text: &str) -> String {
    escape(text).replace(r"\_", r"\_\allowbreak{}")
}

/// The agent `k`'s definition, with its citations.
fn definition(model: &Model, k: usize) -> String {
    let definition = model.definition(k);
    let cite = if definition.cites.is_empty() {
        String::new()
    } else {
        format!(r"~\cite{{{}}}", definition.cites)
    };
    match definition.text.split_once(';') {
        // The citation goes after the agent's name, before the settings.
        Some((what, rest)) if !cite.is_empty() => {
            format!("{}{cite};{}", escape(what), escape(rest))
        }
        _ => {
            let text = escape(&definition.text);
            match text.strip_suffix('.') {
                Some(body) => format!("{body}{cite}."),
                None => format!("{text}{cite}"),
            }
        }
    }
}

/// `\textbf{name} (k seeds)` of agent `k` (the seeds themselves are in the details).
fn agent_label(model: &Model, k: usize) -> String {
    let name = escape(&model.summaries[k].agent);
    match &model.seeds {
        Some(seeds) => {
            let n = seeds.seed_lists[k].len();
            format!(
                r"\textbf{{{name}}} ({n} seed{})",
                if n == 1 { "" } else { "s" }
            )
        }
        None => format!(r"\textbf{{{name}}}"),
    }
}

/// How the summary sets its lists for `agents` agents: one column in the text's size for
/// a few, two columns smaller for more, smaller still past eight.
fn list_size(agents: usize) -> Option<&'static str> {
    match agents {
        0..=COMPACT_AFTER => None,
        5..=8 => Some(r"\footnotesize"),
        _ => Some(r"\scriptsize"),
    }
}

/// A bulleted list, in two columns in a smaller `size` when there are many agents.
fn list(items: &[String], size: Option<&str>) -> String {
    let mut s = String::new();
    if let Some(size) = size {
        let _ = writeln!(s, "{{{size}\n\\begin{{multicols}}{{2}}");
    }
    s.push_str("\\begin{itemize}[leftmargin=*, noitemsep, nolistsep]\n");
    for item in items {
        let _ = writeln!(s, "  \\item {item}");
    }
    s.push_str("\\end{itemize}\n");
    if size.is_some() {
        s.push_str("\\end{multicols}}\n");
    }
    s
}

fn preamble() -> String {
    r"% bsuite report preamble, written by `bsuite report` (bsuite-rs).
% \input this file before \begin{document}. The host document must load hyperref
% (for \url and \href). Set the macros marked `user' before the \input to override them.
% The figures are PDF 1.7; pdfTeX writes 1.5 unless told otherwise.
\ifdefined\pdfminorversion\pdfminorversion=7\fi
% Each figure is a PDF with its own transparency group; pdfTeX's note on every one says
% nothing to act on.
\ifdefined\pdfsuppresswarningpagegroup\pdfsuppresswarningpagegroup=1\fi
\usepackage{caption}
\usepackage{changepage}
\usepackage{enumitem}
\usepackage{graphicx}
\usepackage{multicol}

\newcommand{\bsuite}{\texttt{bsuite}}
\newcommand{\bsuiteversion}{\texttt{bsuite2019}}
\newcommand{\bsuitegithub}{\url{github.com/deepmind/bsuite}}

% The report's title: a heavy rule, the section heading centred, a light rule.
\newcommand{\bsuitetitle}[1]{%
  \noindent\rule{\textwidth}{3pt}\vspace{-7mm}
  \section[bsuite report: #1]{\hfil\large\normalfont\bsuite{} report: #1\hfil}
  \vspace{-4.5mm}\noindent\rule{\textwidth}{0.8pt}\vspace{-1mm}}

% The abstract; its optional argument is its size (smaller for many agents).
\newcommand{\bsuiteabstract}[1][\small]{%
  \begin{adjustwidth}{1cm}{1cm}#1
  The Behaviour Suite for Reinforcement Learning (\bsuite) is a set of small, targeted
  experiments, each probing one core capability of a reinforcement learning agent and
  reducing its behaviour to a score between 0 and 1. This report summarises agent
  performance on \bsuiteversion{} \cite{osband2019bsuite}, from \bsuitegithub{}.
  \end{adjustwidth}}

% Every figure is drawn at the size it prints: it is placed at that size (or shrunk to the
% line if a host's line is narrower), and its placed width goes to the log, where
% `bsuite report-check` checks that no text prints below 6 pt.
\newsavebox{\bsuitebox}
\newcommand{\bsuitefigure}[1]{%
  \sbox{\bsuitebox}{\includegraphics{#1}}%
  \ifdim\wd\bsuitebox>\linewidth\sbox{\bsuitebox}{\includegraphics[width=\linewidth]{#1}}\fi
  \typeout{bsuite-figure: #1 \the\wd\bsuitebox}%
  \usebox{\bsuitebox}}

% user: the directory holding this report, relative to the host document.
\providecommand{\bsuitereportdir}{.}
% user: link to the full online report; takes the link text as its argument.
\providecommand{\bsuitecolab}{\href{YOUR-LINK-HERE}}
% user: the two summary figures.
\providecommand{\bsuiteradarplot}{\bsuitereportdir/images/radar_plot}
\providecommand{\bsuitescoregrid}{\bsuitereportdir/images/score_grid}
"
    .to_string()
}

fn appendix(model: &Model) -> String {
    let mut s = String::new();
    s.push_str(
        r"% bsuite report appendix, written by `bsuite report` (bsuite-rs).
% \input this file after \appendix; the preamble must be loaded.
% Fill in the results commentary below (and the agent definitions, if you wish).
\newpage\onecolumn
",
    );
    let _ = writeln!(s, r"\bsuitetitle{{{}}}", escape(&model.title));
    let abstract_size = if model.summaries.len() > 8 {
        r"\footnotesize"
    } else {
        r"\small"
    };
    let _ = write!(
        s,
        r"\label{{app:bsuite-report}}
\bsuiteabstract[{abstract_size}]
"
    );
    s.push_str(
        r"
\subsection{Agent definition}
\label{app:bsuite-agents}
",
    );
    if model.definitions.is_empty() {
        s.push_str(
            r"% Say where the implementations come from and how they were configured.
",
        );
    }
    let compact = list_size(model.summaries.len());
    let definitions: Vec<String> = (0..model.summaries.len())
        .map(|k| format!("{}: {}", agent_label(model, k), definition(model, k)))
        .collect();
    s.push_str(&list(&definitions, compact));
    s.push_str(
        r"
\subsection{Summary scores}
\label{app:bsuite-scores}
Figure~\ref{fig:radar} averages the scores of each key issue's experiments and
Figure~\ref{fig:grid} gives each experiment's;
",
    );
    let link = match &model.link {
        Some(link) => format!(
            r"\href{{{}}}{{{}}}",
            link.replace('%', r"\%").replace('#', r"\#"),
            escape(link)
        ),
        None => r"\bsuitecolab{this link}".to_string(),
    };
    let radar = sentences(&[
        "Mean score of each key issue",
        model
            .radar
            .title
            .strip_prefix("Mean score per key issue.")
            .unwrap_or(""),
    ]);
    let _ = write!(
        s,
        r"Section~\ref{{app:bsuite-details}} has tables and plots, and {link} the full analysis.

\par\medskip\noindent
\begin{{minipage}}[t]{{0.49\linewidth}}
  \vspace{{0pt}}\centering
  \bsuitefigure{{\bsuiteradarplot}}
  \captionsetup{{hypcap=false}}\captionof{{figure}}{{{}}}
  \label{{fig:radar}}
\end{{minipage}}\hfill
\begin{{minipage}}[t]{{0.49\linewidth}}
  \vspace{{0pt}}\centering
  \bsuitefigure{{\bsuitescoregrid}}
  \captionsetup{{hypcap=false}}\captionof{{figure}}{{{}}}
  \label{{fig:grid}}
\end{{minipage}}

\subsection{{Results commentary}}
\label{{app:bsuite-commentary}}
% One bullet per agent: what it does well, where it fails, and why.
",
        escape(&radar),
        escape(&model.grid.title)
    );
    let mut comments: Vec<String> = model
        .summaries
        .iter()
        .map(|a| {
            format!(
                r"\textbf{{{}}}: comment on its results here.",
                escape(&a.agent)
            )
        })
        .collect();
    // The summary ends with its last line: the label goes there, not after the list, where a
    // page break may fall before it.
    if let Some(last) = comments.last_mut() {
        last.push_str(r"\label{app:bsuite-summary-end}");
    }
    s.push_str(&list(&comments, compact));
    s.push_str(
        r"

% Score tables and the standard plots of every experiment; remove this line to keep the
% report to its one summary page.
\input{\bsuitereportdir/bsuite_details}
\newpage
",
    );
    s
}

/// A score as a table cell: two decimals, `$^\dagger$` when unfinished.
fn score_cell(score: Option<Score>, finished: bool) -> String {
    match score {
        None => "--".into(),
        Some(Score::Value(v)) if finished => format!("{v:.2}"),
        Some(Score::Value(v)) => format!(r"{v:.2}$^\dagger$"),
        Some(Score::Undefined(_)) => "n/a".into(),
    }
}

/// `0.48` as `.48` (and `-0.05` as `-.05`): intervals in tables read shorter so.
fn short(v: f64) -> String {
    // A value that rounds to zero is zero, not "-0.00".
    let v = if v.abs() < 0.005 { 0.0 } else { v };
    let text = format!("{v:.2}");
    text.replacen("0.", ".", 1)
}

/// A cell with the interval after the score in a smaller size, where there is one.
fn with_interval(cell: String, interval: Option<Estimate>) -> String {
    match interval {
        Some(e) if !e.value.is_nan() => {
            format!(r"{cell} {{\scriptsize[{}, {}]}}", short(e.lo), short(e.hi))
        }
        _ => cell,
    }
}

/// A cell with the interval below the score in a smaller size, where there is one (for
/// tables with many columns).
fn with_interval_below(cell: String, interval: Option<Estimate>) -> String {
    match interval {
        Some(e) if !e.value.is_nan() => format!(
            r"\begin{{tabular}}[t]{{@{{}}c@{{}}}}{cell}\\[-1pt]{{\scriptsize[{}, {}]}}\end{{tabular}}",
            short(e.lo),
            short(e.hi)
        ),
        _ => cell,
    }
}

/// Agent `k`'s intervals over seeds, where it has two or more seeds.
fn intervals<'m>(model: &'m Model, k: usize) -> Option<&'m crate::seeds::AgentIntervals> {
    model.seeds.as_ref()?.stats.intervals.get(k)?.as_ref()
}

/// Rough printed width, in points, of `text` at `size` points (DejaVu-like metrics are
/// about half an em a character): enough to split tables before LaTeX would overflow.
fn rough_width(text: &str, size: f64) -> f64 {
    text.chars().count() as f64 * 0.5 * size
}

/// The agents split into groups whose columns, each `column` points wide, fit the narrowest
/// text width beside `labels` points of row labels; groups of even size.
fn column_groups(agents: usize, labels: f64, column: f64) -> Vec<Range<usize>> {
    let most = (((TEXT_WIDTH_POINTS - labels) / column).floor() as usize).max(1);
    let groups = agents.div_ceil(most).max(1);
    let size = agents.div_ceil(groups);
    (0..groups)
        .map(|g| g * size..((g + 1) * size).min(agents))
        .filter(|r| !r.is_empty())
        .collect()
}

/// Column headers for agents: upright when the names fit their columns, else turned up.
fn agent_headers(model: &Model, range: Range<usize>, column: f64) -> String {
    let names: Vec<String> = model.summaries[range]
        .iter()
        .map(|a| escape(&a.agent))
        .collect();
    let upright = model
        .summaries
        .iter()
        .all(|a| rough_width(&a.agent, 8.0) <= column - 8.0);
    names
        .iter()
        .map(|n| {
            if upright {
                n.clone()
            } else {
                format!(r"\rotatebox{{90}}{{{n}}}")
            }
        })
        .collect::<Vec<_>>()
        .join(" & ")
}

/// One table of a split, in an unbreakable block so its caption stays with it.
fn table(caption: &str, label: Option<&str>, spec: &str, header: &str, rows: &str) -> String {
    format!(
        r"
\par\medskip\noindent\begin{{minipage}}{{\linewidth}}
\centering\footnotesize\setlength{{\tabcolsep}}{{4pt}}
\captionsetup{{hypcap=false}}\captionof{{table}}{{{caption}}}{}
\begin{{tabular}}{{{spec}}}
\hline
{header} \\
\hline
{rows}\hline
\end{{tabular}}
\end{{minipage}}
",
        label.map_or(String::new(), |l| format!(r"\label{{{l}}}"))
    )
}

/// The caption of the `g`-th of `groups` tables of one kind: "(agents a to b)" when split.
fn part(groups: &[Range<usize>], g: usize, model: &Model) -> String {
    if groups.len() == 1 {
        return String::new();
    }
    let range = &groups[g];
    format!(
        " (part {} of {}: {} to {})",
        g + 1,
        groups.len(),
        escape(&model.summaries[range.start].agent),
        escape(&model.summaries[range.end - 1].agent)
    )
}

fn score_tables(model: &Model) -> String {
    let agents = model.summaries;
    let over_seeds = model.seeds.is_some();
    let column = if over_seeds { 66.0 } else { 28.0 };
    let seeds_words = match &model.seeds {
        Some(seeds) => format!(
            r" Agents with several seeds: the mean over seeds, with its {:.0}\% stratified \
             bootstrap interval.",
            100.0 * seeds.stats.bootstrap.confidence
        ),
        None => String::new(),
    };
    let mut s = String::new();
    let groups = column_groups(agents.len(), 80.0, column);
    for (g, range) in groups.iter().enumerate() {
        let mut rows = String::new();
        for (t, tag) in RADAR_TAGS.into_iter().enumerate() {
            let cells: Vec<String> = range
                .clone()
                .map(|k| {
                    let cell = score_cell(agents[k].tag(tag).map(|t| t.score), true);
                    with_interval(cell, intervals(model, k).map(|i| i.tags[t]))
                })
                .collect();
            let _ = writeln!(rows, r"{} & {} \\", escape(tag.as_str()), cells.join(" & "));
        }
        s.push_str(&table(
            &format!(
                "Mean score per key issue{} (experiments with a score only).{seeds_words}",
                part(&groups, g, model)
            ),
            (g == 0).then_some("tab:bsuite-tags"),
            &format!("l{}", "c".repeat(range.len())),
            &format!(
                "key issue & {}",
                agent_headers(model, range.clone(), column)
            ),
            &rows,
        ));
    }
    let groups = column_groups(agents.len(), 90.0, column);
    for (g, range) in groups.iter().enumerate() {
        let mut rows = String::new();
        let mut previous = None;
        for experiment in in_plot_order() {
            let name = experiment.name;
            // A rule between types: bsuite's order groups experiments by type.
            let kind = experiment.kind();
            if previous.is_some_and(|p| p != kind) {
                rows.push_str("\\hline\n");
            }
            previous = Some(kind);
            let cells: Vec<String> = range
                .clone()
                .map(|k| {
                    let entry = agents[k].experiment(name);
                    let cell = score_cell(
                        entry.map(|e| e.score),
                        entry.is_some_and(|e| e.progress.finished()),
                    );
                    let interval = intervals(model, k)
                        .and_then(|i| i.experiments.iter().find(|(e, _)| *e == name))
                        .map(|(_, e)| *e);
                    with_interval(cell, interval)
                })
                .collect();
            let _ = writeln!(rows, r"{} & {} \\", escape(name), cells.join(" & "));
        }
        s.push_str(&table(
            &format!(
                r"Score of each experiment{}, by type (basic, noise, scale, exploration, credit \
                 assignment, memory). $^\dagger$: some runs have not reached the \
                 experiment's episode count; --: no results; n/a: not enough data for a \
                 score.{seeds_words}",
                part(&groups, g, model)
            ),
            (g == 0).then_some("tab:bsuite-experiments"),
            &format!("l{}", "c".repeat(range.len())),
            &format!(
                "experiment & {}",
                agent_headers(model, range.clone(), column)
            ),
            &rows,
        ));
    }
    s
}

fn details(model: &Model) -> String {
    let mut s = String::new();
    s.push_str(
        r"% bsuite report details, written by `bsuite report` (bsuite-rs); input by the appendix.
\clearpage
\subsection{Scores and standard analysis}
\label{app:bsuite-details}
Table~\ref{tab:bsuite-tags} gives the mean score of each key issue and
Table~\ref{tab:bsuite-experiments} the score of each experiment. The figures that follow are
the standard analysis plots of each experiment.
",
    );
    s.push_str(&score_tables(model));
    let incomplete: Vec<String> = model
        .summaries
        .iter()
        .zip(&model.coverage)
        .filter(|(_, c)| !c.is_complete())
        .map(|(a, c)| {
            format!(
                r"\textbf{{{}}}: {}.",
                escape(&a.agent),
                escape_breakable(&c.lines().join("; "))
            )
        })
        .collect();
    if !incomplete.is_empty() {
        // Ragged: a list of long experiment names cannot be justified on 5.5 in without a
        // line running past the margin.
        let _ = writeln!(
            s,
            "\n\\par\\medskip\n{{\\raggedright Incomplete results. {}\\par}}\n",
            incomplete.join(" ")
        );
    }
    s.push_str(&figure_block(&model.bar, "fig:bsuite-bars", None));
    if let Some(seeds) = &model.seeds {
        s.push_str(&seeds_details(model, seeds));
    }
    for section in &model.experiments {
        s.push_str(&experiment_section(model, section));
    }
    s.push_str("\n\\label{app:bsuite-end}\n");
    s
}

/// A figure at its natural size with its caption, in an unbreakable block.
fn figure_block(figure: &FigureFile, label: &str, prefix: Option<&str>) -> String {
    let caption = sentences(&[
        &escape_breakable(&figure.title),
        &figure
            .note
            .as_deref()
            .map(escape_breakable)
            .unwrap_or_default(),
    ]);
    format!(
        "\n\\par\\medskip\\noindent\\begin{{minipage}}{{\\linewidth}}\\centering\n\\bsuitefigure{{\\bsuitereportdir/{}}}\n\\captionsetup{{hypcap=false}}\\captionof{{figure}}{{{}{caption}}}\n\\label{{{label}}}\n\\end{{minipage}}\n",
        figure.stem,
        prefix.unwrap_or_default()
    )
}

fn experiment_section(model: &Model, section: &ExperimentSection) -> String {
    let name = section.experiment.name;
    let mut s = String::new();
    let scores: Vec<String> = model
        .summaries
        .iter()
        .enumerate()
        .filter_map(|(k, a)| {
            let e = a.experiment(name)?;
            let cell = score_cell(Some(e.score), e.progress.finished());
            let interval = intervals(model, k)
                .and_then(|i| i.experiments.iter().find(|(n, _)| *n == name))
                .filter(|(_, e)| !e.value.is_nan())
                .map_or(String::new(), |(_, e)| {
                    format!(" [{:.2}, {:.2}]", e.lo, e.hi)
                });
            Some(format!("{} {cell}{interval}", escape_breakable(&a.agent)))
        })
        .collect();
    // The heading, the text and the first figure stay together; later figures follow in
    // blocks of their own.
    let _ = write!(
        s,
        "\n\\par\\bigskip\\noindent\\begin{{minipage}}{{\\linewidth}}\n\\textbf{{\\large {}}}\\par\\smallskip\n{}\\par\n",
        escape(name),
        escape(&section.description)
    );
    if !scores.is_empty() {
        let _ = writeln!(s, "Score: {}.\\par", scores.join(", "));
    }
    let prefix = format!(r"\texttt{{{}}}: ", escape(name));
    match section.figures.split_first() {
        None => s.push_str("\\end{minipage}\n"),
        Some((first, rest)) => {
            let block = figure_block(
                first,
                &format!("fig:bsuite-{}", figure_slug(first)),
                Some(&prefix),
            );
            // The first block's minipage opens inside the section's.
            s.push_str(&block);
            s.push_str("\\end{minipage}\n");
            for figure in rest {
                s.push_str(&figure_block(
                    figure,
                    &format!("fig:bsuite-{}", figure_slug(figure)),
                    Some(&prefix),
                ));
            }
        }
    }
    s
}

/// The figure's file name: `deep_sea_scaling` for `images/deep_sea/deep_sea_scaling`.
fn figure_slug(figure: &FigureFile) -> &str {
    figure.stem.rsplit('/').next().unwrap_or(&figure.stem)
}

/// The performance profile and, for every pair of agents that both have seeds, the tables
/// of P(A > B) and of the difference of means per key issue.
fn seeds_details(model: &Model, seeds: &SeedsModel) -> String {
    let stats = &seeds.stats;
    let mut s = figure_block(&seeds.profile, "fig:bsuite-profile", None);
    let comparable: Vec<_> = stats.pairs.iter().filter(|p| p.tags.is_some()).collect();
    let several: Vec<&str> = (model.summaries.iter().zip(&stats.counts))
        .filter(|(_, n)| **n > 1)
        .map(|(a, _)| a.agent.as_str())
        .collect();
    let one: Vec<&str> = (model.summaries.iter().zip(&stats.counts))
        .filter(|(_, n)| **n < 2)
        .map(|(a, _)| a.agent.as_str())
        .collect();
    if comparable.is_empty() {
        let _ = writeln!(
            s,
            "\n\\par\\medskip\\noindent No pair of agents is compared over seeds: a comparison \
             needs two or more seeds a side, and {}.",
            match several.as_slice() {
                [] => "no agent has them".to_string(),
                [only] => format!("only {} has them", escape(only)),
                _ => unreachable!("two agents with seeds make a comparable pair"),
            }
        );
        return s;
    }
    let tags: Vec<String> = RADAR_TAGS
        .iter()
        .map(|t| format!(r"\rotatebox{{90}}{{{}}}", escape(t.as_str())))
        .collect();
    let left_out = if one.is_empty() {
        String::new()
    } else {
        format!(
            " Agents with one seed ({}) have no spread to compare and are left out.",
            escape(&one.join(", "))
        )
    };
    for (what, label, pick) in [
        (
            "P(A $>$ B)",
            "tab:bsuite-improvement",
            (|c: &PairComparison| c.improvement) as fn(&PairComparison) -> Estimate,
        ),
        ("Mean score of A minus B", "tab:bsuite-difference", |c| {
            c.difference
        }),
    ] {
        let mut rows = String::new();
        for row in &comparable {
            let Some(tags) = &row.tags else { continue };
            let cells: Vec<String> = tags
                .iter()
                .map(|c| {
                    let e = pick(c);
                    if e.value.is_nan() {
                        "n/a".into()
                    } else {
                        with_interval_below(format!("{:.2}", e.value), Some(e))
                    }
                })
                .collect();
            let _ = writeln!(
                rows,
                r"\begin{{tabular}}[t]{{@{{}}l@{{}}}}{}\\{}\end{{tabular}} & {} \\",
                escape(&row.a),
                escape(&row.b),
                cells.join(" & ")
            );
        }
        s.push_str(&table(
            &format!(
                "{what} per key issue, A above B. {}{left_out}",
                escape(&crate::seeds::pairs_caption(stats))
            ),
            Some(label),
            &format!("l{}", "c".repeat(RADAR_TAGS.len())),
            &format!("A, B & {}", tags.join(" & ")),
            &rows,
        ));
    }
    s
}

fn standalone() -> String {
    r"% A standalone bsuite report, written by `bsuite report` (bsuite-rs).
% Build: pdflatex bsuite_report && bibtex bsuite_report && pdflatex bsuite_report && pdflatex bsuite_report
\documentclass[10pt]{article}
\input{bsuite_preamble}
\usepackage[dvipsnames]{xcolor}
\usepackage[margin=2cm]{geometry}
\usepackage[colorlinks=true, linkcolor={rgb:red,0;green,0;blue,140}, citecolor={rgb:red,0;green,0;blue,140}, urlcolor={rgb:red,0;green,0;blue,140}]{hyperref}
\setlength{\parskip}{4pt}
\setlength{\parindent}{0pt}

\begin{document}
\appendix
\input{bsuite_appendix}
\bibliographystyle{plain}
\bibliography{references}
\end{document}
"
    .to_string()
}

fn bibliography() -> String {
    r"@inproceedings{osband2019bsuite,
  title     = {Behaviour Suite for Reinforcement Learning},
  author    = {Osband, Ian and Doron, Yotam and Hessel, Matteo and Aslanides, John and
               Sezener, Eren and Saraiva, Andre and McKinney, Katrina and Lattimore, Tor and
               Szepesv{\'a}ri, Csaba and Singh, Satinder and Van Roy, Benjamin and
               Sutton, Richard and Silver, David and van Hasselt, Hado},
  booktitle = {International Conference on Learning Representations},
  year      = {2020}
}

@article{mnih2015human,
  title   = {Human-level control through deep reinforcement learning},
  author  = {Mnih, Volodymyr and Kavukcuoglu, Koray and Silver, David and Rusu, Andrei A. and
             Veness, Joel and Bellemare, Marc G. and Graves, Alex and Riedmiller, Martin and
             Fidjeland, Andreas K. and Ostrovski, Georg and others},
  journal = {Nature},
  volume  = {518},
  number  = {7540},
  pages   = {529--533},
  year    = {2015}
}

@inproceedings{osband2016deep,
  title     = {Deep Exploration via Bootstrapped {DQN}},
  author    = {Osband, Ian and Blundell, Charles and Pritzel, Alexander and Van Roy, Benjamin},
  booktitle = {Advances in Neural Information Processing Systems},
  pages     = {4026--4034},
  year      = {2016}
}

@inproceedings{osband2018rpf,
  title     = {Randomized Prior Functions for Deep Reinforcement Learning},
  author    = {Osband, Ian and Aslanides, John and Cassirer, Albin},
  booktitle = {Advances in Neural Information Processing Systems},
  pages     = {8617--8629},
  year      = {2018}
}

@inproceedings{mnih2016asynchronous,
  title     = {Asynchronous Methods for Deep Reinforcement Learning},
  author    = {Mnih, Volodymyr and Badia, Adria Puigdomenech and Mirza, Mehdi and
               Graves, Alex and Lillicrap, Timothy and Harley, Tim and Silver, David and
               Kavukcuoglu, Koray},
  booktitle = {International Conference on Machine Learning},
  pages     = {1928--1937},
  year      = {2016}
}
"
    .to_string()
}

/// The LaTeX files of a report as `(file name, contents)`.
pub(crate) fn files(model: &Model) -> Vec<(&'static str, String)> {
    vec![
        (PREAMBLE, preamble()),
        (APPENDIX, appendix(model)),
        (DETAILS, details(model)),
        (STANDALONE, standalone()),
        (BIBLIOGRAPHY, bibliography()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_split_so_that_their_columns_fit_the_narrowest_text() {
        assert_eq!(column_groups(4, 160.0, 44.0), vec![0..4]);
        let groups = column_groups(12, 160.0, 44.0);
        assert!(groups
            .iter()
            .all(|g| (g.len() as f64) * 44.0 + 160.0 <= TEXT_WIDTH_POINTS));
        assert_eq!(groups.iter().map(|g| g.len()).sum::<usize>(), 12);
        assert_eq!(groups.first().map(|g| g.start), Some(0));
    }

    #[test]
    fn intervals_read_short() {
        assert_eq!(short(0.484), ".48");
        assert_eq!(short(-0.05), "-.05");
        assert_eq!(short(1.0), "1.00");
        assert_eq!(short(-0.001), ".00");
    }
}
