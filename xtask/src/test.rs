//! `cargo xtask test`: every test of the workspace, the LibTorch agents' included.

use anyhow::Result;
use clap::Args;

use crate::libtorch;

/// Options of `cargo xtask test`.
#[derive(Args, Debug)]
pub struct TestArgs {
    /// Skip the LibTorch agents' tests (no LibTorch is provisioned then).
    #[arg(long)]
    pub no_tch: bool,
    /// Skip the Python package's tests (no wheel is built and no venv made then).
    #[arg(long, conflicts_with = "python_only")]
    pub no_python: bool,
    /// Run the Python package's tests alone (the wheel, the numpy-only check and pytest).
    #[arg(long)]
    pub python_only: bool,
    /// Run the cross-check against the real rliable alone ([`crate::rliable_check`]).
    #[arg(long)]
    pub rliable_only: bool,
}

/// Runs `cargo test --workspace` (nothing there needs LibTorch), then the Python tests
/// ([`crate::wheel::test`]: the wheel, a numpy-only smoke test and pytest), then provisions
/// LibTorch and runs `cargo test -p bsuite-baselines --features tch --release --
/// --include-ignored`: the agents train for a few hundred episodes in these tests, which
/// needs optimised code, and bench-all's tch binaries share the release build. The tests
/// ignored in debug builds run there; with `--no-tch`, `cargo test -p bsuite-baselines
/// --release -- --ignored` runs them instead, so no ignored test is skipped.
pub fn run(args: TestArgs) -> Result<()> {
    if args.rliable_only {
        return crate::rliable_check::run();
    }
    if args.python_only {
        crate::wheel::test()?;
        return crate::rliable_check::run();
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
    if !args.no_python {
        crate::wheel::test()?;
        crate::rliable_check::run()?;
    }
    if args.no_tch {
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
        "xtask: cargo test -p bsuite-baselines --features tch --release -- --include-ignored \
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
        "tch",
        "--release",
        "--",
        "--include-ignored",
    ]);
    libtorch::run_status(
        tch,
        "cargo test -p bsuite-baselines --features tch --release",
    )
}
