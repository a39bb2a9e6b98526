//! What bootstrapped DQN adds to a replica: its members' prior networks, the bootstrap
//! masks and reward noise it draws for each transition, the side data the replay keeps
//! with it, and the acting member's snapshot.

use bsuite_envs::RandomState;

use crate::host::dense::{Mlp, Params};
use crate::host::sparse::Entry;

/// What bootstrapped DQN adds to DQN's settings.
#[derive(Clone, Copy, Debug)]
pub(crate) struct EnsembleSettings {
    pub(crate) prior_scale: f32,
    pub(crate) mask_prob: f64,
    pub(crate) noise_scale: f64,
}

/// What a bootstrapped replica keeps beyond a DQN replica.
pub(super) struct Ensemble {
    /// Each member's frozen prior network (outputs scaled by `prior_scale` when used)...
    priors: Vec<(Params, Mlp)>,
    /// ...and its target's own, randomly initialised like the online one (quirk 30) until
    /// the first target update copies the online priors over: then they are dropped
    /// (`None`), and the target reads the online priors' values.
    target_priors: Option<Vec<(Params, Mlp)>>,
    prior_scale: f32,
    mask_prob: f64,
    /// The scale of the reward noise; at 0 no noise is drawn or stored.
    noise_scale: f64,
    /// The acting member's network as it was when drawn. Quirk 32: JAX acts with a
    /// snapshot of the member's parameters, so it does not see later SGD steps until the
    /// next draw at an episode end.
    active: (Params, Mlp),
    active_member: usize,
    /// Scratch: activations of one row through the (padded) acting network.
    active_acts: Vec<Vec<f32>>,
    /// This transition's bootstrap mask, one entry per member.
    mask: Vec<f32>,
    /// The last `o_t` and its prior values: the next transition's `o_tm1` within an
    /// episode, whose priors need not be computed again.
    last_prior: Option<(Vec<f32>, Vec<f32>)>,
    /// Scratch: a transition's side data `[prior_tm1, prior_t, mask, noise]` (see
    /// [`Ensemble::extra_width`]).
    extra: Vec<f32>,
    /// Scratch: activations of one row through one member.
    acts: Vec<Vec<f32>>,
    /// Scratch: a dense observation, and the target priors of a batch before the first
    /// target update, `[batch × members × actions]`.
    dense: Vec<f32>,
    target_prior_values: Vec<f32>,
    /// Scratch: the side data of the samples each member takes, member by member in the
    /// order of its rows, `[prior_tm1, prior_t, noise]` a row (see [`Ensemble::gather`]).
    by_member: Vec<f32>,
}

impl Ensemble {
    /// A replica's ensemble of `members` networks `sizes` wide (the observation first, the
    /// actions last): its members' prior networks, then its target's own, drawn from `rng`.
    pub(super) fn new(
        settings: EnsembleSettings,
        members: usize,
        sizes: &[usize],
        rng: &mut RandomState,
    ) -> Self {
        let (obs_len, num_actions) = (sizes[0], sizes[sizes.len() - 1]);
        let noisy = settings.noise_scale > 0.0;
        let nets = |rng: &mut RandomState| -> Vec<(Params, Mlp)> {
            (0..members)
                .map(|_| {
                    let mut params = Params::frozen();
                    let mlp = Mlp::new(&mut params, rng, sizes);
                    (params, mlp)
                })
                .collect()
        };
        let priors = nets(rng);
        let target_priors = nets(rng);
        let acts = priors[0].1.activations(1);
        Ensemble {
            priors,
            target_priors: Some(target_priors),
            prior_scale: settings.prior_scale,
            mask_prob: settings.mask_prob,
            noise_scale: settings.noise_scale,
            active: (Params::frozen(), Mlp::from_layers(Vec::new())),
            active_member: 0,
            active_acts: Vec::new(),
            mask: vec![1.0; members],
            last_prior: None,
            extra: vec![0.0; Ensemble::extra_width(members, num_actions, noisy)],
            acts,
            dense: vec![0.0; obs_len],
            target_prior_values: Vec::new(),
            by_member: Vec::new(),
        }
    }

