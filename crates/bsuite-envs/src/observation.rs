//! [`Observation`]: a timestep's observation values, shared rather than copied when they
//! already exist elsewhere.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// The row-major `float32` values of one observation.
///
/// It dereferences to `&[f32]`, so it reads like a slice (`obs[3]`, `obs.iter()`,
/// `&obs[..]`). Most environments write their observation in place into the caller's
/// buffer, so a loop that keeps two timesteps and swaps them allocates nothing per step.
/// Environments whose observations already exist (MNIST's images, deep_sea's recycled
/// one-hot grids) hand them out shared, without copying; cloning such an observation only
/// bumps a reference count.
///
/// ```
/// use bsuite_envs::Observation;
///
/// let obs = Observation::from(vec![0.0, 1.0]);
/// assert_eq!(obs.len(), 2);
/// assert_eq!(obs[1], 1.0);
/// assert_eq!(obs, [0.0, 1.0]);
/// let copy: Vec<f32> = obs.to_vec();
/// assert_eq!(copy, vec![0.0, 1.0]);
/// ```
#[derive(Clone)]
pub struct Observation(Values);

/// Owned values are written in place with no atomic operation (the hot path of the cheapest
/// environments costs a few nanoseconds, so a reference-count check would dominate it).
#[derive(Clone)]
enum Values {
    Owned(Vec<f32>),
    Shared(Arc<[f32]>),
}

impl Default for Observation {
    fn default() -> Self {
        Observation(Values::Owned(Vec::new()))
    }
}

impl Observation {
    /// An observation sharing `values`.
    pub fn shared(values: Arc<[f32]>) -> Self {
        Observation(Values::Shared(values))
    }

    /// Resizes to `len` zeros and returns the values for writing, reusing this buffer's own
    /// allocation when it has one.
    #[inline(always)]
    pub(crate) fn zeroed(&mut self, len: usize) -> &mut [f32] {
        if !matches!(self.0, Values::Owned(_)) {
            self.0 = Values::Owned(Vec::with_capacity(len));
        }
        let Values::Owned(values) = &mut self.0 else {
            unreachable!("made owned above")
        };
        if values.len() == len {
            values.fill(0.0);
        } else {
            values.clear();
            values.resize(len, 0.0);
        }
        values
    }

    /// Makes this observation share `values` (no copy).
    #[inline]
    pub(crate) fn share(&mut self, values: &Arc<[f32]>) {
        self.0 = Values::Shared(Arc::clone(values));
    }
}

/// Recycled one-hot observations (deep_sea's grid): each buffer remembers its hot cell, so a
/// new observation costs two writes instead of zeroing the whole grid.
///
/// A buffer is reused only when no timestep holds it any more (its count is 1); the few
/// held by the caller's timesteps stay untouched. If the caller keeps every observation, a
/// fresh buffer is made each time and the pool stays at `MAX_POOLED`.
#[derive(Debug)]
pub(crate) struct OneHotPool {
    len: usize,
    buffers: Vec<(Arc<[f32]>, Option<usize>)>,
}

/// A clone starts with an empty pool: buffers are never shared between environments.
impl Clone for OneHotPool {
    fn clone(&self) -> Self {
        OneHotPool::new(self.len)
    }
}

impl OneHotPool {
    /// Enough for a run loop's two timesteps plus the one being written.
    const MAX_POOLED: usize = 4;

    pub(crate) fn new(len: usize) -> Self {
        OneHotPool {
            len,
            buffers: Vec::with_capacity(Self::MAX_POOLED),
        }
    }

