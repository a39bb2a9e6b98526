//! Writing a whole report: every figure as SVG and PDF, the LaTeX files and `index.html`.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use bsuite_analysis::experiments::in_plot_order;
use bsuite_analysis::plot::Figure;
use bsuite_analysis::seeds::{SeededAgent, SeededSummary};
use bsuite_analysis::{figures, summarize, AgentResults, Summary};
use rayon::prelude::*;

use crate::convert::Converter;
use crate::model::{Coverage, ExperimentSection, FigureFile, Model, RunInfo, SeedsModel};
use crate::render::render_svg;
use crate::seeds::{self, SeedStats, SeedsShown};
use crate::{experiments, figure_drawing, html, latex, overview, score_files, Error};

/// Stem of the radar plot (the summary).
const RADAR_STEM: &str = "images/radar_plot";
/// Stem of the score grid (the summary).
const GRID_STEM: &str = "images/score_grid";
/// Stem of the bar plot with one facet per agent (the details, for one agent).
const BAR_STEM: &str = "images/bar_plot";
/// Stem of the bar plot with one facet per experiment (the details, for several agents).
const COMPARE_STEM: &str = "images/bar_plot_compare";
/// Stem of the performance profile, drawn when an agent has two or more seeds.
const PROFILE_STEM: &str = "images/performance_profile";
/// Each figure's printed size and smallest text, for `check` (relative to the report).
pub const FIGURES_JSON: &str = "images/figures.json";

/// Lists the files the last report wrote, so the next one can remove those it no longer
/// writes (and nothing else).
const MANIFEST: &str = ".bsuite-report-files";

/// Settings of a report.
#[derive(Debug, Clone)]
pub struct Options {
    /// Title of the paper the appendix belongs to (the LaTeX and HTML titles).
    pub title: String,
    /// Link to the full online report, shown in the appendix; `None` leaves a placeholder.
    pub link: Option<String>,
    /// Replace files in the report directory that no earlier report wrote.
    pub overwrite: bool,
    /// One sentence per agent name for the appendix's "Agent definition" list (a study's
    /// definitions); agents without one get bsuite's usual line or a placeholder.
    pub definitions: BTreeMap<String, String>,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            title: latex::DEFAULT_TITLE.to_string(),
            link: None,
            overwrite: false,
            definitions: BTreeMap::new(),
        }
    }
}

/// What a report contains and where it went.
#[derive(Debug, Clone)]
pub struct Written {
    /// The report directory.
    pub out_dir: PathBuf,
    /// Files written, relative to `out_dir`.
    pub files: Vec<PathBuf>,
    /// Figures drawn (each written as SVG and PDF).
    pub figures: usize,
    /// Files of an earlier report that this one no longer writes, removed.
    pub removed: Vec<PathBuf>,
    /// Per agent, lines on missing, partial or unfinished experiments (empty when complete).
    pub incomplete: Vec<(String, Vec<String>)>,
}

struct Drawn {
    stem: String,
    title: String,
    note: Option<String>,
    svg: String,
}

/// The printed size, in points, of an SVG this crate drew (its root's `width` and `height`).
fn svg_size(svg: &str) -> (f64, f64) {
    let head = svg.find('>').map_or(svg, |end| &svg[..end]);
    let attribute = |name: &str| -> f64 {
        let pattern = format!(" {name}=\"");
        head.find(&pattern)
            .and_then(|at| {
                let rest = &head[at + pattern.len()..];
                rest[..rest.find('"')?].parse::<f64>().ok()
            })
            .unwrap_or(0.0)
    };
    (attribute("width"), attribute("height"))
}

/// `images/figures.json`: per figure, its file stem, printed size in points and smallest
/// text in points at that size, which `check` holds against the size LaTeX gives it.
fn figures_json(figures: &[FigureFile]) -> String {
    let rows: Vec<String> = figures
        .iter()
        .map(|f| {
            format!(
                "  {{\"stem\": \"{}\", \"width_pt\": {}, \"height_pt\": {}, \"min_text_pt\": {}}}",
                f.stem,
                f.size.0,
                f.size.1,
                f.min_text.map_or("null".to_string(), |p| format!("{p}"))
            )
        })
        .collect();
    format!("[\n{}\n]\n", rows.join(",\n"))
}

