//! `bsuite cluster slurm|k8s ...`: recipes that run a sweep split over a cluster with an
//! installed `bsuite` (`cargo install --locked --path crates/bsuite-cli --root DIR`, or the
//! tree of `cargo xtask install --prefix DIR`), each task with `--shard auto` and as many
//! jobs as CPUs it asked for, then a final check (`verify`, or `merge` of node-local
//! directories first).

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};

/// `bsuite cluster`'s targets.
#[derive(Subcommand, Debug)]
pub enum ClusterTarget {
    /// Write a Slurm recipe into OUT: `array.sbatch` (one task per shard), `finish.sbatch`
    /// (merge and verify once every task has ended) and `submit.sh`, which submits both.
    Slurm(SlurmArgs),
    /// Write a Kubernetes Indexed Job (one pod per shard) and its ReadWriteMany volume
    /// claim as one YAML file.
    K8s(K8sArgs),
}

/// What every recipe runs.
#[derive(Args, Debug, Clone)]
pub struct SweepShape {
    /// The agent, as `bsuite run` takes it.
    #[arg(long)]
    pub agent: String,
    /// Number of shards (array tasks, pods).
    #[arg(long)]
    pub shards: usize,
    /// CPUs per task; each task runs as many jobs.
    #[arg(long, default_value_t = 1)]
    pub cpus: usize,
    /// bsuite_ids, experiments or tags to run (default: all 468).
    #[arg(long, num_args = 1.., value_name = "ID|EXPERIMENT|TAG|SWEEP|TESTING")]
    pub ids: Vec<String>,
    /// Episodes per id instead of the reference's counts (at least 1).
    #[arg(long, value_name = "N", value_parser = bsuite_baselines::sweep::positive)]
    pub num_episodes: Option<usize>,
    /// The agent seed.
    #[arg(long)]
    pub seed: Option<u32>,
    /// Agent hyperparameters, KEY=VALUE (repeatable).
    #[arg(long = "config", value_name = "KEY=VALUE")]
    pub config: Vec<String>,
}

/// Arguments of `bsuite cluster slurm`.
#[derive(Args, Debug)]
pub struct SlurmArgs {
    /// What every task runs.
    #[command(flatten)]
    pub sweep: SweepShape,
    /// The results directory, on a filesystem every node sees.
    #[arg(long, value_name = "DIR")]
    pub results: PathBuf,
    /// The directory whose `bin/bsuite` the tasks run (`cargo install ... --root DIR` or
    /// `cargo xtask install --prefix DIR`), as the nodes see it.
    #[arg(long, value_name = "DIR")]
    pub prefix: PathBuf,
    /// Where the recipe is written (created).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Each task writes to a node-local directory (`$TMPDIR`) and copies it to
    /// `RESULTS.shards/` at its end, where `finish.sbatch` merges them: for a shared
    /// filesystem whose flock holds per node only.
    #[arg(long)]
    pub node_local: bool,
    /// `#SBATCH --time` of each task, e.g. 1-00:00:00.
    #[arg(long)]
    pub time: Option<String>,
    /// `#SBATCH --mem` of each task, e.g. 8G.
    #[arg(long)]
    pub mem: Option<String>,
    /// `#SBATCH --partition`.
    #[arg(long)]
    pub partition: Option<String>,
    /// Replace the files of an earlier recipe in OUT.
    #[arg(long)]
    pub overwrite: bool,
}

/// Arguments of `bsuite cluster k8s`.
#[derive(Args, Debug)]
pub struct K8sArgs {
    /// What every task runs.
    #[command(flatten)]
    pub sweep: SweepShape,
    /// The image built from the Containerfile (`bsuite` on its PATH).
    #[arg(long)]
    pub image: String,
    /// Memory per pod, requested and its limit (e.g. 8Gi).
    #[arg(long, default_value = "4Gi")]
    pub memory: String,
    /// Size of the results volume.
    #[arg(long, default_value = "20Gi")]
    pub storage: String,
    /// The storage class of the results volume (it must offer ReadWriteMany); default:
    /// the cluster's.
    #[arg(long)]
    pub storage_class: Option<String>,
    /// Pods run at once (default: every shard; at least 1).
    #[arg(long, value_parser = bsuite_baselines::sweep::positive)]
    pub parallelism: Option<usize>,
    /// The YAML file written.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Replace the YAML file of an earlier `cluster k8s`.
    #[arg(long)]
    pub overwrite: bool,
}

