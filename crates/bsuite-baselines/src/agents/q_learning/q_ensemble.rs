//! The Q-learning machinery DQN and bootstrapped DQN share: an ensemble of Q-networks with
//! target networks and optional frozen prior networks, trained together with batched
//! matmuls.

use bsuite_envs::RandomState;
use tch::{nn, Device, Kind};

use crate::agents::q_learning::replay::Batch;
use crate::config::Optimizer;
use crate::libtorch::{tensor, to_vec, Params, StackedMlp, TrainOptimizer};

/// A frozen random prior network added to each member's output, scaled (Osband et al.,
/// 2018).
struct Prior {
    online: StackedMlp,
    /// The target's own prior: initialised independently, then copied with the rest of
    /// the target parameters (JAX keeps the prior inside each member's params).
    target: StackedMlp,
    scale: f64,
}

/// `members` Q-networks `MLP(x) [+ scale·prior(x)]`, each with a target network and its own
/// optimiser state (stacked: the optimisers are elementwise, so this equals one optimiser
/// per member).
pub(crate) struct QEnsemble {
    members: usize,
    device: Device,
    _vs: nn::VarStore,
    online: StackedMlp,
    target: StackedMlp,
    prior: Option<Prior>,
    optimizer: TrainOptimizer,
    discount: f32,
    /// SGD steps taken (every member steps together).
    pub(crate) sgd_steps: u64,
    /// True once the targets were copied from the online networks, priors included, so the
    /// target priors equal the online ones.
    targets_synced: bool,
}

/// How to build a [`QEnsemble`].
pub(crate) struct QEnsembleConfig {
    pub(crate) members: usize,
    /// `[obs, hidden..., actions]`.
    pub(crate) sizes: Vec<usize>,
    /// Prior network scale; `None` for no prior.
    pub(crate) prior_scale: Option<f64>,
    pub(crate) optimizer: Optimizer,
    pub(crate) learning_rate: f64,
    pub(crate) discount: f32,
}

impl QEnsemble {
    /// Initialises every online network, then every target network, then the priors, from
    /// `rng`.
    pub(crate) fn new(config: &QEnsembleConfig, rng: &mut RandomState, device: Device) -> Self {
        let vs = nn::VarStore::new(device);
        let k = config.members;
        let online = StackedMlp::new(&Params::Trainable(vs.root() / "q"), rng, k, &config.sizes);
        // Quirk 30: the target starts from its own random initialisation (JAX draws it with
        // a second key), not as a copy of the online network.
        let target = StackedMlp::new(&Params::Fixed(device), rng, k, &config.sizes);
        let prior = config.prior_scale.map(|scale| Prior {
            online: StackedMlp::new(&Params::Fixed(device), rng, k, &config.sizes),
            target: StackedMlp::new(&Params::Fixed(device), rng, k, &config.sizes),
            scale,
        });
        let optimizer = TrainOptimizer::new(&vs, config.optimizer, config.learning_rate);
        QEnsemble {
            members: k,
            device,
            _vs: vs,
            online,
            target,
            prior,
            optimizer,
            discount: config.discount,
            sgd_steps: 0,
            targets_synced: false,
        }
    }

    /// The device the parameters live on.
    pub(crate) fn device(&self) -> Device {
        self.device
    }

    /// Q-values of one observation under member `k`'s current online network.
    pub(crate) fn q_values(&self, k: usize, observation: &[f32]) -> Vec<f32> {
        self.head(k).q_values(observation, self.device)
    }

    /// Every member's scaled prior values of one observation, `[members × actions]`
    /// member-major (what [`Transition::prior_tm1`](crate::agents::q_learning::replay::Transition) stores), or
    /// `None` without priors.
    pub(crate) fn prior_values(&self, observation: &[f32]) -> Option<Vec<f32>> {
        let prior = self.prior.as_ref()?;
        tch::no_grad(|| {
            let x = tensor(observation, &[1, observation.len() as i64], self.device);
            Some(to_vec(&(prior.online.forward(&x) * prior.scale)))
        })
    }

    /// Member `k` as it is now, frozen: later SGD steps do not change it.
    pub(crate) fn snapshot(&self, k: usize) -> QHead {
        QHead {
            net: self.online.snapshot(k),
            prior: self
                .prior
                .as_ref()
                .map(|p| (p.online.member_view(k), p.scale)),
        }
    }

    fn head(&self, k: usize) -> QHead {
        QHead {
            net: self.online.member_view(k),
            prior: self
                .prior
                .as_ref()
                .map(|p| (p.online.member_view(k), p.scale)),
        }
    }