/// What a standard plot shows, from its kind and axes: "Average regret after 10000
/// episodes, by noise scale".
fn figure_caption(figure: &Figure) -> String {
    use bsuite_analysis::plot::FigureKind;
    let words = |label: &str| label.split_whitespace().collect::<Vec<_>>().join(" ");
    let (x, y) = (words(&figure.x.label), words(&figure.y.label));
    let text = match figure.kind {
        FigureKind::Learning | FigureKind::Regret => format!("{y} against {x}"),
        FigureKind::Seeds => format!("{y} against {x}, one line per run"),
        FigureKind::Average | FigureKind::Scale | FigureKind::Scaling | FigureKind::ScalingLog => {
            format!("{y}, by {x}")
        }
    };
    capitalised(text.trim_end_matches('.'))
}

/// `text` with its first letter in upper case.
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// `parts` as sentences: each non-empty one ends with exactly one full stop, and they are
/// joined by a space.
pub(crate) fn sentences(parts: &[&str]) -> String {
    parts
        .iter()
        .map(|p| p.trim().trim_end_matches('.').trim_end())
        .filter(|p| !p.is_empty())
        .map(|p| format!("{p}."))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Writes a report on `agents` into
/// `out_dir` (created if needed).
///
/// Files are written next to their final name and renamed into place; files of an earlier
/// report in the same directory that this one does not write again are removed, and nothing
/// else in or outside `out_dir` is touched.
pub fn write(agents: &[AgentResults], out_dir: &Path, options: &Options) -> Result<Written, Error> {
    let runs: Vec<AgentRuns> = agents
        .iter()
        .map(|a| AgentRuns {
            name: &a.name,
            seeds: vec![(None, a)],
            run: RunInfo::of(a.manifest.as_ref()),
        })
        .collect();
    write_runs(&runs, out_dir, options)
}

/// Writes a report on `agents`, each run over one or more seeds (a directory of
/// `seed-<s>/` results directories, or a plain results directory), into `out_dir`, as
/// [`write()`] does.
///
/// An agent with one seed is drawn as [`write()`] draws it. One with several is shown by its
/// means over seeds: its radar polygon gets a band and its bars whiskers (the bootstrap
/// intervals of `bsuite_analysis::seeds`), its standard plots the mean over seeds with a
/// band from the lowest to the highest seed. When any agent has two or more seeds the
/// report adds a performance profile and, for every pair of agents, the difference of mean
/// scores and P(A > B) per key issue, each with its interval, and states every agent's seed
/// count. Every bootstrap is drawn with `bsuite_analysis::stats::Bootstrap::default()`, so
/// identical inputs give identical files.
pub fn write_seeded(
    agents: &[SeededAgent],
    out_dir: &Path,
    options: &Options,
) -> Result<Written, Error> {
    let runs: Vec<AgentRuns> = agents
        .iter()
        .map(|a| AgentRuns {
            name: &a.name,
            seeds: a.seeds.iter().map(|s| (s.seed, &s.results)).collect(),
            run: RunInfo::of(a.seeds.first().and_then(|s| s.results.manifest.as_ref())),
        })
        .collect();
    write_runs(&runs, out_dir, options)
}

/// One agent as a report reads it: every seed's results (one for a plain directory).
struct AgentRuns<'a> {
    name: &'a str,
    seeds: Vec<(Option<u32>, &'a AgentResults)>,
    run: RunInfo,
}

/// Whether two results are the same run: manifests that name the same run (agent,
/// configuration, seed, episodes: the build that wrote it aside) and the same rows, wherever
/// the files are. Results without a manifest are no run that can be named, so never.
fn same_results(a: &AgentResults, b: &AgentResults) -> bool {
    let same_manifest = match (&a.manifest, &b.manifest) {
        (Some(x), Some(y)) => x.differences(y).is_empty(),
        _ => false,
    };
    same_manifest
        && a.runs.len() == b.runs.len()
        && (a.runs.iter().zip(&b.runs)).all(|(x, y)| x.id() == y.id() && x.columns() == y.columns())
}

/// A seed of `a` that `b` holds too (the same run, see [`same_results`]): `Some(seed)`,
/// where `seed` is the seed `a`'s results record.
fn shared_seed(
    a: &[(Option<u32>, &AgentResults)],
    b: &[(Option<u32>, &AgentResults)],
) -> Option<Option<u32>> {
    a.iter()
        .find(|(_, x)| b.iter().any(|(_, y)| same_results(x, y)))
        .map(|(seed, x)| seed.or(x.manifest.as_ref().map(|m| m.seed)))
}

fn seeds_of(agent: &SeededAgent) -> Vec<(Option<u32>, &AgentResults)> {
    agent.seeds.iter().map(|s| (s.seed, &s.results)).collect()
}

/// Whether every seed of `inner` is a seed of `outer`, as the same run: `inner` adds nothing
/// to a report that has `outer` (a sweep `bench-all` wrote that is seed 42 of a shipped
/// baseline, say). A report refuses two agents that share a run ([`Error::SameRun`]); a
/// caller that gathers results from several places can keep the one that holds the other.
pub fn holds_every_seed(outer: &SeededAgent, inner: &SeededAgent) -> bool {
    let outer = seeds_of(outer);
    !inner.seeds.is_empty()
        && inner
            .seeds
            .iter()
            .all(|s| outer.iter().any(|(_, o)| same_results(&s.results, o)))
}

/// The first two of `agents` that share a run, by name, with the seed they share.
fn first_shared_run(agents: &[AgentRuns]) -> Option<(String, String, Option<u32>)> {
    for (i, a) in agents.iter().enumerate() {
        for b in &agents[i + 1..] {
            if let Some(seed) = shared_seed(&a.seeds, &b.seeds) {
                return Some((a.name.to_string(), b.name.to_string(), seed));
            }
        }
    }
    None
}

/// `results` as an agent of its own named `name`, for the analysis' figures, which take a
/// slice.
fn copy_runs(results: &AgentResults, name: String) -> AgentResults {
    AgentResults {
        name,
        runs: results.runs.clone(),
        skipped: Vec::new(),
        manifest: results.manifest.clone(),
        source: results.source.clone(),
    }
}

/// Every experiment's standard plots as the report draws them for `agents`, each over its
/// seeds: one panel per agent, an agent's seeds merged as [`write_seeded`] describes
/// (nothing dropped; lines as the mean with a band, points pooled with their mean).
pub fn figures_over_seeds(agents: &[SeededAgent]) -> Vec<Figure> {
    let runs: Vec<AgentRuns> = agents
        .iter()
        .map(|a| AgentRuns {
            name: &a.name,
            seeds: a.seeds.iter().map(|s| (s.seed, &s.results)).collect(),
            run: RunInfo::default(),
        })
        .collect();
    experiment_plots(&runs)
        .into_iter()
        .map(|(f, _)| f)
        .collect()
}

/// Every experiment's standard plots, one panel per agent. Each figure is drawn with one
/// panel per (agent, seed), so that its colours, groups and axes are those of all the data,
/// and then each agent's seeds are merged into one panel by [`seeds::merge_seed_panels`],
/// which drops nothing; each figure comes with what the merge did, for its caption.
fn experiment_plots(agents: &[AgentRuns]) -> Vec<(Figure, SeedsShown)> {
    // A name no agent has: the agent's and the seed's position between NULs.
    let panel_name = |agent: usize, seed: usize| format!("\u{0}{agent}\u{0}{seed}\u{0}");
    let owner = |panel: &str| -> Option<usize> { panel.split('\u{0}').nth(1)?.parse().ok() };
    let panels: Vec<AgentResults> = agents
        .iter()
        .enumerate()
        .flat_map(|(i, a)| {
            (a.seeds.iter().enumerate()).map(move |(k, (_, results))| (i, k, *results))
        })
        .map(|(i, k, results)| copy_runs(results, panel_name(i, k)))
        .collect();
    let figures: Vec<Figure> = in_plot_order()
        .collect::<Vec<_>>()
        .into_par_iter()
        .flat_map(|experiment| figures::experiment_figures(&panels, experiment))
        .collect();
    figures
        .into_iter()
        .map(|mut figure| {
            let mut shown = SeedsShown::default();
            let mut merged = Vec::new();
            for (i, agent) in agents.iter().enumerate() {
                let own: Vec<&bsuite_analysis::plot::Panel> = (figure.panels.iter())
                    .filter(|p| owner(&p.agent) == Some(i))
                    .collect();
                if own.is_empty() {
                    continue;
                }
                let (panel, what) = seeds::merge_seed_panels(agent.name, &own);
                shown.means |= what.means;
                shown.pooled |= what.pooled;
                merged.push(panel);
            }
            figure.panels = merged;
            // A note names the panel it is about: name the agent (and its seed) instead.
            if let Some(note) = &mut figure.note {
                for (i, agent) in agents.iter().enumerate() {
                    for (k, (seed, _)) in agent.seeds.iter().enumerate() {
                        let name = match (agent.seeds.len(), seed) {
                            (1, _) | (_, None) => agent.name.to_string(),
                            (_, Some(seed)) => format!("{} (seed {seed})", agent.name),
                        };
                        *note = note.replace(&panel_name(i, k), &name);
                    }
                }
            }
            (figure, shown)
        })
        .collect()
}

fn write_runs(agents: &[AgentRuns], out_dir: &Path, options: &Options) -> Result<Written, Error> {
    if agents.is_empty() || agents.iter().any(|a| a.seeds.is_empty()) {
        return Err(Error::NoAgents);
    }
    let mut names = BTreeSet::new();
    for agent in agents {
        if !names.insert(agent.name) {
            return Err(Error::DuplicateAgent(agent.name.to_string()));
        }
    }
    if let Some((first, second, seed)) = first_shared_run(agents) {
        return Err(Error::SameRun {
            first,
            second,
            seed,
        });
    }
    // The directory first: a report that cannot be written fails before drawing.
    let mut out = Output::open(out_dir, options.overwrite)?;
    let seeded: Vec<SeededSummary> = agents
        .par_iter()
        .map(|a| SeededSummary {
            agent: a.name.to_string(),
            seeds: a.seeds.iter().map(|&(s, r)| (s, summarize(r))).collect(),
        })
        .collect();
    let summaries: Vec<Summary> = seeded.iter().map(seeds::shown_summary).collect();
    let coverage: Vec<Coverage> = summaries.iter().map(Coverage::of).collect();
    let seed_stats = SeedStats::of(&seeded);
    let interval_words = seed_stats.as_ref().map(|s| {
        format!(
            "{:.0}% bootstrap intervals over seeds",
            100.0 * s.bootstrap.confidence
        )
    });

    let radar = figures::radar_chart(&summaries);
    let bars = figures::bar_chart(&summaries);
    let mut drawn: Vec<Drawn> = Vec::new();
    let radar_bands: Vec<Option<Vec<(f64, f64)>>> = match &seed_stats {
        Some(stats) => (stats.intervals.iter())
            .map(|i| {
                i.as_ref()
                    .map(|i| i.tags.iter().map(|e| (e.lo, e.hi)).collect())
            })
            .collect(),
        None => Vec::new(),
    };
    let whiskers: Vec<Option<Vec<overview::ExperimentInterval>>> = match &seed_stats {
        Some(stats) => (stats.intervals.iter())
            .map(|i| {
                i.as_ref().map(|i| {
                    (i.experiments.iter())
                        .map(|(name, e)| (*name, e.lo, e.hi))
                        .collect()
                })
            })
            .collect(),
        None => Vec::new(),
    };
    let with_words = |title: &str, what: &str| match &interval_words {
        Some(words) => format!("{title} {what}: {words}."),
        None => title.to_string(),
    };
    let radar_svg = overview::radar_svg_with_bands(&radar, &radar_bands)?;
    drawn.push(Drawn {
        stem: RADAR_STEM.into(),
        title: with_words("Mean score per key issue.", "Bands"),
        note: None,
        svg: radar_svg,
    });
    drawn.push(Drawn {
        stem: GRID_STEM.into(),
        title: sentences(&[
            if seed_stats.is_some() {
                "Score per experiment (rows) and agent (columns; over seeds, the mean)"
            } else {
                "Score per experiment (rows) and agent (columns)"
            },
            if bars.any_unfinished {
                "*: unfinished"
            } else {
                ""
            },
        ]),
        note: None,
        svg: overview::score_grid_svg(&bars)?,
    });
    // The bars of every experiment: one facet per agent for one agent (bsuite's bar plot),
    // one facet per experiment with a bar per agent for several.
    let (bar_stem, mut bar, bar_title) = if summaries.len() > 1 {
        (
            COMPARE_STEM,
            overview::compare_drawing(&bars),
            "Each experiment's score, agents side by side.",
        )
    } else {
        (
            BAR_STEM,
            overview::bar_drawing(&bars),
            "Score of each experiment, coloured by type.",
        )
    };
    overview::add_whiskers(&mut bar, &whiskers, summaries.len() == 1);
    drawn.push(Drawn {
        stem: bar_stem.into(),
        title: with_words(bar_title, "Whiskers"),
        note: None,
        svg: render_svg(&bar)?,
    });
    if let Some(stats) = &seed_stats {
        let thresholds = seeds::profile_thresholds();
        let profiles: Vec<overview::ProfileLine> = (stats.profiles.iter())
            .enumerate()
            .map(|(index, p)| overview::ProfileLine {
                agent: p.agent.clone(),
                index,
                points: (thresholds.iter().zip(&p.points))
                    .map(|(&x, e)| (x, e.value, e.lo, e.hi))
                    .collect(),
            })
            .collect();
        let profile = overview::profile_drawing(&profiles);
        drawn.push(Drawn {
            stem: PROFILE_STEM.into(),
            title: format!(
                "Performance profile: the fraction of each agent's runs (seed and experiment) \
                 scoring above each threshold. Bands: {}.",
                interval_words.clone().unwrap_or_default()
            ),
            note: None,
            svg: render_svg(&profile)?,
        });
    }
    let plots = experiment_plots(agents);
    let experiment_figures: Vec<Drawn> = plots
        .par_iter()
        .map(|(plot, shown)| {
            let figure = figure_drawing::drawing(plot);
            Ok(Drawn {
                stem: format!("images/{}/{}", plot.experiment, plot.name),
                title: sentences(&[&figure_caption(plot), &shown.caption()]),
                note: plot.note.clone(),
                svg: render_svg(&figure)?,
            })
        })
        .collect::<Result<_, Error>>()?;
    drawn.extend(experiment_figures);

    // The files get outlined text (exact anywhere, no font needed); the page inlines the
    // plain SVG and embeds the font once, which keeps it small and its text selectable.
    let converter = Converter::new();
    let converted: Vec<(FigureFile, Vec<u8>, String)> = drawn
        .into_par_iter()
        .map(|d| {
            let pdf = converter.to_pdf(&d.svg)?;
            let prefix = format!("{}-", d.stem.replace('/', "-"));
            let outlined = converter.to_outlined_svg(&d.svg, &prefix)?;
            Ok((
                FigureFile {
                    size: svg_size(&d.svg),
                    min_text: overview::min_text_points(&d.svg),
                    stem: d.stem,
                    title: d.title,
                    note: d.note,
                    inline_svg: d.svg,
                },
                pdf,
                outlined,
            ))
        })
        .collect::<Result<_, Error>>()?;

    let mut figure_files: Vec<FigureFile> = Vec::new();
    let mut contents: Vec<(String, Vec<u8>)> = Vec::new();
    for (file, pdf, svg) in converted {
        contents.push((format!("{}.svg", file.stem), svg.into_bytes()));
        contents.push((format!("{}.pdf", file.stem), pdf));
        figure_files.push(file);
    }
    contents.push((
        FIGURES_JSON.into(),
        figures_json(&figure_files).into_bytes(),
    ));
    let figure_count = figure_files.len();
    let mut take = |stem: &str| -> Result<FigureFile, Error> {
        let at = (figure_files.iter().position(|f| f.stem == stem))
            .ok_or_else(|| Error::Draw(format!("{stem} missing")))?;
        Ok(figure_files.remove(at))
    };
    let radar = take(RADAR_STEM)?;
    let grid = take(GRID_STEM)?;
    let bar = take(bar_stem)?;
    let seeds = match seed_stats {
        Some(stats) => Some(SeedsModel {
            stats,
            seed_lists: agents
                .iter()
                .map(|a| a.seeds.iter().map(|(s, _)| *s).collect())
                .collect(),
            profile: take(PROFILE_STEM)?,
        }),
        None => None,
    };
    let rest: Vec<FigureFile> = figure_files;
    let experiments_with_data: Vec<ExperimentSection> = in_plot_order()
        .filter(|e| summaries.iter().any(|s| s.experiment(e.name).is_some()))
        .map(|experiment| {
            let name = experiment.name;
            ExperimentSection {
                experiment,
                description: experiments::description(experiment)
                    .unwrap_or_default()
                    .to_string(),
                figures: rest
                    .iter()
                    .filter(|f| f.stem.starts_with(&format!("images/{name}/")))
                    .cloned()
                    .collect(),
            }
        })
        .collect();

    let model = Model {
        title: options.title.clone(),
        link: options.link.clone(),
        definitions: options.definitions.clone(),
        summaries: &summaries,
        runs: agents.iter().map(|a| a.run.clone()).collect(),
        coverage: coverage.clone(),
        radar,
        grid,
        bar,
        seeds,
        experiments: experiments_with_data,
    };
    for (name, text) in latex::files(&model) {
        contents.push((name.to_string(), text.into_bytes()));
    }
    contents.push((html::INDEX.to_string(), html::page(&model).into_bytes()));
    contents.push((
        score_files::CSV.into(),
        score_files::csv(&seeded).into_bytes(),
    ));
    contents.push((
        score_files::JSON.into(),
        score_files::json(&seeded).into_bytes(),
    ));
    out.check_foreign(contents.iter().map(|(name, _)| name.as_str()))?;
    for (name, bytes) in &contents {
        out.write(name, bytes)?;
    }
    let removed = out.finish()?;
    Ok(Written {
        out_dir: out_dir.to_path_buf(),
        files: out.written.iter().map(PathBuf::from).collect(),
        figures: figure_count,
        removed,
        incomplete: summaries
            .iter()
            .zip(&coverage)
            .map(|(s, c)| (s.agent.clone(), c.lines()))
            .filter(|(_, lines)| !lines.is_empty())
            .collect(),
    })
}

/// The report directory: writes files atomically and tracks them in the manifest. It
/// replaces only files an earlier report listed, unless told to overwrite.
struct Output {
    dir: PathBuf,
    overwrite: bool,
    written: Vec<String>,
    previous: Vec<String>,
}

impl Output {
    fn open(dir: &Path, overwrite: bool) -> Result<Output, Error> {
        if dir.exists() && !dir.is_dir() {
            return Err(Error::OutputNotADirectory(dir.to_path_buf()));
        }
        let results_files = [
            bsuite_logging::manifest::MANIFEST_FILE,
            bsuite_logging::dir_lock::LOCK_FILE,
        ];
        if results_files.iter().any(|f| dir.join(f).exists()) {
            return Err(Error::OutputIsResults(dir.to_path_buf()));
        }
        let io = |operation, error| Error::Io {
            operation,
            path: dir.to_path_buf(),
            error,
        };
        fs::create_dir_all(dir).map_err(|e| io("creating the directory", e))?;
        let previous: Vec<String> = match fs::read_to_string(dir.join(MANIFEST)) {
            Ok(text) => text
                .lines()
                .filter(|l| is_safe_relative(l))
                .map(str::to_string)
                .collect(),
            Err(_) => Vec::new(),
        };
        if previous.is_empty() && !overwrite {
            // A directory no report wrote: only an empty one is taken. Empty directories in
            // it (an interrupted report's images/) hold nothing to lose, and another report's
            // directory (a study's, report/appendix_c/ under report/) is never written into.
            let mut foreign: Vec<PathBuf> = fs::read_dir(dir)
                .map_err(|e| io("listing", e))?
                .filter_map(|e| e.ok())
                .filter(|e| !fs::read_dir(e.path()).is_ok_and(|mut d| d.next().is_none()))
                .filter(|e| !e.path().join(MANIFEST).is_file())
                .map(|e| PathBuf::from(e.file_name()))
                .collect();
            if !foreign.is_empty() {
                foreign.sort();
                foreign.truncate(5);
                return Err(Error::ForeignFiles(crate::ForeignFiles {
                    dir: dir.to_path_buf(),
                    files: foreign,
                }));
            }
        }
        Ok(Output {
            dir: dir.to_path_buf(),
            overwrite,
            written: Vec::new(),
            previous,
        })
    }

    /// Refuses, before anything is written, to replace files of `relatives` that exist
    /// and no earlier report wrote.
    fn check_foreign<'a>(&self, relatives: impl Iterator<Item = &'a str>) -> Result<(), Error> {
        if self.overwrite {
            return Ok(());
        }
        let mut foreign: Vec<PathBuf> = relatives
            .filter(|r| !self.previous.iter().any(|p| p == r) && self.dir.join(r).exists())
            .map(PathBuf::from)
            .collect();
        if foreign.is_empty() {
            return Ok(());
        }
        foreign.truncate(5);
        Err(Error::ForeignFiles(crate::ForeignFiles {
            dir: self.dir.clone(),
            files: foreign,
        }))
    }

    fn write(&mut self, relative: &str, bytes: &[u8]) -> Result<(), Error> {
        debug_assert!(is_safe_relative(relative));
        let path = self.dir.join(relative);
        let io = |operation, path: &Path, error| Error::Io {
            operation,
            path: path.to_path_buf(),
            error,
        };
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|e| io("creating the directory", parent, e))?;
        }
        let temporary = path.with_extension(format!(
            "{}.tmp",
            path.extension().and_then(|e| e.to_str()).unwrap_or("")
        ));
        let written = fs::File::create(&temporary)
            .and_then(|mut file| file.write_all(bytes))
            .map_err(|e| io("writing", &temporary, e))
            .and_then(|()| {
                fs::rename(&temporary, &path).map_err(|e| io("renaming into", &path, e))
            });
        if written.is_err() {
            let _ = fs::remove_file(&temporary);
        }
        written?;
        self.written.push(relative.to_string());
        Ok(())
    }

    /// Writes the manifest and removes files of the previous report not written this time.
    fn finish(&mut self) -> Result<Vec<PathBuf>, Error> {
        let mut removed = Vec::new();
        for old in &self.previous {
            if self.written.contains(old) {
                continue;
            }
            let path = self.dir.join(old);
            if path.is_file() && fs::remove_file(&path).is_ok() {
                removed.push(PathBuf::from(old));
                // Drop directories the report created that are now empty.
                let mut parent = path.parent();
                while let Some(dir) = parent {
                    if dir == self.dir || fs::remove_dir(dir).is_err() {
                        break;
                    }
                    parent = dir.parent();
                }
            }
        }
        let manifest = self.written.join("\n") + "\n";
        let written = std::mem::take(&mut self.written);
        self.write(MANIFEST, manifest.as_bytes())?;
        self.written = written;
        Ok(removed)
    }
}

