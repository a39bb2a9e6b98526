//! The HTML report: one self-contained page (inline SVG figures, each once, with the font
//! embedded once; inline style and a few lines of script; nothing fetched), the replacement
//! for the reference's results notebook. Every figure is also a file beside it.
//!
//! The summary's figures are plain SVG in the page. The per-experiment figures, which are
//! most of its weight, are gzipped SVG in base64 that the page's script inflates with the
//! browser's own `DecompressionStream` as it loads: a twelve-agent page is then a fifth of
//! its size, and every figure is still part of the page, where the agents' toggles reach
//! it. Without script, each figure's links to its SVG and PDF files remain.
//!
//! Readers can show and hide agents: every element of an agent (its table columns, its
//! polygon and grid column, its facets) carries `data-agent`, and a checkbox per agent hides
//! them all at once.

use std::fmt::Write as _;

use bsuite_analysis::experiments::in_plot_order;
use bsuite_analysis::plot::RADAR_TAGS;
use bsuite_analysis::{Score, Summary};

use bsuite_analysis::seeds::PairComparison;
use bsuite_analysis::stats::Estimate;

use crate::model::{FigureFile, Model, SeedsModel};
use crate::seeds::AgentIntervals;
use crate::style::agent_style;

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

/// `bytes` gzipped (no file name or time in the header, so the same figure gives the same
/// page).
fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write as _;
    let mut encoder = flate2::GzBuilder::new()
        .mtime(0)
        .write(Vec::new(), flate2::Compression::best());
    // Writing to a Vec cannot fail.
    let _ = encoder.write_all(bytes);
    encoder.finish().unwrap_or_default()
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
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; margin: .5em 0 1em; }
th, td { padding: .25em .7em; border-bottom: 1px solid #ddd; text-align: left; }
th { background: #f2f2f2; cursor: pointer; user-select: none; white-space: nowrap; }
th[aria-sort="ascending"]::after { content: " \25B2"; }
th[aria-sort="descending"]::after { content: " \25BC"; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.num small { color: #666; }
td.unfinished { color: #999; }
.swatch { display: inline-block; width: .8em; height: .8em; margin-right: .4em;
  vertical-align: baseline; }
.warn { background: #fff4e5; border-left: 4px solid #f46d43; padding: .5em 1em; }
.note { color: #8a4b00; font-size: .9em; }
figure { margin: 1em 0; }
figure svg { width: 100%; max-width: 900px; height: auto; display: block; }
.pair figure svg { max-width: 560px; }
figcaption { color: #555; font-size: .9em; }
.pair { display: flex; flex-wrap: wrap; gap: 1em; align-items: flex-start; }
.pair figure { flex: 1 1 45%; min-width: 320px; }
#agents { position: sticky; top: 0; background: #fff; border-bottom: 1px solid #ddd;
  padding: .4em 0; z-index: 1; }
#agents label { margin-right: 1em; white-space: nowrap; cursor: pointer; }
#agents button { margin-right: .5em; }
dl.agents dt { font-weight: bold; }
dl.agents dd { margin: 0 0 .4em 1.5em; }
"#;

/// Sorting by column, and the agents' toggles: unchecking an agent hides every element with
/// its `data-agent`, in tables and figures alike, through one style rule per agent.
const SCRIPT: &str = r##"
document.querySelectorAll("figure[data-svg]").forEach(function (figure) {
  var bytes = Uint8Array.from(atob(figure.getAttribute("data-svg")), function (c) {
    return c.charCodeAt(0);
  });
  var svg = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  new Response(svg).text().then(function (text) {
    figure.removeAttribute("data-svg");
    figure.insertAdjacentHTML("afterbegin", text);
  });
});
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
(function () {
  var rules = document.getElementById("hidden-agents");
  var boxes = document.querySelectorAll("#agents input[type=checkbox]");
  function update() {
    var css = "";
    boxes.forEach(function (box) {
      if (!box.checked) {
        css += '[data-agent="' + CSS.escape(box.value) + '"] { display: none; }\n';
      }
    });
    rules.textContent = css;
  }
  boxes.forEach(function (box) { box.addEventListener("change", update); });
  document.querySelectorAll("#agents button").forEach(function (button) {
    button.addEventListener("click", function () {
      var on = button.getAttribute("data-all") === "show";
      boxes.forEach(function (box) { box.checked = on; });
      update();
    });
  });
  update();
})();
"##;

/// `data-agent="name"`, which the toggles hide.
fn agent_attribute(name: &str) -> String {
    format!(" data-agent=\"{}\"", escape(name))
}

/// A score cell of agent `agent`; `data-sort` orders missing scores below every score.
fn score_cell(agent: &str, score: Option<Score>, finished: bool) -> String {
    let a = agent_attribute(agent);
    match score {
        None => format!(r#"<td class="num"{a} data-sort="-2" title="no results">&ndash;</td>"#),
        Some(Score::Undefined(why)) => format!(
            r#"<td class="num"{a} data-sort="-1" title="{}">n/a</td>"#,
            escape(why.describe())
        ),
        Some(Score::Value(v)) if finished => {
            format!(r#"<td class="num"{a} data-sort="{v}">{v:.3}</td>"#)
        }
        Some(Score::Value(v)) => format!(
            r#"<td class="num unfinished"{a} data-sort="{v}" title="unfinished: not every run reached the episode count">{v:.3}*</td>"#
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

/// `figure` as the page shows it: its SVG in place (`packed`: gzipped, for the script to
/// inflate), its caption and links to its files.
fn figure_html(figure: &FigureFile, packed: bool) -> String {
    let mut s = if packed {
        format!(
            "<figure data-svg=\"{}\">",
            base64(&gzip(figure.inline_svg.as_bytes()))
        )
    } else {
        format!("<figure>{}", figure.inline_svg)
    };
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
        .map(|s| format!("<th{}>{}</th>", agent_attribute(&s.agent), escape(&s.agent)))
        .collect()
}

fn tags_table(model: &Model) -> String {
    let mut s = format!(
        "<div class=\"scroll\"><table class=\"sortable\"><thead><tr><th>key issue</th>{}</tr></thead><tbody>\n",
        agent_headers(model.summaries)
    );
    for (t, tag) in RADAR_TAGS.into_iter().enumerate() {
        let _ = write!(s, "<tr><td>{}</td>", escape(tag.as_str()));
        for (k, summary) in model.summaries.iter().enumerate() {
            let cell = score_cell(&summary.agent, summary.tag(tag).map(|t| t.score), true);
            let interval = intervals(model, k).map(|i| i.tags[t]);
            s.push_str(&with_interval(cell, interval));
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</tbody></table></div>\n");
    s
}

fn experiments_table(model: &Model) -> String {
    let mut s = format!(
        "<div class=\"scroll\"><table class=\"sortable\"><thead><tr><th>experiment</th><th>type</th><th>tags</th>{}</tr></thead><tbody>\n",
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
                &summary.agent,
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
    s.push_str("</tbody></table></div>\n");
    s
}

/// The tables of P(A > B) and of the difference of means for every pair of agents that
/// both have two or more seeds; one line instead where no pair has.
fn pairs_html(model: &Model, seeds: &SeedsModel) -> String {
    let stats = &seeds.stats;
    let mut s = format!(
        "<h2 id=\"pairs\">Agents compared over seeds</h2>\n<p>{}</p>\n",
        escape(&crate::seeds::pairs_caption(stats))
    );
    let comparable: Vec<_> = stats.pairs.iter().filter(|p| p.tags.is_some()).collect();
    let one: Vec<&str> = (model.summaries.iter().zip(&stats.counts))
        .filter(|(_, n)| **n < 2)
        .map(|(a, _)| a.agent.as_str())
        .collect();
    if comparable.is_empty() {
        s.push_str("<p>No pair of agents can be compared: a comparison needs two or more seeds a side, and at most one agent has them.</p>\n");
        return s;
    }
    if !one.is_empty() {
        let _ = writeln!(
            s,
            "<p>Agents with one seed ({}) have no spread to compare and are left out.</p>",
            escape(&one.join(", "))
        );
    }
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
            "<h3>{title}</h3>\n<div class=\"scroll\"><table class=\"{class}\"><thead><tr><th>A</th><th>B</th>{headers}</tr></thead><tbody>\n"
        );
        for row in &comparable {
            let Some(tags) = &row.tags else { continue };
            let _ = write!(
                s,
                "<tr{}><td>{}</td><td>{}</td>",
                // Hidden with either agent.
                agent_attribute(&row.a),
                escape(&row.a),
                escape(&row.b)
            );
            for comparison in tags {
                let e = pick(comparison);
                let _ = write!(
                    s,
                    "<td class=\"num\">{}</td>",
                    escape(&crate::seeds::estimate_text(&e))
                );
            }
            s.push_str("</tr>\n");
        }
        s.push_str("</tbody></table></div>\n");
    }
    s
}

/// The bar of checkboxes that show and hide agents, and the style rule they write.
fn agent_toggles(model: &Model) -> String {
    let mut s = String::from(
        "<style id=\"hidden-agents\"></style>\n<div id=\"agents\"><button type=\"button\" data-all=\"show\">show all</button><button type=\"button\" data-all=\"hide\">hide all</button> ",
    );
    for (k, summary) in model.summaries.iter().enumerate() {
        let _ = write!(
            s,
            "<label><input type=\"checkbox\" value=\"{name}\" checked> <span class=\"swatch\" style=\"background:{}\"></span>{name}</label>",
            agent_style(k).colour.to_css(),
            name = escape(&summary.agent)
        );
    }
    s.push_str("</div>\n");
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
    s.push_str("<p>The Behaviour Suite for Reinforcement Learning (bsuite) runs an agent on 23 small experiments, each probing one capability (basic learning, robustness to reward noise and scale, exploration, credit assignment, memory, generalization) and each reduced to a score between 0 and 1. This page shows the scores and the standard analysis plots of every experiment. The scores are also in <a href=\"scores.csv\">scores.csv</a> and <a href=\"scores.json\">scores.json</a>, per agent, seed, experiment and key issue.</p>\n");
    s.push_str(&agent_toggles(model));
    s.push_str("<h2 id=\"agent-list\">Agents</h2>\n<dl class=\"agents\">\n");
    for (k, summary) in model.summaries.iter().enumerate() {
        let seeds = match &model.seeds {
            Some(seeds) => format!(
                " <small>{}</small>",
                escape(&crate::seeds::seeds_text(&seeds.seed_lists[k]))
            ),
            None => String::new(),
        };
        let run = &model.runs[k];
        // Over several seeds the heading lists them all; one run names its own.
        let seed = match (&model.seeds, run.seed) {
            (None, Some(seed)) => format!(", seed {seed}"),
            _ => String::new(),
        };
        let recorded = match (&run.agent, &run.description) {
            (Some(agent), Some(description)) => format!(
                "<br><small>Its run records agent <code>{}</code>{seed}: {}</small>",
                escape(agent),
                escape(description)
            ),
            _ => String::new(),
        };
        let _ = writeln!(
            s,
            "<dt{a}>{}{seeds}</dt><dd{a}>{}{recorded}</dd>",
            escape(&summary.agent),
            escape(&model.definition(k).text),
            a = agent_attribute(&summary.agent)
        );
    }
    s.push_str("</dl>\n");

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
    s.push_str(&figure_html(&model.radar, false));
    s.push_str(&figure_html(&model.grid, false));
    s.push_str("</div>\n");
    s.push_str(&figure_html(&model.bar, true));
    if let Some(seeds) = &model.seeds {
        s.push_str(&figure_html(&seeds.profile, true));
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
                    "<span{}><b>{}</b> {}{}{}</span>",
                    agent_attribute(&summary.agent),
                    escape(&summary.agent),
                    escape(&e.score.to_string()),
                    escape(&over_seeds),
                    escape(&state)
                ))
            })
            .collect();
        let _ = writeln!(s, "<p>Score: {}.</p>", scores.join(" "));
        for figure in &section.figures {
            s.push_str(&figure_html(figure, true));
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
