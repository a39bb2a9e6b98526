//! Stable-Baselines3 in the Python test venv, on the CPU-only torch that `libtorch.rs`
//! provisions for the Rust agents (no 5 GB of CUDA wheels).
//!
//! SB3 (`tests/python/requirements-sb3.txt`) is installed with `--no-deps`: its
//! requirements are gymnasium, numpy and cloudpickle, pinned in the test venv already, and
//! torch, which pip would fetch with every CUDA library. torch instead comes from
//! `.bsuite/torch-cpu` (the same install as LibTorch's, so CI downloads it once for both):
//! `tests/python/sb3/torch_cpu_stubs.py` writes stubs of the CUDA libraries that Python's
//! `torch._C` links but never calls without a GPU, and a `.pth` file that loads them and
//! puts torch on the venv's path.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::libtorch::{self, run_status, workspace_root};
use crate::wheel;

/// The pinned SB3 requirements, installed without their dependencies.
pub fn sb3_requirements() -> Result<Vec<String>> {
    wheel::read_requirements("requirements-sb3.txt")
}

/// The venv's `site-packages` directory.
fn site_packages(python: &Path) -> Result<PathBuf> {
    let out = Command::new(python)
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['purelib'])",
        ])
        .output()
        .with_context(|| format!("running {}", python.display()))?;
    if !out.status.success() {
        bail!("{} could not name its site-packages", python.display());
    }
    Ok(PathBuf::from(String::from_utf8(out.stdout)?.trim()))
}

/// Makes `import torch` and `import stable_baselines3` work in the venv of `python`:
/// provisions the CPU torch (a no-op once `.bsuite/torch-cpu` exists), installs SB3 without
/// dependencies and writes the stubs and the `.pth` file. Remembered in a marker file, so
/// an unchanged venv is left as it is.
pub fn provision(python: &Path) -> Result<()> {
    let libtorch = libtorch::provision(false)?;
    if !libtorch.root.join("__init__.py").exists() {
        bail!(
            "LibTorch at {} ({}) is not a Python torch package, so SB3's test cannot import it; \
             unset LIBTORCH to use the project's .bsuite/torch-cpu",
            libtorch.root.display(),
            libtorch.source
        );
    }
    // `root` is the `torch` package; its parent is what goes on `sys.path` and holds the
    // `nvidia/` libraries torch's RPATH finds.
    let torch_dir = libtorch
        .root
        .parent()
        .context("torch has no parent directory")?;
    let requirements = sb3_requirements()?;
    let site = site_packages(python)?;
    let marker = site.join("bsuite_sb3.txt");
    let wanted = format!("{}\n{}\n", torch_dir.display(), requirements.join("\n"));
    if std::fs::read_to_string(&marker).is_ok_and(|have| have == wanted) {
        return Ok(());
    }
    bsuite_baselines::errln!(
        "xtask: SB3 for the Python tests ({}, without dependencies) on the CPU torch of {}",
        requirements.join(" "),
        torch_dir.display()
    );
    let mut install = Command::new(python);
    install
        .args(wheel::pip_install())
        .arg("--no-deps")
        .args(&requirements);
    run_status(install, "pip install --no-deps (SB3)")?;
    let stubs = workspace_root().join(".bsuite").join("torch-cpu-stubs");
    let mut make = Command::new(python);
    make.arg(wheel::crate_dir().join("tests/python/sb3/torch_cpu_stubs.py"))
        .arg(torch_dir)
        .arg(&stubs)
        .arg(&site);
    run_status(make, "tests/python/sb3/torch_cpu_stubs.py")?;
    let mut check = Command::new(python);
    check.args(["-c", "import torch, stable_baselines3"]);
    run_status(check, "import torch, stable_baselines3 in the test venv")?;
    std::fs::write(&marker, wanted).with_context(|| format!("writing {}", marker.display()))
}
