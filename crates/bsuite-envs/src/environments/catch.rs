//! Catch: a ball falls from a random column of the top row; move the paddle on the bottom
//! row under it. Reward +1 for a catch and -1 for a miss, on the last of `rows - 1` steps.

use crate::environment::{ActionSpec, BsuiteInfo, Dynamics, InfoValue, ObservationSpec, TimeStep};
use crate::rng::RandomState;

/// Paddle movement for actions 0, 1, 2.
const PADDLE_MOVES: [i64; 3] = [-1, 0, 1];

/// The catch game (`bsuite.environments.catch.Catch`).
#[derive(Debug, Clone)]
pub struct Catch {
    rows: usize,
    columns: usize,
    rng: RandomState,
    ball_x: usize,
    ball_y: usize,
    paddle_x: usize,
    paddle_y: usize,
    total_regret: f64,
}

impl Catch {
    /// A `rows` x `columns` board (bsuite uses 10 x 5) whose ball columns come from `seed`.
    pub fn new(rows: usize, columns: usize, seed: u32) -> Self {
        assert!(
            rows >= 2 && columns >= 1,
            "catch needs at least 2 rows and 1 column"
        );
        Catch {
            rows,
            columns,
            rng: RandomState::new(seed),
            ball_x: 0,
            ball_y: 0,
            paddle_x: 0,
            paddle_y: 0,
            total_regret: 0.0,
        }
    }

    fn write_observation(&self, out: &mut TimeStep) {
        let board = out.zeroed_observation(self.rows * self.columns);
        board[self.ball_y * self.columns + self.ball_x] = 1.0;
        board[self.paddle_y * self.columns + self.paddle_x] = 1.0;
    }
}

impl Dynamics for Catch {
    const NAME: &'static str = "catch";

    fn observation_spec(&self) -> ObservationSpec {
        ObservationSpec::float32(vec![self.rows, self.columns], "observation")
    }

    fn action_spec(&self) -> ActionSpec {
        ActionSpec::new(3, "int64")
    }

    fn reset(&mut self, out: &mut TimeStep) {
        self.ball_x = self.rng.randint(self.columns);
        self.ball_y = 0;
        self.paddle_x = self.columns / 2;
        self.paddle_y = self.rows - 1;
        out.set_restart();
        self.write_observation(out);
    }

    fn step(&mut self, action: usize, out: &mut TimeStep) {
        let moved = self.paddle_x as i64 + PADDLE_MOVES[action];
        self.paddle_x = moved.clamp(0, self.columns as i64 - 1) as usize;
        self.ball_y += 1;
        if self.ball_y == self.paddle_y {
            let reward = if self.paddle_x == self.ball_x {
                1.0
            } else {
                -1.0
            };
            self.total_regret += 1.0 - reward;
            out.set_termination(reward);
        } else {
            out.set_transition(0.0);
        }
        self.write_observation(out);
    }

    fn bsuite_info(&self) -> BsuiteInfo {
        vec![("total_regret", InfoValue::Float(self.total_regret))]
    }
}
