//! `cargo xtask agree <agent>`: our agent against bsuite 0.3.6's own JAX `default_agent`,
//! over seeds, on the same ids.
//!
//! Both sides run seeds `S..S+K` (`--first-seed S`, default 0; a later S replicates a
//! comparison on fresh seeds): ours through `bsuite-run` (resumable, into
//! `results/agree/<agent>/ours/seed-S`), the reference through
//! `tools/reference/jax_agent.py run` in the venv `tools/reference/setup_jax_agents.sh`
//! builds, cached per (agent, episodes, seed, id) under `.bsuite/agree-cache/`, so a second
//! call reuses it. Then, per id and per experiment, the two sides' per-seed values are
//! compared (`bsuite_analysis::agreement`): the bsuite score, and the run's mean episode
//! return, whose tolerance is the given fraction of the span of episode returns logged.
//! The comparison is printed and written as `agreement.md` and `agreement.json`, with one
//! learning-curve plot per id (`curves/<experiment>-<index>.svg` and `.pdf`).

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::io::Write as _;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use bsuite_analysis::agreement::{self, Comparison, Verdict};
use bsuite_analysis::{summarize, AgentResults, Summary};
use bsuite_baselines::runner::RunnerOptions;
use bsuite_baselines::sweep;
use bsuite_envs::BsuiteId;
use bsuite_logging::manifest::RunManifest;
use bsuite_logging::results::RunTable;
use bsuite_report::drawing::{Drawing, DrawingAxis, Facet, Key, Layer, Legend, Stroke};
use bsuite_report::style::Colour;

use crate::libtorch::{self, workspace_root};

/// Options of `cargo xtask agree`.
#[derive(clap::Args)]
pub struct AgreeArgs {
    /// The agent: dqn, boot_dqn, actor_critic or actor_critic_rnn.
    agent: String,
    /// What to compare on: bsuite_ids, experiments or tags.
    #[arg(long, num_args = 1.., required = true, value_name = "ID|EXPERIMENT|TAG")]
    ids: Vec<String>,
    /// Seeds per side: S..S+K, S being --first-seed.
    #[arg(long, default_value_t = 10, value_name = "K")]
    seeds: u32,
    /// The first seed, S: a comparison that differed is replicated on fresh seeds (its
    /// own seeds were picked for differing, so they overstate the difference).
    #[arg(long, default_value_t = 0, value_name = "S")]
    first_seed: u32,
    /// Episodes per run instead of each experiment's own (at least 1).
    #[arg(long, value_name = "N", value_parser = bsuite_baselines::sweep::positive)]
    num_episodes: Option<usize>,
    /// Differences below this do not matter: in score units for scores, and as a fraction
    /// of the span of logged episode returns for mean returns.
    #[arg(long, default_value_t = 0.1)]
    tolerance: f64,
    /// Python of the JAX-agents venv (`bash tools/reference/setup_jax_agents.sh`).
    #[arg(long, value_name = "PYTHON")]
    python: Option<PathBuf>,
    /// Where our runs and the comparison go (default: `results/agree/<agent>`).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Where reference runs are cached (default: .bsuite/agree-cache).
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
    /// Processes per side at a time (default: one per core).
    #[arg(long, default_value_t = 0)]
    jobs: usize,
}

impl AgreeArgs {
    /// The seeds both sides run.
    fn seed_range(&self) -> std::ops::Range<u32> {
        self.first_seed..self.first_seed + self.seeds
    }
}

/// The agents that have a bsuite JAX counterpart to compare with: the LibTorch agents
/// ([`bsuite_baselines::factory::LIBTORCH_AGENTS`]) but our own variant
/// `actor_critic_rnn_reset`.
const AGENTS: [&str; 4] = ["dqn", "boot_dqn", "actor_critic", "actor_critic_rnn"];

/// The number of ids of `dir` that logged at least their target episodes.
fn complete_ids(dir: &Path, ids: &[BsuiteId], num_episodes: Option<usize>) -> Vec<BsuiteId> {
    let Ok(agent) = AgentResults::load_lenient("cache", dir) else {
        return Vec::new();
    };
    ids.iter()
        .copied()
        .filter(|id| {
            let target = num_episodes.unwrap_or(id.num_episodes()) as u64;
            agent
                .runs
                .iter()
                .any(|run| run.id() == *id && run.last_episode() >= target)
        })
        .collect()
}