/// The line every recipe file starts with (after the shebang): what wrote it, and so
/// what `--overwrite` may replace.
const WRITTEN_BY: &str = "Written by `bsuite cluster";

/// What the recipes of earlier versions, written by `cargo xtask cluster`, start with.
const WRITTEN_BY_XTASK: &str = "Written by `cargo xtask cluster";

/// A recipe file at `path`, as a file of `cluster`'s own.
fn recipe(path: &Path) -> crate::owned_file::Owned<'_> {
    crate::owned_file::Owned {
        path,
        what: "a cluster recipe",
        is_ours: |bytes| {
            let head = &bytes[..bytes.len().min(400)];
            let head = String::from_utf8_lossy(head);
            head.contains(WRITTEN_BY) || head.contains(WRITTEN_BY_XTASK)
        },
    }
}

/// Runs `bsuite cluster`.
pub fn run(target: &ClusterTarget) -> Result<()> {
    match target {
        ClusterTarget::Slurm(args) => {
            check(&args.sweep)?;
            let files = slurm(args)?;
            let paths: Vec<PathBuf> = files.iter().map(|(name, ..)| args.out.join(name)).collect();
            // Every file is checked before any is written.
            for path in &paths {
                recipe(path).check(args.overwrite)?;
            }
            fs::create_dir_all(&args.out)
                .with_context(|| format!("creating {}", args.out.display()))?;
            for (path, (_, text, mode)) in paths.iter().zip(files) {
                recipe(path).write(text.as_bytes())?;
                set_mode(path, mode)?;
            }
            bsuite_baselines::outln!(
                "wrote {0}/array.sbatch, {0}/finish.sbatch and {0}/submit.sh; submit with \
                 `bash {0}/submit.sh`",
                args.out.display()
            );
        }
        ClusterTarget::K8s(args) => {
            check(&args.sweep)?;
            let text = k8s(args)?;
            let out = recipe(&args.out);
            out.check(args.overwrite)?;
            out.write(text.as_bytes())?;
            bsuite_baselines::outln!(
                "wrote {}; apply with `kubectl apply -f {}`",
                args.out.display(),
                args.out.display()
            );
        }
    }
    Ok(())
}

fn set_mode(path: &Path, mode: u32) -> Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(path, fs::Permissions::from_mode(mode))?;
    }
    let _ = (path, mode);
    Ok(())
}

/// Refuses a value with a control character (a newline would end a line of the recipe
/// and start another, which the shell or Slurm would run or read as its own).
fn plain_text(option: &str, value: &str) -> Result<()> {
    if let Some(c) = value.chars().find(|c| c.is_control()) {
        bail!(
            "{option} {value:?} holds the control character {c:?}; a recipe's values are \
             written into its lines, so they may hold none"
        );
    }
    Ok(())
}

/// A value for an `#SBATCH` line: as it is where Slurm reads it as one word, in double
/// quotes (which sbatch removes) where it has spaces or characters a reader could take
/// for more; one that double quotes cannot hold is refused.
fn sbatch_value(option: &str, value: &str) -> Result<String> {
    plain_text(option, value)?;
    if value.contains(['"', '\\']) {
        bail!("{option} {value:?}: an #SBATCH value cannot hold '\"' or '\\'");
    }
    let plain = !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-=:,+@%".contains(c));
    Ok(match plain {
        true => value.to_string(),
        false => format!("\"{value}\""),
    })
}

/// Refuses shapes that cannot run, before anything is written: what `bench-all` would
/// refuse (agent, ids, configuration, seed, episode count) is refused here, not on the
/// cluster.
fn check(sweep: &SweepShape) -> Result<()> {
    if sweep.shards == 0 || sweep.cpus == 0 {
        bail!("--shards and --cpus must be at least 1");
    }
    plain_text("--agent", &sweep.agent)?;
    for id in &sweep.ids {
        plain_text("--ids", id)?;
    }
    for pair in &sweep.config {
        plain_text("--config", pair)?;
    }
    bsuite_baselines::factory::agent(&sweep.agent).or_else(|error| {
        match bsuite_baselines::factory::LIBTORCH_AGENTS.contains(&sweep.agent.as_str()) {
            true => Ok(bsuite_baselines::factory::agent("random").expect("random exists")),
            false => Err(error),
        }
    })?;
    let args = bsuite_baselines::sweep::SweepArgs {
        agent: sweep.agent.clone(),
        ids: sweep.ids.clone(),
        results: None,
        name: None,
        config: sweep.config.clone(),
        config_file: None,
        jobs: sweep.cpus,
        overwrite: false,
        seed: sweep.seed,
        seeds: None,
        num_episodes: sweep.num_episodes,
        shard: None,
        shards: None,
        lock: bsuite_logging::dir_lock::Locking::Flock,
        batch_size: 0,
        plain: true,
        no_score: true,
        estimate: false,
        device: bsuite_baselines::factory::ComputeDevice::Cpu,
    };
    args.check_config()?;
    let ids = bsuite_baselines::sweep::select_ids(&sweep.ids)?;
    if sweep.shards > ids.len() {
        bail!(
            "--shards {} is more than the {} selected ids: some shards would run nothing",
            sweep.shards,
            ids.len()
        );
    }
    Ok(())
}

