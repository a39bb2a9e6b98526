//! `bsuite agents`: every agent with its hyperparameters, their defaults and one line
//! each, as `--config KEY=VALUE` and study files take them.

use std::fmt::Write as _;
use std::io::Write as _;

use anyhow::Result;
use bsuite_baselines::factory;
use bsuite_baselines::factory::LIBTORCH_AGENTS;

/// Prints the agents and their keys.
pub fn run() -> Result<()> {
    let mut out = String::new();
    for (agent, keys) in factory::all_keys() {
        // Every agent runs on the host; these have a LibTorch engine besides.
        let libtorch = if LIBTORCH_AGENTS.contains(&agent) {
            " (host engine; --engine libtorch runs its LibTorch definition)"
        } else {
            ""
        };
        let _ = writeln!(out, "{agent}{libtorch}");
        let width = keys
            .iter()
            .map(|k| k.name.len() + k.default.len() + 1)
            .max();
        for key in keys.iter() {
            let setting = format!("{}={}", key.name, key.default);
            let _ = writeln!(
                out,
                "  {setting:<width$}  {}",
                key.doc,
                width = width.unwrap_or(0)
            );
        }
        out.push('\n');
    }
    out.push_str(
        "Set keys with `bsuite run AGENT --config KEY=VALUE` (repeatable) or --config-file \
         FILE.toml, or in a study file's variants (`bsuite study`).\n",
    );
    let _ = write!(bsuite_baselines::console::Stdout, "{out}");
    Ok(())
}
