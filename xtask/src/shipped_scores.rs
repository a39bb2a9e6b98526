//! The shipped baselines against bsuite 0.3.6's own scorer, run by `cargo xtask test`:
//! each archive of `baselines/` is unpacked (into `.bsuite/baselines/`, as the user's
//! commands unpack it) and `tools/reference/score_agreement.py --shipped` checks its
//! `<name>.scores.json` against bsuite's `summary_analysis` on every seed's directory, and
//! a multi-seed baseline's scores against the means of bsuite's, to 1e-9. So a seed added
//! to a baseline, or an archive repacked, cannot ship scores that bsuite would not give.

use std::process::Command;

use anyhow::Result;
use bsuite_cli::Baselines;

use crate::bench_python::reference_python;
use crate::libtorch::{run_status, workspace_root};

/// Checks every shipped baseline; fails on the first that disagrees.
pub fn run() -> Result<()> {
    let root = workspace_root();
    let python = reference_python()?;
    let baselines = Baselines::in_dir(root.join("baselines"), root.join(".bsuite/baselines"));
    for name in baselines.names()? {
        let dir = baselines.unpack(&name)?;
        bsuite_baselines::errln!("xtask: bsuite 0.3.6's scores of the shipped baseline {name}");
        let mut check = Command::new(&python);
        check
            .arg(root.join("tools/reference/score_agreement.py"))
            .arg("--shipped")
            .arg(root.join("baselines").join(format!("{name}.scores.json")))
            .arg(&dir);
        run_status(check, "tools/reference/score_agreement.py --shipped")?;
    }
    Ok(())
}
