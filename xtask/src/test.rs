//! `cargo xtask test`: every test of the workspace, the LibTorch agents' included.

use anyhow::Result;
use clap::Args;

use crate::libtorch;

/// Options of `cargo xtask test`.
#[derive(Args, Debug)]
pub struct TestArgs {
    /// Skip the tests of the LibTorch engine (no LibTorch is provisioned then).
    #[arg(long)]
    pub no_libtorch: bool,
    /// Skip the Python stages: the package's tests, the cross-check against rliable and the
    /// shipped baselines against bsuite's scorer (no wheel is built and no venv made then).
    #[arg(long, conflicts_with = "python_only")]
    pub no_python: bool,
    /// Run the Python stages alone (the wheel, the numpy-only check and pytest, the
    /// cross-check against rliable, the shipped baselines against bsuite's scorer).
    #[arg(long)]
    pub python_only: bool,
    /// Run the cross-check against the real rliable alone.
    #[arg(long)]
    pub rliable_only: bool,
    /// Run the check of the shipped baselines against bsuite's scorer alone (after adding
    /// seeds to a baseline).
    #[arg(long)]
    pub shipped_scores_only: bool,
}

/// Runs `cargo test --workspace` (nothing there needs LibTorch), then the Python stages
/// ([`python_stages`]), then the optimised tests of installed programs ([`slurm_test`]:
/// the cluster recipe on a real Slurm, the installed `bsuite` without the checkout), then
/// provisions LibTorch and runs `cargo test -p bsuite-baselines --features libtorch
/// --release -- --include-ignored`: the agents train for a few hundred episodes in these
/// tests, which needs optimised code. The tests ignored in debug builds run there; with
/// `--no-libtorch`, `cargo test -p bsuite-baselines --release -- --ignored` runs them
/// instead, so no ignored test is skipped.
pub fn run(args: TestArgs) -> Result<()> {
    if args.rliable_only {
        return crate::rliable_check::run();
    }
    if args.shipped_scores_only {
        return crate::shipped_scores::run();
    }
    if args.python_only {
        return python_stages();
    }
    let manifest = libtorch::workspace_root().join("Cargo.toml");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut workspace = std::process::Command::new(&cargo);
    workspace
        .args(["test", "--workspace", "--manifest-path"])
        .arg(&manifest);
    if !bsuite_report::check::pdflatex_available() {
        // The report's LaTeX test needs it; outside CI it skips rather than fails.
        bsuite_baselines::errln!(
            "xtask: warning: pdflatex is not installed, so the LaTeX compile test is skipped \
             (install texlive-latex-base, -recommended and -extra to run it; CI does)"
        );
    }
    bsuite_baselines::errln!("xtask: cargo test --workspace");
    libtorch::run_status(workspace, "cargo test --workspace")?;
    crate::book::test()?;
    if !args.no_python {
        python_stages()?;
    }
    // The installed tree builds without LibTorch, so the cluster test runs either way.
    slurm_test(&manifest)?;
    if args.no_libtorch {
        // The tests `#[ignore]`d as too slow for debug builds still run, optimised.
        bsuite_baselines::errln!("xtask: cargo test -p bsuite-baselines --release -- --ignored");
        let mut ignored = std::process::Command::new(&cargo);
        ignored
            .args(["test", "--manifest-path"])
            .arg(&manifest)
            .args(["-p", "bsuite-baselines", "--release", "--", "--ignored"]);
        return libtorch::run_status(
            ignored,
            "cargo test -p bsuite-baselines --release -- --ignored",
        );
    }
    let libtorch = libtorch::provision(false)?;
    bsuite_baselines::errln!(
        "xtask: cargo test -p bsuite-baselines --features libtorch --release -- --include-ignored \
         (LibTorch from {}; \
         the first build compiles LibTorch's C++ bindings, about five minutes on two cores)",
        libtorch.source
    );
    let mut tch = libtorch::cargo(&libtorch, false);
    // Release builds also run the tests too slow for debug ones (`#[ignore]`d there).
    tch.args(["test", "--manifest-path"]).arg(&manifest).args([
        "-p",
        "bsuite-baselines",
        "--features",
        "libtorch",
        "--release",
        "--",
        "--include-ignored",
    ]);
    libtorch::run_status(
        tch,
        "cargo test -p bsuite-baselines --features libtorch --release",
    )
}