/// True when `inner` is `outer` or lies inside it, symbolic links resolved, also for paths
/// that do not exist yet. Callers refuse a report directory inside a results directory with
/// it: the report's files would be read back as results.
///
/// ```
/// use std::path::Path;
/// use bsuite_report::report::is_within;
///
/// assert!(is_within(Path::new("results/dqn/report"), Path::new("results/dqn")));
/// assert!(!is_within(Path::new("report"), Path::new("results/dqn")));
/// ```
pub fn is_within(inner: &Path, outer: &Path) -> bool {
    match (resolve(inner), resolve(outer)) {
        (Some(inner), Some(outer)) => inner.starts_with(outer),
        _ => false,
    }
}

/// `path` made absolute with symbolic links resolved, also when it does not exist yet (its
/// nearest existing ancestor is resolved and the rest appended).
fn resolve(path: &Path) -> Option<PathBuf> {
    let absolute = std::env::current_dir().ok()?.join(path);
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    while !existing.exists() {
        rest.push(existing.file_name()?);
        existing = existing.parent()?;
    }
    let mut resolved = existing.canonicalize().ok()?;
    resolved.extend(rest.iter().rev());
    Some(resolved)
}

/// A manifest line names a file inside the report directory: relative, no `..`.
fn is_safe_relative(path: &str) -> bool {
    let p = Path::new(path);
    !path.is_empty()
        && p.is_relative()
        && p.components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
}
