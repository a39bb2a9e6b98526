//! `bsuite study FILE`: a study is a TOML file naming a few agent variants (an agent
//! and its configuration each); the command runs every variant into `RESULTS/<variant>/`
//! and writes one report of all of them, with the study's agent definitions.
//!
//! ```toml
//! title = "DQN with three optimisers"
//!
//! [[variant]]
//! name = "sgd"
//! agent = "dqn"
//! definition = "DQN trained with SGD, learning rate 1e-2."
//! config = { optimizer = "sgd", learning_rate = 1e-2 }
//! ```

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use bsuite_analysis::seeds::SeededAgent;
use bsuite_baselines::config::AgentConfig;
use bsuite_baselines::factory;
use bsuite_baselines::runner::Shard;
use bsuite_baselines::sweep::{self, SweepArgs};
use clap::{Args, Parser};
use serde::Deserialize;

use bsuite_logging::manifest::RunManifest;

use crate::baselines::Baselines;
use crate::results_dirs::load_seeded;

/// Options of `bsuite study`.
#[derive(Args, Debug)]
pub struct StudyArgs {
    /// The study file (TOML: a title and a list of variants).
    pub file: PathBuf,
    /// What to run: bsuite_ids, experiments, tags, SWEEP or TESTING (default: all 468 ids).
    #[arg(long, num_args = 1.., value_name = "ID|EXPERIMENT|TAG|SWEEP|TESTING")]
    pub ids: Vec<String>,
    /// Episodes per id instead of the reference's counts (at least 1).
    #[arg(long, value_name = "N", value_parser = sweep::positive)]
    pub num_episodes: Option<usize>,
    /// Run only shard I of N of every variant's ids (0-based): the shards of a study are
    /// disjoint and together cover every variant-id pair.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<Shard>,
    /// Batches of ids run at once (default: one per core).
    #[arg(long, default_value_t = 0)]
    pub jobs: usize,
    /// Run every variant over several seeds: K seeds from the variant's seed (its `seed`
    /// key, else the agent's default), or the half-open range A..B. Each variant's results
    /// go to `RESULTS/<variant>/seed-<s>/`, and the report reads the variant over its seeds.
    #[arg(long, value_name = "K|A..B")]
    pub seeds: Option<sweep::Seeds>,
    /// Where the variants' results go, one directory per variant.
    #[arg(long, value_name = "DIR", default_value = "results")]
    pub results: PathBuf,
    /// The report directory (default: `report/<study file stem>`).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Run nothing: write the report of whatever the variants have run so far.
    #[arg(long)]
    pub report_only: bool,
    /// With --report-only: take each variant's results from the shipped baselines (built
    /// into bsuite), the one whose manifest records the variant's agent and configuration,
    /// instead of from RESULTS.
    #[arg(long, requires = "report_only")]
    pub baselines: bool,
    /// With --baselines: read the shipped baselines from DIR (its `<name>.tar.gz`
    /// archives, such as a checkout's `baselines/`) instead of those built in.
    #[arg(long, value_name = "DIR", requires = "baselines")]
    pub baselines_dir: Option<PathBuf>,
    /// One line per finished id instead of a progress bar.
    #[arg(long)]
    pub plain: bool,
}

/// A study file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Study {
    /// The report's title.
    title: String,
    /// The variants, in the report's order.
    #[serde(rename = "variant")]
    variants: Vec<Variant>,
}

/// One agent variant of a study.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Variant {
    /// Its name: the results directory and the agent's name in the report.
    name: String,
    /// The agent it configures.
    agent: String,
    /// One sentence for the report's "Agent definition" list.
    definition: String,
    /// Hyperparameters that differ from the agent's defaults.
    #[serde(default)]
    config: toml::Table,
}

impl Variant {
    /// The variant's whole configuration: its agent's defaults with its own keys set.
    fn agent_config(&self) -> Result<AgentConfig> {
        let mut config = AgentConfig::defaults(&self.agent)?;
        for pair in self.config_pairs()? {
            config.set_pair(&pair)?;
        }
        Ok(config)
    }

