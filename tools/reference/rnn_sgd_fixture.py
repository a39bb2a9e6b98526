"""Writes one SGD step of bsuite 0.3.6's JAX actor_critic_rnn, as a test fixture for ours.

  $py tools/reference/rnn_sgd_fixture.py OUT.json     # $py: the venv of setup_jax_agents.sh

bsuite's ActorCriticRNN with default_agent's network, optimiser and hyperparameters, but a
hidden size of 8 so that the fixture stays small, acts and learns on memory_len/3 (seed 0)
for 30 episodes. The fixture has its initial parameters and those transitions (with the
acting policy's logits at each), and then,
on the next episode's trajectory, the parameters, the training unroll state, the
trajectory, the loss gradients (jax.grad of bsuite's own loss) and the unroll state the
step leaves. The Rust tests in agents::a2c::host (one_sgd_step_... and
thirty_episodes_...) recompute them from the same inputs.
"""
import json
import os
import sys

os.environ.setdefault('JAX_PLATFORMS', 'cpu')
os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

# pylint: disable=g-import-not-at-top,wrong-import-position
import haiku as hk
import jax
import jax.numpy as jnp
import numpy as np
import optax

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import jax_agent  # noqa: E402  (the shared env loading and seeding)

HIDDEN = 8
BSUITE_ID = 'memory_len/3'
SEED = 0
WARMUP_EPISODES = 30


def main():
  from bsuite.baselines.jax.actor_critic_rnn import agent as rnn
  env = jax_agent.load_env(BSUITE_ID)
  obs_spec, action_spec = env.observation_spec(), env.action_spec()

  def network(inputs, state):
    flat_inputs = hk.Flatten()(inputs)
    embedding = hk.nets.MLP([HIDDEN, HIDDEN])(flat_inputs)
    embedding, state = hk.LSTM(HIDDEN)(embedding, state)
    logits = hk.Linear(action_spec.num_values)(embedding)
    value = hk.Linear(1)(embedding)
    return (logits, jnp.squeeze(value, axis=-1)), state

  zeros = jnp.zeros((1, HIDDEN), dtype=jnp.float32)
  np.random.seed(SEED)
  agent = rnn.ActorCriticRNN(
      obs_spec=obs_spec, action_spec=action_spec, network=network,
      initial_rnn_state=hk.LSTMState(hidden=zeros, cell=zeros),
      optimizer=optax.adam(3e-3), rng=hk.PRNGSequence(SEED),
      sequence_length=32, discount=0.99, td_lambda=0.9)

  def episode(record):
    timestep = env.reset()
    while not timestep.last():
      action = agent.select_action(timestep)
      new_timestep = env.step(action)
      record.append((timestep, action, new_timestep))
      timestep = new_timestep

  initial_params = agent._state.params  # pylint: disable=protected-access
  warmup = []
  for _ in range(WARMUP_EPISODES):
    before = len(warmup)
    timestep = env.reset()
    while not timestep.last():
      state = agent._state  # pylint: disable=protected-access
      (logits, _), _ = agent._forward(  # pylint: disable=protected-access
          state.params, timestep.observation[None, ...], state.rnn_state)
      action = agent.select_action(timestep)
      new_timestep = env.step(action)
      agent.update(timestep, action, new_timestep)
      warmup.append((timestep, action, new_timestep, np.asarray(logits[0], np.float64)))
      timestep = new_timestep
    assert len(warmup) > before
  steps = []
  episode(steps)
  for timestep, action, new_timestep in steps:
    agent._buffer.append(timestep, action, new_timestep)  # pylint: disable=protected-access
  trajectory = agent._buffer.drain()  # pylint: disable=protected-access
  state = agent._state  # pylint: disable=protected-access

  # bsuite's own loss, rebuilt as the agent builds it, differentiated as its sgd_step does.
  def loss(trajectory, unroll_state):
    (logits, values), new_state = hk.dynamic_unroll(
        network, trajectory.observations[:, None, ...], unroll_state)
    import rlax
    seq_len = trajectory.actions.shape[0]
    td_errors = rlax.td_lambda(
        v_tm1=values[:-1, 0], r_t=trajectory.rewards,
        discount_t=trajectory.discounts * 0.99, v_t=values[1:, 0], lambda_=jnp.array(0.9))
    critic_loss = jnp.mean(td_errors**2)
    actor_loss = rlax.policy_gradient_loss(
        logits_t=logits[:-1, 0], a_t=trajectory.actions, adv_t=td_errors,
        w_t=jnp.ones(seq_len))
    return actor_loss + critic_loss, new_state

  loss_fn = hk.without_apply_rng(hk.transform(loss)).apply
  grads, new_state = jax.grad(loss_fn, has_aux=True)(
      state.params, trajectory, state.rnn_unroll_state)

  def tree(params):
    return {module: {name: np.asarray(value, np.float64).ravel().tolist()
                     for name, value in leaves.items()}
            for module, leaves in params.items()}

  def lstm_state(s):
    return {'h': np.asarray(s.hidden, np.float64).ravel().tolist(),
            'c': np.asarray(s.cell, np.float64).ravel().tolist()}

  out = {
      'bsuite_id': BSUITE_ID, 'hidden': HIDDEN,
      'obs_len': int(np.prod(obs_spec.shape)), 'num_actions': int(action_spec.num_values),
      'params': tree(state.params), 'unroll_state': lstm_state(state.rnn_unroll_state),
      'observations': np.asarray(trajectory.observations, np.float64).reshape(
          len(trajectory.observations), -1).tolist(),
      'actions': np.asarray(trajectory.actions).tolist(),
      'rewards': np.asarray(trajectory.rewards, np.float64).tolist(),
      'discounts': np.asarray(trajectory.discounts, np.float64).tolist(),
      'grads': tree(grads), 'new_unroll_state': lstm_state(new_state),
      # The warm-up: the transitions the agent trained on from its initial parameters,
      # and the parameters and unroll state they left (those of the step above).
      'initial_params': tree(initial_params),
      'warmup': [{
          'observation': np.asarray(ts.observation, np.float64).ravel().tolist(),
          'action': int(action),
          'reward': float(new_ts.reward),
          'discount': float(new_ts.discount),
          'next_observation': np.asarray(new_ts.observation, np.float64).ravel().tolist(),
          'last': bool(new_ts.last()),
          'logits': logits.tolist(),
      } for ts, action, new_ts, logits in warmup],
  }
  with open(sys.argv[1], 'w') as f:
    json.dump(out, f)
  print(f'wrote {sys.argv[1]}: {len(trajectory.actions)} transitions, params '
        f'{sorted(out["params"])}', file=sys.stderr)


if __name__ == '__main__':
  main()