/// One side's runs: per seed, the loaded results of the ids compared.
struct Side {
    seeds: Vec<AgentResults>,
    summaries: Vec<Summary>,
}

impl Side {
    /// Reads the runs of `ids` in every seed's directory. Other ids there (a cache or an
    /// earlier comparison's results) are left out, so that an experiment's score is over
    /// the ids compared alone.
    fn load(name: &str, dirs: &[PathBuf], ids: &[BsuiteId]) -> Result<Side> {
        let seeds = dirs
            .iter()
            .map(|dir| {
                let mut results = AgentResults::load_lenient(name, dir)
                    .with_context(|| format!("reading {}", dir.display()))?;
                results.runs.retain(|run| ids.contains(&run.id()));
                Ok(results)
            })
            .collect::<Result<Vec<_>>>()?;
        let summaries = seeds.iter().map(summarize).collect();
        Ok(Side { seeds, summaries })
    }

    fn id_scores(&self, id: BsuiteId) -> Vec<f64> {
        self.summaries
            .iter()
            .filter_map(|s| s.ids.iter().find(|i| i.id == id)?.score.value())
            .collect()
    }

    fn experiment_scores(&self, experiment: &str) -> Vec<f64> {
        self.summaries
            .iter()
            .filter_map(|s| s.experiment(experiment)?.score.value())
            .collect()
    }

    fn runs(&self, id: BsuiteId) -> Vec<&RunTable> {
        self.seeds
            .iter()
            .filter_map(|a| a.runs.iter().find(|r| r.id() == id))
            .collect()
    }
}

/// One row of the comparison.
struct Row {
    name: String,
    score: Option<Comparison>,
    mean_return: Option<(Comparison, f64)>,
    curve: Option<CurveTest>,
}

/// The learning curves compared window by window ([`agreement::curve_windows`]): the mean
/// return over each window's episodes, per seed on each side.
struct CurveTest {
    /// Per window, the episodes it covers (the same on every run of an id) and the test.
    windows: Vec<(RangeInclusive<u64>, Comparison)>,
}

impl CurveTest {
    fn new(ours: &[&RunTable], reference: &[&RunTable], num_episodes: u64) -> Option<CurveTest> {
        let windows: Vec<_> = agreement::curve_windows(num_episodes)
            .into_iter()
            .filter_map(|(after, through)| {
                let returns = |runs: &[&RunTable]| -> Vec<(RangeInclusive<u64>, f64)> {
                    runs.iter()
                        .filter_map(|run| agreement::window_return(run, after, through))
                        .collect()
                };
                let (a, b) = (returns(ours), returns(reference));
                if b.is_empty() {
                    return None;
                }
                // Every run of an id covers the same episodes: take them from the first.
                let episodes = a.first()?.0.clone();
                let values = |w: &[(RangeInclusive<u64>, f64)]| -> Vec<f64> {
                    w.iter().map(|(_, value)| *value).collect()
                };
                Some((episodes, agreement::compare(&values(&a), &values(&b))))
            })
            .collect();
        (!windows.is_empty()).then_some(CurveTest { windows })
    }

    /// The smallest window p-value times the number of windows (Bonferroni), at most 1: the
    /// curves differ when some window does, with the chance of a false alarm kept at the
    /// level of a single test.
    fn p_value(&self) -> f64 {
        let smallest = self
            .windows
            .iter()
            .map(|(_, c)| c.p_value)
            .fold(1.0, f64::min);
        (smallest * self.windows.len() as f64).min(1.0)
    }
}

impl Row {
    /// The verdict: `differs` when any test finds a difference (the score's, the mean
    /// return's, or the learning curves'); else from the mean return where there is one (a
    /// continuous measure), else from the score.
    fn verdict(&self, tolerance: f64) -> &'static str {
        let differs = |c: &Comparison| c.verdict(f64::INFINITY) == Verdict::Differs;
        if self.score.as_ref().is_some_and(differs)
            || self.mean_return.as_ref().is_some_and(|(c, _)| differs(c))
            || self.curve.as_ref().is_some_and(|c| c.p_value() < 0.05)
        {
            return Verdict::Differs.as_str();
        }
        match (&self.mean_return, &self.score) {
            (Some((c, span)), _) => c.verdict(tolerance * span).as_str(),
            (None, Some(c)) => c.verdict(tolerance).as_str(),
            (None, None) => "no data",
        }
    }
}

