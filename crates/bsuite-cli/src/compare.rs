//! `bsuite compare A B`: two agents, each a results directory, a directory of
//! `seed-<s>/` results directories or a shipped baseline's name, compared per tag and per
//! experiment: the difference of mean scores and the probability of improvement P(A > B),
//! each with a 95% stratified bootstrap interval, and a verdict
//! (`bsuite_analysis::seeds::compare_agents`). When the evidence is not enough the verdict
//! names the seeds a side that would settle it: enough for the interval to clear the
//! tolerance's boundary nearest the difference (`bsuite_analysis::stats::seeds_needed` on
//! that margin: the normal-approximation power calculation for two means, 80% power at the
//! 5% level).

use std::ffi::OsString;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

use anyhow::Result;
use bsuite_analysis::seeds::{compare_agents, PairComparison, SeededAgent, SeededSummary};
use clap::Args;
use serde_json::{json, Value};

use crate::baselines::Baselines;
use crate::results_dirs::load_seeded_agents;

/// Arguments of `bsuite compare`.
#[derive(Args, Debug)]
pub struct CompareArgs {
    /// Agent A: `[NAME=]DIR` (a results directory or a directory of seed-<s>/ ones) or a
    /// shipped baseline's name (`bsuite report --baselines dqn2` lists them).
    #[arg(value_name = "A")]
    pub a: OsString,
    /// Agent B, as A.
    #[arg(value_name = "B")]
    pub b: OsString,
    /// Differences of mean score below this do not matter: the verdict calls the agents
    /// equivalent when the difference's interval lies within ±tolerance, one better when
    /// the interval lies wholly beyond it, and otherwise inconclusive, sizing the seeds
    /// needed to settle it.
    #[arg(long, default_value_t = 0.05)]
    pub tolerance: f64,
    /// Print the comparison as JSON.
    #[arg(long)]
    pub json: bool,
    /// Bootstrap replicates behind the intervals (1000 to 1000000).
    #[arg(long, default_value_t = crate::score::DEFAULT_REPS, value_name = "N", value_parser = bsuite_analysis::stats::parse_reps)]
    pub reps: usize,
    /// Seed of the bootstrap: the same seed gives the same intervals.
    #[arg(long, default_value_t = 0, value_name = "S")]
    pub bootstrap_seed: u32,
    /// Skip malformed result files (reported on stderr) instead of failing.
    #[arg(long)]
    pub lenient: bool,
    /// Read the shipped baselines from DIR (its `<name>.tar.gz` archives, such as a
    /// checkout's `baselines/`) instead of those built in.
    #[arg(long, value_name = "DIR")]
    pub baselines_dir: Option<std::path::PathBuf>,
}

/// `arg` as `score` reads it, or, when it names no directory but a shipped baseline, that
/// baseline unpacked (as `NAME=DIR`).
fn resolve(arg: &OsString, shipped: &Baselines) -> Result<OsString> {
    let text = arg.to_string_lossy();
    if text.trim().is_empty() {
        anyhow::bail!(
            "an agent to compare is empty: give a results directory ([NAME=]DIR) or a \
             shipped baseline's name"
        );
    }
    if Path::new(arg).exists() || text.contains('=') || text.contains('/') {
        return Ok(arg.clone());
    }
    let name = shipped
        .select(&text)?
        .pop()
        .unwrap_or_else(|| text.to_string());
    let dir = shipped.unpack(&name)?;
    let mut named = OsString::from(format!("{name}="));
    named.push(dir.as_os_str());
    Ok(named)
}

