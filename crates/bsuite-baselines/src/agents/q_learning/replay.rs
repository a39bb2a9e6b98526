//! Uniform experience replay (bsuite's `baselines/utils/replay.py`), sampled with the
//! agent's own generator.

use bsuite_envs::RandomState;
use tch::{Device, Tensor};

use crate::libtorch::tensor;

/// One transition with its per-member side data (empty slices when unused).
pub(crate) struct Transition<'a> {
    pub(crate) o_tm1: &'a [f32],
    pub(crate) action: usize,
    pub(crate) reward: f32,
    pub(crate) discount: f32,
    pub(crate) o_t: &'a [f32],
    /// Bootstrap mask, one entry per member.
    pub(crate) mask: &'a [f32],
    /// The members' scaled prior values of `o_tm1` and `o_t`, `[members × actions]`
    /// member-major (fixed functions, so computed once per transition, not per sample).
    pub(crate) prior_tm1: &'a [f32],
    pub(crate) prior_t: &'a [f32],
    /// Scaled reward noise, one entry per member (empty without noise).
    pub(crate) noise: &'a [f32],
}

/// Fixed-width rows of floats in a ring.
struct Column {
    width: usize,
    data: Vec<f32>,
}

impl Column {
    fn new(width: usize) -> Self {
        Column {
            width,
            data: Vec::new(),
        }
    }

    fn write(&mut self, slot: usize, row: &[f32]) {
        assert_eq!(row.len(), self.width, "replay row of the wrong width");
        let start = slot * self.width;
        if start == self.data.len() {
            self.data.extend_from_slice(row);
        } else {
            self.data[start..start + self.width].copy_from_slice(row);
        }
    }

    fn gather(&self, indices: &[usize]) -> Vec<f32> {
        let w = self.width;
        let mut out = Vec::with_capacity(indices.len() * w);
        for &i in indices {
            out.extend_from_slice(&self.data[i * w..(i + 1) * w]);
        }
        out
    }
}

/// A ring buffer of transitions `(o_tm1, a, r, d, o_t)` plus optional per-member bootstrap
/// masks and prior values.
pub(crate) struct Replay {
    capacity: usize,
    num_added: usize,
    o_tm1: Column,
    actions: Vec<i64>,
    rewards: Column,
    discounts: Column,
    o_t: Column,
    masks: Column,
    prior_tm1: Column,
    prior_t: Column,
    noise: Column,
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
    /// `[members, B, actions]` scaled prior values, or `None` without priors.
    pub(crate) prior_tm1: Option<Tensor>,
    pub(crate) prior_t: Option<Tensor>,
    /// `[members, B]` scaled reward noise, or `None` without noise.
    pub(crate) noise: Option<Tensor>,
}

impl Replay {
    /// `members` is the number of masks per transition (0 for none); `prior_len` the
    /// number of prior values per observation (0 for none); `noise_len` the number of
    /// reward noise values per transition (0 for none, else `members`).
    pub(crate) fn new(
        capacity: usize,
        obs_len: usize,
        members: usize,
        prior_len: usize,
        noise_len: usize,
    ) -> Self {
        Replay {
            capacity,
            num_added: 0,
            o_tm1: Column::new(obs_len),
            actions: Vec::new(),
            rewards: Column::new(1),
            discounts: Column::new(1),
            o_t: Column::new(obs_len),
            masks: Column::new(members),
            prior_tm1: Column::new(prior_len),
            prior_t: Column::new(prior_len),
            noise: Column::new(noise_len),
        }
    }

    /// Transitions held: `min(capacity, added)`.
    pub(crate) fn size(&self) -> usize {
        self.num_added.min(self.capacity)
    }

