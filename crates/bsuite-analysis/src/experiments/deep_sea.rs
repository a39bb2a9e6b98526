//! `deep_sea`: scoring and plots.

use bsuite_logging::results::RunTable;

use crate::figures::{
    by_setting, deep_sea_regret, deep_sea_scaling, rate, seeds, ExperimentData, GroupKey, SeedsSpec,
};
use crate::helpers::{column, group_by_setting};
use crate::numeric;
use crate::plot::Figure;
use crate::score::{Score, Undefined};

/// Episodes per run.
pub const NUM_EPISODES: u64 = bsuite_envs::experiments::deep_sea::NUM_EPISODES as u64;

/// A size counts as solved once the running fraction of "bad" episodes (episodes that did
/// not end at the treasure) drops below this.
pub const THRESHOLD: f64 = 0.9;

/// Episodes of slack on top of 2^size when comparing with dithering exploration.
pub const FORGIVENESS: f64 = 100.0;

/// When one problem size was solved, if it was (the reference's `find_solution` row).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Solution {
    /// The grid size N.
    pub size: f64,
    /// The first episode whose running fraction of bad episodes is below the threshold, or,
    /// if there is none, the furthest episode logged.
    pub episode: f64,
    /// The threshold was reached.
    pub solved: bool,
    /// The size was solved, or its runs reached `num_episodes`.
    pub finished: bool,
    /// Logged rows at (size, episode): the weight of this size in the score, as the
    /// reference's merge back onto the rows gives it (1 for a well-formed run).
    pub rows: usize,
}

impl Solution {
    /// Solved faster than dithering exploration would: before episode `2^size + 100`.
    pub fn beats_dithering(&self) -> bool {
        self.solved && self.episode < 2f64.powf(self.size) + FORGIVENESS
    }
}

/// The reference's `find_solution`: per size, the first episode (up to `num_episodes`) at
/// which the running fraction of bad episodes `total_bad_episodes / episode` falls below
/// `threshold`. Rows before `first_episode` are ignored (deep_sea_stochastic uses 100).
///
/// The reference builds its table with `Series.append`, which pandas 2 removed (SPEC quirk
/// 20); this is the intended concatenation of solved and unsolved sizes, sorted by size.
pub fn find_solution(
    runs: &[&RunTable],
    threshold: f64,
    first_episode: f64,
    num_episodes: u64,
) -> Vec<Solution> {
    let last = num_episodes as f64;
    let mut out = Vec::new();
    for (size, group) in group_by_setting(runs, "size") {
        let mut first_good: Option<f64> = None;
        let mut furthest: Option<f64> = None;
        for run in &group {
            let bad = column(run, "total_bad_episodes");
            for (row, &episode) in run.episodes().iter().enumerate() {
                if episode < first_episode || episode > last {
                    continue;
                }
                furthest = Some(furthest.map_or(episode, |f: f64| f.max(episode)));
                if bad[row] / episode < threshold {
                    first_good = Some(first_good.map_or(episode, |f: f64| f.min(episode)));
                }
            }
        }
        let Some(furthest) = furthest else {
            continue;
        };
        let solved = first_good.is_some();
        let episode = first_good.unwrap_or(furthest);
        let rows = group
            .iter()
            .flat_map(|r| r.episodes())
            .filter(|&&e| e == episode)
            .count();
        out.push(Solution {
            size,
            episode,
            solved,
            finished: solved || furthest >= last,
            rows,
        });
    }
    out
}

/// The fraction of sizes solved faster than dithering exploration could, weighted as the
/// reference weights them; NaN when no size has rows.
pub(crate) fn score_solutions(solutions: &[Solution]) -> f64 {
    let flags: Vec<f64> = solutions
        .iter()
        .flat_map(|s| std::iter::repeat(if s.beats_dithering() { 1.0 } else { 0.0 }).take(s.rows))
        .collect();
    numeric::mean(&flags)
}

/// The fraction of problem sizes solved faster than dithering exploration could.
///
/// Deep sea is an N×N grid where only a sequence of N costly "right" moves reaches the
/// treasure, so an agent that explores by dithering (e.g. ε-greedy) needs about 2^N episodes
/// to find it. A size counts as solved at the first logged episode where fewer than 90% of
/// the episodes so far were "bad" (missed the treasure); it scores 1 if that happened
/// within the first 10,000 episodes and before episode 2^N + 100, else 0. The score is the
/// mean over the sizes present (10, 12, ..., 50). Runs of other experiments are ignored.
pub fn score(runs: &[&RunTable]) -> Score {
    score_runs(&super::only(runs, "deep_sea"))
}

pub(crate) fn score_runs(runs: &[&RunTable]) -> Score {
    let solutions = find_solution(runs, THRESHOLD, f64::NEG_INFINITY, NUM_EPISODES);
    Score::from_f64(score_solutions(&solutions), Undefined::NoRowsToScore)
}

/// deep_sea's plots given its `find_solution`, threshold and seeds reference line (shared
/// with deep_sea_stochastic).
pub(crate) fn figures_with(
    data: &ExperimentData,
    solutions: &dyn Fn(&[&RunTable]) -> Vec<Solution>,
    threshold: f64,
    seeds_yintercept: f64,
    seeds_label: &str,
) -> Vec<Figure> {
    let key = by_setting("size");
    let seeds = seeds(
        data,
        &SeedsSpec {
            value: &|run, row, prev| rate(run, "denoised_return", row, prev),
            min_episode: 0.01 * NUM_EPISODES as f64,
            colour_by: Some(GroupKey::setting("size", &key, data)),
            yintercept: Some(seeds_yintercept),
            y_label: seeds_label,
        },
    );
    vec![
        deep_sea_scaling(data, solutions, false, threshold),
        deep_sea_scaling(data, solutions, true, threshold),
        deep_sea_regret(data),
        seeds,
    ]
}

/// The notebook's plots of deep_sea: episodes to solve against size (linear and log-log,
/// with the 2^N baseline), the fraction of bad episodes through time, and per-run returns.
pub fn figures(data: &ExperimentData) -> Vec<Figure> {
    let solutions =
        |runs: &[&RunTable]| find_solution(runs, THRESHOLD, f64::NEG_INFINITY, NUM_EPISODES);
    figures_with(data, &solutions, THRESHOLD, 0.99, "average episodic return")
}
