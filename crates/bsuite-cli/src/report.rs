//! `bsuite report`: figures, LaTeX appendix and HTML report from results directories, with
//! the shipped baselines beside them if asked.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use bsuite_analysis::seeds::SeededAgent;
use bsuite_logging::results::FILE_PREFIX;
use bsuite_report::report::is_within;
use clap::Args;

use crate::baselines::Baselines;
use crate::results_dirs::{load_seeded, parse_results};

/// Options of `bsuite report`.
#[derive(Args, Debug)]
pub struct ReportArgs {
    /// A results directory (bsuite CSVs of one agent), optionally named: DIR or NAME=DIR;
    /// or a directory of `seed-<s>/` results directories, one agent over seeds (drawn as
    /// its mean over seeds with intervals). Repeat for several agents side by side; the
    /// name defaults to the directory's name.
    /// Default: every agent directory under `results/` (where `bsuite run` writes).
    #[arg(long = "results", value_name = "DIR[=NAME]")]
    pub results: Vec<std::ffi::OsString>,
    /// The report directory; only files an earlier report wrote in it are replaced.
    #[arg(long, value_name = "DIR", default_value = "report")]
    pub out: PathBuf,
    /// Title of the paper the appendix goes into.
    #[arg(long, default_value = bsuite_report::latex::DEFAULT_TITLE)]
    pub title: String,
    /// Link to the full online report, shown in the appendix.
    #[arg(long, value_name = "URL")]
    pub link: Option<String>,
    /// Skip malformed result files (reported on stderr) instead of failing, as `score`
    /// does.
    #[arg(long)]
    pub lenient: bool,
    /// Replace files in the report directory that no earlier report wrote (by default a
    /// report writes only into an empty directory or one an earlier report wrote).
    #[arg(long)]
    pub overwrite: bool,
    /// Put the shipped baselines (complete sweeps of the reference agents, built into
    /// bsuite) beside the results: names separated by commas, or `all`. Nothing is run;
    /// they are unpacked once into $XDG_CACHE_HOME/bsuite-rs (default ~/.cache/bsuite-rs).
    #[arg(long, value_name = "NAMES|all")]
    pub baselines: Option<String>,
    /// Read the shipped baselines from DIR (its `<name>.tar.gz` archives, such as a
    /// checkout's `baselines/`) instead of those built in.
    #[arg(long, value_name = "DIR", requires = "baselines")]
    pub baselines_dir: Option<PathBuf>,
}

/// The agent directories under `root` that hold bsuite CSVs or `seed-<s>/` directories,
/// sorted by name: what `bsuite report` reads when no `--results` is given.
fn default_results(root: &Path) -> Result<Vec<std::ffi::OsString>> {
    let entries = std::fs::read_dir(root).with_context(|| {
        format!(
            "no --results given and {} cannot be read; run `bsuite run <agent>` \
             first or name results directories with --results DIR",
            root.display()
        )
    })?;
    let mut dirs = Vec::new();
    for entry in entries {
        let path = entry?.path();
        let has_csv = path.is_dir()
            && std::fs::read_dir(&path)?
                .any(|f| f.is_ok_and(|f| f.file_name().to_string_lossy().starts_with(FILE_PREFIX)));
        // A multi-seed run (`bench-all --seeds`) is one agent too.
        let has_seeds = path.is_dir()
            && !bsuite_analysis::seeds::seed_dirs(&path)
                .unwrap_or_default()
                .is_empty();
        if has_csv || has_seeds {
            dirs.push(path.into_os_string());
        }
    }
    dirs.sort();
    if dirs.is_empty() {
        bail!(
            "no --results given and {} has no agent directory with bsuite CSVs; run \
             `bsuite run <agent>` first or name results directories with --results DIR",
            root.display()
        );
    }
    Ok(dirs)
}

/// Adds one agent's results directory to the report's, refusing a second agent of the same
/// name and a results directory that holds the report directory.
fn add_results(
    dirs: &mut Vec<PathBuf>,
    names: &mut Vec<String>,
    out: &Path,
    dir: PathBuf,
    name: String,
) -> Result<()> {
    if let Some(k) = names.iter().position(|n| *n == name) {
        bail!(
            "{} and {} both give the agent name '{name}'; name them apart with NAME=DIR",
            dirs[k].display(),
            dir.display()
        );
    }
    if is_within(out, &dir) {
        bail!(
            "the report directory {} is inside the results directory {}; choose another --out",
            out.display(),
            dir.display()
        );
    }
    dirs.push(dir);
    names.push(name);
    Ok(())
}

