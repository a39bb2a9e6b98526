//! The HTML report: one self-contained page (inline SVG figures, inline style and script,
//! nothing fetched), the replacement for the reference's results notebook.

use std::fmt::Write as _;

use bsuite_analysis::experiments::in_plot_order;
use bsuite_analysis::plot::RADAR_TAGS;
use bsuite_analysis::{Score, Summary};

use bsuite_analysis::seeds::PairComparison;
use bsuite_analysis::stats::Estimate;

use crate::model::{FigureFile, Model, SeedsModel};
use crate::seeds::AgentIntervals;

/// File name of the page.
pub const INDEX: &str = "index.html";

/// Escapes text for HTML content and attribute values.
///
/// ```
/// assert_eq!(bsuite_report::html::escape("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
/// ```
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// Standard base64 (RFC 4648, with padding), for embedding the font.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> shift) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The bundled font as a CSS `@font-face`, so inline figures and text render with the
/// metrics the figures were laid out with, offline.
fn font_face() -> String {
    format!(
        "@font-face {{ font-family: \"{}\"; src: url(data:font/ttf;base64,{}) format(\"truetype\"); }}",
        crate::style::FONT_FAMILY,
        base64(crate::style::FONT_BYTES)
    )
}

const STYLE: &str = r#"
body { font-family: "DejaVu Serif", Georgia, serif; color: #222; margin: 0 auto;
  max-width: 1180px; padding: 1em 2em 4em; line-height: 1.45; }
h1 { font-weight: normal; border-top: 4px solid #222; border-bottom: 1px solid #222;
  padding: .3em 0; text-align: center; }