fn fmt_comparison(c: &Option<Comparison>) -> String {
    match c {
        Some(c) => format!(
            "{:.3} ± {:.3} | {:.3} ± {:.3} | {:.3} | {:.3}",
            c.ours.mean, c.ours.sd, c.reference.mean, c.reference.sd, c.p_value, c.detectable
        ),
        None => "- | - | - | -".to_string(),
    }
}

/// Runs `cargo xtask agree`.
pub fn run(args: &AgreeArgs) -> Result<()> {
    if !AGENTS.contains(&args.agent.as_str()) {
        bail!(
            "agree compares a learning agent with bsuite's JAX one: one of {}",
            AGENTS.join(", ")
        );
    }
    if args.seeds < 2 {
        bail!(
            "--seeds {}: a comparison needs at least 2 seeds per side",
            args.seeds
        );
    }
    let ids = sweep::select_ids(&args.ids)?;
    let root = workspace_root();
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("results/agree").join(&args.agent));
    let episodes_tag = args
        .num_episodes
        .map_or("full".to_string(), |n| format!("episodes-{n}"));
    let cache = args
        .cache
        .clone()
        .unwrap_or_else(|| root.join(".bsuite/agree-cache"))
        .join(&args.agent)
        .join(&episodes_tag);
    let python = args
        .python
        .clone()
        .unwrap_or_else(|| root.join(".bsuite/jax-venv/bin/python"));
    let id_args: Vec<String> = ids.iter().map(|id| id.to_string()).collect();
    let jobs = RunnerOptions {
        jobs: args.jobs,
        ..RunnerOptions::default()
    }
    .effective_jobs();

    // Ours: one resumable sweep per seed.
    let mut ours_dirs = Vec::new();
    for seed in args.seed_range() {
        let dir = out.join("ours").join(format!("seed-{seed}"));
        if complete_ids(&dir, &ids, args.num_episodes).len() < ids.len() {
            bsuite_baselines::errln!("agree: ours, seed {seed}");
            let mut bsuite_run: Vec<OsString> = vec![args.agent.clone().into(), "--ids".into()];
            bsuite_run.extend(id_args.iter().map(OsString::from));
            bsuite_run.extend(["--seed".into(), seed.to_string().into()]);
            bsuite_run.extend(["--results".into(), dir.clone().into_os_string()]);
            bsuite_run.extend(["--jobs".into(), jobs.to_string().into()]);
            bsuite_run.extend(["--plain".into(), "--no-score".into()]);
            if let Some(n) = args.num_episodes {
                bsuite_run.extend(["--num-episodes".into(), n.to_string().into()]);
            }
            libtorch::run_baselines_bin("bsuite-run", &bsuite_run, None)?;
        }
        ours_dirs.push(dir);
    }

    // The reference: cached per seed and id.
    let mut reference_dirs = Vec::new();
    for seed in args.seed_range() {
        let dir = cache.join(format!("seed-{seed}"));
        let done = complete_ids(&dir, &ids, args.num_episodes);
        let missing: Vec<String> = ids
            .iter()
            .filter(|id| !done.contains(id))
            .map(|id| id.to_string())
            .collect();
        if !missing.is_empty() {
            if !python.exists() {
                bail!(
                    "{} not found: build the JAX-agents venv with `bash tools/reference/setup_jax_agents.sh` \
                     (or pass --python)",
                    python.display()
                );
            }
            bsuite_baselines::errln!(
                "agree: bsuite's JAX {}, seed {seed}: {} ids ({} cached)",
                args.agent,
                missing.len(),
                done.len()
            );
            std::fs::create_dir_all(&dir)?;
            let mut command = Command::new(&python);
            command
                .arg(root.join("tools/reference/jax_agent.py"))
                .args(["run", "--agent", &args.agent, "--seed", &seed.to_string()])
                .arg("--results-dir")
                .arg(&dir)
                .args(["--jobs", &jobs.to_string()]);
            if let Some(n) = args.num_episodes {
                command.args(["--num-episodes", &n.to_string()]);
            }
            let status = command
                .args(&missing)
                .status()
                .with_context(|| format!("running {}", python.display()))?;
            if !status.success() {
                bail!("the reference run of seed {seed} failed ({status})");
            }
        } else {
            bsuite_baselines::errln!(
                "agree: bsuite's JAX {}, seed {seed}: all {} ids cached",
                args.agent,
                ids.len()
            );
        }
        reference_dirs.push(dir);
    }

    let builds = our_builds(&ours_dirs, args.seed_range())?;
    if builds.len() > 1 {
        bsuite_baselines::errln!(
            "agree: warning: our seeds were run by {} builds ({}); a build that computes \
             differently is another agent, so compare one build (a fresh --out)",
            builds.len(),
            fmt_builds(&builds)
        );
    }
    let ours = Side::load("ours", &ours_dirs, &ids)?;
    let reference = Side::load("bsuite JAX", &reference_dirs, &ids)?;
    let mut id_rows = Vec::new();
    for &id in &ids {
        let (a, b) = (ours.runs(id), reference.runs(id));
        let returns = |runs: &[&RunTable]| -> Vec<f64> {
            runs.iter()
                .filter_map(|r| agreement::mean_return(r))
                .collect()
        };
        let span = agreement::return_range(a.iter().chain(&b).copied()).map(|(lo, hi)| hi - lo);
        let (ra, rb) = (returns(&a), returns(&b));
        let (sa, sb) = (ours.id_scores(id), reference.id_scores(id));
        id_rows.push(Row {
            name: id.to_string(),
            score: (!sa.is_empty() && !sb.is_empty()).then(|| agreement::compare(&sa, &sb)),
            mean_return: (!ra.is_empty() && !rb.is_empty())
                .then(|| (agreement::compare(&ra, &rb), span.unwrap_or(0.0).max(1e-9))),
            curve: CurveTest::new(
                &a,
                &b,
                args.num_episodes.unwrap_or(id.num_episodes()) as u64,
            ),
        });
        write_curves(&out, id, &a, &b)?;
    }
    let mut experiments: Vec<&'static str> = ids.iter().map(|id| id.experiment().name).collect();
    experiments.dedup();
    let experiment_rows: Vec<Row> = experiments
        .iter()
        .map(|&name| {
            let (sa, sb) = (
                ours.experiment_scores(name),
                reference.experiment_scores(name),
            );
            Row {
                name: name.to_string(),
                score: (!sa.is_empty() && !sb.is_empty()).then(|| agreement::compare(&sa, &sb)),
                mean_return: None,
                curve: None,
            }
        })
        .collect();

    let report = markdown(args, &ids, &builds, &id_rows, &experiment_rows);
    let _ = write!(bsuite_baselines::console::Stdout, "{report}");
    std::fs::create_dir_all(&out)?;
    std::fs::write(out.join("agreement.md"), &report)?;
    std::fs::write(
        out.join("agreement.json"),
        serde_json::to_string_pretty(&json(args, &builds, &id_rows, &experiment_rows))?,
    )?;
    bsuite_baselines::errln!(
        "agree: wrote {} and {}",
        out.join("agreement.md").display(),
        out.join("curves").display()
    );
    Ok(())
}