    /// One optimiser step for every member on `mean_b(m_kb · δ_kb²)` (summed over members,
    /// so member k's gradient is its own loss's), with `δ = (r + z_kb) + discount·d·max_a
    /// Q_target(o_t, a) − Q(o_tm1, a_tm1)` (`z` the scaled reward noise, if any) and no
    /// gradient through the target (rlax.q_learning; no 0.5 factor).
    pub(crate) fn sgd_step(&mut self, batch: &Batch) {
        let k = self.members as i64;
        let b = batch.actions.size()[0];
        let target_q = tch::no_grad(|| {
            let mut q_t = self.target.forward(&batch.o_t);
            if let Some(prior) = &self.prior {
                match &batch.prior_t {
                    Some(cached) if self.targets_synced => q_t += cached,
                    _ => q_t += prior.target.forward(&batch.o_t) * prior.scale,
                }
            }
            let max_q = q_t.amax(2, false);
            // bsuite adds each member's reward noise to the reward first.
            let rewards = match &batch.noise {
                Some(noise) => &batch.rewards + noise,
                None => batch.rewards.shallow_clone(),
            };
            rewards + (&batch.discounts * f64::from(self.discount)) * max_q
        });
        let q_tm1 = self.online.forward(&batch.o_tm1);
        // Out of place: q_tm1 is part of the autograd graph.
        let q_tm1 = match (&self.prior, &batch.prior_tm1) {
            (Some(_), Some(cached)) => q_tm1 + cached,
            (Some(prior), None) => {
                q_tm1 + tch::no_grad(|| prior.online.forward(&batch.o_tm1) * prior.scale)
            }
            (None, _) => q_tm1,
        };
        let index = batch.actions.view([1, b, 1]).expand([k, b, 1], false);
        let q_a = q_tm1.gather(2, &index, false).squeeze_dim(2);
        let td_squared = (target_q - q_a).square();
        let per_member = match &batch.masks {
            Some(masks) => (td_squared * masks).mean_dim(1, false, Kind::Float),
            None => td_squared.mean_dim(1, false, Kind::Float),
        };
        let loss = per_member.sum(Kind::Float);
        self.optimizer.zero_grad();
        loss.backward();
        self.optimizer.step();
        self.sgd_steps += 1;
    }

    /// Copies every member's online parameters (and its prior) to its target.
    pub(crate) fn update_targets(&mut self) {
        self.target.copy_from(&self.online);
        if let Some(prior) = &mut self.prior {
            prior.target.copy_from(&prior.online);
        }
        self.targets_synced = true;
    }
}

/// One member's Q-function for acting.
pub(crate) struct QHead {
    net: StackedMlp,
    prior: Option<(StackedMlp, f64)>,
}

impl QHead {
    /// Q-values of one observation.
    pub(crate) fn q_values(&self, observation: &[f32], device: Device) -> Vec<f32> {
        tch::no_grad(|| {
            let x = tensor(observation, &[1, observation.len() as i64], device);
            let mut q = self.net.forward(&x);
            if let Some((prior, scale)) = &self.prior {
                q += prior.forward(&x) * *scale;
            }
            to_vec(&q)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::q_learning::greedy;

    #[test]
    fn ties_are_broken_among_the_best() {
        let mut rng = RandomState::new(3);
        assert_eq!(greedy(&[0.0, 2.0, 1.0], &mut rng), 1);
        let picks: Vec<usize> = (0..50)
            .map(|_| greedy(&[1.0, 0.0, 1.0], &mut rng))
            .collect();
        assert!(picks.iter().all(|&a| a == 0 || a == 2));
        assert!(picks.contains(&0) && picks.contains(&2));
    }

    #[test]
    fn snapshots_stay_frozen_and_targets_start_independent() {
        let config = QEnsembleConfig {
            members: 3,
            sizes: vec![4, 8, 2],
            prior_scale: Some(5.0),
            optimizer: Optimizer::Adam,
            learning_rate: 1e-2,
            discount: 0.99,
        };
        let mut rng = RandomState::new(0);
        let mut q = QEnsemble::new(&config, &mut rng, Device::Cpu);
        let obs = [0.1f32, -0.2, 0.3, 0.4];
        let frozen = q.snapshot(1);
        let before = frozen.q_values(&obs, Device::Cpu);
        assert_eq!(before, q.q_values(1, &obs));
        let target_before = to_vec(&q.target.forward(&tensor(&obs, &[1, 4], Device::Cpu)));
        let online_before = to_vec(&q.online.forward(&tensor(&obs, &[1, 4], Device::Cpu)));
        assert_ne!(target_before, online_before);

        let mut replay = crate::agents::q_learning::replay::Replay::new(10, 4, 3, 6, 0);
        let prior = q.prior_values(&obs).unwrap();
        replay.add(crate::agents::q_learning::replay::Transition {
            o_tm1: &obs,
            action: 1,
            reward: 1.0,
            discount: 1.0,
            o_t: &obs,
            mask: &[1.0, 1.0, 1.0],
            prior_tm1: &prior,
            prior_t: &prior,
            noise: &[],
        });
        let batch = replay.sample(&mut rng, 4, Device::Cpu);
        q.sgd_step(&batch);
        assert_eq!(q.sgd_steps, 1);
        assert_eq!(frozen.q_values(&obs, Device::Cpu), before);
        assert_ne!(q.q_values(1, &obs), before);

        q.update_targets();
        let x = tensor(&obs, &[1, 4], Device::Cpu);
        assert_eq!(to_vec(&q.target.forward(&x)), to_vec(&q.online.forward(&x)));
    }
}