    /// Floats of side data per transition: both prior values, the mask and, when `noisy`,
    /// the members' scaled reward noise.
    fn extra_width(members: usize, num_actions: usize, noisy: bool) -> usize {
        2 * members * num_actions + members + if noisy { members } else { 0 }
    }

    /// Floats of side data the replay keeps with each transition.
    pub(super) fn side_data_len(&self) -> usize {
        self.extra.len()
    }

    fn noisy(&self) -> bool {
        self.noise_scale > 0.0
    }

    /// Makes member `m`'s network as it is now, `(params, mlp)`, the acting network
    /// (quirk 32).
    pub(super) fn act_with(&mut self, m: usize, params: Params, mlp: Mlp) {
        // Every snapshot has the same (padded) shape: the scratch is made once.
        if self.active_acts.is_empty() {
            self.active_acts = mlp.activations(1);
        }
        self.active = (params, mlp);
        self.active_member = m;
    }

    /// The acting member's Q-values of `observation`: its snapshot's plus its scaled
    /// prior's, on which bootstrapped DQN acts greedily.
    pub(super) fn q_values(&mut self, observation: &[f32], num_actions: usize) -> &mut [f32] {
        let (params, mlp) = &self.active;
        mlp.forward(params, observation, 1, &mut self.active_acts);
        let q = &mut self.active_acts.last_mut().expect("layers")[..num_actions];
        let (prior_params, prior) = &self.priors[self.active_member];
        prior.forward(prior_params, observation, 1, &mut self.acts);
        for (q, &p) in q.iter_mut().zip(self.acts.last().expect("layers")) {
            *q += p * self.prior_scale;
        }
        q
    }

    /// A transition's side data, `[prior_tm1, prior_t, mask, noise]` (see
    /// [`Ensemble::extra_width`]), for the replay to keep: draws its bootstrap mask and the
    /// members' reward noise from the replica's `rng`, as bsuite's agent draws them, and
    /// computes the members' prior values of both observations.
    pub(super) fn side_data(
        &mut self,
        rng: &mut RandomState,
        num_actions: usize,
        observation: &[f32],
        new_observation: &[f32],
    ) -> &[f32] {
        if self.mask_prob < 1.0 {
            for m in &mut self.mask {
                *m = f32::from(rng.bernoulli(self.mask_prob));
            }
        }
        let members = self.mask.len();
        let width = members * num_actions;
        let (prior_tm1, rest) = self.extra.split_at_mut(width);
        let (prior_t, rest) = rest.split_at_mut(width);
        let (mask, noise) = rest.split_at_mut(members);
        // bsuite draws each member's reward noise right after the mask (and at scale 0
        // too, which this agent does not: see `BootDqnConfig::noise_scale`).
        if self.noise_scale > 0.0 {
            let scale = self.noise_scale as f32;
            for z in noise {
                *z = scale * rng.randn() as f32;
            }
        }
        match self.last_prior.take() {
            Some((obs, prior)) if *obs == *observation => prior_tm1.copy_from_slice(&prior),
            _ => Ensemble::prior_values(
                &self.priors,
                self.prior_scale,
                observation,
                &mut self.acts,
                prior_tm1,
            ),
        }
        Ensemble::prior_values(
            &self.priors,
            self.prior_scale,
            new_observation,
            &mut self.acts,
            prior_t,
        );
        mask.copy_from_slice(&self.mask);
        self.last_prior = Some((new_observation.to_vec(), prior_t.to_vec()));
        &self.extra
    }

