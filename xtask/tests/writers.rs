//! Issue 55, the writers of files: `merge`, `score --export`, `pack-baseline` and
//! `cluster` write only regular files of their own, never a results file or manifest,
//! replace their own earlier output only with `--overwrite`, gather only what a run
//! writes, take their place in the layout of a results directory as runs do, and check
//! names as `study` checks its variants'. Real processes, real files.

mod common;

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::{Output, Stdio};

use common::{bench_all_random, csvs, run, scratch, stderr};

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A quick random sweep of catch/0 and catch/1 into `dir`, `extra` after.
fn random(dir: &Path, extra: &[&str]) -> Output {
    let mut command =
        bench_all_random(dir, &["--num-episodes", "5", "--ids", "catch/0", "catch/1"]);
    command.args(extra).stdout(Stdio::null());
    let out = command.output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    out
}

fn refused(args: &[&str]) -> String {
    let out = run(args);
    assert!(!out.status.success(), "{args:?} was accepted");
    stderr(&out)
}

/// Every file under `dir`, with its bytes, by path relative to it.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().display().to_string();
                out.push((rel, fs::read(&p).unwrap_or_default()));
            }
        }
    }
    out.sort();
    out
}

/// Items 4, 13 and 14: `merge MULTISEED SINGLE` put CSVs beside the seed directories;
/// `merge` and `verify` of a `--seeds` directory talked of a missing manifest (verify
/// about merge) without pointing to `seed-<s>/`; `merge O A A` blamed merge's own pid;
/// `verify /etc/passwd` said it did not exist.
#[test]
fn merge_and_verify_keep_the_layout_and_take_seeds() {
    let root = scratch("layout-writers");
    let (multi, single) = (root.join("multi"), root.join("single"));
    random(&multi, &["--seeds", "2"]);
    random(&single, &[]);
    let before = tree(&multi);
    let text = refused(&["merge", path(&multi), path(&single)]);
    assert!(text.contains("seed directories"), "{text}");
    assert_eq!(
        tree(&multi),
        before,
        "nothing written into the multi-seed directory"
    );

    // Shards of a multi-seed run merge seed by seed, and verify checks every seed.
    let (s0, s1, merged) = (root.join("s0"), root.join("s1"), root.join("merged"));
    random(&s0, &["--seeds", "2", "--shard", "0/2"]);
    random(&s1, &["--seeds", "2", "--shard", "1/2"]);
    let out = run(&["merge", path(&merged), path(&s0), path(&s1)]);
    assert!(out.status.success(), "{}", stderr(&out));
    for seed in ["seed-42", "seed-43"] {
        assert_eq!(csvs(&merged.join(seed)), csvs(&multi.join(seed)), "{seed}");
    }
    let verify = |dir: &Path| run(&["verify", path(dir), "--ids", "catch/0", "catch/1"]);
    let out = verify(&merged);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("all 2 seeds complete"));
    let out = verify(&s0);
    assert!(!out.status.success());
    let text = stderr(&out);
    assert!(
        text.contains("seed 42") && text.contains("seed 43"),
        "{text}"
    );
    assert!(!text.contains("merge"), "verify speaks of itself: {text}");
    // A directory without a manifest: verify names itself, not merge.
    let bare = root.join("bare");
    fs::create_dir_all(&bare).unwrap();
    fs::copy(
        single.join("bsuite_id_-_catch-0.csv"),
        bare.join("bsuite_id_-_catch-0.csv"),
    )
    .unwrap();
    let text = refused(&["verify", path(&bare)]);
    assert!(
        text.contains("verify takes only") && text.contains("seed-<s>"),
        "{text}"
    );

    let text = refused(&["merge", path(&root.join("o")), path(&single), path(&single)]);
    assert!(
        text.contains("named twice") && !text.contains("pid"),
        "{text}"
    );
    let text = refused(&["verify", "/etc/passwd"]);
    assert!(text.contains("is not a directory"), "{text}");
    fs::remove_dir_all(&root).unwrap();
}