/// The builds that ran our side: each git revision their manifests record (the last
/// build that wrote to the seed's directory), with its seeds. Our side is cached in `--out`
/// across calls, so without this a comparison could mix builds unseen.
fn our_builds(dirs: &[PathBuf], seeds: std::ops::Range<u32>) -> Result<BTreeMap<String, Vec<u32>>> {
    let mut builds: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    for (dir, seed) in dirs.iter().zip(seeds) {
        let revision = RunManifest::read(dir)?
            .and_then(|manifest| manifest.git_revision)
            .unwrap_or_else(|| "not recorded".to_string());
        builds.entry(revision).or_default().push(seed);
    }
    Ok(builds)
}

/// `builds` as `rev (seeds 0-9, 12)` items, commits shortened to 12 digits.
fn fmt_builds(builds: &BTreeMap<String, Vec<u32>>) -> String {
    let mut items = Vec::new();
    for (revision, seeds) in builds {
        let mut ranges: Vec<String> = Vec::new();
        let mut i = 0;
        while i < seeds.len() {
            let start = seeds[i];
            while i + 1 < seeds.len() && seeds[i + 1] == seeds[i] + 1 {
                i += 1;
            }
            ranges.push(match seeds[i] == start {
                true => start.to_string(),
                false => format!("{start}-{}", seeds[i]),
            });
            i += 1;
        }
        // The commit shortened, a `-modified` build's mark kept.
        let (commit, mark) = revision.split_at(revision.find('-').unwrap_or(revision.len()));
        let short = &commit[..commit.len().min(12)];
        items.push(format!("{short}{mark} (seeds {})", ranges.join(", ")));
    }
    items.join("; ")
}

