//! `cargo xtask wheel`: the `bsuite-rs` Python wheel (`crates/bsuite-py`), and the Python
//! virtual environments its tests and benchmark run in.
//!
//! Everything is provisioned into the project's ignored `.bsuite/` directory, as LibTorch
//! is (`libtorch.rs`): maturin in `.bsuite/py-tools`, the test venvs beside it. A venv is
//! made by the first `python3` on `PATH` (or `$PYTHON`) and remembers the requirements it was
//! made with, so a changed pin rebuilds it and an unchanged one is reused.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use clap::Args;

use crate::libtorch::{run_status, workspace_root};

/// The numpy 1.x that the smoke test also runs under.
pub const NUMPY_1: &str = "numpy==1.26.4";

/// The maturin that builds the wheel.
pub const MATURIN: &str = "maturin==1.16.0";
/// The zig (as a Python package, 100 MB) through which maturin links Linux wheels against
/// glibc 2.17's symbols: manylinux2014, which installs on RHEL/Rocky 8 and 9, Ubuntu 20.04,
/// Debian 11 and other cluster systems whose glibc is older than the build machine's.
pub const ZIGLANG: &str = "ziglang==0.17.1";

/// True when wheels are built for manylinux2014 through zig: on Linux, unless
/// `BSUITE_WHEEL_NATIVE` is set (then the wheel needs the build machine's glibc or newer).
pub fn manylinux2014() -> bool {
    cfg!(target_os = "linux") && std::env::var_os("BSUITE_WHEEL_NATIVE").is_none()
}

/// The `.bsuite/py-tools` venv (maturin, and zig where [`manylinux2014`]); its interpreter.
pub fn tools() -> Result<PathBuf> {
    let mut requirements = vec![MATURIN.to_string()];
    if manylinux2014() {
        requirements.push(ZIGLANG.to_string());
    }
    venv("py-tools", &requirements)
}

/// Options of `cargo xtask wheel`.
#[derive(Args, Debug)]
pub struct WheelArgs {
    /// Where to write the wheel (default: target/wheels).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// Runs `cargo xtask wheel`: builds the wheel and prints its path.
pub fn run(args: &WheelArgs) -> Result<()> {
    let out = args.out.clone().unwrap_or_else(default_out_dir);
    let wheel = build(&out)?;
    bsuite_baselines::outln!("{}", wheel.display());
    Ok(())
}

/// `target/wheels` of the workspace.
pub fn default_out_dir() -> PathBuf {
    workspace_root().join("target").join("wheels")
}

/// The crate the wheel is built from.
pub fn crate_dir() -> PathBuf {
    workspace_root().join("crates").join("bsuite-py")
}

/// An interpreter inside the venv `dir`.
pub fn venv_python(dir: &Path) -> PathBuf {
    if cfg!(windows) {
        dir.join("Scripts").join("python.exe")
    } else {
        dir.join("bin").join("python")
    }
}

/// The venv `.bsuite/<name>` with `requirements` installed (pip requirement specifiers),
/// made on first use and remade when the requirements change. Returns its interpreter.
pub fn venv(name: &str, requirements: &[String]) -> Result<PathBuf> {
    let dir = workspace_root().join(".bsuite").join(name);
    let python = venv_python(&dir);
    // Written last: a venv without it (an interrupted install) is made again.
    let marker = dir.join(".bsuite-requirements");
    let wanted = requirements.join("\n") + "\n";
    if python.exists() && std::fs::read_to_string(&marker).is_ok_and(|have| have == wanted) {
        return Ok(python);
    }
    if dir.exists() {
        std::fs::remove_dir_all(&dir).with_context(|| format!("removing {}", dir.display()))?;
    }
    let base = std::env::var_os("PYTHON").unwrap_or_else(|| "python3".into());
    bsuite_baselines::errln!(
        "xtask: creating the Python venv {} ({})",
        dir.display(),
        requirements.join(" ")
    );
    let mut create = Command::new(&base);
    create.args(["-m", "venv"]).arg(&dir);
    run_status(
        create,
        &format!(
            "{} -m venv (Python 3.9 or newer with the venv module; set PYTHON to choose one)",
            base.to_string_lossy()
        ),
    )?;
    let mut install = Command::new(&python);
    install.args(pip_install()).args(requirements);
    run_status(install, &format!("pip install into {}", dir.display()))?;
    std::fs::write(&marker, wanted).with_context(|| format!("writing {}", marker.display()))?;
    Ok(python)
}

/// `-m pip install` without prompts or version nags.
pub fn pip_install() -> [&'static str; 6] {
    [
        "-m",
        "pip",
        "install",
        "--quiet",
        "--no-input",
        "--disable-pip-version-check",
    ]
}

/// Builds the wheel with maturin (release, stripped) into `out_dir`, replacing any earlier
/// `bsuite_rs` wheel there, and returns its path.
pub fn build(out_dir: &Path) -> Result<PathBuf> {
    let tools = tools()?;
    std::fs::create_dir_all(out_dir).with_context(|| format!("creating {}", out_dir.display()))?;
    for old in wheels_in(out_dir)? {
        std::fs::remove_file(&old).with_context(|| format!("removing {}", old.display()))?;
    }
    bsuite_baselines::errln!(
        "xtask: building the bsuite-rs wheel (maturin build --release{}; the first build \
         compiles the crates optimised, a few minutes on two cores)",
        if manylinux2014() {
            " --zig --compatibility manylinux2014"
        } else {
            ""
        }
    );
    let mut maturin = Command::new(&tools);
    maturin
        .args(["-m", "maturin", "build", "--release", "--manifest-path"])
        .arg(crate_dir().join("Cargo.toml"))
        .arg("--out")
        .arg(out_dir)
        // abi3: any CPython >= 3.9 runs the wheel; this one only drives the build.
        .arg("--interpreter")
        .arg(&tools);
    if manylinux2014() {
        // maturin finds zig as `python -m ziglang` of the first python on PATH.
        let bin = tools
            .parent()
            .context("the tools venv has no bin directory")?;
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut paths = vec![bin.to_path_buf()];
        paths.extend(std::env::split_paths(&path));
        maturin
            .args(["--zig", "--compatibility", "manylinux2014"])
            .env("PATH", std::env::join_paths(paths)?);
    }
    run_status(maturin, "maturin build")?;
    match wheels_in(out_dir)?.as_slice() {
        [wheel] => Ok(wheel.clone()),
        [] => bail!(
            "maturin reported success but wrote no wheel into {}",
            out_dir.display()
        ),
        many => bail!(
            "several bsuite_rs wheels in {}: {many:?}",
            out_dir.display()
        ),
    }
}

fn wheels_in(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut wheels = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if name.starts_with("bsuite_rs-") && name.ends_with(".whl") {
            wheels.push(path);
        }
    }
    Ok(wheels)
}

