//! What the feed-forward and recurrent actor-critic agents share: the host engine that runs
//! both (`host.rs`), the trajectory buffer and TD(λ) returns (`sequence.rs`), and softmax
//! sampling.

use bsuite_envs::RandomState;

pub(crate) mod host;
pub(crate) mod sequence;

/// Samples an action from `softmax(logits)` with one uniform draw.
pub(crate) fn sample_softmax(logits: &[f32], rng: &mut RandomState) -> usize {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let weights: Vec<f64> = logits.iter().map(|&l| f64::from(l - max).exp()).collect();
    let total: f64 = weights.iter().sum();
    let mut u = rng.rand() * total;
    for (a, w) in weights.iter().enumerate() {
        if u < *w {
            return a;
        }
        u -= w;
    }
    logits.len() - 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn softmax_sampling_follows_the_probabilities() {
        let mut rng = RandomState::new(1);
        let logits = [0.0f32, (3.0f32).ln(), f32::NEG_INFINITY];
        let n = 4000;
        let ones = (0..n)
            .filter(|_| sample_softmax(&logits, &mut rng) == 1)
            .count();
        // P(1) = 3/4; 4000 draws put the count within ±4 sd of 3000 (sd ≈ 27).
        assert!((2890..3110).contains(&ones), "{ones}");
    }
}
