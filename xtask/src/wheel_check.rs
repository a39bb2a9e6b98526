//! What `cargo xtask test` checks of the distributions themselves: the source distribution
//! builds (`maturin sdist`), `twine check --strict` accepts it and the wheel (metadata and
//! README as PyPI renders them), and `auditwheel show` names the wheel's manylinux tag,
//! which must be the one its file name claims.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::libtorch::run_status;
use crate::wheel;

/// The tools venv of the checks (`.bsuite/py-dist-venv`).
const TOOLS: [&str; 2] = ["twine==7.0.0", "auditwheel==6.8.2"];

/// Builds the sdist into `out_dir` (replacing an earlier one) and returns its path.
pub fn build_sdist(out_dir: &Path) -> Result<PathBuf> {
    let tools = wheel::tools()?;
    for entry in std::fs::read_dir(out_dir)? {
        let path = entry?.path();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if name.starts_with("bsuite_rs-") && name.ends_with(".tar.gz") {
            std::fs::remove_file(&path)?;
        }
    }
    let mut sdist = Command::new(&tools);
    sdist
        .args(["-m", "maturin", "sdist", "--manifest-path"])
        .arg(wheel::crate_dir().join("Cargo.toml"))
        .arg("--out")
        .arg(out_dir);
    run_status(sdist, "maturin sdist")?;
    for entry in std::fs::read_dir(out_dir)? {
        let path = entry?.path();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if name.starts_with("bsuite_rs-") && name.ends_with(".tar.gz") {
            return Ok(path);
        }
    }
    bail!(
        "maturin sdist wrote no bsuite_rs-*.tar.gz into {}",
        out_dir.display()
    )
}

/// Builds the sdist next to `wheel`, runs `twine check --strict` on both and checks the
/// wheel's tag with `auditwheel show`; prints what auditwheel says.
pub fn check(wheel: &Path) -> Result<()> {
    let out_dir = wheel.parent().context("the wheel has no directory")?;
    let sdist = build_sdist(out_dir)?;
    let tools: Vec<String> = TOOLS.iter().map(|s| s.to_string()).collect();
    let python = wheel::venv("py-dist-venv", &tools)?;
    bsuite_baselines::errln!("xtask: twine check --strict on the wheel and the sdist");
    let mut twine = Command::new(&python);
    twine
        .args(["-m", "twine", "check", "--strict"])
        .arg(wheel)
        .arg(&sdist);
    run_status(twine, "twine check --strict")?;
    let out = Command::new(&python)
        .args(["-m", "auditwheel", "show"])
        .arg(wheel)
        .output()
        .context("running auditwheel show")?;
    let text = String::from_utf8_lossy(&out.stdout).replace('\n', " ");
    if !out.status.success() {
        bail!("auditwheel show {} failed: {text}", wheel.display());
    }
    let name = wheel.file_name().unwrap_or_default().to_string_lossy();
    let tag = text
        .split("platform tag: \"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or("");
    bsuite_baselines::errln!("xtask: auditwheel: the wheel is consistent with {tag}");
    if tag.is_empty() || !name.contains(tag) {
        bail!("auditwheel show names the tag {tag:?}, which {name} does not carry: {text}");
    }
    Ok(())
}