/// Item 8: `merge` copied a CSV with its last line cut, a CSV that is a link to
/// `/etc/passwd`, and `bsuite_id_-_catch-99.csv`, counting them as copied. It gathers
/// only what a run writes, and writes nothing when a file cannot be gathered.
#[test]
fn merge_gathers_only_files_a_run_wrote() {
    let root = scratch("merge-bad");
    let shard = root.join("shard");
    random(&shard, &[]);
    let csv = shard.join("bsuite_id_-_catch-1.csv");
    let good = fs::read(&csv).unwrap();
    let cases = [
        "the last line is cut off",
        "is a symbolic link",
        "catch-99.csv: not a bsuite result file name",
    ];
    for (k, says) in cases.iter().enumerate() {
        match k {
            0 => fs::write(&csv, &good[..good.len() - 3]).unwrap(),
            1 => {
                fs::remove_file(&csv).unwrap();
                symlink("/etc/passwd", &csv).unwrap();
            }
            _ => fs::write(shard.join("bsuite_id_-_catch-99.csv"), &good).unwrap(),
        }
        let out_dir = root.join(format!("out{k}"));
        let text = refused(&["merge", path(&out_dir), path(&shard)]);
        assert!(
            text.contains(says) && text.contains("nothing was merged"),
            "{text}"
        );
        assert!(!out_dir.join("bsuite_run.json").exists());
        assert!(!out_dir.join("bsuite_id_-_catch-0.csv").exists());
        // Restore the shard for the next case.
        let _ = fs::remove_file(&csv);
        fs::write(&csv, &good).unwrap();
    }
    fs::remove_dir_all(&root).unwrap();
}