/// Runs `bsuite compare`, with `shipped` the baselines unless `--baselines-dir` names
/// others.
pub fn run(args: &CompareArgs, shipped: &Baselines) -> Result<()> {
    let shipped = shipped.or_dir(args.baselines_dir.as_deref());
    if !(args.tolerance > 0.0 && args.tolerance.is_finite()) {
        anyhow::bail!(
            "--tolerance must be a positive number, not {}",
            args.tolerance
        );
    }
    let dirs = [resolve(&args.a, &shipped)?, resolve(&args.b, &shipped)?];
    let agents = load_seeded_agents(&dirs, args.lenient)?;
    for warning in agents.iter().flat_map(SeededAgent::warnings) {
        bsuite_baselines::errln!("warning: {warning}");
    }
    let summaries: Vec<SeededSummary> = agents.iter().map(SeededAgent::summarize).collect();
    let settings = bsuite_analysis::stats::Bootstrap {
        reps: args.reps,
        seed: args.bootstrap_seed,
        confidence: 0.95,
    };
    let (a, b) = (&summaries[0], &summaries[1]);
    let (tags, experiments) = compare_agents(a, b, &settings, args.tolerance);
    let out = if args.json {
        let rows = |rows: &[PairComparison]| -> Value {
            rows.iter()
                .map(|r| {
                    (
                        r.name.clone(),
                        json!({
                            "experiments": r.experiments,
                            "difference": bsuite_analysis::score_json::estimate_json(r.difference),
                            "p_improvement": bsuite_analysis::score_json::estimate_json(r.improvement),
                            "verdict": r.verdict(&a.agent, &b.agent, args.tolerance),
                        }),
                    )
                })
                .collect::<serde_json::Map<String, Value>>()
                .into()
        };
        let value = json!({
            "a": {"agent": a.agent, "seeds": a.seeds.iter().map(|s| s.0).collect::<Vec<_>>()},
            "b": {"agent": b.agent, "seeds": b.seeds.iter().map(|s| s.0).collect::<Vec<_>>()},
            "tolerance": args.tolerance,
            "confidence": settings.confidence,
            "reps": settings.reps,
            "bootstrap_seed": settings.seed,
            "tags": rows(&tags),
            "experiments": rows(&experiments),
        });
        serde_json::to_string_pretty(&value)? + "\n"
    } else {
        table(a, b, &tags, &experiments, &settings, args.tolerance)
    };
    let _ = write!(bsuite_baselines::console::Stdout, "{out}");
    Ok(())
}

/// `name (3 seeds: 42, 43, 44)`.
fn who(s: &SeededSummary) -> String {
    let seeds: Vec<String> = s
        .seeds
        .iter()
        .map(|(seed, _)| seed.map_or("?".into(), |s| s.to_string()))
        .collect();
    let plural = if seeds.len() == 1 { "" } else { "s" };
    format!(
        "{} ({} seed{plural}: {})",
        s.agent,
        seeds.len(),
        seeds.join(", ")
    )
}

fn table(
    a: &SeededSummary,
    b: &SeededSummary,
    tags: &[PairComparison],
    experiments: &[PairComparison],
    settings: &bsuite_analysis::stats::Bootstrap,
    tolerance: f64,
) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "A = {}\nB = {}", who(a), who(b));
    let _ = writeln!(
        out,
        "A − B: difference of mean scores; P(A > B): probability of improvement (rliable);\n\
         [{:.0}% stratified bootstrap intervals over seeds: {} replicates, seed {}]; tolerance {tolerance}",
        settings.confidence * 100.0,
        settings.reps,
        settings.seed
    );
    let cell = |e: bsuite_analysis::stats::Estimate| {
        if e.value.is_nan() {
            format!("{:>24}", "n/a")
        } else {
            format!("{:>24}", e.to_string())
        }
    };
    for (title, rows) in [("tag", tags), ("experiment", experiments)] {
        let _ = writeln!(
            out,
            "\n{title:<20} {:>4}  {:>24}  {:>24}  verdict",
            "exps", "A − B", "P(A > B)"
        );
        for r in rows {
            let _ = writeln!(
                out,
                "{:<20} {:>4}  {}  {}  {}",
                r.name,
                r.experiments,
                cell(r.difference),
                cell(r.improvement),
                r.verdict(&a.agent, &b.agent, tolerance)
            );
        }
    }
    let _ = writeln!(
        out,
        "\nVerdicts: 'equivalent' when the interval of A − B lies within ±tolerance; 'better'\n\
         when it lies wholly beyond the tolerance; otherwise 'inconclusive', which names the\n\
         seeds a side that would settle it four times in five at the 5% level: enough for\n\
         the interval to clear the boundary nearest the difference, m = ||A − B| − tolerance|\n\
         (n = 2.80² (sd_A² + sd_B²) / m², sd over seeds of the mean score, and more than\n\
         either side has). A verdict needs two seeds a side, and an experiment both ran on a\n\
         common bsuite_id."
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_agent_against_itself_on_one_seed_is_inconclusive_with_p_one_half() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/random_results");
        let a = format!("a={}", dir.display());
        let b = format!("b={}", dir.display());
        let agents = load_seeded_agents(&[a, b], false).unwrap();
        let s: Vec<SeededSummary> = agents.iter().map(SeededAgent::summarize).collect();
        let settings = bsuite_analysis::stats::Bootstrap::default();
        let (tags, experiments) = compare_agents(&s[0], &s[1], &settings, 0.05);
        assert_eq!(experiments.len(), 23);
        for row in tags.iter().chain(&experiments) {
            assert_eq!(row.difference.value, 0.0, "{}", row.name);
            assert_eq!(row.improvement.value, 0.5, "{}", row.name);
        }
        let text = table(&s[0], &s[1], &tags, &experiments, &settings, 0.05);
        assert!(
            text.contains("inconclusive: a side with one seed has no spread"),
            "{text}"
        );
    }
}
