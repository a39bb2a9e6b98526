//! `cargo xtask pack-baseline`: ships a sweep as a baseline, `baselines/<name>.tar.gz`, a
//! complete sweep (all 468 ids, every episode) of one agent in its default configuration
//! (or under a name of its own), with the run's manifest, and `baselines/<name>.scores.json`,
//! its scores; a partial sweep is refused. The `bsuite` command carries these archives
//! built in and unpacks them (`bsuite_cli::baselines`). Seeds run later join a shipped
//! baseline with `--add-seeds`; `--overwrite` never drops a seed the archive holds.

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use bsuite_analysis::{summarize, AgentResults};
use bsuite_logging::manifest::MANIFEST_FILE;
use bsuite_logging::results::FILE_PREFIX;
use clap::Args;
use flate2::write::GzEncoder;

/// The repository's root.
fn root() -> &'static Path {
    let xtask = Path::new(env!("CARGO_MANIFEST_DIR"));
    xtask.parent().unwrap_or(xtask)
}

/// The repository's directory of shipped baselines.
fn shipped() -> PathBuf {
    root().join("baselines")
}

/// Options of `cargo xtask pack-baseline`.
#[derive(Args, Debug)]
pub struct PackArgs {
    /// A results directory holding a complete sweep.
    pub dir: PathBuf,
    /// The baseline's name (default: the agent in the directory's manifest). A sweep of
    /// another configuration than the agent's default needs a name of its own, e.g.
    /// `dqn_sgd`: a baseline named after its agent is that agent's default.
    #[arg(long)]
    pub name: Option<String>,
    /// Where the archive and its scores go (default: the repository's `baselines/`).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Replace an archive or scores of the same name already there (refused if the
    /// archive holds a seed that the directory lacks: see --add-seeds).
    #[arg(long)]
    pub overwrite: bool,
    /// Add the directory's seeds (its `seed-<s>/` directories, or the one seed of a plain
    /// results directory) to the baseline of this name already there: the new archive
    /// holds its seeds and these, which must be other seeds of the same run (the same
    /// agent and configuration, as every multi-seed baseline's are).
    #[arg(long, conflicts_with = "overwrite")]
    pub add_seeds: bool,
}

/// The names `--baselines` reads as something other than a baseline.
const RESERVED_NAMES: [&str; 1] = ["all"];

/// Checks a baseline's name as `study` checks a variant's: it names files of its own in
/// `--out` (letters, digits, `_`, `-`, `.`; not `.` or `..`, no `/`), and is not a word
/// `--baselines` reserves.
fn check_baseline_name(name: &str) -> Result<()> {
    bsuite_baselines::sweep::check_name(name).map_err(|e| anyhow::anyhow!("baseline name {e}"))?;
    if RESERVED_NAMES.contains(&name) {
        bail!(
            "'{name}' cannot name a baseline: --baselines {name} means every shipped \
             baseline; choose another --name"
        );
    }
    Ok(())
}

/// Runs `cargo xtask pack-baseline`: checks that `dir` is a complete sweep written by a
/// known agent (in its default configuration unless named otherwise), then writes the
/// archive and the scores.
pub fn pack(args: &PackArgs) -> Result<()> {
    if let Some(name) = &args.name {
        check_baseline_name(name)?;
    }
    if args.add_seeds {
        return add_seeds(args);
    }
    let seeds = bsuite_analysis::seeds::seed_dirs(&args.dir)?;
    if seeds.is_empty() {
        let (summary, name) = check_complete(&args.dir, args.name.as_deref())?;
        let scores = bsuite_analysis::score_json::reference_json(&summary);
        return write_baseline(args, &name, &[], &scores);
    }
    // Several seeds: each must be a complete sweep, and all of one run (as `score` checks).
    let agent = bsuite_analysis::seeds::SeededAgent::load("baseline", &args.dir, false)?;
    let mut name = None;
    for (_, dir) in &seeds {
        name = Some(check_complete(dir, args.name.as_deref())?.1);
    }
    let name = name.expect("a seed at least");
    let mut summary = agent.summarize();
    summary.agent = name.clone();
    let scores = bsuite_analysis::score_json::seeded_json(
        &summary,
        &bsuite_analysis::stats::Bootstrap::default(),
    );
    let subdirs: Vec<String> = seeds
        .iter()
        .map(|(seed, _)| format!("{}{seed}", bsuite_analysis::seeds::SEED_DIR_PREFIX))
        .collect();
    write_baseline(args, &name, &subdirs, &scores)
}