/// Runs `bsuite report`, with `shipped` the baselines unless `--baselines-dir` names others.
pub fn run(args: &ReportArgs, shipped: &Baselines) -> Result<()> {
    let shipped = shipped.or_dir(args.baselines_dir.as_deref());
    let start = Instant::now();
    let mut dirs: Vec<PathBuf> = Vec::new();
    let mut names: Vec<String> = Vec::new();
    let baselines = match &args.baselines {
        Some(spec) => shipped.select(spec)?,
        None => Vec::new(),
    };
    let results = if !args.results.is_empty() {
        args.results.clone()
    } else if baselines.is_empty() || Path::new("results").is_dir() {
        default_results(Path::new("results"))?
    } else {
        Vec::new()
    };
    for arg in &results {
        let (dir, name) = parse_results(arg)?;
        add_results(&mut dirs, &mut names, &args.out, dir, name)?;
    }
    // The user's results are all checked before any baseline is unpacked. A baseline is
    // called by its agent's name unless the user's results already are.
    let users = names.len();
    for name in &baselines {
        let shown = if names[..users].contains(name) {
            format!("{name}_baseline")
        } else {
            name.clone()
        };
        let dir = shipped.unpack(name)?;
        add_results(&mut dirs, &mut names, &args.out, dir, shown)?;
    }
    let mut agents: Vec<SeededAgent> = dirs
        .iter()
        .zip(&names)
        .map(|(dir, name)| load_seeded(name, dir, args.lenient))
        .collect::<Result<_>>()?;
    // The shipped baselines may hold a run of the user's (`bench-all random` writes seed 42
    // of the shipped random baseline): each run is reported once, by the agent that holds
    // the most of it, under the user's name.
    let mut k = users;
    while k < agents.len() {
        let inner = (0..users).find(|&u| bsuite_report::holds_every_seed(&agents[k], &agents[u]));
        let outer = (0..users).find(|&u| bsuite_report::holds_every_seed(&agents[u], &agents[k]));
        let shown = agents[k].name.trim_end_matches("_baseline").to_string();
        match (inner, outer) {
            (_, Some(u)) => {
                bsuite_baselines::errln!(
                    "report: the shipped baseline {shown} is {} again (the same agent, \
                     configuration, seeds and results); reported once, as '{}'",
                    dirs[u].display(),
                    agents[u].name
                );
                agents.remove(k);
                dirs.remove(k);
            }
            (Some(u), None) => {
                bsuite_baselines::errln!(
                    "report: {} holds {} of the shipped baseline {shown}'s {} seeds (the same \
                     runs); reported once, as '{}' over the baseline's {} seeds",
                    dirs[u].display(),
                    agents[u].seeds.len(),
                    agents[k].seeds.len(),
                    agents[u].name,
                    agents[k].seeds.len()
                );
                let mut baseline = agents.remove(k);
                baseline.name = agents[u].name.clone();
                agents[u] = baseline;
                dirs[u] = dirs.remove(k);
            }
            (None, None) => k += 1,
        }
    }
    for warning in agents.iter().flat_map(SeededAgent::warnings) {
        bsuite_baselines::errln!("warning: {warning}");
    }
    let options = bsuite_report::Options {
        title: args.title.clone(),
        link: args.link.clone(),
        overwrite: args.overwrite,
        ..bsuite_report::Options::default()
    };
    let written = bsuite_report::write_seeded(&agents, &args.out, &options)?;
    for (agent, lines) in &written.incomplete {
        for line in lines {
            bsuite_baselines::errln!("warning: {agent}: {line}");
        }
    }
    if !written.removed.is_empty() {
        bsuite_baselines::errln!(
            "removed {} file(s) of an earlier report that this one does not write",
            written.removed.len()
        );
    }
    bsuite_baselines::outln!(
        "report: {} agent(s), {} figures (SVG and PDF), {} files in {:.2} s",
        agents.len(),
        written.figures,
        written.files.len(),
        start.elapsed().as_secs_f64()
    );
    bsuite_baselines::outln!(
        "  HTML:  {}",
        args.out.join(bsuite_report::html::INDEX).display()
    );
    bsuite_baselines::outln!(
        "  LaTeX: {} (pdflatex + bibtex; or \\input {} and {} into your paper)",
        args.out.join(bsuite_report::latex::STANDALONE).display(),
        bsuite_report::latex::PREAMBLE,
        bsuite_report::latex::APPENDIX
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixtures() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/random_results")
    }

    #[test]
    fn default_results_are_the_agent_directories_with_csvs() {
        let root =
            std::env::temp_dir().join(format!("bsuite-report-default-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let err = default_results(&root).unwrap_err().to_string();
        assert!(err.contains("bsuite run <agent>"), "{err}");
        for (agent, file) in [
            ("dqn", "bsuite_id_-_catch-0.csv"),
            ("a2c", "bsuite_id_-_bandit-0.csv"),
            ("notes", "x.txt"),
            // A run over seeds (`bench-all --seeds`) is one agent.
            ("seeded/seed-42", "bsuite_id_-_catch-0.csv"),
        ] {
            std::fs::create_dir_all(root.join(agent)).unwrap();
            std::fs::write(root.join(agent).join(file), "").unwrap();
        }
        let dirs = default_results(&root).unwrap();
        let names: Vec<String> = (dirs.iter())
            .map(|d| {
                Path::new(d)
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        assert_eq!(names, ["a2c", "dqn", "seeded"]);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_report_directory_inside_a_results_directory_is_refused() {
        let dir = fixtures();
        assert!(is_within(&dir.join("report/new"), &dir));
        assert!(is_within(&dir, &dir));
        assert!(!is_within(&dir.join("../elsewhere"), &dir));
    }

    #[test]
    fn two_directories_with_one_name_are_refused_before_reading() {
        let dir = fixtures();
        let args = ReportArgs {
            results: vec![
                format!("a={}", dir.display()).into(),
                format!("a={}", dir.display()).into(),
            ],
            out: std::env::temp_dir().join("bsuite-xtask-report-never-written"),
            title: "t".into(),
            link: None,
            lenient: false,
            overwrite: false,
            baselines: None,
            baselines_dir: None,
        };
        let err = run(&args, &Baselines::built_in()).unwrap_err().to_string();
        assert!(err.contains("both give the agent name 'a'"), "{err}");
        assert!(!args.out.exists());
    }
}
