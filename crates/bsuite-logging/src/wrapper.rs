//! [`Logging`]: the environment wrapper that counts steps, episodes and returns and writes
//! bsuite's rows to a [`Logger`] (bsuite's `wrappers.Logging`).

use bsuite_envs::{ActionError, ActionSpec, BsuiteInfo, Environment, InfoValue};
use bsuite_envs::{ObservationSpec, StepType, TimeStep};

use crate::logger::{LogError, Logger};
use crate::results::STANDARD_COLUMNS;
use crate::schedule::next_log_point;

/// An [`Environment`] that logs bsuite's counters to a [`Logger`] while passing timesteps
/// through unchanged.
///
/// Counting follows bsuite exactly: only transitions count as steps, an episode is counted
/// at its LAST timestep, a missing reward counts as 0, and the logged row carries the
/// finished episode's length and return. By default a row is written when an episode ends
/// at a point of the [logarithmic schedule](crate::schedule::is_log_point), like the
/// reference, and additionally at the final episode ([`Logging::final_episode`], by default
/// `bsuite_num_episodes`) when that is not a schedule point; the bsuite episode counts (1000,
/// 10000, ...) are all schedule points, so runs of reference length write the reference's
/// rows.
///
/// The environment interface cannot carry logging errors, so the first one is kept: check
/// [`Logging::error`] (the run loop does after every episode) or call [`Logging::finish`],
/// which flushes the logger and returns it. After an error no further rows are written.
///
/// ```
/// use bsuite_envs::{Environment, InfoValue};
/// use bsuite_logging::{LogError, Logger, Logging, Row};
///
/// #[derive(Default)]
/// struct Count(usize);
/// impl Logger for Count {
///     fn write(&mut self, row: &Row) -> Result<(), LogError> {
///         assert_eq!(row[3], ("episode_len", InfoValue::Int(9))); // catch: 9 steps
///         self.0 += 1;
///         Ok(())
///     }
/// }
///
/// let env = bsuite_envs::load("catch/0").unwrap();
/// let mut env = Logging::new(env, Count::default());
/// for _ in 0..25 {
///     let mut ts = env.reset();
///     while !ts.last() {
///         ts = env.step(1).unwrap();
///     }
/// }
/// env.finish().unwrap();
/// assert_eq!(env.logger().0, 15); // episodes 1..=10, 12, 14, 17, 20, 25
/// ```
pub struct Logging<E, L> {
    env: E,
    logger: L,
    log_by_step: bool,
    log_every: bool,
    final_episode: u64,
    /// The latest schedule point the counter (episodes, or steps when logging by step) has
    /// reached, and the next one: the counter only grows by one, so comparisons decide.
    point: u64,
    next_point: u64,
    /// The next episode count that needs attention: `next_point` or `final_episode`.
    next_event: u64,
    steps: u64,
    episode: u64,
    total_return: f64,
    episode_len: u64,
    episode_return: f64,
    error: Option<LogError>,
}

impl<E: Environment, L: Logger> Logging<E, L> {
    /// Wraps `env`, logging by episode at the logarithmic schedule (bsuite's defaults).
    pub fn new(env: E, logger: L) -> Self {
        let final_episode = env.bsuite_num_episodes() as u64;
        Logging {
            env,
            logger,
            log_by_step: false,
            log_every: false,
            final_episode,
            point: u64::MAX,
            next_point: next_log_point(0),
            next_event: next_event(next_log_point(0), final_episode, 0),
            steps: 0,
            episode: 0,
            total_return: 0.0,
            episode_len: 0,
            episode_return: 0.0,
            error: None,
        }
    }

    /// Logs at every episode end (or every timestep when logging by step), as bsuite's
    /// `log_every=True`, which the verbose run loop uses.
    pub fn log_every(mut self, log_every: bool) -> Self {
        self.log_every = log_every;
        self
    }

    /// Applies the schedule to the step count and checks it on every timestep, FIRST ones
    /// included, as bsuite's `log_by_step=True` does.
    pub fn log_by_step(mut self, log_by_step: bool) -> Self {
        self.log_by_step = log_by_step;
        self
    }

    /// Sets the episode after which a row is always written and the logger flushed (default:
    /// the environment's `bsuite_num_episodes`). Runners that run a different number of
    /// episodes set it to that number, so every run's file ends with its last episode.
    pub fn final_episode(mut self, episode: usize) -> Self {
        self.final_episode = episode as u64;
        self.next_event = next_event(self.next_point, self.final_episode, self.episode);
        self
    }

    /// Transitions seen so far (FIRST timesteps are not counted).
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Episodes finished so far.
    pub fn episode(&self) -> u64 {
        self.episode
    }

    /// Sum of all rewards so far.
    pub fn total_return(&self) -> f64 {
        self.total_return
    }