/// `text` quoted for a POSIX shell.
fn quote(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-=:,+@%".contains(c));
    match plain {
        true => text.to_string(),
        false => format!("'{}'", text.replace('\'', r"'\''")),
    }
}

/// The arguments every task passes to `bsuite run` after the agent, for selecting ids and
/// configuring the run.
fn sweep_args(sweep: &SweepShape) -> Vec<String> {
    let mut args = Vec::new();
    if !sweep.ids.is_empty() {
        args.push("--ids".to_string());
        args.extend(sweep.ids.iter().cloned());
    }
    if let Some(n) = sweep.num_episodes {
        args.extend(["--num-episodes".to_string(), n.to_string()]);
    }
    if let Some(seed) = sweep.seed {
        args.extend(["--seed".to_string(), seed.to_string()]);
    }
    for pair in &sweep.config {
        args.extend(["--config".to_string(), pair.clone()]);
    }
    args
}

fn shell_words(words: &[String]) -> String {
    words.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ")
}

/// The three files of a Slurm recipe: name, text, mode.
fn slurm(args: &SlurmArgs) -> Result<Vec<(&'static str, String, u32)>> {
    let sweep = &args.sweep;
    let absolute = |p: &Path| -> Result<String> {
        let p = std::path::absolute(p).with_context(|| format!("resolving {}", p.display()))?;
        Ok(p.to_string_lossy().into_owned())
    };
    let (prefix, results, out) = (
        absolute(&args.prefix)?,
        absolute(&args.results)?,
        absolute(&args.out)?,
    );
    plain_text("--prefix", &prefix)?;
    plain_text("--results", &results)?;
    let name = format!("bsuite-{}", sweep.agent);
    let selection = shell_words(&sweep_args(sweep));
    let ids = match sweep.ids.is_empty() {
        true => String::new(),
        false => format!(" --ids {}", shell_words(&sweep.ids)),
    };
    let mut header = String::new();
    let _ = writeln!(header, "#!/bin/bash");
    let _ = writeln!(
        header,
        "# Written by `bsuite cluster slurm` (bsuite-rs {}): {} over {} shards.",
        env!("CARGO_PKG_VERSION"),
        sweep.agent,
        sweep.shards
    );
    let mut array = header.clone();
    let _ = writeln!(array, "#SBATCH --job-name={name}");
    let _ = writeln!(array, "#SBATCH --array=0-{}", sweep.shards - 1);
    let _ = writeln!(array, "#SBATCH --cpus-per-task={}", sweep.cpus);
    let _ = writeln!(
        array,
        "#SBATCH --output={}",
        sbatch_value("--out", &format!("{out}/logs/%x-%A_%a.out"))?
    );
    for (key, value) in [
        ("time", &args.time),
        ("mem", &args.mem),
        ("partition", &args.partition),
    ] {
        if let Some(value) = value {
            let value = sbatch_value(&format!("--{key}"), value)?;
            let _ = writeln!(array, "#SBATCH --{key}={value}");
        }
    }
    let _ = writeln!(
        array,
        "# Task I runs shard I of {0} (--shard auto --shards {0}), so one task can be \
         resubmitted alone:\n#   sbatch --array=I {out}/array.sbatch\n\
         # A task that ends early resumes where it stopped when resubmitted.",
        sweep.shards
    );
    let _ = writeln!(array, "set -euo pipefail");
    let _ = writeln!(array, "PREFIX={}", quote(&prefix));
    let _ = writeln!(array, "RESULTS={}", quote(&results));
    let run = format!(
        "\"$PREFIX/bin/bsuite\" run {} --shard auto --shards {} --jobs \"${{SLURM_CPUS_PER_TASK:-1}}\" \
         --plain --no-score {selection}",
        quote(&sweep.agent),
        sweep.shards
    );
    if args.node_local {
        let _ = writeln!(
            array,
            "# Node-local: the task writes to $TMPDIR, where flock holds, and copies its \
             directory to $RESULTS.shards/ at the end (and on resubmission starts from that \
             copy); finish.sbatch merges them.\n\
             SHARD=\"$RESULTS.shards/shard-$SLURM_ARRAY_TASK_ID\"\n\
             LOCAL=\"${{TMPDIR:-/tmp}}/bsuite-$SLURM_ARRAY_JOB_ID-$SLURM_ARRAY_TASK_ID\"\n\
             mkdir -p \"$LOCAL\" \"$RESULTS.shards\"\n\
             if [ -d \"$SHARD\" ]; then cp -a \"$SHARD/.\" \"$LOCAL/\"; fi\n\
             status=0\n\
             {run} --results \"$LOCAL\" || status=$?\n\
             rm -rf \"$SHARD.tmp\" && cp -a \"$LOCAL\" \"$SHARD.tmp\" && rm -rf \"$SHARD\" && \
             mv \"$SHARD.tmp\" \"$SHARD\"\n\
             rm -rf \"$LOCAL\"\n\
             exit $status"
        );
    } else {
        let _ = writeln!(array, "exec {run} --results \"$RESULTS\"");
    }
    let mut finish = header.clone();
    let _ = writeln!(finish, "#SBATCH --job-name={name}-finish");
    let _ = writeln!(finish, "#SBATCH --cpus-per-task=1");
    let _ = writeln!(
        finish,
        "#SBATCH --output={}",
        sbatch_value("--out", &format!("{out}/logs/%x-%j.out"))?
    );
    let _ = writeln!(finish, "set -euo pipefail");
    let _ = writeln!(finish, "PREFIX={}", quote(&prefix));
    let _ = writeln!(finish, "RESULTS={}", quote(&results));
    if args.node_local {
        let _ = writeln!(
            finish,
            "\"$PREFIX/bin/bsuite\" merge \"$RESULTS\" \"$RESULTS\".shards/shard-*"
        );
    }
    let _ = writeln!(
        finish,
        "\"$PREFIX/bin/bsuite\" verify \"$RESULTS\"{ids}\n\
         \"$PREFIX/bin/bsuite\" score \"$RESULTS\"{}",
        match ids.is_empty() {
            true => String::new(),
            false => format!(" --sweep {}", shell_words(&sweep.ids)),
        }
    );
    let submit = format!(
        "{header}# Submits the array, then the final merge and verify, which runs once every \
         task has ended.\nset -euo pipefail\nmkdir -p {logs}\n\
         array=$(sbatch --parsable {array})\n\
         finish=$(sbatch --parsable --dependency=afterany:\"$array\" {finish})\n\
         echo \"array job $array, final check $finish (log: {logs}/{name}-finish-$finish.out)\"\n",
        logs = quote(&format!("{out}/logs")),
        array = quote(&format!("{out}/array.sbatch")),
        finish = quote(&format!("{out}/finish.sbatch")),
    );
    Ok(vec![
        ("array.sbatch", array, 0o644),
        ("finish.sbatch", finish, 0o644),
        ("submit.sh", submit, 0o755),
    ])
}