fn markdown(
    args: &AgreeArgs,
    ids: &[BsuiteId],
    builds: &BTreeMap<String, Vec<u32>>,
    id_rows: &[Row],
    experiment_rows: &[Row],
) -> String {
    let mut s = String::new();
    let episodes = args
        .num_episodes
        .map_or("each experiment's own episodes".to_string(), |n| {
            format!("{n} episodes per run")
        });
    let _ = writeln!(
        s,
        "# {}: ours vs bsuite 0.3.6's JAX default_agent\n\n{} seeds per side ({}..{}), {} ids, {}; \
         tolerance {} (score units; for mean returns, a fraction of the span of logged episode \
         returns). Each cell: mean ± sd (ours | reference) | permutation-test p | smallest \
         difference detectable (80% power, 5% level). Curve p: the learning curves' test, the \
         smallest p of the episode windows below times their number.\n",
        args.agent,
        args.seeds,
        args.first_seed,
        args.first_seed + args.seeds - 1,
        ids.len(),
        episodes,
        args.tolerance
    );
    let _ = writeln!(
        s,
        "Our side's bsuite-rs build, by git revision: {}.\n",
        fmt_builds(builds)
    );
    let _ = writeln!(
        s,
        "| id | mean return: ours | reference | p | detectable | span | score: ours | reference | p | detectable | curve p | verdict |\n|---|---|---|---|---|---|---|---|---|---|---|---|"
    );
    for row in id_rows {
        let (ret, span) = match &row.mean_return {
            Some((c, span)) => (fmt_comparison(&Some(*c)), format!("{span:.3}")),
            None => (fmt_comparison(&None), "-".to_string()),
        };
        let curve = row
            .curve
            .as_ref()
            .map_or("-".to_string(), |c| format!("{:.3}", c.p_value()));
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} |",
            row.name,
            ret,
            span,
            fmt_comparison(&row.score),
            curve,
            row.verdict(args.tolerance)
        );
    }
    let _ = writeln!(
        s,
        "\n| id | episodes | mean return: ours | reference | p | detectable |\n|---|---|---|---|---|---|"
    );
    for row in id_rows {
        for (episodes, c) in row.curve.iter().flat_map(|c| &c.windows) {
            let _ = writeln!(
                s,
                "| {} | {}-{} | {} |",
                row.name,
                episodes.start(),
                episodes.end(),
                fmt_comparison(&Some(*c))
            );
        }
    }
    let _ = writeln!(
        s,
        "\n| experiment | score: ours | reference | p | detectable | verdict |\n|---|---|---|---|---|---|"
    );
    for row in experiment_rows {
        let _ = writeln!(
            s,
            "| {} | {} | {} |",
            row.name,
            fmt_comparison(&row.score),
            row.verdict(args.tolerance)
        );
    }
    s
}