h2 { border-bottom: 1px solid #ccc; margin-top: 2em; }
h3 { margin-bottom: .2em; }
h3 small { font-weight: normal; color: #666; font-size: .75em; }
nav ul { columns: 4; list-style: none; padding-left: 0; }
table { border-collapse: collapse; margin: .5em 0 1em; }
th, td { padding: .25em .7em; border-bottom: 1px solid #ddd; text-align: left; }
th { background: #f2f2f2; cursor: pointer; user-select: none; white-space: nowrap; }
th[aria-sort="ascending"]::after { content: " \25B2"; }
th[aria-sort="descending"]::after { content: " \25BC"; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.unfinished { color: #999; }
.swatch { display: inline-block; width: .8em; height: .8em; margin-right: .4em;
  vertical-align: baseline; }
.warn { background: #fff4e5; border-left: 4px solid #f46d43; padding: .5em 1em; }
.note { color: #8a4b00; font-size: .9em; }
figure { margin: 1em 0; }
figure svg { max-width: 100%; height: auto; display: block; }
figcaption { color: #555; font-size: .9em; }
.pair { display: flex; flex-wrap: wrap; gap: 1em; align-items: flex-start; }
.pair figure { flex: 1 1 45%; min-width: 360px; }
"#;

const SCRIPT: &str = r#"
document.querySelectorAll("table.sortable").forEach(function (table) {
  table.querySelectorAll("th").forEach(function (th, column) {
    th.addEventListener("click", function () {
      var ascending = th.getAttribute("aria-sort") !== "ascending";
      table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      function key(row) {
        var cell = row.cells[column];
        var v = cell.getAttribute("data-sort");
        return v === null ? cell.textContent : parseFloat(v);
      }
      rows.sort(function (a, b) {
        var x = key(a), y = key(b);
        var c = (typeof x === "number" && typeof y === "number") ? x - y
          : String(x).localeCompare(String(y));
        return ascending ? c : -c;
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
});
"#;

/// A score cell; `data-sort` orders missing scores below every score.
fn score_cell(score: Option<Score>, finished: bool) -> String {
    match score {
        None => r#"<td class="num" data-sort="-2" title="no results">&ndash;</td>"#.into(),
        Some(Score::Undefined(why)) => format!(
            r#"<td class="num" data-sort="-1" title="{}">n/a</td>"#,
            escape(why.describe())
        ),
        Some(Score::Value(v)) if finished => {
            format!(r#"<td class="num" data-sort="{v}">{v:.3}</td>"#)
        }
        Some(Score::Value(v)) => format!(
            r#"<td class="num unfinished" data-sort="{v}" title="unfinished: not every run reached the episode count">{v:.3}*</td>"#
        ),
    }
}

/// Agent `k`'s intervals over seeds, where it has two or more seeds.
fn intervals<'m>(model: &'m Model, k: usize) -> Option<&'m AgentIntervals> {
    model.seeds.as_ref()?.stats.intervals.get(k)?.as_ref()
}

/// A score cell with its interval over seeds after the score, where there is one.
fn with_interval(cell: String, interval: Option<Estimate>) -> String {
    match interval {
        Some(e) if !e.value.is_nan() => cell.replacen(
            "</td>",
            &format!(" <small>[{:.3}, {:.3}]</small></td>", e.lo, e.hi),
            1,
        ),
        _ => cell,
    }
}

fn figure_html(figure: &FigureFile) -> String {
    let mut s = String::from("<figure>");
    s.push_str(&figure.inline_svg);
    let _ = write!(
        s,
        "<figcaption>{} <a href=\"{stem}.svg\">SVG</a> &middot; <a href=\"{stem}.pdf\">PDF</a>",
        escape(&figure.title),
        stem = escape(&figure.stem)
    );
    if let Some(note) = &figure.note {
        let _ = write!(s, r#" <span class="note">{}</span>"#, escape(note));
    }
    s.push_str("</figcaption></figure>\n");
    s
}

fn agent_headers(summaries: &[Summary]) -> String {
    summaries
        .iter()
        .map(|s| format!("<th>{}</th>", escape(&s.agent)))
        .collect()
}

fn tags_table(model: &Model) -> String {
    let mut s = format!(
        "<table class=\"sortable\"><thead><tr><th>key issue</th>{}</tr></thead><tbody>\n",
        agent_headers(model.summaries)
    );
    for (t, tag) in RADAR_TAGS.into_iter().enumerate() {
        let _ = write!(s, "<tr><td>{}</td>", escape(tag.as_str()));
        for (k, summary) in model.summaries.iter().enumerate() {
            let cell = score_cell(summary.tag(tag).map(|t| t.score), true);
            let interval = intervals(model, k).map(|i| i.tags[t]);
            s.push_str(&with_interval(cell, interval));
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</tbody></table>\n");
    s
}

fn experiments_table(model: &Model) -> String {
    let mut s = format!(
        "<table class=\"sortable\"><thead><tr><th>experiment</th><th>type</th><th>tags</th>{}</tr></thead><tbody>\n",
        agent_headers(model.summaries)
    );
    for (rank, experiment) in in_plot_order().enumerate() {
        let name = experiment.name;
        let tags: Vec<&str> = experiment.tags.iter().map(|t| t.as_str()).collect();
        let has_section = model.experiments.iter().any(|e| e.experiment.name == name);
        let label = if has_section {
            format!("<a href=\"#exp-{name}\">{name}</a>")
        } else {
            name.to_string()
        };
        let kind = experiment.kind();
        let _ = write!(
            s,
            "<tr><td data-sort=\"{rank:02}\">{label}</td><td data-sort=\"{:02}\"><span class=\"swatch\" style=\"background:{}\"></span>{}</td><td>{}</td>",
            bsuite_analysis::plot::ORDERED_TYPES
                .iter()
                .position(|t| *t == kind)
                .unwrap_or(9),
            bsuite_analysis::plot::type_colour(kind),
            escape(kind.as_str()),
            escape(&tags.join(", "))
        );
        for (k, summary) in model.summaries.iter().enumerate() {
            let entry = summary.experiment(name);
            let cell = score_cell(
                entry.map(|e| e.score),
                entry.is_some_and(|e| e.progress.finished()),
            );
            let interval = intervals(model, k)
                .and_then(|i| i.experiments.iter().find(|(e, _)| *e == name))
                .map(|(_, e)| *e);
            s.push_str(&with_interval(cell, interval));
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</tbody></table>\n");
    s
}

/// The tables of P(A > B) and of the difference of means for every pair of agents.
fn pairs_html(model: &Model, seeds: &SeedsModel) -> String {
    let stats = &seeds.stats;
    let mut s = format!(
        "<h2 id=\"pairs\">Agents compared over seeds</h2>\n<p>{}</p>\n",
        escape(&crate::seeds::pairs_caption(stats))
    );
    let headers: String = RADAR_TAGS
        .iter()
        .map(|t| format!("<th>{}</th>", escape(t.as_str())))
        .collect();
    for (title, class, pick) in [
        (
            "P(A &gt; B)",
            "pairs-p",
            (|c: &PairComparison| c.improvement) as fn(&PairComparison) -> Estimate,
        ),
        ("Mean score of A minus B", "pairs-diff", |c| c.difference),
    ] {
        let _ = write!(
            s,
            "<h3>{title}</h3>\n<table class=\"{class}\"><thead><tr><th>A</th><th>B</th>{headers}</tr></thead><tbody>\n"
        );
        for row in &stats.pairs {
            let _ = write!(
                s,
                "<tr><td>{}</td><td>{}</td>",
                escape(&row.a),
                escape(&row.b)
            );
            match &row.tags {
                Some(tags) => {
                    for comparison in tags {
                        let e = pick(comparison);
                        let _ = write!(
                            s,
                            "<td class=\"num\">{}</td>",
                            escape(&crate::seeds::estimate_text(&e))
                        );
                    }
                }
                None => {
                    let count = |name: &str| {
                        (model.summaries.iter())
                            .position(|x| x.agent == name)
                            .map_or(0, |k| stats.counts[k])
                    };
                    let _ = write!(
                        s,
                        "<td colspan=\"{}\">{}</td>",
                        RADAR_TAGS.len(),
                        escape(&crate::seeds::needs_seeds_text(
                            row,
                            (count(&row.a), count(&row.b))
                        ))
                    );
                }
            }
            s.push_str("</tr>\n");
        }
        s.push_str("</tbody></table>\n");
    }
    s
}

/// The page.
pub(crate) fn page(model: &Model) -> String {
    let mut s = String::with_capacity(1 << 20);
    let title = format!("bsuite report: {}", model.title);
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{}</title>\n<style>{}{STYLE}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
        escape(&title),
        font_face(),
        escape(&title)
    );
    s.push_str("<p>The Behaviour Suite for Reinforcement Learning (bsuite) runs an agent on 23 small experiments, each probing one capability (basic learning, robustness to reward noise and scale, exploration, credit assignment, memory, generalization) and each reduced to a score between 0 and 1. This page shows the scores and the standard analysis plots of every experiment.</p>\n<p>Agents: ");
    let agents: Vec<String> = model
        .summaries
        .iter()
        .zip(&model.sources)
        .zip(&model.written_by)
        .map(|((summary, dir), written_by)| {
            let by = written_by
                .as_ref()
                .map_or(String::new(), |m| format!(", written by {}", escape(m)));
            let definition = model
                .definitions
                .get(&summary.agent)
                .map_or(String::new(), |d| format!(": {}", escape(d)));
            match dir {
                Some(dir) => format!(
                    "<b>{}</b>{definition} (<code>{}</code>{by})",
                    escape(&summary.agent),
                    escape(&dir.display().to_string())
                ),
                None => format!("<b>{}</b>{definition}{by}", escape(&summary.agent)),
            }
        })
        .zip(0..)
        .map(|(text, k)| match &model.seeds {
            Some(seeds) => format!(
                "{text}: {}",
                escape(&crate::seeds::seeds_text(&seeds.seed_lists[k]))
            ),
            None => text,
        })
        .collect();
    s.push_str(&agents.join(", "));
    s.push_str(".</p>\n");

    let warnings: Vec<String> = model
        .summaries
        .iter()
        .zip(&model.coverage)
        .filter(|(_, c)| !c.is_complete())
        .map(|(summary, c)| {
            let lines: String = c
                .lines()
                .iter()
                .map(|line| format!("<li>{}</li>", escape(line)))
                .collect();
            format!("<li><b>{}</b><ul>{lines}</ul></li>", escape(&summary.agent))
        })
        .collect();
    if !warnings.is_empty() {
        let _ = writeln!(
            s,
            "<div class=\"warn\"><p>Incomplete results: scores of unfinished experiments (marked *) are provisional and missing experiments are left out.</p><ul>{}</ul></div>",
            warnings.join("")
        );
    }

    s.push_str("<nav><h2>Contents</h2><ul><li><a href=\"#summary\">Summary</a></li><li><a href=\"#tags\">Scores by key issue</a></li><li><a href=\"#scores\">Scores by experiment</a></li>");
    for section in &model.experiments {
        let name = section.experiment.name;
        let _ = write!(s, "<li><a href=\"#exp-{name}\">{name}</a></li>");
    }
    if model.seeds.is_some() {
        s.push_str("<li><a href=\"#pairs\">Agents compared over seeds</a></li>");
    }
    s.push_str("</ul></nav>\n");

    s.push_str("<h2 id=\"summary\">Summary</h2>\n<div class=\"pair\">\n");
    s.push_str(&figure_html(&model.radar));
    s.push_str("</div>\n");
    s.push_str(&figure_html(&model.bar));
    if let Some(compare) = &model.compare {
        s.push_str(&figure_html(compare));
    }
    if let Some(seeds) = &model.seeds {
        s.push_str(&figure_html(&seeds.profile));
        s.push_str(&pairs_html(model, seeds));
    }

    s.push_str("<h2 id=\"tags\">Scores by key issue</h2>\n<p>The mean score of the experiments carrying each tag. Click a column to sort.</p>\n");
    if let Some(seeds) = &model.seeds {
        let _ = writeln!(
            s,
            "<p>Agents with several seeds: the mean over seeds, with its {:.0}% stratified bootstrap interval in brackets (here and by experiment).</p>",
            100.0 * seeds.stats.bootstrap.confidence
        );
    }
    s.push_str(&tags_table(model));
    s.push_str("<h2 id=\"scores\">Scores by experiment</h2>\n<p>In the order of the bar plot; click a column to sort. * marks an experiment whose runs have not all reached its episode count; &ndash; marks an experiment without results; n/a a score the data does not define yet.</p>\n");
    s.push_str(&experiments_table(model));

    s.push_str("<h2 id=\"experiments\">Experiments</h2>\n");
    for section in &model.experiments {
        let experiment = section.experiment;
        let tags: Vec<&str> = experiment.tags.iter().map(|t| t.as_str()).collect();
        let _ = write!(
            s,
            "<section id=\"exp-{name}\">\n<h3>{name} <small>{}</small></h3>\n<p>{}</p>\n",
            escape(&tags.join(", ")),
            escape(&section.description),
            name = experiment.name
        );
        let scores: Vec<String> = model
            .summaries
            .iter()
            .enumerate()
            .filter_map(|(k, summary)| {
                let e = summary.experiment(experiment.name)?;
                let over_seeds = intervals(model, k)
                    .and_then(|i| i.experiments.iter().find(|(n, _)| *n == experiment.name))
                    .filter(|(_, e)| !e.value.is_nan())
                    .map_or(String::new(), |(_, e)| {
                        format!(" [{:.3}, {:.3}] over seeds", e.lo, e.hi)
                    });
                let state = if e.progress.finished() {
                    String::new()
                } else {
                    format!(
                        " (unfinished: {}/{} episodes)",
                        e.progress.min_episode, e.progress.num_episodes
                    )
                };
                Some(format!(
                    "<b>{}</b> {}{}{}",
                    escape(&summary.agent),
                    escape(&e.score.to_string()),
                    escape(&over_seeds),
                    escape(&state)
                ))
            })
            .collect();
        let _ = writeln!(s, "<p>Score: {}.</p>", scores.join(", "));
        for figure in &section.figures {
            s.push_str(&figure_html(figure));
        }
        s.push_str("</section>\n");
    }
    let _ = write!(s, "<script>{SCRIPT}</script>\n</body>\n</html>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc_4648_vectors() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }
}
