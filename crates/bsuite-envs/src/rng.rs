//! A bit-exact port of the parts of numpy's legacy `RandomState` that bsuite uses.
//!
//! bsuite's environments draw all their randomness from `numpy.random.RandomState`
//! (MT19937 with numpy's legacy sampling algorithms). Reproducing bsuite's timesteps bit
//! for bit therefore needs the same generator *and* the same way of turning raw 32-bit
//! words into integers, doubles and Gaussians. Every method here documents which numpy
//! call it mirrors and how many words it consumes.
//!
//! ```
//! use bsuite_envs::RandomState;
//!
//! let mut rng = RandomState::new(0);
//! // numpy: np.random.RandomState(0).randint(5) == 4
//! assert_eq!(rng.randint(5), 4);
//! ```

const N: usize = 624;
const M: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UPPER_MASK: u32 = 0x8000_0000;
const LOWER_MASK: u32 = 0x7fff_ffff;

/// numpy's legacy `RandomState`: MT19937 plus numpy's legacy samplers.
#[derive(Clone)]
pub struct RandomState {
    state: Box<[u32; N]>,
    pos: usize,
    cached_gaussian: Option<f64>,
}

impl std::fmt::Debug for RandomState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RandomState")
            .field("pos", &self.pos)
            .field("cached_gaussian", &self.cached_gaussian)
            .finish_non_exhaustive()
    }
}

impl RandomState {
    /// `numpy.random.RandomState(seed)` for an integer seed (numpy's `init_genrand` path).
    pub fn new(seed: u32) -> Self {
        let mut state = Box::new([0u32; N]);
        state[0] = seed;
        for i in 1..N {
            let prev = state[i - 1];
            state[i] = 1_812_433_253u32
                .wrapping_mul(prev ^ (prev >> 30))
                .wrapping_add(i as u32);
        }
        RandomState {
            state,
            pos: N,
            cached_gaussian: None,
        }
    }

    fn twist(&mut self) {
        let mt = &mut self.state;
        for i in 0..N {
            let y = (mt[i] & UPPER_MASK) | (mt[(i + 1) % N] & LOWER_MASK);
            let mut next = mt[(i + M) % N] ^ (y >> 1);
            if y & 1 != 0 {
                next ^= MATRIX_A;
            }
            mt[i] = next;
        }
        self.pos = 0;
    }