    /// The wrapped environment.
    pub fn inner(&self) -> &E {
        &self.env
    }

    /// The logger.
    pub fn logger(&self) -> &L {
        &self.logger
    }

    /// The first logging error, if any; rows are no longer written after it.
    pub fn error(&self) -> Option<&LogError> {
        self.error.as_ref()
    }

    /// Flushes the logger and returns the first error of the run, if any (taking it, so a
    /// second call only reports new flush errors).
    pub fn finish(&mut self) -> Result<(), LogError> {
        let flushed = self.logger.flush();
        match self.error.take() {
            Some(err) => Err(err),
            None => flushed,
        }
    }

    /// Unwraps the environment and logger (without flushing).
    pub fn into_parts(self) -> (E, L) {
        (self.env, self.logger)
    }

    /// The row bsuite's `_log_bsuite_data` writes now.
    pub fn row(&self) -> BsuiteInfo {
        let info = self.env.bsuite_info();
        let mut row = Vec::with_capacity(STANDARD_COLUMNS.len() + info.len());
        // In STANDARD_COLUMNS' order: steps, episode, total_return, episode_len,
        // episode_return.
        let values = [
            InfoValue::Int(self.steps as i64),
            InfoValue::Int(self.episode as i64),
            InfoValue::Float(self.total_return),
            InfoValue::Int(self.episode_len as i64),
            InfoValue::Float(self.episode_return),
        ];
        row.extend(STANDARD_COLUMNS.into_iter().zip(values));
        row.extend(info);
        row
    }

    /// bsuite's `_track`, in its order: count, decide, log, then reset the episode counters.
    ///
    /// Split by step type so that the common cases cost a few additions: a MID timestep
    /// only counts, a FIRST one (no transition, no reward) changes nothing unless the
    /// schedule runs on steps, and a LAST one compares the episode count with the next
    /// episode that needs attention (a schedule point or the final episode).
    #[inline]
    fn track(&mut self, ts: &TimeStep) {
        if self.log_by_step || self.log_every {
            return self.track_general(ts);
        }
        match ts.step_type {
            StepType::Mid => self.count(ts.reward_or_zero()),
            StepType::Last => {
                self.count(ts.reward_or_zero());
                self.episode += 1;
                if self.episode == self.next_event {
                    self.log_episode_end();
                }
                self.episode_len = 0;
                self.episode_return = 0.0;
            }
            // No transition and no reward (counted as 0.0, which leaves the sums as they
            // are: they start at +0.0 and so are never -0.0).
            StepType::First => {}
        }
    }

    #[inline]
    fn count(&mut self, reward: f64) {
        self.steps += 1;
        self.episode_len += 1;
        self.episode_return += reward;
        self.total_return += reward;
    }

    /// An episode ended at a schedule point or the final episode, logging by episode.
    #[cold]
    #[inline(never)]
    fn log_episode_end(&mut self) {
        if self.episode == self.next_point {
            self.next_point = next_log_point(self.episode);
        }
        self.write_row();
        self.flush_if_final();
        self.next_event = next_event(self.next_point, self.final_episode, self.episode);
    }

    /// `_track` for the rarer modes: logging by step, or at every episode.
    #[cold]
    #[inline(never)]
    fn track_general(&mut self, ts: &TimeStep) {
        let last = ts.last();
        if !ts.first() {
            self.count(ts.reward_or_zero());
        }
        if last {
            self.episode += 1;
        }
        let counter = if self.log_by_step {
            self.steps
        } else {
            self.episode
        };
        if counter == self.next_point {
            self.point = counter;
            self.next_point = next_log_point(counter);
        }
        // By step, a FIRST timestep repeats the step count of the LAST before it, and bsuite
        // logs it again if that count is on the schedule.
        let on_schedule = counter == self.point;
        let scheduled = if self.log_by_step {
            self.log_every || on_schedule
        } else {
            last && (self.log_every || on_schedule)
        };
        if scheduled || (last && self.episode == self.final_episode) {
            self.write_row();
        }
        if last {
            self.episode_len = 0;
            self.episode_return = 0.0;
            self.flush_if_final();
        }
    }

    fn flush_if_final(&mut self) {
        if self.episode == self.final_episode && self.error.is_none() {
            if let Err(err) = self.logger.flush() {
                self.error = Some(err);
            }
        }
    }

    #[cold]
    fn write_row(&mut self) {
        if self.error.is_some() {
            return;
        }
        let row = self.row();
        if let Err(err) = self.logger.write(&row) {
            self.error = Some(err);
        }
    }
}

/// The first of the next schedule point and the final episode still ahead of `episode`.
fn next_event(next_point: u64, final_episode: u64, episode: u64) -> u64 {
    if final_episode > episode {
        next_point.min(final_episode)
    } else {
        next_point
    }
}