    /// The `--config KEY=VALUE` pairs of this variant.
    fn config_pairs(&self) -> Result<Vec<String>> {
        self.config
            .iter()
            .map(|(key, value)| {
                let text = sweep::toml_text(value)
                    .map_err(|e| anyhow::anyhow!("variant {}: {key}: {e}", self.name))?;
                Ok(format!("{key}={text}"))
            })
            .collect()
    }
}

/// Reads and checks a study file: unique, usable names, known agents and valid
/// configurations, before anything runs.
fn read_study(path: &Path) -> Result<Study> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let study: Study =
        toml::from_str(&text).with_context(|| format!("study file {}", path.display()))?;
    if study.variants.is_empty() {
        bail!("study file {} has no [[variant]]", path.display());
    }
    let mut seen = Vec::new();
    for variant in &study.variants {
        let name = &variant.name;
        if let Err(error) = sweep::check_name(name) {
            bail!("study file {}: variant name {error}", path.display());
        }
        if seen.contains(&name) {
            bail!(
                "study file {}: two variants are named '{name}'",
                path.display()
            );
        }
        seen.push(name);
        AgentConfig::defaults(&variant.agent).with_context(|| {
            format!(
                "study file {}: variant {name}: valid agents: {}",
                path.display(),
                bsuite_baselines::factory::all_keys()
                    .iter()
                    .map(|(agent, _)| *agent)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })?;
        variant
            .agent_config()
            .with_context(|| format!("study file {}: variant {name}", path.display()))?;
    }
    Ok(study)
}

/// The sweep arguments of one variant.
fn variant_args(args: &StudyArgs, variant: &Variant) -> Result<Vec<OsString>> {
    let mut argv: Vec<OsString> = vec![variant.agent.clone().into()];
    if !args.ids.is_empty() {
        argv.push("--ids".into());
        argv.extend(args.ids.iter().map(OsString::from));
    }
    argv.extend([
        "--results".into(),
        args.results.join(&variant.name).into_os_string(),
    ]);
    argv.extend(["--name".into(), variant.name.clone().into()]);
    for pair in variant.config_pairs()? {
        match (args.seeds, pair.strip_prefix("seed=")) {
            // Over several seeds the variant's seed is the first, which `--seed` gives.
            (Some(_), Some(seed)) => argv.extend(["--seed".into(), seed.into()]),
            _ => argv.extend(["--config".into(), pair.into()]),
        }
    }
    if let Some(seeds) = args.seeds {
        argv.extend(["--seeds".into(), seeds.to_string().into()]);
    }
    if let Some(n) = args.num_episodes {
        argv.extend(["--num-episodes".into(), n.to_string().into()]);
    }
    if let Some(shard) = args.shard {
        argv.extend([
            "--shard".into(),
            format!("{}/{}", shard.index, shard.count).into(),
        ]);
    }
    argv.extend([
        "--jobs".into(),
        args.jobs.to_string().into(),
        "--no-score".into(),
    ]);
    if args.plain {
        argv.push("--plain".into());
    }
    Ok(argv)
}

/// The sweep arguments as `bsuite run` parses them.
#[derive(Parser)]
struct SweepCommand {
    #[command(flatten)]
    sweep: SweepArgs,
}

/// Runs `bsuite study`, with `shipped` the baselines unless `--baselines-dir` names others.
pub fn run(args: &StudyArgs, shipped: &Baselines) -> Result<()> {
    let study = read_study(&args.file)?;
    if !args.report_only {
        for (k, variant) in study.variants.iter().enumerate() {
            bsuite_baselines::errln!(
                "study: variant {} of {}: {} ({})",
                k + 1,
                study.variants.len(),
                variant.name,
                variant.agent
            );
            let argv = variant_args(args, variant)?;
            // Every agent runs here, on its host engine: no LibTorch is provisioned.
            let command =
                SweepCommand::try_parse_from(std::iter::once(OsString::from("run")).chain(argv))?;
            let agent = factory::agent(&variant.agent)?;
            sweep::run_sweep("study", agent, &command.sweep)?;
        }
    }
    report(args, &study, &shipped.or_dir(args.baselines_dir.as_deref()))
}

