//! The conference appendix: a preamble, a one-page appendix with placeholders for the agent
//! definitions and the commentary, a details file (score tables and every per-experiment
//! figure), a standalone host document and the bibliography.
//!
//! The preamble and appendix mirror the structure of bsuite's `reports/` templates so they
//! drop into the ICLR, NeurIPS and ICML styles the same way: `\input` the preamble before
//! `\begin{document}` and the appendix after `\appendix`. Paths are relative to
//! `\bsuitereportdir` (default `.`), so a host document elsewhere sets that macro first.

use std::fmt::Write as _;

use bsuite_analysis::experiments::in_plot_order;
use bsuite_analysis::Score;

use bsuite_analysis::seeds::PairComparison;
use bsuite_analysis::stats::Estimate;

use crate::model::{FigureFile, Model, SeedsModel};
use bsuite_analysis::plot::RADAR_TAGS;

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

/// Escapes text for LaTeX's text mode.
///
/// ```
/// assert_eq!(bsuite_report::latex::escape("deep_sea 50%"), r"deep\_sea 50\%");
/// ```
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str(r"\textbackslash{}"),
            '&' | '%' | '$' | '#' | '_' | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            '~' => out.push_str(r"\textasciitilde{}"),
            '^' => out.push_str(r"\textasciicircum{}"),
            '<' => out.push_str(r"\textless{}"),
            '>' => out.push_str(r"\textgreater{}"),
            _ => out.push(c),
        }
    }
    out
}

/// A one-line description (with citation) of bsuite's baseline agents, by their usual names.
fn known_agent(name: &str) -> Option<&'static str> {
    Some(match name {
        "random" => r"picks an action uniformly at random at every step.",
        "dqn" => r"deep Q-networks \cite{mnih2015human}.",
        "boot_dqn" | "bootstrapped_dqn" => {
            r"an ensemble of DQN heads trained on bootstrapped data, each with a fixed random prior network \cite{osband2016deep,osband2018rpf}."
        }
        "actor_critic" => {
            r"advantage actor-critic with a feedforward network \cite{mnih2016asynchronous}."
        }
        "actor_critic_rnn" => {
            r"advantage actor-critic with a recurrent (LSTM) network \cite{mnih2016asynchronous}."
        }
        _ => return None,
    })
}

