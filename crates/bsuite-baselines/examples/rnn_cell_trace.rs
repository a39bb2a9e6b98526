//! Traces actor_critic_rnn's internals over a run, the Rust half of a side-by-side check
//! with bsuite's JAX agent (`tools/reference/jax_agent.py cells` prints the same lines):
//! every K episodes, one JSON line with the largest |c| of the training unroll state, the
//! mean entropy of the acting policy over those episodes' steps, and their mean return.
//!
//! ```sh
//! cargo xtask libtorch run --release -p bsuite-baselines --features libtorch \
//!     --example rnn_cell_trace -- memory_len/2 [SEED] [EPISODES] [EVERY] [reset]
//! ```
//!
//! `reset` traces the variant that resets the training state at episode ends.

use bsuite_baselines::agents::{ActorCriticReplicas, ActorCriticRnnConfig, ReplicaSpec};
use bsuite_baselines::Agent;
use bsuite_envs::Environment;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: rnn_cell_trace BSUITE_ID [SEED] [EPISODES] [EVERY] [reset]";
    let id: bsuite_envs::BsuiteId = args.first().ok_or(usage)?.parse()?;
    let number = |i: usize, default: usize| -> Result<usize, String> {
        args.get(i).map_or(Ok(default), |a| {
            a.parse().map_err(|_| format!("{a}: not a number; {usage}"))
        })
    };
    let seed = number(1, 0)? as u32;
    let episodes = number(2, id.num_episodes())?;
    let every = number(3, 100)?.max(1);
    let reset_unroll_state = args.get(4).is_some_and(|a| a == "reset");

    let mut env = id.load()?;
    let spec = ReplicaSpec {
        observation_spec: env.observation_spec(),
        action_spec: env.action_spec(),
        seed,
    };
    let config = ActorCriticRnnConfig {
        reset_unroll_state,
        ..ActorCriticRnnConfig::default()
    };
    let mut agent = ActorCriticReplicas::recurrent(config, &[spec]);
    let (mut entropy, mut steps, mut returns) = (0.0, 0usize, 0.0);
    for episode in 1..=episodes {
        let mut timestep = env.reset();
        while !timestep.last() {
            let action = agent.select_action(&timestep);
            entropy += agent.probe(0).expect("a recurrent agent").acting_entropy;
            steps += 1;
            let new_timestep = env.step(action)?;
            agent.update(&timestep, action, &new_timestep);
            returns += new_timestep.reward_or_zero();
            timestep = new_timestep;
        }
        if episode % every == 0 {
            let probe = agent.probe(0).expect("a recurrent agent");
            bsuite_baselines::outln!(
                "{{\"episode\": {episode}, \"max_abs_cell\": {}, \"entropy\": {}, \"return\": {}}}",
                probe.unroll_cell_max_abs,
                entropy / steps.max(1) as f64,
                returns / every as f64
            );
            (entropy, steps, returns) = (0.0, 0, 0.0);
        }
    }
    Ok(())
}