    /// Writes at `added % capacity`, over the oldest transition once full.
    pub(crate) fn add(&mut self, t: Transition<'_>) {
        let slot = self.num_added % self.capacity;
        self.o_tm1.write(slot, t.o_tm1);
        if slot == self.actions.len() {
            self.actions.push(t.action as i64);
        } else {
            self.actions[slot] = t.action as i64;
        }
        self.rewards.write(slot, &[t.reward]);
        self.discounts.write(slot, &[t.discount]);
        self.o_t.write(slot, t.o_t);
        self.masks.write(slot, t.mask);
        self.prior_tm1.write(slot, t.prior_tm1);
        self.prior_t.write(slot, t.prior_t);
        self.noise.write(slot, t.noise);
        self.num_added += 1;
    }

    /// `batch_size` transitions drawn uniformly with replacement (`randint(size)` each).
    pub(crate) fn sample(&self, rng: &mut RandomState, batch_size: usize, device: Device) -> Batch {
        let size = self.size();
        let indices: Vec<usize> = (0..batch_size).map(|_| rng.randint(size)).collect();
        let b = batch_size as i64;
        let obs = self.o_tm1.width as i64;
        let members = self.masks.width as i64;
        // Transposed to [members, B] for the ensemble's loss.
        let per_member = |column: &Column| {
            let k = column.width as i64;
            (k > 0).then(|| tensor(&column.gather(&indices), &[b, k], device).transpose(0, 1))
        };
        let masks = per_member(&self.masks);
        let prior = |column: &Column| {
            (column.width > 0).then(|| {
                let k = members.max(1);
                let a = column.width as i64 / k;
                tensor(&column.gather(&indices), &[b, k, a], device).permute([1, 0, 2])
            })
        };
        let actions: Vec<i64> = indices.iter().map(|&i| self.actions[i]).collect();
        let actions = Tensor::from_slice(&actions);
        Batch {
            o_tm1: tensor(&self.o_tm1.gather(&indices), &[b, obs], device),
            actions: if device == Device::Cpu {
                actions
            } else {
                actions.to_device(device)
            },
            rewards: tensor(&self.rewards.gather(&indices), &[b], device),
            discounts: tensor(&self.discounts.gather(&indices), &[b], device),
            o_t: tensor(&self.o_t.gather(&indices), &[b, obs], device),
            masks,
            prior_tm1: prior(&self.prior_tm1),
            prior_t: prior(&self.prior_t),
            noise: per_member(&self.noise),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_overwrites_oldest_and_samples_stored_rows() {
        let mut replay = Replay::new(3, 2, 2, 2, 0);
        for i in 0..5 {
            let x = i as f32;
            replay.add(Transition {
                o_tm1: &[x, x],
                action: i,
                reward: x,
                discount: 1.0,
                o_t: &[x + 0.5, x + 0.5],
                mask: &[1.0, 0.0],
                prior_tm1: &[x, -x],
                prior_t: &[x + 0.5, -x - 0.5],
                noise: &[],
            });
        }
        assert_eq!(replay.size(), 3);
        // Slots hold transitions 3, 4, 2.
        assert_eq!(replay.actions, [3, 4, 2]);
        let mut rng = RandomState::new(0);
        let batch = replay.sample(&mut rng, 16, Device::Cpu);
        let actions = Vec::<i64>::try_from(&batch.actions).unwrap();
        let rewards = Vec::<f32>::try_from(&batch.rewards).unwrap();
        let o_t = Vec::<f32>::try_from(&batch.o_t.view([-1])).unwrap();
        let prior_t = batch.prior_t.unwrap();
        assert_eq!(prior_t.size(), [2, 16, 1]);
        let member1 = Vec::<f32>::try_from(&prior_t.select(0, 1).contiguous().view([-1])).unwrap();
        for (j, &a) in actions.iter().enumerate() {
            assert!((2..5).contains(&a));
            assert_eq!(rewards[j], a as f32);
            assert_eq!(o_t[2 * j], a as f32 + 0.5);
            assert_eq!(member1[j], -(a as f32) - 0.5);
        }
        let masks = batch.masks.unwrap();
        assert_eq!(masks.size(), [2, 16]);
        assert_eq!(
            masks.select(0, 1).sum(tch::Kind::Float).double_value(&[]),
            0.0
        );
    }
}