impl<E: Environment, L: Logger> Environment for Logging<E, L> {
    fn name(&self) -> &'static str {
        self.env.name()
    }
    fn observation_spec(&self) -> ObservationSpec {
        self.env.observation_spec()
    }
    fn action_spec(&self) -> ActionSpec {
        self.env.action_spec()
    }
    #[inline]
    fn reset_into(&mut self, out: &mut TimeStep) {
        self.env.reset_into(out);
        self.track(out);
    }
    #[inline]
    fn step_into(&mut self, action: usize, out: &mut TimeStep) -> Result<(), ActionError> {
        self.env.step_into(action, out)?;
        self.track(out);
        Ok(())
    }
    fn bsuite_info(&self) -> BsuiteInfo {
        self.env.bsuite_info()
    }
    fn bsuite_num_episodes(&self) -> usize {
        self.env.bsuite_num_episodes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logger::Row;

    #[derive(Default)]
    struct Rows(Vec<Vec<(&'static str, InfoValue)>>, usize);
    impl Logger for Rows {
        fn write(&mut self, row: &Row) -> Result<(), LogError> {
            self.0.push(row.to_vec());
            Ok(())
        }
        fn flush(&mut self) -> Result<(), LogError> {
            self.1 += 1;
            Ok(())
        }
    }

    fn run_episodes<E: Environment>(env: &mut E, n: usize) {
        for _ in 0..n {
            let mut ts = env.reset();
            while !ts.last() {
                ts = env.step(0).unwrap();
            }
        }
    }

    fn int(row: &[(&'static str, InfoValue)], key: &str) -> i64 {
        match row.iter().find(|(k, _)| *k == key).unwrap().1 {
            InfoValue::Int(v) => v,
            InfoValue::Float(v) => panic!("{key} is a float: {v}"),
        }
    }

    #[test]
    fn counts_like_bsuite_and_logs_the_schedule() {
        let env = bsuite_envs::load("deep_sea/0").unwrap();
        let mut env = Logging::new(env, Rows::default());
        run_episodes(&mut env, 30);
        let rows = &env.logger().0;
        let episodes: Vec<i64> = rows.iter().map(|r| int(r, "episode")).collect();
        assert_eq!(
            episodes,
            [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 17, 20, 25, 30]
        );
        let keys: Vec<&str> = rows[0].iter().map(|(k, _)| *k).collect();
        assert_eq!(
            keys,
            [
                "steps",
                "episode",
                "total_return",
                "episode_len",
                "episode_return",
                "total_bad_episodes",
                "denoised_return"
            ]
        );
        // deep_sea/0 has depth 10: every episode is 10 transitions.
        for row in rows {
            assert_eq!(int(row, "steps"), 10 * int(row, "episode"));
            assert_eq!(int(row, "episode_len"), 10);
        }
        assert_eq!(env.steps(), 300);
        assert_eq!(env.logger().1, 0, "no flush before the final episode");
    }

    #[test]
    fn final_episode_is_always_logged_and_flushed() {
        let env = bsuite_envs::load("catch/0").unwrap();
        let mut env = Logging::new(env, Rows::default()).final_episode(13);
        run_episodes(&mut env, 13);
        let last = env.logger().0.last().unwrap();
        assert_eq!(int(last, "episode"), 13);
        assert_eq!(env.logger().0.len(), 12); // 1..=10, 12, 13
        assert_eq!(env.logger().1, 1);
    }

    #[test]
    fn log_every_and_log_by_step() {
        let env = bsuite_envs::load("catch/0").unwrap();
        let mut env = Logging::new(env, Rows::default()).log_every(true);
        run_episodes(&mut env, 3);
        assert_eq!(env.logger().0.len(), 3);

        // By step, the schedule is checked on FIRST timesteps too, so step 9 (the end of
        // the first catch episode) is logged again by the next reset, as in bsuite.
        let env = bsuite_envs::load("catch/0").unwrap();
        let mut env = Logging::new(env, Rows::default())
            .log_by_step(true)
            .final_episode(0);
        run_episodes(&mut env, 2);
        let steps: Vec<i64> = env.logger().0.iter().map(|r| int(r, "steps")).collect();
        assert_eq!(steps, [1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 10, 12, 14, 17]);
    }

    struct Failing;
    impl Logger for Failing {
        fn write(&mut self, _: &Row) -> Result<(), LogError> {
            Err(LogError::Stream(std::io::Error::other("disk on fire")))
        }
    }

    #[test]
    fn first_error_is_kept_and_returned_by_finish() {
        let env = bsuite_envs::load("bandit/0").unwrap();
        let mut env = Logging::new(env, Failing);
        run_episodes(&mut env, 5);
        assert!(env.error().is_some());
        let err = env.finish().unwrap_err().to_string();
        assert!(err.contains("disk on fire"), "{err}");
        assert!(env.finish().is_ok());
    }
}
