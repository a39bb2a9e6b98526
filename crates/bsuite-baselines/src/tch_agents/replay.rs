//! Uniform experience replay (bsuite's `baselines/utils/replay.py`), sampled with the
//! agent's own generator.

use bsuite_envs::RandomState;
use tch::{Device, Tensor};

use super::nets::tensor;

/// A ring buffer of transitions `(o_tm1, a, r, d, o_t)` plus an optional bootstrap mask per
/// ensemble member.
pub(crate) struct Replay {
    capacity: usize,
    obs_len: usize,
    mask_len: usize,
    num_added: usize,
    o_tm1: Vec<f32>,
    actions: Vec<i64>,
    rewards: Vec<f32>,
    discounts: Vec<f32>,
    o_t: Vec<f32>,
    masks: Vec<f32>,
}

/// A sampled batch, as tensors on the agent's device.
pub(crate) struct Batch {
    /// `[B, obs]`.
    pub(crate) o_tm1: Tensor,
    /// `[B]`, int64.
    pub(crate) actions: Tensor,
    /// `[B]`.
    pub(crate) rewards: Tensor,
    /// `[B]` (the environment's discount; the agent's is applied in the loss).
    pub(crate) discounts: Tensor,
    /// `[B, obs]`.
    pub(crate) o_t: Tensor,
    /// `[members, B]`, or `None` without masks.
    pub(crate) masks: Option<Tensor>,
}

impl Replay {
    pub(crate) fn new(capacity: usize, obs_len: usize, mask_len: usize) -> Self {
        Replay {
            capacity,
            obs_len,
            mask_len,
            num_added: 0,
            o_tm1: Vec::new(),
            actions: Vec::new(),
            rewards: Vec::new(),
            discounts: Vec::new(),
            o_t: Vec::new(),
            masks: Vec::new(),
        }
    }

    /// Transitions held: `min(capacity, added)`.
    pub(crate) fn size(&self) -> usize {
        self.num_added.min(self.capacity)
    }

    /// Writes at `added % capacity`, over the oldest transition once full.
    pub(crate) fn add(
        &mut self,
        o_tm1: &[f32],
        action: usize,
        reward: f32,
        discount: f32,
        o_t: &[f32],
        mask: &[f32],
    ) {
        debug_assert_eq!((o_tm1.len(), mask.len()), (self.obs_len, self.mask_len));
        let slot = self.num_added % self.capacity;
        if slot == self.actions.len() {
            self.o_tm1.extend_from_slice(o_tm1);
            self.actions.push(action as i64);
            self.rewards.push(reward);
            self.discounts.push(discount);
            self.o_t.extend_from_slice(o_t);
            self.masks.extend_from_slice(mask);
        } else {
            let (n, m) = (self.obs_len, self.mask_len);
            self.o_tm1[slot * n..(slot + 1) * n].copy_from_slice(o_tm1);
            self.actions[slot] = action as i64;
            self.rewards[slot] = reward;
            self.discounts[slot] = discount;
            self.o_t[slot * n..(slot + 1) * n].copy_from_slice(o_t);
            self.masks[slot * m..(slot + 1) * m].copy_from_slice(mask);
        }
        self.num_added += 1;
    }

    /// `batch_size` transitions drawn uniformly with replacement (`randint(size)` each).
    pub(crate) fn sample(&self, rng: &mut RandomState, batch_size: usize, device: Device) -> Batch {
        let size = self.size();
        let indices: Vec<usize> = (0..batch_size).map(|_| rng.randint(size)).collect();
        let n = self.obs_len;
        let rows = |data: &[f32]| -> Vec<f32> {
            let mut out = Vec::with_capacity(batch_size * n);
            for &i in &indices {
                out.extend_from_slice(&data[i * n..(i + 1) * n]);
            }
            out
        };
        let b = batch_size as i64;
        let pick = |data: &[f32]| -> Vec<f32> { indices.iter().map(|&i| data[i]).collect() };
        let actions: Vec<i64> = indices.iter().map(|&i| self.actions[i]).collect();
        let masks = (self.mask_len > 0).then(|| {
            let m = self.mask_len;
            // Transposed to [members, B] for the ensemble's loss.
            let mut out = Vec::with_capacity(batch_size * m);
            for k in 0..m {
                out.extend(indices.iter().map(|&i| self.masks[i * m + k]));
            }
            tensor(&out, &[m as i64, b], device)
        });
        let actions = Tensor::from_slice(&actions);
        Batch {
            o_tm1: tensor(&rows(&self.o_tm1), &[b, n as i64], device),
            actions: if device == Device::Cpu {
                actions
            } else {
                actions.to_device(device)
            },
            rewards: tensor(&pick(&self.rewards), &[b], device),
            discounts: tensor(&pick(&self.discounts), &[b], device),
            o_t: tensor(&rows(&self.o_t), &[b, n as i64], device),
            masks,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_overwrites_oldest_and_samples_stored_rows() {
        let mut replay = Replay::new(3, 2, 1);
        for i in 0..5 {
            let x = i as f32;
            replay.add(&[x, x], i, x, 1.0, &[x + 0.5, x + 0.5], &[1.0]);
        }
        assert_eq!(replay.size(), 3);
        // Slots hold transitions 3, 4, 2.
        assert_eq!(replay.actions, [3, 4, 2]);
        let mut rng = RandomState::new(0);
        let batch = replay.sample(&mut rng, 16, Device::Cpu);
        let actions = Vec::<i64>::try_from(&batch.actions).unwrap();
        let rewards = Vec::<f32>::try_from(&batch.rewards).unwrap();
        let o_t = Vec::<f32>::try_from(&batch.o_t.view([-1])).unwrap();
        for (j, &a) in actions.iter().enumerate() {
            assert!((2..5).contains(&a));
            assert_eq!(rewards[j], a as f32);
            assert_eq!(o_t[2 * j], a as f32 + 0.5);
        }
        assert_eq!(batch.masks.unwrap().size(), [1, 16]);
    }
}