    /// Writes the observation with a 1.0 at `hot` (all zeros for `None`) into `out`.
    pub(crate) fn write(&mut self, hot: Option<usize>, out: &mut Observation) {
        let free = self
            .buffers
            .iter()
            .position(|(b, _)| Arc::strong_count(b) == 1);
        let k = match free {
            Some(k) => k,
            None => {
                let fresh = (Arc::from(vec![0.0f32; self.len]), None);
                if self.buffers.len() < Self::MAX_POOLED {
                    self.buffers.push(fresh);
                    self.buffers.len() - 1
                } else {
                    self.buffers[0] = fresh;
                    0
                }
            }
        };
        let (buffer, current) = &mut self.buffers[k];
        // No Weak pointer to a pooled buffer is ever made, so a count of 1 means unique.
        let values = Arc::get_mut(buffer).expect("a pooled buffer with count 1 is unique");
        if let Some(i) = current.take() {
            values[i] = 0.0;
        }
        if let Some(i) = hot {
            values[i] = 1.0;
        }
        *current = hot;
        out.share(buffer);
    }
}

impl Deref for Observation {
    type Target = [f32];
    #[inline]
    fn deref(&self) -> &[f32] {
        match &self.0 {
            Values::Owned(values) => values,
            Values::Shared(values) => values,
        }
    }
}

impl AsRef<[f32]> for Observation {
    fn as_ref(&self) -> &[f32] {
        self
    }
}

impl From<Vec<f32>> for Observation {
    fn from(values: Vec<f32>) -> Self {
        Observation(Values::Owned(values))
    }
}

impl From<&[f32]> for Observation {
    fn from(values: &[f32]) -> Self {
        Observation(Values::Owned(values.to_vec()))
    }
}

impl fmt::Debug for Observation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self[..].fmt(f)
    }
}

impl PartialEq for Observation {
    fn eq(&self, other: &Self) -> bool {
        self[..] == other[..]
    }
}

impl PartialEq<[f32]> for Observation {
    fn eq(&self, other: &[f32]) -> bool {
        self[..] == *other
    }
}

impl<const N: usize> PartialEq<[f32; N]> for Observation {
    fn eq(&self, other: &[f32; N]) -> bool {
        self[..] == other[..]
    }
}

impl PartialEq<Vec<f32>> for Observation {
    fn eq(&self, other: &Vec<f32>) -> bool {
        self[..] == other[..]
    }
}

impl PartialEq<Observation> for Vec<f32> {
    fn eq(&self, other: &Observation) -> bool {
        self[..] == other[..]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zeroed_reuses_a_unique_buffer_and_replaces_a_shared_one() {
        let mut obs = Observation::default();
        obs.zeroed(3)[1] = 5.0;
        let before = obs.as_ptr();
        assert_eq!(obs.zeroed(3), &[0.0, 0.0, 0.0]);
        assert_eq!(
            obs.as_ptr(),
            before,
            "unique buffer of the right length is reused"
        );
        let kept = obs.clone();
        obs.zeroed(3)[0] = 1.0;
        assert_eq!(kept, [0.0, 0.0, 0.0], "a clone never sees later writes");
        assert_eq!(obs, [1.0, 0.0, 0.0]);
        assert_eq!(obs.zeroed(2).len(), 2);
    }

    #[test]
    fn one_hot_pool_recycles_free_buffers_and_never_touches_held_ones() {
        let mut pool = OneHotPool::new(4);
        let (mut a, mut b) = (Observation::default(), Observation::default());
        let mut kept = Vec::new();
        for step in 0..20 {
            let hot = (step % 5 < 4).then_some(step % 4);
            pool.write(hot, &mut a);
            let expected: Vec<f32> = (0..4)
                .map(|i| f32::from(u8::from(hot == Some(i))))
                .collect();
            assert_eq!(a, expected, "step {step}");
            if step % 3 == 0 {
                kept.push((a.clone(), expected));
            }
            std::mem::swap(&mut a, &mut b);
        }
        for (obs, expected) in &kept {
            assert_eq!(obs, expected, "a held observation was changed");
        }
        assert!(pool.buffers.len() <= OneHotPool::MAX_POOLED);
    }

    #[test]
    fn share_points_at_the_same_values() {
        let values: Arc<[f32]> = Arc::from(vec![1.0, 2.0]);
        let mut obs = Observation::default();
        obs.share(&values);
        assert_eq!(obs.as_ptr(), values.as_ptr());
        assert_eq!(obs.zeroed(2), &[0.0, 0.0]);
        assert_eq!(&values[..], &[1.0, 2.0], "shared values are never written");
    }
}
