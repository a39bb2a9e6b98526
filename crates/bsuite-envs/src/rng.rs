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
    /// The tempered outputs of the current block, produced in bulk at each twist: the
    /// environments draw dozens of words per step, and bulk tempering vectorises.
    output: Box<[u32; N]>,
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
            output: Box::new([0u32; N]),
            pos: N,
            cached_gaussian: None,
        }
    }

    /// Regenerates the state block and tempers all of its words, with AVX2 where the CPU
    /// has it (the same integer operations, eight words at a time instead of four).
    #[cold]
    fn twist(&mut self) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2, checked just above.
            unsafe { twist_avx2(&mut self.state, &mut self.output) };
            self.pos = 0;
            return;
        }
        twist_block(&mut self.state, &mut self.output);
        self.pos = 0;
    }

    /// One tempered 32-bit MT19937 output word.
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        if self.pos >= N {
            self.twist();
        }
        let y = self.output[self.pos];
        self.pos += 1;
        y
    }

    /// `rand()` / `random_sample()`: a double in `[0, 1)` built from two words (53 bits).
    #[inline]
    pub fn rand(&mut self) -> f64 {
        let a = (self.next_u32() >> 5) as f64;
        let b = (self.next_u32() >> 6) as f64;
        // numpy divides by 2^53; multiplying by 2^-53 is exactly the same operation.
        (a * 67_108_864.0 + b) * (1.0 / 9_007_199_254_740_992.0)
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

    /// `binomial(1, 0.5)`: the same draw as [`RandomState::bernoulli`] with `p = 0.5`
    /// (`rand() > 0.5`), decided on the integers without forming the double.
    #[inline]
    pub fn bernoulli_half(&mut self) -> u8 {
        // rand() = (a * 2^26 + b) / 2^53 > 1/2  <=>  a > 2^26, or a == 2^26 and b > 0.
        let a = self.next_u32() >> 5;
        let b = self.next_u32() >> 6;
        u8::from(a > 1 << 26 || (a == 1 << 26 && b > 0))
    }

    /// `binomial(1, 0.5, size=len)` written as `0.0`/`1.0` into `out`: the same draws as
    /// calling [`RandomState::bernoulli_half`] once per element, taken straight from the
    /// current block of words.
    pub fn fill_bernoulli_half(&mut self, out: &mut [f32]) {
        let mut rest = out;
        while !rest.is_empty() {
            if self.pos + 1 >= N {
                // The pair straddles a block boundary (or the block is used up).
                rest[0] = f32::from(self.bernoulli_half());
                rest = &mut rest[1..];
                continue;
            }
            let pairs = rest.len().min((N - self.pos) / 2);
            let words = &self.output[self.pos..self.pos + 2 * pairs];
            let (now, later) = rest.split_at_mut(pairs);
            for (slot, pair) in now.iter_mut().zip(words.chunks_exact(2)) {
                let (a, b) = (pair[0] >> 5, pair[1] >> 6);
                // Non-short-circuit `|` and `&` keep the loop branch-free (it vectorises).
                *slot = f32::from(u8::from((a > 1 << 26) | ((a == 1 << 26) & (b > 0))));
            }
            self.pos += 2 * pairs;
            rest = later;
        }
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

/// One MT19937 block: the next state from `state` (written out of place, then swapped in)
/// and its tempered words in `output`.
///
/// Out of place, each of the three ranges of the recurrence is a plain zip over slices,
/// which the compiler vectorises.
#[inline(always)]
fn twist_block(state: &mut Box<[u32; N]>, output: &mut Box<[u32; N]>) {
    #[inline(always)]
    fn mix(upper: u32, lower: u32, far: u32) -> u32 {
        let y = (upper & UPPER_MASK) | (lower & LOWER_MASK);
        far ^ (y >> 1) ^ (0u32.wrapping_sub(y & 1) & MATRIX_A)
    }
    let old = &**state;
    let new = &mut **output;
    // new[i] for i < N - M reads only the old block.
    let ranges = old[..N - M].iter().zip(&old[1..=N - M]).zip(&old[M..]);
    for (slot, ((&upper, &lower), &far)) in new[..N - M].iter_mut().zip(ranges) {
        *slot = mix(upper, lower, far);
    }
    // new[i] for N - M <= i < N - 1 reads new[i - (N - M)], computed earlier: go in
    // chunks of N - M so each chunk only reads finished ones.
    let mut start = N - M;
    while start < N - 1 {
        let end = (start + (N - M)).min(N - 1);
        let (done, rest) = new.split_at_mut(start);
        let source = &done[start - (N - M)..];
        let ranges = old[start..end]
            .iter()
            .zip(&old[start + 1..=end])
            .zip(source);
        for (slot, ((&upper, &lower), &far)) in rest[..end - start].iter_mut().zip(ranges) {
            *slot = mix(upper, lower, far);
        }
        start = end;
    }
    new[N - 1] = mix(old[N - 1], new[0], new[M - 1]);
    std::mem::swap(state, output);
    for (out, &word) in output.iter_mut().zip(state.iter()) {
        let mut y = word;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^= y >> 18;
        *out = y;
    }
}

/// [`twist_block`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn twist_avx2(state: &mut Box<[u32; N]>, output: &mut Box<[u32; N]>) {
    twist_block(state, output)
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
        // Reference value: RS(0).permutation(11)
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
        // Reference value: Catch(seed=0) ball_x at the first 12 resets = randint(5) x 12.
        let mut rng = RandomState::new(0);
        let draws: Vec<usize> = (0..12).map(|_| rng.randint(5)).collect();
        assert_eq!(draws, vec![4, 0, 3, 3, 3, 1, 3, 2, 4, 0, 0, 4]);
    }

    #[test]
    fn randn_matches_numpy() {
        // Reference value: the first 9 legacy randn values of RS(0).
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
        // Reference value: MountainCar(seed=0) reset position = RS(0).uniform(-0.6, -0.4).
        let mut rng = RandomState::new(0);
        assert_eq!(rng.uniform(-0.6, -0.4), -0.49023729921453507);
    }

    #[test]
    fn bernoulli_half_is_one_draw_above_half() {
        let mut a = RandomState::new(3);
        let mut b = RandomState::new(3);
        let mut c = RandomState::new(3);
        for _ in 0..5000 {
            let u = b.rand();
            assert_eq!(a.bernoulli(0.5), u8::from(u > 0.5));
            assert_eq!(c.bernoulli_half(), u8::from(u > 0.5));
        }
    }

    #[test]
    fn bulk_bernoulli_matches_one_by_one_across_blocks() {
        let mut bulk = RandomState::new(11);
        let mut single = RandomState::new(11);
        let mut buf = vec![0.0f32; 0];
        for len in (0..400).chain([1, 623, 624, 625, 5000]) {
            buf.resize(len, 9.0);
            bulk.fill_bernoulli_half(&mut buf);
            let expected: Vec<f32> = (0..len)
                .map(|_| f32::from(single.bernoulli_half()))
                .collect();
            assert_eq!(buf, expected, "len {len}");
            // Interleave an odd draw so pairs straddle block boundaries at every offset.
            assert_eq!(bulk.next_u32(), single.next_u32());
        }
    }

    /// The test machine may take the AVX2 path everywhere else; check the portable one.
    #[test]
    fn portable_and_avx2_twists_agree() {
        let rng = RandomState::new(17);
        let (mut state, mut output) = (rng.state.clone(), rng.output.clone());
        for _ in 0..3 {
            twist_block(&mut state, &mut output);
        }
        let mut reference = RandomState::new(17);
        let words: Vec<u32> = (0..3 * N).map(|_| reference.next_u32()).collect();
        assert_eq!(&output[..], &words[2 * N..]);
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            let (mut state, mut fast) = (rng.state.clone(), rng.output.clone());
            for _ in 0..3 {
                // SAFETY: AVX2 is available, checked just above.
                unsafe { twist_avx2(&mut state, &mut fast) };
            }
            assert_eq!(fast, output);
        }
    }

    #[test]
    fn many_blocks_match_numpy() {
        // r = np.random.RandomState(5); r.randint(2**32, size=3000, dtype=np.uint64)[-3:]
        let mut rng = RandomState::new(5);
        let words: Vec<u32> = (0..3000).map(|_| rng.next_u32()).collect();
        assert_eq!(&words[2997..], &[637_499_339, 3_869_371_260, 824_242_727]);
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