/// What runs in venvs: the Python package's tests ([`crate::python_tests::run`]: the wheel,
/// a numpy-only smoke test and pytest), the cross-check against rliable
/// ([`crate::rliable_check`]) and the shipped baselines' scores against bsuite 0.3.6's
/// ([`crate::shipped_scores`]).
fn python_stages() -> Result<()> {
    crate::python_tests::run()?;
    crate::rliable_check::run()?;
    crate::shipped_scores::run()
}

/// The cluster recipe on a real one-node Slurm (`xtask/tests/slurm.rs`), run from a tree
/// that `cargo xtask install` writes under `target/`, the `bsuite` of `cargo install` run
/// with the checkout out of its reach (`xtask/tests/installed.rs`, which reuses the
/// install's optimised build), and the reports of the shipped baselines checked as the
/// paper's page (`xtask/tests/shipped_reports.rs`): all need optimised builds, so they are
/// ignored in debug ones and run here.
fn slurm_test(manifest: &std::path::Path) -> Result<()> {
    let tree = libtorch::workspace_root()
        .join("target")
        .join("slurm-test-tree");
    crate::install::run(&crate::install::InstallArgs {
        prefix: tree.clone(),
        cuda: false,
    })?;
    bsuite_baselines::errln!(
        "xtask: cargo test -p xtask --release --test slurm --test installed --test \
         shipped_reports -- --ignored"
    );
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut slurm = std::process::Command::new(cargo);
    slurm
        .args(["test", "--manifest-path"])
        .arg(manifest)
        .args([
            "-p",
            "xtask",
            "--release",
            "--test",
            "slurm",
            "--test",
            "installed",
            "--test",
            "shipped_reports",
            "--",
            "--ignored",
        ])
        .env("BSUITE_SLURM_TREE", &tree);
    libtorch::run_status(
        slurm,
        "cargo test -p xtask --release --test slurm --test installed --test shipped_reports",
    )
}

#[cfg(test)]
mod tests {
    /// Every library crate packages for crates.io (metadata, versioned path dependencies,
    /// files within its `include`): what a Rust user who depends on `bsuite-envs`,
    /// `bsuite-logging`, `bsuite-analysis`, `bsuite-report` or `bsuite-baselines` gets.
    /// `--no-verify` skips compiling the packages; the workspace's own tests compile them.
    /// `bsuite-cli` is not for crates.io (`publish = false`: the baselines it builds in
    /// outgrow a crate's 10 MB), and is installed from a checkout or from git.
    #[test]
    fn every_library_crate_packages() {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let target = std::env::temp_dir().join(format!("bsuite-package-{}", std::process::id()));
        let out = std::process::Command::new(cargo)
            .args([
                "package",
                "--workspace",
                "--no-verify",
                "--allow-dirty",
                "--offline",
            ])
            .args([
                "--exclude",
                "xtask",
                "--exclude",
                "bsuite-py",
                "--exclude",
                "bsuite-cli",
                "--manifest-path",
            ])
            .arg(super::libtorch::workspace_root().join("Cargo.toml"))
            .env("CARGO_TARGET_DIR", &target)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{stderr}");
        assert!(!stderr.contains("warning"), "{stderr}");
        for name in ["envs", "logging", "analysis", "report", "baselines"] {
            let krate = target.join(format!("package/bsuite-{name}-0.1.0.crate"));
            assert!(krate.is_file(), "{} is missing:\n{stderr}", krate.display());
        }
        std::fs::remove_dir_all(&target).unwrap();
    }
}