/// Items 5 and 6: two `--export`s wrote neither file, silently; `--export` replaced the
/// results manifest, and wrote through a link onto a results CSV. Every export is
/// written; nothing of a results directory is replaced, no link followed, and an earlier
/// export only with `--overwrite`.
#[test]
fn exports_write_only_files_of_their_own() {
    let root = scratch("exports");
    let dir = root.join("D");
    random(&dir, &[]);
    let score = |extra: &[&str]| run(&[&["score", path(&dir)], extra].concat());
    let (a, b) = (root.join("a.json"), root.join("b.json"));
    let out = score(&[
        "--export",
        "rliable",
        path(&a),
        "--export",
        "rliable",
        path(&b),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    for file in [&a, &b] {
        let text = fs::read_to_string(file).unwrap();
        assert!(text.contains("bsuite-rs rliable export"), "{text}");
    }

    let results = tree(&dir);
    let manifest = dir.join("bsuite_run.json");
    let out = score(&["--export", "rliable", path(&manifest), "--overwrite"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("never replaces"), "{}", stderr(&out));
    let link = root.join("link.json");
    symlink(dir.join("bsuite_id_-_catch-0.csv"), &link).unwrap();
    let out = score(&["--export", "rliable", path(&link), "--overwrite"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("symbolic link"), "{}", stderr(&out));
    assert_eq!(tree(&dir), results, "the results directory is untouched");

    // An earlier export: only with --overwrite. Someone else's JSON: never.
    let out = score(&["--export", "rliable", path(&a)]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("pass --overwrite"),
        "{}",
        stderr(&out)
    );
    let out = score(&["--export", "rliable", path(&a), "--overwrite"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let theirs = root.join("theirs.json");
    fs::write(&theirs, "{\"mine\": 1}\n").unwrap();
    let out = score(&["--export", "rliable", path(&theirs), "--overwrite"]);
    assert!(!out.status.success());
    assert_eq!(fs::read_to_string(&theirs).unwrap(), "{\"mine\": 1}\n");
    fs::remove_dir_all(&root).unwrap();
}

/// Item 17: a partition with a newline wrote a shell line into `array.sbatch`;
/// `--config foo=1`, `--num-episodes 0` and `--parallelism 0` were accepted; an existing
/// `submit.sh` or YAML was replaced; `--output` was unquoted with a space in `--out`.
#[test]
fn cluster_recipes_refuse_what_cannot_run_and_replace_only_their_own() {
    let root = scratch("cluster-writers");
    let out = root.join("recipe dir");
    let slurm = |extra: &[&str]| {
        let base = [
            "cluster",
            "slurm",
            "--agent",
            "random",
            "--shards",
            "2",
            "--ids",
            "catch/0",
            "catch/1",
            "--results",
            "/shared/r",
            "--prefix",
            "/shared/p",
            "--out",
            path(&out),
        ];
        run(&[&base[..], extra].concat())
    };
    let k8s = |extra: &[&str]| {
        let yaml = root.join("job.yaml");
        let base = [
            "cluster",
            "k8s",
            "--agent",
            "random",
            "--shards",
            "2",
            "--ids",
            "catch/0",
            "catch/1",
            "--image",
            "img",
            "--out",
            path(&yaml),
        ];
        run(&[&base[..], extra].concat())
    };
    for (extra, says) in [
        (&["--partition", "p\ntouch /tmp/x"][..], "control character"),
        (&["--time", "1:00\nrm -rf /"][..], "control character"),
        (&["--config", "foo=1"][..], "foo"),
        (&["--num-episodes", "0"][..], "at least 1"),
    ] {
        let o = slurm(extra);
        assert!(!o.status.success(), "{extra:?} accepted");
        assert!(stderr(&o).contains(says), "{extra:?}: {}", stderr(&o));
        assert!(!out.exists(), "{extra:?} wrote a recipe");
    }
    let o = k8s(&["--parallelism", "0"]);
    assert!(!o.status.success());

    let o = slurm(&["--partition", "gpu long"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let array = fs::read_to_string(out.join("array.sbatch")).unwrap();
    let expected = format!("#SBATCH --output=\"{}/logs/%x-%A_%a.out\"", path(&out));
    assert!(array.contains(&expected), "{array}");
    assert!(
        array.contains("#SBATCH --partition=\"gpu long\""),
        "{array}"
    );
    // Its own files again: only with --overwrite; a file of the user's: never.
    let o = slurm(&[]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("pass --overwrite"), "{}", stderr(&o));
    assert!(slurm(&["--overwrite"]).status.success());
    fs::write(out.join("submit.sh"), "my own script\n").unwrap();
    assert!(!slurm(&["--overwrite"]).status.success());
    assert_eq!(
        fs::read_to_string(out.join("submit.sh")).unwrap(),
        "my own script\n"
    );
    assert!(k8s(&[]).status.success());
    assert!(!k8s(&[]).status.success());
    assert!(k8s(&["--overwrite"]).status.success());
    fs::remove_dir_all(&root).unwrap();
}

/// Item 18: `pack-baseline --name ../../escaped` wrote outside `--out`; "", ".", "..",
/// "all" and a name with a newline were accepted; `x/y` failed with no path. Names are
/// checked as `study` checks its variants'. The sweep is a complete one (the shipped
/// dqn_rmsprop, one seed), which would be packed under any name accepted.
#[test]
fn baseline_names_are_checked_before_anything_is_written() {
    let root = scratch("pack-names");
    let sweep = root.join("sweep");
    fs::create_dir_all(&sweep).unwrap();
    let archive = Path::new(env!("CARGO_MANIFEST_DIR")).join("../baselines/dqn_rmsprop.tar.gz");
    let unpacked = std::process::Command::new("tar")
        .arg("xzf")
        .arg(archive)
        .arg("-C")
        .arg(&sweep)
        .status()
        .unwrap();
    assert!(unpacked.success());
    let out = root.join("a").join("out");
    for name in ["../../escaped", "", ".", "..", "all", "a\nb", "x/y"] {
        let text = refused(&[
            "pack-baseline",
            path(&sweep),
            "--out",
            path(&out),
            "--name",
            name,
        ]);
        assert!(text.contains(&format!("'{name}'")), "{name:?}: {text}");
        assert!(!text.contains("os error"), "{name:?}: {text}");
    }
    assert!(!out.exists());
    assert!(
        !root.join("escaped.tar.gz").exists(),
        "written outside --out"
    );
    fs::remove_dir_all(&root).unwrap();
}
