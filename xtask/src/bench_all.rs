//! `cargo xtask bench-all <agent>`: run an agent on a set of bsuite_ids (all 468 by default)
//! in parallel, one bsuite CSV per id, resumable and shardable.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use bsuite_baselines::factory;
use bsuite_baselines::runner::{self, IdReport, Outcome, Progress, RunnerOptions, Shard};
use bsuite_envs::BsuiteId;
use clap::Args;

/// Options of `cargo xtask bench-all`.
#[derive(Args, Debug)]
pub struct BenchAllArgs {
    /// The agent (`random`; the LibTorch agents run from their own binary).
    pub agent: String,
    /// What to run: bsuite_ids (catch/0), experiments (catch), tags (memory), SWEEP or
    /// TESTING. Default: SWEEP (all 468 ids).
    #[arg(long, num_args = 1.., value_name = "ID|EXPERIMENT|TAG|SWEEP|TESTING")]
    pub ids: Vec<String>,
    /// Results directory (default: results/<agent>).
    #[arg(long, value_name = "DIR")]
    pub results: Option<PathBuf>,
    /// Ids run at once (default: one per core).
    #[arg(long, default_value_t = 0)]
    pub jobs: usize,
    /// Re-run ids whose results file is already complete, replacing it.
    #[arg(long)]
    pub overwrite: bool,
    /// The agent seed, the same for every id.
    #[arg(long, default_value_t = 42)]
    pub seed: u32,
    /// Episodes per id instead of the reference's counts.
    #[arg(long, value_name = "N")]
    pub num_episodes: Option<usize>,
    /// Run only shard I of N (0-based) of the selected ids, e.g. 0/4, to split a sweep over
    /// machines; the shards' results directories merge by copying.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<Shard>,
    /// Print one line per finished id instead of a progress bar (the default when standard
    /// error is not a terminal).
    #[arg(long)]
    pub plain: bool,
    /// Do not print the bsuite scores of the results directory at the end.
    #[arg(long)]
    pub no_score: bool,
    /// Where the LibTorch agents compute (`cuda` needs an NVIDIA GPU); others ignore it.
    #[arg(long, default_value = "cpu", value_parser = ["cpu", "cuda"])]
    pub device: String,
}

/// Resolves selectors to ids in sweep order without duplicates.
pub fn select_ids(selectors: &[String]) -> Result<Vec<BsuiteId>> {
    let mut ids = Vec::new();
    if selectors.is_empty() {
        ids.extend(bsuite_envs::sweep());
    }
    for selector in selectors {
        ids.extend(bsuite_envs::select(selector)?);
    }
    ids.sort();
    ids.dedup();
    Ok(ids)
}

/// Runs `cargo xtask bench-all`.
pub fn run(args: BenchAllArgs) -> Result<()> {
    let agent = factory::agent(&args.agent)?;
    let mut ids = select_ids(&args.ids)?;
    if let Some(shard) = args.shard {
        ids = shard.select(&ids);
    }
    let results_dir = args
        .results
        .clone()
        .unwrap_or_else(|| default_results_dir(&args.agent));
    let options = RunnerOptions {
        results_dir: results_dir.clone(),
        jobs: args.jobs,
        overwrite: args.overwrite,
        seed: args.seed,
        num_episodes: args.num_episodes,
    };
    let plain = args.plain || !std::io::stderr().is_terminal();
    eprintln!(
        "bench-all: {} on {} ids into {}{}",
        agent.name,
        ids.len(),
        results_dir.display(),
        args.shard
            .map(|s| format!(" (shard {}/{})", s.index, s.count))
            .unwrap_or_default()
    );

    let progress = Progress::default();
    let start = Instant::now();
    let display = Display::new(ids.len(), plain);
    let reports = std::thread::scope(|scope| {
        let ticker = (!plain).then(|| scope.spawn(|| display.tick_until_done(&progress, start)));
        let reports = runner::run_ids(&ids, agent, &options, &progress, &|report| {
            display.finished(report)
        });
        display.close();
        if let Some(ticker) = ticker {
            let _ = ticker.join();
        }
        reports
    })
    .map_err(anyhow::Error::msg)?;

    summarise(&reports, start.elapsed(), &results_dir)?;
    if !args.no_score {
        print_scores(&results_dir);
    }
    Ok(())
}

