//! The `bsuite` command where a researcher has it: `cargo install --path
//! crates/bsuite-cli --root T`, the installed program moved away from `T`, and run from a
//! directory outside the checkout with nothing in its environment that leads back:
//! `bsuite run random --ids catch`, `bsuite report` and `bsuite report --baselines all`
//! work, and none of them reads or even looks at a path in the checkout (every file
//! system call is watched with `strace`), so the shipped baselines come from the program
//! itself.
//!
//! It needs an optimised build (the report of every baseline reads 30 sweeps): `cargo
//! xtask test` runs it with `--release -- --ignored`, after `cargo xtask install` has built
//! `bsuite` optimised in the same target directory, which `cargo install` then reuses.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

use common::{scratch, stderr};

/// The checkout, as the kernel names it.
fn checkout() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap()
}

/// Whether `strace` can watch a program here (it is installed, and ptrace is allowed).
fn strace_works() -> bool {
    Command::new("strace")
        .args(["-f", "-qq", "-e", "trace=%file", "-o", "/dev/null", "true"])
        .output()
        .is_ok_and(|out| out.status.success())
}

/// The installed program, run as a user runs it: from `work`, with a PATH of the system's
/// and a HOME of its own, and nothing else in its environment; under `strace` into `log`
/// when `log` is given.
fn bsuite(program: &Path, work: &Path, home: &Path, log: Option<&Path>, args: &[&str]) -> Output {
    let mut command = match log {
        Some(log) => {
            let mut strace = Command::new("strace");
            strace
                .args(["-f", "-qq", "-e", "trace=%file", "-o"])
                .arg(log)
                .arg(program);
            strace
        }
        None => Command::new(program),
    };
    command
        .args(args)
        .current_dir(work)
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", home)
        .output()
        .unwrap()
}

#[test]
#[ignore = "optimised builds only: cargo xtask test runs it"]
fn the_installed_command_needs_no_checkout() {
    let start = Instant::now();
    let root = scratch("installed");
    let checkout = checkout();
    assert!(
        !root
            .canonicalize()
            .unwrap_or(root.clone())
            .starts_with(&checkout),
        "the scratch directory {} is inside the checkout",
        root.display()
    );
    let installed = root.join("T");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| checkout.join("target"), PathBuf::from);
    let install = Command::new(cargo)
        .args(["install", "--locked", "--quiet", "--path"])
        .arg(checkout.join("crates/bsuite-cli"))
        .arg("--root")
        .arg(&installed)
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .unwrap();
    assert!(
        install.status.success(),
        "cargo install: {}",
        stderr(&install)
    );
    let elsewhere = root.join("elsewhere/bin");
    fs::create_dir_all(&elsewhere).unwrap();
    let program = elsewhere.join("bsuite");
    fs::copy(installed.join("bin/bsuite"), &program).unwrap();
    fs::remove_dir_all(&installed).unwrap();
    let (work, home) = (root.join("work"), root.join("home"));
    fs::create_dir_all(&work).unwrap();
    fs::create_dir_all(&home).unwrap();

    let watched = strace_works();
    if !watched {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must watch the installed command with strace"
        );
        eprintln!(
            "\n*** the_installed_command_needs_no_checkout: strace cannot run here, so the \
             commands run unwatched (with CI set this test fails instead) ***\n"
        );
    }
    let mut logs = Vec::new();
    let mut run = |name: &str, args: &[&str]| -> Output {
        let log = root.join(format!("{name}.strace"));
        let out = bsuite(&program, &work, &home, watched.then_some(&log), args);
        assert!(out.status.success(), "bsuite {args:?}: {}", stderr(&out));
        logs.push(log);
        out
    };
    let help = run("help", &["--help"]);
    let help = String::from_utf8_lossy(&help.stdout);
    for command in [
        "run", "score", "compare", "report", "study", "verify", "cluster",
    ] {
        assert!(
            help.contains(&format!("\n  {command} ")),
            "{command}: {help}"
        );
    }
    run("run", &["run", "random", "--ids", "catch"]);
    let results = work.join("results/random");
    let csvs = fs::read_dir(&results)
        .unwrap()
        .filter(|e| {
            let name = e.as_ref().unwrap().file_name();
            name.to_string_lossy().ends_with(".csv")
        })
        .count();
    assert_eq!(csvs, 20, "catch's 20 ids in {}", results.display());
    run("report", &["report"]);
    let page = fs::read_to_string(work.join("report/index.html")).unwrap();
    assert!(page.contains("<b>random</b>"));
    run(
        "baselines",
        &["report", "--baselines", "all", "--out", "with-baselines"],
    );
    let page = fs::read_to_string(work.join("with-baselines/index.html")).unwrap();
    // results/random is seed 42 of the shipped random baseline: one agent in the report.
    for agent in ["random", "dqn", "dqn_sgd", "boot_dqn", "actor_critic_rnn"] {
        assert!(page.contains(&format!("<b>{agent}</b>")), "{agent}");
    }
    // The baselines are unpacked into the user's cache, not beside the checkout.
    assert!(home.join(".cache/bsuite-rs/baselines/dqn").is_dir());

    if watched {
        let checkout = checkout.to_string_lossy().into_owned();
        for log in &logs {
            let calls = fs::read_to_string(log).unwrap();
            assert!(
                calls.contains("openat("),
                "{} watched nothing",
                log.display()
            );
            let into_checkout: Vec<&str> = calls
                .lines()
                .filter(|line| line.contains(&checkout))
                .take(5)
                .collect();
            assert!(
                into_checkout.is_empty(),
                "{} reaches into the checkout {checkout}:\n{}",
                log.display(),
                into_checkout.join("\n")
            );
        }
    }
    eprintln!(
        "the installed-command test took {:.0} s",
        start.elapsed().as_secs_f64()
    );
    fs::remove_dir_all(&root).unwrap();
}
