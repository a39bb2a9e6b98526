//! The Python package's tests, as `cargo xtask test` runs them: the wheel built and
//! checked, a numpy-only smoke test, and pytest in the test venv (SB3 on the CPU torch).
//! It sits above `wheel`, `wheel_check` and `py_torch`, which know nothing of it.

use std::process::Command;

use anyhow::{bail, Result};

use crate::libtorch::{run_status, workspace_root};
use crate::wheel::{build, crate_dir, default_out_dir, install, test_requirements, venv, NUMPY_1};

/// Builds the wheel (and the sdist, checked with `twine check --strict` and `auditwheel
/// show`: [`crate::wheel_check`]), installs it into a venv with numpy alone (checking that pip needs
/// nothing else) and runs `smoke_numpy_only.py` there, then into the test venv (numpy,
/// dm_env, gymnasium, pytest; `tests/python/requirements.txt`; SB3 on the CPU torch,
/// [`crate::py_torch`]) and runs the pytest suite.
/// The suite gets this xtask binary to run `bench-all` for its CSV comparison, and both get
/// the `bsuite` binary (`BSUITE_CLI`), whose help texts the wheel's `bsuite` must repeat.
pub fn run() -> Result<()> {
    let wheel = build(&default_out_dir())?;
    let native = native_bsuite()?;
    crate::wheel_check::check(&wheel)?;
    let requirements = test_requirements()?;
    let numpy: Vec<String> = requirements
        .iter()
        .filter(|r| r.starts_with("numpy=="))
        .cloned()
        .collect();
    if numpy.len() != 1 {
        bail!("tests/python/requirements.txt must pin numpy (numpy==X.Y.Z)");
    }
    let tests = crate_dir().join("tests").join("python");
    let fixtures = workspace_root().join("tests").join("fixtures");

    // The smoke test under the test venv's numpy 2 and under numpy 1.x, which bsuite
    // 0.3.6's analysis (pandas<2) still needs beside us.
    for (name, pin) in [
        ("py-numpy-venv", numpy[0].as_str()),
        ("py-numpy1-venv", NUMPY_1),
    ] {
        let minimal = venv(name, &[pin.to_string()])?;
        install(&minimal, &wheel, true)?;
        bsuite_baselines::errln!("xtask: the wheel with {pin} alone (smoke_numpy_only.py)");
        let mut smoke = Command::new(&minimal);
        smoke
            .arg(tests.join("smoke_numpy_only.py"))
            .arg(&fixtures)
            .env("BSUITE_CLI", &native);
        run_status(smoke, "smoke_numpy_only.py")?;
    }

    let full = venv("py-test-venv", &requirements)?;
    install(&full, &wheel, false)?;
    crate::py_torch::provision(&full)?;
    // This binary's path, not the running file: `cargo test --workspace` may have relinked
    // it since (same sources), and Linux then names the running one "xtask (deleted)".
    let xtask =
        std::env::current_exe()?.with_file_name(format!("xtask{}", std::env::consts::EXE_SUFFIX));
    bsuite_baselines::errln!("xtask: pytest {}", tests.display());
    let mut pytest = Command::new(&full);
    pytest
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(&tests)
        .current_dir(workspace_root())
        .env("BSUITE_XTASK", xtask)
        .env("BSUITE_CLI", &native);
    run_status(pytest, "the Python tests (pytest)")
}

/// Builds the `bsuite` binary of `bsuite-cli` (unoptimised: only its help texts and
/// messages are compared) and returns its path.
fn native_bsuite() -> Result<std::path::PathBuf> {
    let root = workspace_root();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut build = Command::new(cargo);
    build
        .args(["build", "--quiet", "--manifest-path"])
        .arg(root.join("Cargo.toml"))
        .args(["-p", "bsuite-cli", "--bin", "bsuite"]);
    run_status(build, "cargo build -p bsuite-cli --bin bsuite")?;
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| root.join("target"), std::path::PathBuf::from);
    Ok(target
        .join("debug")
        .join(format!("bsuite{}", std::env::consts::EXE_SUFFIX)))
}