    /// One tempered 32-bit MT19937 output word.
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        if self.pos >= N {
            self.twist();
        }
        let mut y = self.state[self.pos];
        self.pos += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^= y >> 18;
        y
    }

    /// `rand()` / `random_sample()`: a double in `[0, 1)` built from two words (53 bits).
    #[inline]
    pub fn rand(&mut self) -> f64 {
        let a = (self.next_u32() >> 5) as f64;
        let b = (self.next_u32() >> 6) as f64;
        (a * 67_108_864.0 + b) / 9_007_199_254_740_992.0
    }

    /// `uniform(low, high)`: `low + (high - low) * rand()`, with the difference taken first.
    #[inline]
    pub fn uniform(&mut self, low: f64, high: f64) -> f64 {
        let range = high - low;
        low + range * self.rand()
    }

    /// An integer in `0..=max` by numpy's masked rejection sampling.
    ///
    /// Consumes nothing when `max == 0`, exactly like numpy.
    #[inline]
    fn bounded(&mut self, max: u32) -> u32 {
        if max == 0 {
            return 0;
        }
        let mut mask = max;
        mask |= mask >> 1;
        mask |= mask >> 2;
        mask |= mask >> 4;
        mask |= mask >> 8;
        mask |= mask >> 16;
        loop {
            let value = self.next_u32() & mask;
            if value <= max {
                return value;
            }
        }
    }

    /// `randint(n)`: an integer in `0..n`. `randint(1)` consumes no randomness.
    ///
    /// # Panics
    /// If `n == 0` (numpy raises `ValueError: high <= 0`) or `n > 2^32`.
    #[inline]
    pub fn randint(&mut self, n: usize) -> usize {
        assert!(n > 0, "randint: high must be positive");
        assert!(
            n as u64 <= 1 << 32,
            "randint: range above 2^32 is not supported"
        );
        self.bounded((n - 1) as u32) as usize
    }

    /// `permutation(n)` (also `choice(range(n), size=n, replace=False)`): a Fisher-Yates
    /// shuffle from the back, as numpy's legacy `shuffle` does.
    pub fn permutation(&mut self, n: usize) -> Vec<usize> {
        let mut values: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            let j = self.bounded(i as u32) as usize;
            values.swap(i, j);
        }
        values
    }

    /// `binomial(1, p)`: one Bernoulli draw, consuming exactly one `rand()` (numpy's
    /// inversion algorithm specialised to `n = 1`).
    #[inline]
    pub fn bernoulli(&mut self, p: f64) -> u8 {
        let u = self.rand();
        if p <= 0.5 {
            u8::from(u > 1.0 - p)
        } else {
            // numpy computes `n - binomial(n, 1 - p)` for p > 0.5.
            u8::from(u <= p)
        }
    }

    /// `randn()`: numpy's legacy polar-method Gaussian, which caches its second value.
    pub fn randn(&mut self) -> f64 {
        if let Some(cached) = self.cached_gaussian.take() {
            return cached;
        }
        loop {
            let x1 = 2.0 * self.rand() - 1.0;
            let x2 = 2.0 * self.rand() - 1.0;
            let r2 = x1 * x1 + x2 * x2;
            if r2 < 1.0 && r2 != 0.0 {
                let f = (-2.0 * r2.ln() / r2).sqrt();
                self.cached_gaussian = Some(f * x1);
                return f * x2;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_words_match_numpy() {
        // np.random.RandomState(0).randint(2**32, dtype=np.uint64)... equivalently the raw
        // MT19937 stream for init_genrand(0): 2357136044, 2546248239, 3071714933.
        let mut rng = RandomState::new(0);
        assert_eq!(rng.next_u32(), 2_357_136_044);
        assert_eq!(rng.next_u32(), 2_546_248_239);
        assert_eq!(rng.next_u32(), 3_071_714_933);
    }

    #[test]
    fn rand_matches_numpy() {
        // np.random.RandomState(0).rand(3)
        let mut rng = RandomState::new(0);
        assert_eq!(rng.rand(), 0.5488135039273248);
        assert_eq!(rng.rand(), 0.7151893663724195);
        assert_eq!(rng.rand(), 0.6027633760716439);
    }

    #[test]
    fn permutation_matches_numpy() {
        // SPEC 13.1: RS(0).permutation(11)
        let mut rng = RandomState::new(0);
        assert_eq!(rng.permutation(11), vec![4, 9, 2, 10, 6, 1, 7, 8, 3, 0, 5]);
    }

    #[test]
    fn randint_one_consumes_nothing() {
        let mut a = RandomState::new(7);
        let mut b = RandomState::new(7);
        assert_eq!(a.randint(1), 0);
        assert_eq!(a.rand(), b.rand());
    }

    #[test]
    fn randint_matches_numpy_catch_resets() {
        // SPEC 13.1: Catch(seed=0) ball_x at the first 12 resets = randint(5) x 12.
        let mut rng = RandomState::new(0);
        let draws: Vec<usize> = (0..12).map(|_| rng.randint(5)).collect();
        assert_eq!(draws, vec![4, 0, 3, 3, 3, 1, 3, 2, 4, 0, 0, 4]);
    }

    #[test]
    fn randn_matches_numpy() {
        // SPEC 13.2: the first 9 legacy randn values of RS(0).
        let expected = [
            1.764052345967664,
            0.4001572083672233,
            0.9787379841057392,
            2.240893199201458,
            1.8675579901499675,
            -0.977277879876411,
            0.9500884175255894,
            -0.1513572082976979,
            -0.10321885179355784,
        ];
        let mut rng = RandomState::new(0);
        for e in expected {
            assert_eq!(rng.randn(), e);
        }
    }

    #[test]
    fn uniform_matches_numpy() {
        // SPEC 13.2: MountainCar(seed=0) reset position = RS(0).uniform(-0.6, -0.4).
        let mut rng = RandomState::new(0);
        assert_eq!(rng.uniform(-0.6, -0.4), -0.49023729921453507);
    }

    #[test]
    fn bernoulli_half_is_one_draw_above_half() {
        let mut a = RandomState::new(3);
        let mut b = RandomState::new(3);
        for _ in 0..100 {
            let u = b.rand();
            assert_eq!(a.bernoulli(0.5), u8::from(u > 0.5));
        }
    }

    #[test]
    fn mixed_calls_match_numpy() {
        // r = np.random.RandomState(12345); r.randint(60000, size=5); r.binomial(1, 0.3, size=5);
        // r.binomial(1, 0.7, size=5); r.randn(3)
        let mut rng = RandomState::new(12345);
        let ints: Vec<usize> = (0..5).map(|_| rng.randint(60000)).collect();
        assert_eq!(ints, vec![20962, 11749, 2177, 19876, 44457]);
        let low: Vec<u8> = (0..5).map(|_| rng.bernoulli(0.3)).collect();
        assert_eq!(low, vec![0, 0, 0, 1, 0]);
        let high: Vec<u8> = (0..5).map(|_| rng.bernoulli(0.7)).collect();
        assert_eq!(high, vec![0, 1, 0, 0, 1]);
        assert_eq!(rng.randn(), -0.3196572654398582);
        assert_eq!(rng.randn(), -0.6249639111531236);
        assert_eq!(rng.randn(), 1.0788142452204983);
    }

    #[test]
    fn largest_seed_matches_numpy() {
        // r = np.random.RandomState(2**32 - 1); r.permutation(20); r.uniform(-0.05, 0.05)
        let mut rng = RandomState::new(u32::MAX);
        assert_eq!(
            rng.permutation(20),
            vec![11, 17, 19, 15, 1, 5, 8, 16, 13, 18, 14, 9, 10, 6, 0, 4, 7, 12, 2, 3]
        );
        assert_eq!(rng.uniform(-0.05, 0.05), 0.04335337533300325);
    }
}