/// Prints the score summary of `results_dir` (as `cargo xtask score DIR`); a failure to
/// score is a warning, since the results themselves are complete.
fn print_scores(results_dir: &std::path::Path) {
    let args = crate::score::ScoreArgs {
        dirs: vec![results_dir.display().to_string()],
        json: false,
        ids: false,
        lenient: true,
    };
    if let Err(err) = crate::score::run(&args) {
        eprintln!(
            "warning: could not score {}: {err:#}",
            results_dir.display()
        );
    }
}

fn summarise(reports: &[IdReport], elapsed: Duration, results_dir: &std::path::Path) -> Result<()> {
    let (mut ran, mut skipped, mut steps) = (0, 0, 0u64);
    let mut failed = Vec::new();
    for report in reports {
        match &report.outcome {
            Outcome::Ran { steps: s, .. } => {
                ran += 1;
                steps += s;
            }
            Outcome::Skipped { .. } => skipped += 1,
            Outcome::Failed(_) => failed.push(report),
        }
    }
    let secs = elapsed.as_secs_f64();
    eprintln!(
        "bench-all: ran {ran}, skipped {skipped} (already complete), failed {} of {} ids; \
         {steps} steps in {secs:.1} s ({:.0} steps/s); results in {}",
        failed.len(),
        reports.len(),
        steps as f64 / secs.max(1e-9),
        results_dir.display()
    );
    if failed.is_empty() {
        return Ok(());
    }
    for report in &failed {
        eprintln!("  {report}");
    }
    bail!(
        "{} id(s) failed: {}; the other ids' results are kept, and re-running resumes",
        failed.len(),
        failed
            .iter()
            .map(|r| r.id.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// A progress bar on a terminal, or one line per finished id otherwise.
struct Display {
    bar: Option<indicatif::ProgressBar>,
    done: std::sync::Mutex<bool>,
    wake: std::sync::Condvar,
}

impl Display {
    fn new(num_ids: usize, plain: bool) -> Self {
        let bar = (!plain).then(|| {
            let bar = indicatif::ProgressBar::new(num_ids as u64);
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:30}] {pos}/{len} ids, {msg}, ETA {eta}",
                )
                .expect("valid template")
                .progress_chars("=> "),
            );
            bar
        });
        Display {
            bar,
            done: std::sync::Mutex::new(false),
            wake: std::sync::Condvar::new(),
        }
    }

    fn finished(&self, report: &IdReport) {
        match &self.bar {
            Some(bar) => {
                bar.inc(1);
                if matches!(report.outcome, Outcome::Failed(_)) {
                    bar.println(report.to_string());
                }
            }
            None => println!("{report}"),
        }
    }

    fn tick_until_done(&self, progress: &Progress, start: Instant) {
        let Some(bar) = &self.bar else { return };
        let mut done = self.done.lock().unwrap_or_else(|e| e.into_inner());
        while !*done {
            let secs = start.elapsed().as_secs_f64().max(1e-9);
            let running = progress.ids_running.load(Ordering::Relaxed);
            let left = (bar.length().unwrap_or(0)).saturating_sub(bar.position() + running as u64);
            bar.set_message(format!(
                "{running} running, {left} left, {:.0} episodes/s, {:.0} steps/s",
                progress.episodes.load(Ordering::Relaxed) as f64 / secs,
                progress.steps.load(Ordering::Relaxed) as f64 / secs,
            ));
            done = self
                .wake
                .wait_timeout(done, Duration::from_millis(200))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        bar.finish_and_clear();
    }

    fn close(&self) {
        *self.done.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.wake.notify_all();
    }
}

/// The results directory of `agent` when none is given.
pub fn default_results_dir(agent: &str) -> PathBuf {
    PathBuf::from("results").join(agent)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_are_merged_in_sweep_order() {
        let ids = select_ids(&["catch/3".into(), "bandit".into(), "catch/3".into()]).unwrap();
        assert_eq!(ids.len(), 21);
        assert_eq!(ids[0].to_string(), "bandit/0");
        assert_eq!(select_ids(&[]).unwrap().len(), 468);
        let err = select_ids(&["nope".into()]).unwrap_err().to_string();
        assert!(err.contains("'nope' is not a bsuite_id"), "{err}");
    }
}