fn preamble(model: &Model) -> String {
    r"% bsuite report preamble, written by `cargo xtask report` (bsuite-rs).
% \input this file before \begin{document}. The host document must load hyperref
% (for \url and \href). Set the macros marked `user' before the \input to override them.
\usepackage{caption}
\usepackage{changepage}
\usepackage{enumitem}
\usepackage{graphicx}

\newcommand{\bsuite}{\texttt{bsuite}}
\newcommand{\bsuiteversion}{\texttt{bsuite2019}}
\newcommand{\bsuitegithub}{\url{github.com/deepmind/bsuite}}

% The report's title: a heavy rule, the section heading centred, a light rule.
\newcommand{\bsuitetitle}[1]{%
  \noindent\rule{\textwidth}{4pt}\vspace{-5mm}
  \section[bsuite report: #1]{\hfil\LARGE\normalfont\bsuite{} report: #1\hfil}
  \vspace{-2mm}\noindent\rule{\textwidth}{1pt}\vspace{1mm}}

\newcommand{\bsuiteabstract}{%
  \begin{adjustwidth}{1.5cm}{1.5cm}\small
  The Behaviour Suite for Reinforcement Learning (\bsuite) is a set of small, targeted
  experiments, each probing one core capability of a reinforcement learning agent: basic
  learning, robustness to reward noise and scale, exploration, credit assignment, memory and
  generalization. Every experiment sweeps a difficulty parameter and reduces the agent's
  behaviour to a score between 0 and 1, so that agents can be compared like for like. This
  report summarises agent performance on \bsuiteversion{}, obtained by running the experiments
  from \bsuitegithub{} \cite{osband2019bsuite}.
  \end{adjustwidth}}

% user: the directory holding this report, relative to the host document.
\providecommand{\bsuitereportdir}{.}
% user: link to the full online report; takes the link text as its argument.
\providecommand{\bsuitecolab}{\href{YOUR-LINK-HERE}}
% user: the two summary figures.
\providecommand{\bsuiteradarplot}{\bsuitereportdir/images/radar_plot}
\providecommand{\bsuitebarplot}{\bsuitereportdir/images/BAR_PLOT}
"
    // Several agents: one facet per experiment with a bar per agent reads at this size,
    // while one facet per agent grows too tall to.
    .replace(
        "BAR_PLOT",
        if model.compare.is_some() {
            "bar_plot_compare"
        } else {
            "bar_plot"
        },
    )
}

fn appendix(model: &Model) -> String {
    let mut s = String::new();
    s.push_str(
        r"% bsuite report appendix, written by `cargo xtask report` (bsuite-rs).
% \input this file after \appendix; the preamble must be loaded.
% Fill in the agent definitions and the results commentary below.
\newpage\onecolumn
\ifdefined\newgeometry\newgeometry{top=20mm, bottom=20mm, left=20mm, right=20mm}\fi
",
    );
    let _ = writeln!(s, r"\bsuitetitle{{{}}}", escape(&model.title));
    s.push_str(
        r"\label{app:bsuite-report}
\bsuiteabstract

\subsection{Agent definition}
\label{app:bsuite-agents}
",
    );
    if model.definitions.is_empty() {
        s.push_str(
            r"All agents were run on every \bsuite{} experiment with their default settings.
% Say where the implementations come from and how they were configured.
A short summary of each agent follows.
\begin{itemize}[noitemsep, nolistsep]
",
        );
    } else {
        s.push_str(
            r"Each agent and its configuration follow.
\begin{itemize}[noitemsep, nolistsep]
",
        );
    }
    for (k, summary) in model.summaries.iter().enumerate() {
        let name = escape(&summary.agent);
        // Over seeds, the count goes beside the name: every number of the report rests on it.
        let count = match &model.seeds {
            Some(seeds) => format!(
                " ({})",
                escape(&crate::seeds::seeds_text(&seeds.seed_lists[k]))
            ),
            None => String::new(),
        };
        if let Some(text) = model.definitions.get(&summary.agent) {
            let _ = writeln!(s, r"  \item \textbf{{{name}}}{count}: {}", escape(text));
            continue;
        }
        match known_agent(&summary.agent) {
            Some(text) => {
                let _ = writeln!(s, r"  \item \textbf{{{name}}}{count}: {text}");
            }
            None => {
                let _ = writeln!(
                    s,
                    r"  \item \textbf{{{name}}}{count}: describe this agent here (algorithm, network, key settings)."
                );
            }
        }
    }
    s.push_str(
        r"\end{itemize}

\subsection{Summary scores}
\label{app:bsuite-scores}
Each \bsuite{} experiment gives a score between 0 and 1. Figure~\ref{fig:radar} averages
these scores over the experiments of each key issue, as the standard analysis does;
Figure~\ref{fig:bar} shows every experiment's score.
",
    );
    match &model.link {
        Some(link) => {
            let _ = writeln!(
                s,
                r"The full analysis of every experiment is at \href{{{}}}{{{}}}.",
                link.replace('%', r"\%").replace('#', r"\#"),
                escape(link)
            );
        }
        None => s.push_str(
            r"The full analysis of every experiment is at \bsuitecolab{this link}.
",
        ),
    }
    // Every agent adds a line to the definitions and one to the commentary; the two
    // figures give that room back so the summary stays on one page.
    let figure_height = 60 - 5 * model.summaries.len().saturating_sub(3).min(4);
    let bar_caption = if model.compare.is_some() {
        r"The score of each \bsuite{} experiment, one bar per agent, coloured by agent."
    } else {
        r"The score of each \bsuite{} experiment, coloured by type."
    };
    s.push_str(
        &r"Scores per experiment and the standard plots of each experiment are in
Section~\ref{app:bsuite-details}.

\ifdefined\newgeometry\else\vspace{-2mm}\fi
\begin{figure}[h!]
\begin{minipage}[t]{0.48\textwidth}
  \centering
  \includegraphics[width=\textwidth,height=60mm,keepaspectratio]{\bsuiteradarplot}
  \caption{A snapshot of agent behaviour: the mean score of each key issue.}
  \label{fig:radar}
\end{minipage}
\hfill
\begin{minipage}[t]{0.48\textwidth}
  \centering
  \includegraphics[width=\textwidth,height=60mm,keepaspectratio]{\bsuitebarplot}
  \caption{BAR_CAPTION}
  \label{fig:bar}
\end{minipage}
\end{figure}
\ifdefined\newgeometry\else\vspace{-2mm}\fi

\subsection{Results commentary}
\label{app:bsuite-commentary}
% One bullet per agent: what it does well, where it fails, and why.
\begin{itemize}[leftmargin=*, noitemsep, nolistsep]
"
        .replace("BAR_CAPTION", bar_caption)
        .replace("height=60mm", &format!("height={figure_height}mm")),
    );
    for summary in model.summaries {
        let _ = writeln!(
            s,
            r"  \item \textbf{{{}}}: comment on this agent's results here.",
            escape(&summary.agent)
        );
    }
    s.push_str(
        r"\end{itemize}
\label{app:bsuite-summary-end}

% Score tables and the standard plots of every experiment; remove this line to keep the
% report to its one summary page.
\input{\bsuitereportdir/bsuite_details}
\newpage
",
    );
    s
}

fn score_cell(score: Option<Score>, finished: bool) -> String {
    match score {
        None => "--".into(),
        Some(Score::Value(v)) if finished => format!("{v:.2}"),
        Some(Score::Value(v)) => format!(r"{v:.2}$^\dagger$"),
        Some(Score::Undefined(_)) => "n/a".into(),
    }
}

/// `\includegraphics` of a figure at `width`, at most `height` times the text height.
fn includegraphics(figure: &FigureFile, width: &str, height: &str) -> String {
    format!(
        r"\includegraphics[width={width},height={height}\textheight,keepaspectratio]{{\bsuitereportdir/{}}}",
        figure.stem
    )
}

fn details(model: &Model) -> String {
    let mut s = String::new();
    let agents = model.summaries;
    s.push_str(
        r"% bsuite report details, written by `cargo xtask report` (bsuite-rs); input by the appendix.
\clearpage
\subsection{Scores and standard analysis}
\label{app:bsuite-details}
Table~\ref{tab:bsuite-tags} gives the mean score of each key issue and
Table~\ref{tab:bsuite-experiments} the score of each experiment. The figures that follow are
the standard analysis plots of each experiment.

",
    );
    let columns = "r".repeat(agents.len());
    let header: Vec<String> = agents.iter().map(|a| escape(&a.agent)).collect();
    let _ = write!(
        s,
        r"\begin{{center}}\small
\captionsetup{{hypcap=false}}\captionof{{table}}{{Mean score per key issue (experiments with a score only).{}}}
\label{{tab:bsuite-tags}}
\begin{{tabular}}{{l{columns}}}
\hline
key issue & {} \\
\hline
",
        match &model.seeds {
            Some(seeds) => format!(
                " Agents with several seeds: the mean over seeds, with its {:.0}\\% stratified \
                 bootstrap interval in brackets.",
                100.0 * seeds.stats.bootstrap.confidence
            ),
            None => String::new(),
        },
        header.join(" & ")
    );
    for (t, tag) in RADAR_TAGS.into_iter().enumerate() {
        let cells: Vec<String> = agents
            .iter()
            .enumerate()
            .map(|(k, a)| {
                let cell = score_cell(a.tag(tag).map(|t| t.score), true);
                let interval = (model.seeds.as_ref())
                    .and_then(|seeds| seeds.stats.intervals[k].as_ref())
                    .map(|i| i.tags[t]);
                match interval {
                    Some(e) if !e.value.is_nan() => {
                        format!(r"{cell} {{\scriptsize [{:.2}, {:.2}]}}", e.lo, e.hi)
                    }
                    _ => cell,
                }
            })
            .collect();
        let _ = writeln!(s, r"{} & {} \\", escape(tag.as_str()), cells.join(" & "));
    }
    s.push_str("\\hline\n\\end{tabular}\n\\end{center}\n\n");

    let _ = write!(
        s,
        r"\begin{{center}}\small
\captionsetup{{hypcap=false}}\captionof{{table}}{{Score of each experiment. $^\dagger$: some runs have not reached the
experiment's episode count; --: no results; n/a: not enough data for a score.}}
\label{{tab:bsuite-experiments}}
\begin{{tabular}}{{ll{columns}}}
\hline
experiment & type & {} \\
\hline
",
        header.join(" & ")
    );
    for experiment in in_plot_order() {
        let name = experiment.name;
        let cells: Vec<String> = agents
            .iter()
            .map(|a| {
                let entry = a.experiment(name);
                score_cell(
                    entry.map(|e| e.score),
                    entry.is_some_and(|e| e.progress.finished()),
                )
            })
            .collect();
        let _ = writeln!(
            s,
            r"{} & {} & {} \\",
            escape(name),
            escape(experiment.kind().as_str()),
            cells.join(" & ")
        );
    }
    s.push_str("\\hline\n\\end{tabular}\n\\end{center}\n");
    let incomplete: Vec<String> = agents
        .iter()
        .zip(&model.coverage)
        .filter(|(_, c)| !c.is_complete())
        .map(|(a, c)| {
            format!(
                r"\textbf{{{}}}: {}.",
                escape(&a.agent),
                escape(&c.lines().join("; "))
            )
        })
        .collect();
    if !incomplete.is_empty() {
        let _ = writeln!(s, "\nIncomplete results. {}\n", incomplete.join(" "));
    }

    if let Some(compare) = &model.compare {
        let _ = write!(
            s,
            r"
\begin{{center}}
{}
\captionsetup{{hypcap=false}}\captionof{{figure}}{{Each experiment's score, agents side by side.}}
\label{{fig:bsuite-compare}}
\end{{center}}
",
            includegraphics(compare, r"\linewidth", "0.62")
        );
    }

    if let Some(seeds) = &model.seeds {
        s.push_str(&seeds_details(model, seeds));
    }

    for section in &model.experiments {
        let name = section.experiment.name;
        // One unbreakable block per experiment, so its heading, text and plots stay together:
        // the plots in a grid (two a row, or one a row when they hold several agents' panels
        // side by side) under one caption.
        let _ = write!(
            s,
            "\n\\par\\bigskip\\noindent\\begin{{minipage}}{{\\linewidth}}\n\\textbf{{\\large {}}}\\par\\smallskip\n{}\n",
            escape(name),
            escape(&section.description)
        );
        let scores: Vec<String> = agents
            .iter()
            .filter_map(|a| {
                let e = a.experiment(name)?;
                Some(format!(
                    "{} {}",
                    escape(&a.agent),
                    score_cell(Some(e.score), e.progress.finished())
                ))
            })
            .collect();
        if !scores.is_empty() {
            let _ = writeln!(s, "Score: {}.", scores.join(", "));
        }
        s.push_str("\\par\\medskip\n\\centering\n");
        let is_wide = |f: &FigureFile| f64::from(f.size.0) > 2.0 * f64::from(f.size.1);
        let wide_rows = section.figures.iter().filter(|f| is_wide(f)).count();
        let half_rows = (section.figures.len() - wide_rows).div_ceil(2);
        // Keep the whole block, text and caption included, within about 80% of a page.
        let row_height = (0.72 / (wide_rows + half_rows).max(1) as f64).min(0.26);
        let mut in_row = 0;
        for figure in &section.figures {
            let wide = is_wide(figure);
            if wide || in_row == 2 {
                if in_row > 0 {
                    s.push_str("\\par\\medskip\n");
                }
                in_row = 0;
            } else if in_row == 1 {
                s.push_str("\\hfill\n");
            }
            let width = if wide {
                r"\linewidth"
            } else {
                r"0.49\linewidth"
            };
            let height = format!("{row_height:.3}");
            let _ = writeln!(
                s,
                "\\begin{{minipage}}[t]{{{width}}}\\centering\n{}\n\\end{{minipage}}%",
                includegraphics(figure, r"\linewidth", &height)
            );
            in_row = if wide { 2 } else { in_row + 1 };
        }
        if section.figures.is_empty() {
            s.push_str("\\end{minipage}\n");
            continue;
        }
        let notes: Vec<String> = section
            .figures
            .iter()
            .filter_map(|f| f.note.as_ref().map(|n| escape(n)))
            .collect();
        let titles: Vec<String> = section.figures.iter().map(|f| escape(&f.title)).collect();
        let _ = write!(
            s,
            "\\par\\smallskip\n\\captionsetup{{hypcap=false}}\\captionof{{figure}}{{\\texttt{{{}}}: {}.{}}}\n\\label{{fig:bsuite-{name}}}\n\\end{{minipage}}\n",
            escape(name),
            titles.join("; "),
            if notes.is_empty() {
                String::new()
            } else {
                format!(" {}", notes.join(" "))
            }
        );
    }
    s.push_str("\n\\label{app:bsuite-end}\n");
    s
}

/// The performance profile and, for every pair of agents, the tables of P(A > B) and of
/// the difference of means per key issue.
fn seeds_details(model: &Model, seeds: &SeedsModel) -> String {
    let stats = &seeds.stats;
    let mut s = String::new();
    let _ = write!(
        s,
        r"
\begin{{center}}
{}
\captionsetup{{hypcap=false}}\captionof{{figure}}{{{}}}
\label{{fig:bsuite-profile}}
\end{{center}}
",
        includegraphics(&seeds.profile, r"0.7\linewidth", "0.4"),
        escape(&seeds.profile.title)
    );
    let columns = "c".repeat(RADAR_TAGS.len());
    let tags: Vec<String> = RADAR_TAGS.iter().map(|t| escape(t.as_str())).collect();
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
        let _ = write!(
            s,
            r"
\begin{{center}}\small
\captionsetup{{hypcap=false}}\captionof{{table}}{{{what} per key issue. {}}}
\label{{{label}}}
\resizebox{{\linewidth}}{{!}}{{%
\begin{{tabular}}{{ll{columns}}}
\hline
A & B & {} \\
\hline
",
            escape(&crate::seeds::pairs_caption(stats)),
            tags.join(" & ")
        );
        for row in &stats.pairs {
            let cells = match &row.tags {
                Some(comparisons) => comparisons
                    .iter()
                    .map(|c| escape(&crate::seeds::estimate_text(&pick(c))))
                    .collect::<Vec<_>>()
                    .join(" & "),
                None => {
                    let count = |name: &str| {
                        (model.summaries.iter())
                            .position(|x| x.agent == name)
                            .map_or(0, |k| stats.counts[k])
                    };
                    format!(
                        r"\multicolumn{{{}}}{{l}}{{{}}}",
                        RADAR_TAGS.len(),
                        escape(&crate::seeds::needs_seeds_text(
                            row,
                            (count(&row.a), count(&row.b))
                        ))
                    )
                }
            };
            let _ = writeln!(s, r"{} & {} & {cells} \\", escape(&row.a), escape(&row.b));
        }
        s.push_str("\\hline\n\\end{tabular}}\n\\end{center}\n");
    }
    s
}

fn standalone() -> String {
    r"% A standalone bsuite report, written by `cargo xtask report` (bsuite-rs).
% Build: pdflatex bsuite_report && bibtex bsuite_report && pdflatex bsuite_report && pdflatex bsuite_report
\documentclass[10pt]{article}
\input{bsuite_preamble}
\usepackage[dvipsnames]{xcolor}
\usepackage[margin=2cm]{geometry}
\usepackage{titlesec}
\usepackage[colorlinks=true, linkcolor={rgb:red,0;green,0;blue,140}, citecolor={rgb:red,0;green,0;blue,140}, urlcolor={rgb:red,0;green,0;blue,140}]{hyperref}
\setlength{\parskip}{6pt}
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
        (PREAMBLE, preamble(model)),
        (APPENDIX, appendix(model)),
        (DETAILS, details(model)),
        (STANDALONE, standalone()),
        (BIBLIOGRAPHY, bibliography()),
    ]
}