/// Checks that `dir` is a complete sweep of a known agent, in its default configuration
/// unless `name` says otherwise; its scores and the baseline's name.
fn check_complete(dir: &Path, name: Option<&str>) -> Result<(bsuite_analysis::Summary, String)> {
    let mut agent = AgentResults::load("baseline", dir)?;
    let args = PackArgs {
        dir: dir.to_path_buf(),
        name: name.map(str::to_string),
        out: None,
        overwrite: false,
        add_seeds: false,
    };
    let Some(manifest) = &agent.manifest else {
        bail!(
            "{} has no {MANIFEST_FILE}: cannot say what wrote it",
            args.dir.display()
        );
    };
    if manifest.num_episodes.is_some() {
        bail!(
            "{} was run with --num-episodes: not a full sweep",
            args.dir.display()
        );
    }
    if let Some(overwriting) = &manifest.overwriting {
        bail!(
            "{} still holds {} file(s) of the run it is replacing ({}): finish that run first",
            args.dir.display(),
            overwriting.files.len(),
            overwriting.replacing
        );
    }
    let name = args.name.clone().unwrap_or_else(|| manifest.agent.clone());
    if let Ok(defaults) = bsuite_baselines::config::AgentConfig::defaults(&manifest.agent) {
        for (key, value) in defaults.entries().filter(|(key, _)| *key != "seed") {
            match manifest.config.get(key) {
                Some(recorded) if *recorded != value.to_string() && name == manifest.agent => {
                    bail!(
                        "{} ran {key}={recorded}, not {}'s default: ship it under a name of \
                         its own with --name (a baseline named after its agent is its default)",
                        args.dir.display(),
                        manifest.agent
                    )
                }
                _ => {}
            }
        }
    }
    agent.name = name.clone();
    let summary = summarize(&agent);
    let sweep = bsuite_envs::sweep().count();
    let unfinished: Vec<String> = summary
        .experiments
        .iter()
        .filter(|e| !e.progress.complete())
        .map(|e| e.experiment.name.to_string())
        .collect();
    if summary.ids.len() != sweep || !unfinished.is_empty() {
        bail!(
            "{} holds {} of {sweep} ids; unfinished or partial: {}. Only a complete sweep ships",
            args.dir.display(),
            summary.ids.len(),
            unfinished.join(", ")
        );
    }
    Ok((summary, name))
}