/// Installs `wheel` into the venv of `python`, replacing an installed bsuite-rs but not its
/// dependencies; `resolve_offline` instead lets pip check the wheel's declared dependencies
/// against what the venv has, without an index (so a dependency the venv lacks fails).
pub fn install(python: &Path, wheel: &Path, resolve_offline: bool) -> Result<()> {
    let mut uninstall = Command::new(python);
    // Twice quiet: pip warns when the package is not installed, as on the first run.
    uninstall.args([
        "-m",
        "pip",
        "uninstall",
        "--quiet",
        "--quiet",
        "--yes",
        "bsuite-rs",
    ]);
    run_status(uninstall, "pip uninstall bsuite-rs")?;
    let mut install = Command::new(python);
    install.args(pip_install());
    if resolve_offline {
        install.arg("--no-index");
    } else {
        install.arg("--no-deps");
    }
    install.arg(wheel);
    run_status(install, &format!("pip install {}", wheel.display()))
}

/// The pinned requirements of the Python test venv (`tests/python/requirements.txt`).
pub fn test_requirements() -> Result<Vec<String>> {
    read_requirements("requirements.txt")
}

/// The requirement lines of `tests/python/<name>`, comments and blank lines left out.
pub fn read_requirements(name: &str) -> Result<Vec<String>> {
    let path = crate_dir().join("tests/python").join(name);
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    Ok(text
        .lines()
        .map(|line| line.split('#').next().unwrap_or("").trim())
        .filter(|line| !line.is_empty())
        .map(String::from)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_test_venv_is_pinned_and_has_what_the_suite_imports() {
        let requirements = test_requirements().unwrap();
        for requirement in &requirements {
            let pinned = requirement
                .split_once("==")
                .is_some_and(|(name, version)| !name.is_empty() && !version.is_empty());
            assert!(pinned, "{requirement} is not pinned (NAME==VERSION)");
        }
        for needed in ["numpy", "dm-env", "gymnasium", "pytest"] {
            assert!(
                requirements
                    .iter()
                    .any(|r| r.starts_with(&format!("{needed}=="))),
                "no pin for {needed}"
            );
        }
    }
}