    /// Readies the side data of a sampled batch of `batch`, whose `o_t` are `o_ts` in batch
    /// order: before the first target update the targets' priors are their own, so their
    /// values are computed here; and room for each member's rows of [`Ensemble::gather`].
    pub(super) fn prepare_batch<'a>(
        &mut self,
        o_ts: impl Iterator<Item = &'a [Entry]>,
        batch: usize,
        num_actions: usize,
    ) {
        let members = self.mask.len();
        let width = members * num_actions;
        if let Some(target_priors) = &self.target_priors {
            self.target_prior_values.resize(batch * width, 0.0);
            for (b, o_t) in o_ts.enumerate() {
                self.dense.fill(0.0);
                for &(k, x) in o_t {
                    self.dense[k as usize] = x;
                }
                Ensemble::prior_values(
                    target_priors,
                    self.prior_scale,
                    &self.dense,
                    &mut self.acts,
                    &mut self.target_prior_values[b * width..(b + 1) * width],
                );
            }
        }
        let len = members * batch * Ensemble::by_member_width(num_actions);
        self.by_member.resize(len, 0.0);
    }

    /// Whether member `m`'s bootstrap mask takes the sample whose side data is `extra`.
    pub(super) fn takes(&self, extra: &[f32], m: usize, num_actions: usize) -> bool {
        extra[2 * self.mask.len() * num_actions + m] != 0.0
    }

    /// Member `m`'s side data of its row `row` (of a batch of `batch`), as
    /// [`Ensemble::gather`] left it: its prior values of `o_tm1` and of `o_t`, and its
    /// reward noise where the ensemble has any.
    pub(super) fn side(
        &self,
        m: usize,
        row: usize,
        batch: usize,
        num_actions: usize,
    ) -> (&[f32], &[f32], Option<f32>) {
        let stride = Ensemble::by_member_width(num_actions);
        let side = &self.by_member[(m * batch + row) * stride..][..stride];
        let (prior_tm1, rest) = side.split_at(num_actions);
        let noise = self.noisy().then(|| rest[num_actions]);
        (prior_tm1, &rest[..num_actions], noise)
    }

    /// After a target update: the priors never learn, so from the first target update on
    /// the target's priors are the online ones, and its own are never read again (a copy
    /// of them took 9% of deep_sea/20's time, whose priors have 2,500 inputs).
    pub(super) fn target_takes_online_priors(&mut self) {
        self.target_priors = None;
    }

    /// Floats of a row of [`Ensemble::by_member`]: both priors of a member and its noise.
    fn by_member_width(num_actions: usize) -> usize {
        2 * num_actions + 1
    }

    /// Copies member `m`'s side data of a sample (`extra`, sample `b` of the batch, with
    /// `actions` actions) to its `row` in `by_member`: a member's loss then reads its rows
    /// in order, where reading them from each sample's side data took a cache miss a row.
    pub(super) fn gather(
        &mut self,
        m: usize,
        row: usize,
        b: usize,
        batch: usize,
        extra: &[f32],
        actions: usize,
    ) {
        let members = self.mask.len();
        let width = members * actions;
        let own = m * actions..(m + 1) * actions;
        let stride = Self::by_member_width(actions);
        let noise = if self.noisy() {
            extra[2 * width + members + m]
        } else {
            0.0
        };
        let to = &mut self.by_member[(m * batch + row) * stride..][..stride];
        let prior_t = match self.target_priors {
            None => &extra[width..2 * width],
            Some(_) => &self.target_prior_values[b * width..(b + 1) * width],
        };
        // Element by element: a few floats, for which a call to `memcpy` cost more than
        // the copy.
        let (tm1, t) = (&extra[own.clone()], &prior_t[own]);
        #[allow(clippy::manual_memcpy)]
        for i in 0..actions {
            to[i] = tm1[i];
            to[actions + i] = t[i];
        }
        to[2 * actions] = noise;
    }

    /// Every member's scaled prior values of `observation`, `[members × actions]`.
    fn prior_values(
        nets: &[(Params, Mlp)],
        scale: f32,
        observation: &[f32],
        acts: &mut [Vec<f32>],
        out: &mut [f32],
    ) {
        for ((params, mlp), out) in nets.iter().zip(out.chunks_exact_mut(mlp_width(nets))) {
            mlp.forward(params, observation, 1, acts);
            let q = acts.last().expect("layers");
            for (o, &v) in out.iter_mut().zip(q) {
                *o = v * scale;
            }
        }
    }
}

/// The output width of an ensemble's networks.
fn mlp_width(nets: &[(Params, Mlp)]) -> usize {
    nets.first().map_or(0, |(_, mlp)| mlp.output_len())
}