/// Writes the archive of `args.dir` (of its `subdirs`, each a seed, when there are any) and
/// `scores` as the baseline `name`.
fn write_baseline(
    args: &PackArgs,
    name: &str,
    subdirs: &[String],
    scores: &serde_json::Value,
) -> Result<()> {
    check_baseline_name(name)?;
    let out = args.out.clone().unwrap_or_else(shipped);
    let archive = out.join(format!("{name}.tar.gz"));
    let json = out.join(format!("{name}.scores.json"));
    // A shipped baseline is evidence others cite: replacing one is asked for, and only an
    // earlier baseline's files are replaced.
    let archive_file = bsuite_cli::owned_file::Owned {
        path: &archive,
        what: "a baseline's archive",
        is_ours: |bytes| bytes.starts_with(&[0x1f, 0x8b]),
    };
    let scores_file = bsuite_cli::owned_file::Owned {
        path: &json,
        what: "a baseline's scores",
        is_ours: |bytes| {
            serde_json::from_slice::<serde_json::Value>(bytes)
                .is_ok_and(|v| v.get("experiments").is_some())
        },
    };
    archive_file.check(args.overwrite)?;
    scores_file.check(args.overwrite)?;
    if archive.exists() {
        let kept = dir_seeds(&args.dir)?;
        let staging = Staging::new("seeds")?;
        let dropped: Vec<String> = unpack_seeds(&out, name, &staging.0)?
            .into_iter()
            .filter(|(seed, _)| !kept.iter().any(|(s, _)| s == seed))
            .map(|(seed, _)| seed.to_string())
            .collect();
        if !dropped.is_empty() {
            bail!(
                "{} holds seed(s) {} that {} lacks: replacing it would drop them. Add this \
                 directory's seeds to it with --add-seeds, or remove the archive first to \
                 ship these seeds alone",
                archive.display(),
                dropped.join(", "),
                args.dir.display()
            );
        }
    }
    fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    write_archive(&args.dir, subdirs, &archive)?;
    scores_file.write((serde_json::to_string_pretty(scores)? + "\n").as_bytes())?;
    bsuite_baselines::errln!(
        "pack-baseline: {} ({} bytes) and {}",
        archive.display(),
        fs::metadata(&archive)?.len(),
        json.display()
    );
    Ok(())
}

/// Whether a results directory's entry `name` ships: the run's manifest and the bsuite CSVs,
/// nothing else a user may keep beside them.
fn is_results_file(name: &str) -> bool {
    name == MANIFEST_FILE || (name.starts_with(FILE_PREFIX) && name.ends_with(".csv"))
}

/// A deterministic archive of the directory's manifest and CSVs (or, with `subdirs`, of
/// each one's, under its name): sorted, no timestamps or owners, so packing the same
/// results twice gives the same bytes.
fn write_archive(dir: &Path, subdirs: &[String], archive: &Path) -> Result<()> {
    let mut files: Vec<String> = Vec::new();
    let prefixes: Vec<String> = if subdirs.is_empty() {
        vec![String::new()]
    } else {
        subdirs.iter().map(|d| format!("{d}/")).collect()
    };
    for prefix in &prefixes {
        for entry in fs::read_dir(dir.join(prefix))? {
            let name = entry?.file_name().to_string_lossy().into_owned();
            if is_results_file(&name) {
                files.push(format!("{prefix}{name}"));
            }
        }
    }
    files.sort();
    let contents = files
        .iter()
        .map(|name| {
            let path = dir.join(name);
            fs::read(&path)
                .map(|bytes| (name, bytes))
                .with_context(|| format!("reading {}", path.display()))
        })
        .collect::<Result<Vec<_>>>()?;
    bsuite_cli::owned_file::write_new(archive, |file| {
        let gz = flate2::GzBuilder::new()
            .mtime(0)
            .write(file, flate2::Compression::best());
        let mut tar = tar::Builder::new(gz);
        for (name, bytes) in &contents {
            let mut header = tar::Header::new_gnu();
            header.set_size(bytes.len() as u64);
            header.set_mode(0o644);
            header.set_mtime(0);
            header.set_cksum();
            tar.append_data(&mut header, name, bytes.as_slice())?;
        }
        let mut gz: GzEncoder<&mut fs::File> = tar.into_inner()?;
        gz.flush()?;
        gz.finish().map(drop)
    })
}

/// The seed recorded by the manifest of a plain (one-seed) results directory.
fn single_seed(dir: &Path) -> Result<u32> {
    match bsuite_logging::manifest::RunManifest::read(dir)? {
        Some(manifest) => Ok(manifest.seed),
        None => bail!(
            "{} has no {MANIFEST_FILE}: cannot say its seed",
            dir.display()
        ),
    }
}