/// Writes the study's report from every variant with results.
fn report(args: &StudyArgs, study: &Study, shipped: &Baselines) -> Result<()> {
    let out = match &args.out {
        Some(out) => out.clone(),
        None => {
            let stem = args
                .file
                .file_stem()
                .with_context(|| format!("{} has no file name", args.file.display()))?;
            PathBuf::from("report").join(stem)
        }
    };
    let mut agents: Vec<SeededAgent> = Vec::new();
    let mut definitions = BTreeMap::new();
    let shipped = if args.baselines {
        shipped.unpack_all()?
    } else {
        Vec::new()
    };
    for variant in &study.variants {
        let dir = if args.baselines {
            let config = variant.agent_config()?;
            match shipped_run_of(&shipped, variant, &config) {
                Some(dir) => dir.to_path_buf(),
                None => {
                    let changed = config.changed();
                    bsuite_baselines::errln!(
                        "study: no shipped baseline ran variant {} ({} with {}); the report \
                         leaves it out (shipped: {})",
                        variant.name,
                        variant.agent,
                        if changed.is_empty() {
                            "its defaults"
                        } else {
                            &changed
                        },
                        shipped
                            .iter()
                            .map(|(name, _, _)| name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    );
                    continue;
                }
            }
        } else {
            args.results.join(&variant.name)
        };
        // A shipped baseline of several seeds is the variant over those seeds.
        let seeded = dir.is_dir() && !bsuite_analysis::seeds::seed_dirs(&dir)?.is_empty();
        let has_results = seeded
            || dir.is_dir()
                && std::fs::read_dir(&dir)?.any(|f| {
                    f.is_ok_and(|f| {
                        let name = f.file_name();
                        let name = name.to_string_lossy();
                        name.starts_with(bsuite_logging::results::FILE_PREFIX)
                            && name.ends_with(".csv")
                    })
                });
        if !has_results {
            bsuite_baselines::errln!(
                "study: variant {} has no results in {} yet; the report leaves it out",
                variant.name,
                dir.display()
            );
            continue;
        }
        agents.push(load_seeded(&variant.name, &dir, false)?);
        definitions.insert(variant.name.clone(), variant.definition.clone());
    }
    if agents.is_empty() && args.baselines {
        bail!(
            "no variant of {} is among the shipped baselines",
            args.file.display()
        );
    }
    if agents.is_empty() {
        bail!(
            "no variant of {} has results under {}; run the study first",
            args.file.display(),
            args.results.display()
        );
    }
    let options = bsuite_report::Options {
        title: study.title.clone(),
        definitions,
        ..bsuite_report::Options::default()
    };
    let written = match bsuite_report::write_seeded(&agents, &out, &options) {
        // The report's own advice is its command line's --overwrite, which study lacks.
        Err(bsuite_report::Error::ForeignFiles(found)) => {
            bail!("{found}; pass another --out, or move them away")
        }
        written => written?,
    };
    let partial: Vec<&str> = (written.incomplete.iter())
        .filter(|(_, lines)| !lines.is_empty())
        .map(|(agent, _)| agent.as_str())
        .collect();
    if !partial.is_empty() {
        bsuite_baselines::errln!(
            "study: partial variants, marked so in the report: {}",
            partial.join(", ")
        );
    }
    bsuite_baselines::errln!(
        "study: report of {} variant(s) in {} ({})",
        agents.len(),
        out.display(),
        out.join(bsuite_report::html::INDEX).display()
    );
    Ok(())
}

/// The unpacked directory of the shipped baseline that ran `variant`: its manifest names
/// the variant's agent and its configuration, key for key, over every episode. A key the
/// manifest does not record (manifests older than the key) is the agent's default.
fn shipped_run_of<'a>(
    shipped: &'a [(String, PathBuf, RunManifest)],
    variant: &Variant,
    config: &AgentConfig,
) -> Option<&'a Path> {
    let as_map = |config: &AgentConfig| -> BTreeMap<String, String> {
        config
            .entries()
            .map(|(key, value)| (key.to_string(), value.to_string()))
            .collect()
    };
    let wanted = as_map(config);
    let defaults = as_map(&AgentConfig::defaults(&variant.agent).ok()?);
    shipped
        .iter()
        .find(|(_, _, manifest)| {
            let mut ran = defaults.clone();
            ran.extend(manifest.config.clone());
            if ran.contains_key("seed") {
                ran.insert("seed".to_string(), manifest.seed.to_string());
            }
            manifest.agent == variant.agent && manifest.num_episodes.is_none() && ran == wanted
        })
        .map(|(_, dir, _)| dir.as_path())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn studies() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../studies")
    }

    /// A variant takes the shipped run whose manifest records its agent and configuration,
    /// reading keys a manifest lacks as the defaults, and no partial or other run.
    #[test]
    fn variants_find_the_shipped_run_of_their_configuration() {
        let variant = |agent: &str, config: &str| -> Variant {
            toml::from_str(&format!(
                "name = \"v\"\nagent = \"{agent}\"\ndefinition = \"d\"\nconfig = {{ {config} }}\n"
            ))
            .unwrap()
        };
        let manifest = |agent: &str, pairs: &[(&str, &str)], episodes: Option<usize>| {
            let mut m = RunManifest::new(agent, "", 42, episodes);
            m.config = pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            m
        };
        let shipped = vec![
            (
                "old_dqn".to_string(),
                PathBuf::from("old"),
                manifest("dqn", &[], None),
            ),
            (
                "sgd_short".to_string(),
                PathBuf::from("short"),
                manifest(
                    "dqn",
                    &[("optimizer", "sgd"), ("learning_rate", "0.01")],
                    Some(5),
                ),
            ),
            (
                "sgd".to_string(),
                PathBuf::from("sgd"),
                manifest(
                    "dqn",
                    &[("optimizer", "sgd"), ("learning_rate", "0.01")],
                    None,
                ),
            ),
        ];
        let find = |v: &Variant| shipped_run_of(&shipped, v, &v.agent_config().unwrap());
        assert_eq!(find(&variant("dqn", "")), Some(Path::new("old")));
        let sgd = variant("dqn", "optimizer = \"sgd\", learning_rate = 1e-2");
        assert_eq!(find(&sgd), Some(Path::new("sgd")));
        let rmsprop = variant("dqn", "optimizer = \"rmsprop\"");
        assert_eq!(find(&rmsprop), None);
        assert_eq!(find(&variant("boot_dqn", "")), None);
    }

    #[test]
    fn the_shipped_studies_are_valid() {
        for (file, variants) in [
            ("appendix_c.toml", 4),
            ("appendix_d.toml", 3),
            ("appendix_e.toml", 4),
        ] {
            let study = read_study(&studies().join(file)).unwrap();
            assert_eq!(study.variants.len(), variants, "{file}");
        }
    }

    fn study_error(text: &str) -> String {
        let path = std::env::temp_dir().join(format!("bsuite-study-{}.toml", std::process::id()));
        std::fs::write(&path, text).unwrap();
        let err = format!("{:#}", read_study(&path).unwrap_err());
        std::fs::remove_file(&path).unwrap();
        err
    }

    #[test]
    fn bad_studies_are_refused_before_anything_runs() {
        let variant = |name: &str, agent: &str, config: &str| {
            format!(
                "[[variant]]\nname = \"{name}\"\nagent = \"{agent}\"\ndefinition = \"d\"\n\
                 config = {{ {config} }}\n"
            )
        };
        let title = "title = \"t\"\n";
        let err = study_error(&format!(
            "{title}{}",
            variant("a", "dqn", "optimizer = \"adagrad\"")
        ));
        assert!(err.contains("adam, sgd, rmsprop"), "{err}");
        let err = study_error(&format!("{title}{}", variant("a", "dqn", "nonsense = 1")));
        assert!(err.contains("no key 'nonsense'"), "{err}");
        let err = study_error(&format!("{title}{}", variant("a", "dqm", "")));
        assert!(err.contains("unknown agent 'dqm'"), "{err}");
        let twice = variant("a", "dqn", "");
        let err = study_error(&format!("{title}{twice}{twice}"));
        assert!(err.contains("two variants are named 'a'"), "{err}");
        for name in ["../a", ".", ".."] {
            let err = study_error(&format!("{title}{}", variant(name, "dqn", "")));
            assert!(err.contains("cannot name a directory of its own"), "{err}");
        }
        let err = study_error(title);
        assert!(err.contains("variant"), "{err}");
    }
}