fn json(
    args: &AgreeArgs,
    builds: &BTreeMap<String, Vec<u32>>,
    id_rows: &[Row],
    experiment_rows: &[Row],
) -> serde_json::Value {
    use serde_json::json;
    let comparison = |c: &Comparison| {
        json!({
            "ours": {"mean": c.ours.mean, "sd": c.ours.sd, "n": c.ours.n},
            "reference": {"mean": c.reference.mean, "sd": c.reference.sd, "n": c.reference.n},
            "p_value": c.p_value,
            "detectable": c.detectable,
        })
    };
    let row = |r: &Row| {
        json!({
            "score": r.score.as_ref().map(comparison),
            "mean_return": r.mean_return.as_ref().map(|(c, span)| {
                let mut v = comparison(c);
                v["span"] = json!(span);
                v
            }),
            "curve": r.curve.as_ref().map(|c| json!({
                "p_value": c.p_value(),
                "windows": c.windows.iter().map(|(episodes, w)| {
                    let mut v = comparison(w);
                    v["episodes"] = json!([episodes.start(), episodes.end()]);
                    v
                }).collect::<Vec<_>>(),
            })),
            "verdict": r.verdict(args.tolerance),
        })
    };
    let ids: BTreeMap<&str, serde_json::Value> =
        id_rows.iter().map(|r| (r.name.as_str(), row(r))).collect();
    let experiments: BTreeMap<&str, serde_json::Value> = experiment_rows
        .iter()
        .map(|r| (r.name.as_str(), row(r)))
        .collect();
    json!({
        "agent": args.agent,
        "seeds": args.seeds,
        "first_seed": args.first_seed,
        "num_episodes": args.num_episodes,
        "tolerance": args.tolerance,
        "our_builds": builds,
        "ids": ids,
        "experiments": experiments,
    })
}