/// A YAML string.
fn yaml(text: &str) -> String {
    serde_json::to_string(text).expect("a string serialises")
}

/// The Indexed Job and its volume claim.
fn k8s(args: &K8sArgs) -> Result<String> {
    let sweep = &args.sweep;
    for (option, value) in [
        ("--image", Some(&args.image)),
        ("--memory", Some(&args.memory)),
        ("--storage", Some(&args.storage)),
        ("--storage-class", args.storage_class.as_ref()),
    ] {
        if let Some(value) = value {
            plain_text(option, value)?;
        }
    }
    let name = format!("bsuite-{}", sweep.agent.replace('_', "-"));
    let mut command = vec![
        "bsuite".to_string(),
        "run".to_string(),
        sweep.agent.clone(),
        "--shard".into(),
        "auto".into(),
        "--shards".into(),
        sweep.shards.to_string(),
        "--jobs".into(),
        sweep.cpus.to_string(),
        "--plain".into(),
        "--no-score".into(),
        "--results".into(),
        format!("/results/{}", sweep.agent),
    ];
    command.extend(sweep_args(sweep));
    let command = command
        .iter()
        .map(|w| yaml(w))
        .collect::<Vec<_>>()
        .join(", ");
    let class = match &args.storage_class {
        Some(class) => format!("  storageClassName: {}\n", yaml(class)),
        None => String::new(),
    };
    let verify_ids = match sweep.ids.is_empty() {
        true => String::new(),
        false => format!(" --ids {}", shell_words(&sweep.ids)),
    };
    Ok(format!(
        "# Written by `bsuite cluster k8s` (bsuite-rs {version}): {agent} over {shards} \
         shards, one pod per shard\n\
         # (pod I runs shard I: --shard auto reads JOB_COMPLETION_INDEX). All pods write into \
         one volume,\n\
         # which must be ReadWriteMany with flock that holds across nodes (CephFS, NFSv4 with \
         a lock manager).\n\
         # Once the Job has completed, check the results from any pod that mounts the claim:\n\
         #   bsuite verify /results/{agent}{verify_ids}\n\
         apiVersion: v1\n\
         kind: PersistentVolumeClaim\n\
         metadata:\n  name: {name}-results\n\
         spec:\n  accessModes: [ReadWriteMany]\n{class}  resources:\n    requests:\n      \
         storage: {storage}\n\
         ---\n\
         apiVersion: batch/v1\n\
         kind: Job\n\
         metadata:\n  name: {name}\n\
         spec:\n  completionMode: Indexed\n  completions: {shards}\n  parallelism: {parallel}\n  \
         backoffLimitPerIndex: 3\n  maxFailedIndexes: 0\n  \
         template:\n    spec:\n      restartPolicy: Never\n      containers:\n      \
         - name: shard\n        image: {image}\n        command: [{command}]\n        \
         resources:\n          requests: {{cpu: \"{cpus}\", memory: {memory}}}\n          \
         limits: {{cpu: \"{cpus}\", memory: {memory}}}\n        \
         volumeMounts:\n        - {{name: results, mountPath: /results}}\n      \
         volumes:\n      - name: results\n        persistentVolumeClaim: {{claimName: \
         {name}-results}}\n",
        version = env!("CARGO_PKG_VERSION"),
        agent = sweep.agent,
        shards = sweep.shards,
        parallel = args.parallelism.unwrap_or(sweep.shards),
        storage = yaml(&args.storage),
        image = yaml(&args.image),
        cpus = sweep.cpus,
        memory = yaml(&args.memory),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape() -> SweepShape {
        SweepShape {
            agent: "dqn".into(),
            shards: 10,
            cpus: 8,
            ids: vec!["catch".into(), "deep_sea/3".into()],
            num_episodes: Some(100),
            seed: None,
            config: vec!["learning_rate=1e-3".into()],
        }
    }

    /// Finding 8 of issue 30: the recipe's completions and `/N` were kept in step by hand,
    /// with no resources, no `--jobs` and no volume. The generated Job ties them together.
    #[test]
    fn the_indexed_job_ties_completions_jobs_and_resources() {
        let args = K8sArgs {
            sweep: shape(),
            image: "registry.example/bsuite-rs:0.1".into(),
            memory: "8Gi".into(),
            storage: "20Gi".into(),
            storage_class: Some("cephfs".into()),
            parallelism: None,
            out: PathBuf::from("job.yaml"),
            overwrite: false,
        };
        let text = k8s(&args).unwrap();
        for expected in [
            "completionMode: Indexed",
            "completions: 10",
            "parallelism: 10",
            "accessModes: [ReadWriteMany]",
            "storageClassName: \"cephfs\"",
            "\"--shard\", \"auto\", \"--shards\", \"10\", \"--jobs\", \"8\"",
            "requests: {cpu: \"8\", memory: \"8Gi\"}",
            "limits: {cpu: \"8\", memory: \"8Gi\"}",
            "\"--ids\", \"catch\", \"deep_sea/3\", \"--num-episodes\", \"100\"",
            "image: \"registry.example/bsuite-rs:0.1\"",
            "claimName: bsuite-dqn-results",
        ] {
            assert!(text.contains(expected), "{expected} in\n{text}");
        }
    }

    /// The Containerfile's steps are the installed tree's: no registry is reachable where
    /// the tests run, so the image is not built here; its build step is
    /// `cargo xtask install`, and its run step is the tree's own check, which the Slurm
    /// test runs on a moved tree (`xtask/tests/slurm.rs`).
    #[test]
    fn the_containerfile_builds_the_installed_tree() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../Containerfile");
        let text = fs::read_to_string(path).unwrap();
        let steps: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
        let has = |line: &str| steps.iter().any(|l| l.trim() == line);
        assert!(
            has("RUN cargo xtask install --prefix /opt/bsuite"),
            "{text}"
        );
        assert!(has("COPY --from=build /opt/bsuite /opt/bsuite"), "{text}");
        assert!(has("ENV PATH=/opt/bsuite/bin:$PATH"), "{text}");
        assert!(has("RUN bsuite --version"), "{text}");
        // The Job's command is on that PATH.
        assert!(k8s(&K8sArgs {
            sweep: shape(),
            image: "x".into(),
            memory: "1Gi".into(),
            storage: "1Gi".into(),
            storage_class: None,
            parallelism: Some(2),
            out: PathBuf::new(),
            overwrite: false,
        })
        .unwrap()
        .contains("command: [\"bsuite\", \"run\", \"dqn\""));
    }

    /// Recipes written when the command was `cargo xtask cluster` are still this command's
    /// own: `--overwrite` replaces them, and nothing else.
    #[test]
    fn earlier_recipes_are_replaced_with_overwrite_and_nothing_else() {
        let dir = std::env::temp_dir().join(format!("bsuite-cli-recipes-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let (old, ours, foreign) = (dir.join("old"), dir.join("ours"), dir.join("foreign"));
        fs::write(
            &old,
            "#!/bin/bash\n# Written by `cargo xtask cluster slurm` (bsuite-rs 0.1.0)\n",
        )
        .unwrap();
        let args = SlurmArgs {
            sweep: shape(),
            results: PathBuf::from("/r"),
            prefix: PathBuf::from("/p"),
            out: PathBuf::from("/o"),
            node_local: false,
            time: None,
            mem: None,
            partition: None,
            overwrite: false,
        };
        fs::write(&ours, &slurm(&args).unwrap()[0].1).unwrap();
        fs::write(&foreign, "#!/bin/bash\necho mine\n").unwrap();
        for path in [&old, &ours] {
            assert!(recipe(path).check(false).is_err());
            recipe(path).check(true).unwrap();
        }
        let err = recipe(&foreign).check(true).unwrap_err().to_string();
        assert!(
            err.contains("not a cluster recipe written by an earlier run"),
            "{err}"
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_slurm_array_runs_the_installed_tree_with_shard_auto() {
        let args = SlurmArgs {
            sweep: shape(),
            results: PathBuf::from("/shared/results/dqn"),
            prefix: PathBuf::from("/shared/bsuite"),
            out: PathBuf::from("/shared/recipes/dqn"),
            node_local: false,
            time: Some("1-00:00:00".into()),
            mem: None,
            partition: None,
            overwrite: false,
        };
        let files = slurm(&args).unwrap();
        let array = &files[0].1;
        for expected in [
            "#SBATCH --array=0-9",
            "#SBATCH --cpus-per-task=8",
            "#SBATCH --time=1-00:00:00",
            "#SBATCH --output=/shared/recipes/dqn/logs/%x-%A_%a.out",
            "exec \"$PREFIX/bin/bsuite\" run dqn --shard auto --shards 10 --jobs \
             \"${SLURM_CPUS_PER_TASK:-1}\"",
            "--ids catch deep_sea/3 --num-episodes 100 --config learning_rate=1e-3 \
             --results \"$RESULTS\"",
        ] {
            assert!(array.contains(expected), "{expected} in\n{array}");
        }
        let commands = array.lines().filter(|l| !l.starts_with('#'));
        assert!(commands.clone().all(|l| !l.contains("cargo")), "{array}");
        assert!(files[1]
            .1
            .contains("bin/bsuite\" verify \"$RESULTS\" --ids catch deep_sea/3"));
        assert!(files[2].1.contains("--dependency=afterany:"));
        let mut local = args;
        local.node_local = true;
        let files = slurm(&local).unwrap();
        assert!(files[0].1.contains("--results \"$LOCAL\""));
        assert!(files[1]
            .1
            .contains("merge \"$RESULTS\" \"$RESULTS\".shards/shard-*"));
        let too_many = SweepShape {
            shards: 30,
            ids: vec!["catch".into()],
            ..shape()
        };
        assert!(check(&too_many).is_err());
        assert_eq!(quote("it's"), r"'it'\''s'");
    }
}