/// The seeds a results directory holds, each with its directory: its `seed-<s>/`
/// directories, or itself with the seed its manifest records when it is a single seed's.
fn dir_seeds(dir: &Path) -> Result<Vec<(u32, PathBuf)>> {
    match bsuite_analysis::seeds::seed_dirs(dir)? {
        seeds if seeds.is_empty() => Ok(vec![(single_seed(dir)?, dir.to_path_buf())]),
        seeds => Ok(seeds),
    }
}

/// Unpacks the baseline `name` of the directory `out` under `into`, as the user's commands
/// unpack a shipped one: the seeds it holds ([`dir_seeds`]).
fn unpack_seeds(out: &Path, name: &str, into: &Path) -> Result<Vec<(u32, PathBuf)>> {
    let dir = bsuite_cli::Baselines::in_dir(out.to_path_buf(), into.to_path_buf()).unpack(name)?;
    dir_seeds(&dir)
}

/// A scratch directory under the system's temporary one, removed when dropped.
struct Staging(PathBuf);

impl Staging {
    fn new(what: &str) -> Result<Staging> {
        let dir = std::env::temp_dir().join(format!(
            "bsuite-pack-baseline-{what}-{}",
            std::process::id()
        ));
        // A directory left by a process of the same id that was killed.
        if dir.exists() {
            fs::remove_dir_all(&dir).with_context(|| format!("removing {}", dir.display()))?;
        }
        fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        Ok(Staging(dir))
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// `--add-seeds`: the shipped baseline's seeds and `args.dir`'s side by side in a staging
/// directory (a one-seed archive becomes `seed-<s>/`), packed as one baseline of seeds in
/// place of the old. A seed on both sides is refused: which of the two would ship?
fn add_seeds(args: &PackArgs) -> Result<()> {
    let new = dir_seeds(&args.dir)?;
    let name = match &args.name {
        Some(name) => name.clone(),
        None => bsuite_logging::manifest::RunManifest::read(&new[0].1)?
            .map(|m| m.agent)
            .with_context(|| format!("{} has no {MANIFEST_FILE}", new[0].1.display()))?,
    };
    let out = args.out.clone().unwrap_or_else(shipped);
    let archive = out.join(format!("{name}.tar.gz"));
    if !archive.is_file() {
        bail!(
            "--add-seeds: there is no baseline '{name}' in {} to add seeds to; pack the first \
             seeds without --add-seeds",
            out.display()
        );
    }
    // Checked here, not only when the combined seeds are packed, so that a partial seed is
    // named by the directory the user gave rather than by a staging copy.
    for (_, dir) in &new {
        check_complete(dir, Some(&name))?;
    }
    let staging = Staging::new("add-seeds")?;
    let combined = staging.0.join("combined");
    fs::create_dir_all(&combined)?;
    let old_seeds = unpack_seeds(&out, &name, &staging.0.join("old"))?;
    let both: Vec<String> = new
        .iter()
        .filter(|(seed, _)| old_seeds.iter().any(|(s, _)| s == seed))
        .map(|(seed, _)| seed.to_string())
        .collect();
    if !both.is_empty() {
        bail!(
            "--add-seeds: seed(s) {} are both in {} and in {}; add only seeds the baseline \
             lacks",
            both.join(", "),
            archive.display(),
            args.dir.display()
        );
    }
    for (seed, dir) in old_seeds.iter().chain(&new) {
        let to = combined.join(format!("{}{seed}", bsuite_analysis::seeds::SEED_DIR_PREFIX));
        fs::create_dir_all(&to)?;
        for entry in fs::read_dir(dir)? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if is_results_file(&name) {
                fs::copy(entry.path(), to.join(&name))
                    .with_context(|| format!("copying {}", entry.path().display()))?;
            }
        }
    }
    pack(&PackArgs {
        dir: combined,
        name: Some(name),
        out: Some(out),
        overwrite: true,
        add_seeds: false,
    })
}