/// Both sides' learning curves of one id, mean and one standard deviation over seeds.
fn write_curves(
    out: &Path,
    id: BsuiteId,
    ours: &[&RunTable],
    reference: &[&RunTable],
) -> Result<()> {
    let ours_colour = Colour::hex(0x1f77b4);
    let reference_colour = Colour::hex(0xd62728);
    let mut facet = Facet::default();
    for (runs, colour) in [(reference, reference_colour), (ours, ours_colour)] {
        let curves: Vec<_> = runs.iter().map(|r| agreement::learning_curve(r)).collect();
        let band = agreement::curve_band(&curves);
        facet.layers.push(Layer::Ribbon {
            points: band.iter().map(|&(x, m, sd)| (x, m - sd, m + sd)).collect(),
            fill: colour,
            opacity: 0.2,
        });
        facet.layers.push(Layer::Line {
            points: band.iter().map(|&(x, m, _)| (x, m)).collect(),
            stroke: Stroke::solid(colour, 2.0),
        });
    }
    let mut figure = Drawing::new(
        DrawingAxis::new("episode").log10(),
        DrawingAxis::new("mean return per episode since the previous log point"),
    );
    figure.title = Some(format!(
        "{id}: ours ({} seeds) vs bsuite JAX ({} seeds), mean ± 1 sd",
        ours.len(),
        reference.len()
    ));
    figure.facets.push(facet);
    figure.legends.push(Legend {
        title: "agent".to_string(),
        entries: vec![
            (
                "ours".to_string(),
                Key::Line(Stroke::solid(ours_colour, 2.0)),
            ),
            (
                "bsuite JAX".to_string(),
                Key::Line(Stroke::solid(reference_colour, 2.0)),
            ),
        ],
    });
    let svg = bsuite_report::render::render_svg(&figure)?;
    let dir = out.join("curves");
    std::fs::create_dir_all(&dir)?;
    let name = format!("{}-{}", id.experiment().name, id.index());
    let pdf = bsuite_report::convert::Converter::new().to_pdf(&svg)?;
    std::fs::write(dir.join(format!("{name}.svg")), svg)?;
    std::fs::write(dir.join(format!("{name}.pdf")), pdf)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use bsuite_analysis::agreement::compare;

    #[test]
    fn the_compared_agents_are_the_libtorch_agents_but_our_variant() {
        let libtorch = bsuite_baselines::factory::LIBTORCH_AGENTS;
        let others: Vec<&str> = libtorch
            .into_iter()
            .filter(|name| !AGENTS.contains(name))
            .collect();
        assert_eq!(others, ["actor_critic_rnn_reset"]);
        assert!(AGENTS.iter().all(|name| libtorch.contains(name)));
    }

    #[test]
    fn seeds_run_from_the_first_seed() {
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            agree: AgreeArgs,
        }
        let seeds = |extra: &[&str]| {
            let mut argv = vec!["agree", "dqn", "--ids", "catch/0"];
            argv.extend(extra);
            <Cli as clap::Parser>::parse_from(argv).agree.seed_range()
        };
        assert_eq!(seeds(&[]), 0..10);
        assert_eq!(seeds(&["--seeds", "30", "--first-seed", "30"]), 30..60);
    }

    #[test]
    fn builds_list_their_seeds_as_ranges() {
        let builds = BTreeMap::from([
            ("0123456789abcdef".to_string(), vec![0, 1, 2, 5, 7, 8]),
            ("0123456789abcdef-modified".to_string(), vec![4]),
            ("not recorded".to_string(), vec![3]),
        ]);
        assert_eq!(
            fmt_builds(&builds),
            "0123456789ab (seeds 0-2, 5, 7-8); 0123456789ab-modified (seeds 4); not recorded \
             (seeds 3)"
        );
    }

    #[test]
    fn builds_come_from_the_seeds_manifests() {
        let root = std::env::temp_dir().join(format!("agree-builds-{}", std::process::id()));
        let dirs: Vec<PathBuf> = (0..3).map(|s| root.join(format!("seed-{s}"))).collect();
        for (seed, dir) in dirs.iter().enumerate() {
            std::fs::create_dir_all(dir).unwrap();
            let revision = ["aaa", "bbb", "aaa"][seed];
            let manifest = RunManifest {
                git_revision: Some(revision.to_string()),
                ..RunManifest::new("dqn", "DQN", seed as u32, None)
            };
            manifest.write(dir).unwrap();
        }
        std::fs::remove_file(dirs[1].join(bsuite_logging::manifest::MANIFEST_FILE)).unwrap();
        let builds = our_builds(&dirs, 0..3).unwrap();
        std::fs::remove_dir_all(&root).unwrap();
        assert_eq!(
            builds,
            BTreeMap::from([
                ("aaa".to_string(), vec![0, 2]),
                ("not recorded".to_string(), vec![1]),
            ])
        );
    }

    fn row(score: Option<Comparison>, mean_return: Option<(Comparison, f64)>) -> Row {
        Row {
            name: "catch/0".to_string(),
            score,
            mean_return,
            curve: None,
        }
    }

    #[test]
    fn an_id_differs_when_either_test_does_and_agrees_only_on_a_sharp_test() {
        let same: Vec<f64> = (0..10).map(|i| 0.5 + 0.001 * i as f64).collect();
        let shifted: Vec<f64> = same.iter().map(|x| x + 0.3).collect();
        let (close, apart) = (compare(&same, &same), compare(&same, &shifted));
        assert_eq!(row(Some(close), Some((close, 2.0))).verdict(0.1), "agrees");
        // The score differs although the mean returns agree: the id differs.
        assert_eq!(row(Some(apart), Some((close, 2.0))).verdict(0.1), "differs");
        assert_eq!(row(Some(close), Some((apart, 2.0))).verdict(0.1), "differs");
        // Too noisy to rule out a difference of the tolerance.
        let noisy = compare(&[0.0, 1.0, 0.0], &[1.0, 0.0, 1.0]);
        assert_eq!(row(None, Some((noisy, 1.0))).verdict(0.1), "inconclusive");
        assert_eq!(row(None, None).verdict(0.1), "no data");
        // Scores and mean returns agree, but one stretch of the learning curves does not.
        let curve = |window: Comparison| CurveTest {
            windows: vec![(1..=10, close), (11..=31, window), (32..=100, close)],
        };
        let mut parted = row(Some(close), Some((close, 2.0)));
        parted.curve = Some(curve(apart));
        assert_eq!(parted.verdict(0.1), "differs");
        parted.curve = Some(curve(close));
        assert_eq!(parted.verdict(0.1), "agrees");
    }

    #[test]
    fn the_curve_test_corrects_for_its_windows() {
        let c = |p_value| Comparison {
            p_value,
            ..compare(&[0.0, 1.0], &[0.0, 1.0])
        };
        let test = CurveTest {
            windows: vec![(1..=1, c(0.9)), (2..=3, c(0.02)), (4..=10, c(0.5))],
        };
        assert!((test.p_value() - 0.06).abs() < 1e-12);
        let test = CurveTest {
            windows: vec![(1..=1, c(0.4)), (2..=3, c(0.9))],
        };
        assert_eq!(test.p_value(), 0.8);
    }
}
