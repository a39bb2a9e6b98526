//! Short training runs of every LibTorch agent against real LibTorch, and reproducibility
//! from (agent, bsuite_id, seed). Run with `cargo xtask test` (or, with `LIBTORCH` set,
//! `cargo test -p bsuite-baselines --features libtorch --release`).
#![cfg(feature = "libtorch")]

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use bsuite_baselines::agents;
use bsuite_baselines::config::AgentConfig;
use bsuite_baselines::factory::{self, AgentSetup};
use bsuite_baselines::runner::{self, Outcome, Progress, RunnerOptions};
use bsuite_envs::{BsuiteId, Environment};

/// What a training run leaves: each episode's return and the environment's counters after
/// each episode, and every action taken.
struct Run {
    returns: Vec<f64>,
    infos: Vec<Vec<(&'static str, f64)>>,
    actions: Vec<usize>,
}

impl Run {
    fn mean_return(&self, episodes: std::ops::Range<usize>) -> f64 {
        let xs = &self.returns[episodes];
        xs.iter().sum::<f64>() / xs.len() as f64
    }

    fn info(&self, episode: usize, key: &str) -> f64 {
        self.infos[episode]
            .iter()
            .find(|(k, _)| *k == key)
            .unwrap_or_else(|| panic!("no {key} in bsuite_info"))
            .1
    }
}

/// Agent `name`'s configuration: its defaults with seed `seed` and `pairs` (`KEY=VALUE`).
fn config(name: &str, seed: u32, pairs: &[&str]) -> AgentConfig {
    let mut config = AgentConfig::defaults(name).unwrap();
    config.set("seed", &seed.to_string()).unwrap();
    for pair in pairs {
        config.set_pair(pair).unwrap();
    }
    config
}

/// The environment of `id` and the setup of an agent with `config` on the CPU.
fn setup(id: &str, config: AgentConfig) -> (Box<dyn Environment>, AgentSetup) {
    let id: BsuiteId = id.parse().unwrap();
    let env = id.load().unwrap();
    let setup = AgentSetup {
        id,
        observation_spec: env.observation_spec(),
        action_spec: env.action_spec(),
        seed: config.seed(),
        config,
        device: factory::ComputeDevice::Cpu,
    };
    (env, setup)
}

/// `episodes` episodes of agent `name` (seed `seed`) on `id`, as bsuite's run loop drives it.
fn train(name: &str, id: &str, episodes: usize, seed: u32) -> Run {
    train_with(id, config(name, seed, &[]), episodes)
}

/// `episodes` episodes on `id` of the agent `config` configures, built by the factory.
fn train_with(id: &str, config: AgentConfig, episodes: usize) -> Run {
    let entry = factory::agent(config.agent()).unwrap();
    let (env, setup) = setup(id, config);
    let mut agent = (entry.make)(&setup);
    train_agent(&mut *agent, env, episodes)
}

/// `episodes` episodes of `agent` on `env`, as bsuite's run loop drives them.
fn train_agent(
    agent: &mut dyn bsuite_baselines::Agent,
    mut env: Box<dyn Environment>,
    episodes: usize,
) -> Run {
    let mut run = Run {
        returns: Vec::new(),
        infos: Vec::new(),
        actions: Vec::new(),
    };
    for _ in 0..episodes {
        let mut timestep = env.reset();
        let mut episode_return = 0.0;
        while !timestep.last() {
            let action = agent.select_action(&timestep);
            run.actions.push(action);
            let new_timestep = env.step(action).unwrap();
            episode_return += new_timestep.reward_or_zero();
            agent.update(&timestep, action, &new_timestep);
            timestep = new_timestep;
        }
        run.returns.push(episode_return);
        let info = env.bsuite_info().into_iter().map(|(k, v)| (k, v.as_f64()));
        run.infos.push(info.collect());
    }
    run
}

/// The tensor DQN that `--device cuda` runs (LibTorch ops on any device), here on the CPU.
#[test]
fn the_tensor_dqn_of_the_gpu_path_learns_catch() {
    let env = "catch/0".parse::<BsuiteId>().unwrap().load().unwrap();
    let mut agent = agents::Dqn::new(
        &env.observation_spec(),
        &env.action_spec(),
        agents::DqnConfig::default(),
        0,
        agents::Device::Cpu,
    );
    let run = train_agent(&mut agent, env, 300);
    let late = run.mean_return(200..300);
    assert!(late > 0.3, "mean return {late} over episodes 201-300");
}

#[test]
fn dqn_learns_catch() {
    let run = train("dqn", "catch/0", 300, 0);
    // Returns are +1 (caught) or -1; random play averages 0 (seed 0 measured 0.5 here, and
    // 0.6 or more from episode 500 on).
    let late = run.mean_return(200..300);
    assert!(late > 0.3, "mean return {late} over episodes 201-300");
}

#[test]
fn boot_dqn_solves_deep_sea_10_quickly() {
    // bsuite counts size 10 as solved at the first episode where fewer than 90% of the
    // episodes so far were bad, and scores it if that is before episode 2^10 + 100. A
    // random policy finds the treasure once in 2^10 episodes on average.
    let episodes = 300;
    let run = train("boot_dqn", "deep_sea/0", episodes, 0);
    let solved_at = (0..episodes)
        .find(|&e| run.info(e, "total_bad_episodes") / ((e + 1) as f64) < 0.9)
        .map(|e| e + 1);
    assert!(
        solved_at.is_some(),
        "deep_sea/0 not solved in {episodes} episodes ({} bad)",
        run.info(episodes - 1, "total_bad_episodes")
    );
}

#[test]
fn actor_critic_learns_catch() {
    // Seed 0 measured 0.9 for episodes 601-700; random play averages 0.
    let run = train("actor_critic", "catch/0", 700, 0);
    let late = run.mean_return(600..700);
    assert!(late > 0.5, "mean return {late} over episodes 601-700");
}

#[test]
fn actor_critic_rnn_remembers_one_step() {
    // memory_len/0: a context bit shown at the start must be recalled at the end (length
    // 1). Guessing is right half the time.
    let episodes = 300;
    let run = train("actor_critic_rnn", "memory_len/0", episodes, 0);
    let perfect = run.info(episodes - 1, "total_perfect") - run.info(199, "total_perfect");
    assert!(perfect > 75.0, "{perfect} of episodes 201-300 right");
}

/// num_ensemble=1 through the factory is the one-member ensemble built by hand, and differs
/// from the default ensemble: the configuration reaches the agent.
#[test]
fn boot_dqn_with_one_member_is_a_one_member_ensemble() {
    use agents::{BootDqnConfig, DqnReplicas, ReplicaSpec};
    for id in ["catch/0", "deep_sea/0"] {
        let configured = train_with(id, config("boot_dqn", 42, &["num_ensemble=1"]), 60);
        let (env, setup) = setup(id, config("boot_dqn", 42, &[]));
        let spec = ReplicaSpec {
            observation_spec: setup.observation_spec.clone(),
            action_spec: setup.action_spec,
            seed: 42,
        };
        let one = BootDqnConfig {
            num_ensemble: 1,
            ..BootDqnConfig::default()
        };
        let mut by_hand = DqnReplicas::bootstrapped(one, &[spec]);
        let by_hand = train_agent(&mut by_hand, env, 60);
        assert_eq!(configured.actions, by_hand.actions, "{id}");
        assert_eq!(configured.returns, by_hand.returns, "{id}");
        let twenty = train_with(id, config("boot_dqn", 42, &[]), 60);
        assert_ne!(
            configured.actions, twenty.actions,
            "{id}: one member acts as twenty"
        );
    }
}

/// Each optimiser gives its own run, and each learns catch but actor_critic's SGD (returns
/// are +1 or -1; random play averages -0.6). Measured on seed 0, mean returns of the last
/// 100 episodes: dqn adam 0.72, sgd (learning rate 0.1) 0.46, rmsprop 0.92; actor_critic
/// adam 0.90, rmsprop 0.68, while SGD (0.01 to 1) is still near random play after 1,000
/// episodes, so for it only the agreement with the tensor agent below speaks.
#[test]
fn every_optimizer_runs_and_learns() {
    // (agent, SGD's learning rate, episodes, whether SGD learns in them)
    let cases = [
        ("dqn", "0.1", 300, true),
        ("actor_critic", "0.3", 700, false),
    ];
    for (agent, sgd_rate, episodes, sgd_learns) in cases {
        let sgd_rate = format!("learning_rate={sgd_rate}");
        let configs = [
            config(agent, 0, &["optimizer=adam"]),
            config(agent, 0, &["optimizer=sgd", &sgd_rate]),
            config(agent, 0, &["optimizer=rmsprop"]),
        ];
        let runs: Vec<Run> = configs
            .iter()
            .map(|c| train_with("catch/0", c.clone(), episodes))
            .collect();
        for (i, a) in configs.iter().enumerate() {
            let late = runs[i].mean_return(episodes - 100..episodes);
            println!("{agent} {}: {late}", a.changed());
            if i != 1 || sgd_learns {
                assert!(late > 0.3, "{agent} {}: mean return {late}", a.changed());
            }
            for (j, b) in configs.iter().enumerate().skip(i + 1) {
                assert_ne!(
                    runs[i].actions[..450],
                    runs[j].actions[..450],
                    "{agent}: {} and {} act alike over 50 episodes",
                    a.changed(),
                    b.changed()
                );
            }
        }
        // The default configuration is Adam's.
        let default = train(agent, "catch/0", 50, 0);
        assert_eq!(
            default.actions[..],
            runs[0].actions[..default.actions.len()]
        );
    }
}

/// The host agents (replicas) and the tensor agents of the GPU path implement each
/// optimiser, and bootstrapped DQN's reward noise, independently (host loops against
/// LibTorch's Adam and SGD and a tensor RMSProp), from the same random draws: they act
/// alike until roundings tip a greedy choice. Measured: dqn parts after 558 (Adam) and
/// 1,002 (RMSProp) steps; the rest agree over all 1,350.
#[test]
fn host_and_tensor_agents_agree_on_every_optimizer() {
    use agents::{ActorCritic, ActorCriticConfig, BootDqn, BootDqnConfig, Dqn, DqnConfig};
    let boot = [
        "num_ensemble=3",
        "noise_scale=1",
        "mask_prob=0.7",
        "batch_size=8",
        "min_replay_size=8",
    ];
    for agent in ["dqn", "boot_dqn", "actor_critic"] {
        for optimizer in ["adam", "sgd", "rmsprop"] {
            let optimizer = format!("optimizer={optimizer}");
            let mut pairs = vec![optimizer.as_str()];
            if agent == "boot_dqn" {
                pairs.extend(boot);
            }
            let config = config(agent, 0, &pairs);
            let (env, setup) = setup("catch/0", config.clone());
            let mut host = (factory::agent(agent).unwrap().make)(&setup);
            let host = train_agent(&mut *host, env, 150);
            let (obs, act) = (&setup.observation_spec, &setup.action_spec);
            let device = agents::Device::Cpu;
            let mut tensor: Box<dyn bsuite_baselines::Agent> = match agent {
                "dqn" => Box::new(Dqn::new(
                    obs,
                    act,
                    DqnConfig::from_config(&config),
                    0,
                    device,
                )),
                "boot_dqn" => Box::new(BootDqn::new(
                    obs,
                    act,
                    BootDqnConfig::from_config(&config),
                    0,
                    device,
                )),
                _ => Box::new(ActorCritic::new(
                    obs,
                    act,
                    ActorCriticConfig::from_config(&config),
                    0,
                    device,
                )),
            };
            let env = "catch/0".parse::<BsuiteId>().unwrap().load().unwrap();
            let tensor = train_agent(&mut *tensor, env, 150);
            let agree = host
                .actions
                .iter()
                .zip(&tensor.actions)
                .take_while(|(a, b)| a == b)
                .count();
            println!("{agent} {optimizer}: the same {agree} actions");
            assert!(
                agree >= 300,
                "{agent} {optimizer}: they part after {agree} steps"
            );
        }
    }
}

/// The recurrent agent's host engine and its LibTorch definition act alike from the same
/// seed (small layers, so that the test stays short; the LSTM's activations differ between
/// the two by an ulp or two, so the runs may part late).
#[test]
fn host_and_tensor_recurrent_agents_agree() {
    use agents::{ActorCriticRnn, ActorCriticRnnConfig};
    let config = config("actor_critic_rnn", 0, &["hidden_sizes=32"]);
    let (env, setup) = setup("catch/0", config.clone());
    let mut host = (factory::agent("actor_critic_rnn").unwrap().make)(&setup);
    let host = train_agent(&mut *host, env, 60);
    let mut tensor = ActorCriticRnn::new(
        &setup.observation_spec,
        &setup.action_spec,
        ActorCriticRnnConfig::from_config(&config),
        0,
        agents::Device::Cpu,
    );
    let env = "catch/0".parse::<BsuiteId>().unwrap().load().unwrap();
    let tensor = train_agent(&mut tensor, env, 60);
    let agree = (host.actions.iter().zip(&tensor.actions))
        .take_while(|(a, b)| a == b)
        .count();
    println!("actor_critic_rnn: the same {agree} actions");
    assert!(agree >= 300, "they part after {agree} steps");
}

/// Reward noise changes bootstrapped DQN's training only when it is on; the tensor agent
/// of the GPU path runs with it too.
#[test]
fn boot_dqn_reward_noise() {
    let pairs = ["num_ensemble=4", "batch_size=32", "min_replay_size=32"];
    let noisy: Vec<&str> = pairs.iter().copied().chain(["noise_scale=1"]).collect();
    let quiet = train_with("catch/0", config("boot_dqn", 3, &pairs), 80);
    let noise = train_with("catch/0", config("boot_dqn", 3, &noisy), 80);
    assert_ne!(quiet.actions, noise.actions);
    let env = "catch/0".parse::<BsuiteId>().unwrap().load().unwrap();
    let boot = agents::BootDqnConfig::from_config(&config("boot_dqn", 3, &noisy));
    let mut agent = agents::BootDqn::new(
        &env.observation_spec(),
        &env.action_spec(),
        boot,
        3,
        agents::Device::Cpu,
    );
    let run = train_agent(&mut agent, env, 40);
    assert!(run.returns.iter().all(|r| r.is_finite()));
}

/// The tensor agents of the GPU path with each optimiser: each runs, and each gives its
/// own run.
#[test]
fn the_tensor_agents_take_every_optimizer() {
    use agents::{ActorCritic, ActorCriticConfig, ActorCriticRnn, ActorCriticRnnConfig};
    use agents::{Dqn, DqnConfig};
    let env = || "catch/0".parse::<BsuiteId>().unwrap().load().unwrap();
    for agent in ["dqn", "actor_critic", "actor_critic_rnn"] {
        let mut runs: Vec<Vec<usize>> = Vec::new();
        for optimizer in ["adam", "sgd", "rmsprop"] {
            let pairs = [format!("optimizer={optimizer}"), "hidden_sizes=32".into()];
            let pairs: Vec<&str> = pairs.iter().map(String::as_str).collect();
            let c = config(agent, 0, &pairs);
            let e = env();
            let (obs, act) = (e.observation_spec(), e.action_spec());
            let device = agents::Device::Cpu;
            let mut agent: Box<dyn bsuite_baselines::Agent> = match agent {
                "dqn" => Box::new(Dqn::new(&obs, &act, DqnConfig::from_config(&c), 0, device)),
                "actor_critic" => Box::new(ActorCritic::new(
                    &obs,
                    &act,
                    ActorCriticConfig::from_config(&c),
                    0,
                    device,
                )),
                _ => Box::new(ActorCriticRnn::new(
                    &obs,
                    &act,
                    ActorCriticRnnConfig::from_config(&c),
                    0,
                    device,
                )),
            };
            let run = train_agent(&mut *agent, e, 40);
            runs.push(run.actions);
        }
        assert_ne!(runs[0], runs[1], "{agent}: adam and sgd");
        assert_ne!(runs[0], runs[2], "{agent}: adam and rmsprop");
        assert_ne!(runs[1], runs[2], "{agent}: sgd and rmsprop");
    }
}

#[test]
fn same_seed_same_csv_other_seed_other_csv() {
    let root = std::env::temp_dir().join(format!("bsuite-tch-repro-{}", std::process::id()));
    let ids: Vec<BsuiteId> = vec!["catch/0".parse().unwrap(), "memory_len/0".parse().unwrap()];
    for agent in ["dqn", "boot_dqn", "actor_critic", "actor_critic_rnn"] {
        let run = |dir: &str, seed: u32| {
            let options = RunnerOptions {
                results_dir: root.join(agent).join(dir),
                jobs: 2,
                seed,
                num_episodes: Some(40),
                ..RunnerOptions::default()
            };
            let entry = factory::agent(agent).unwrap();
            let reports =
                runner::run_ids(&ids, entry, &options, &Progress::default(), &|_| {}).unwrap();
            for report in &reports {
                assert!(matches!(report.outcome, Outcome::Ran { .. }), "{report}");
            }
            ids.iter()
                .map(|id| {
                    let name = bsuite_logging::results::file_name(id);
                    std::fs::read_to_string(options.results_dir.join(name)).unwrap()
                })
                .collect::<Vec<_>>()
        };
        let first = run("a", 7);
        assert_eq!(first, run("b", 7), "{agent}: same seed, different CSVs");
        let other = run("c", 8);
        assert_ne!(
            first[0], other[0],
            "{agent}: seeds 7 and 8 gave the same catch/0 CSV"
        );
    }
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn devices_are_checked() {
    use bsuite_baselines::factory::ComputeDevice;
    assert_eq!(
        agents::check_device(ComputeDevice::Cpu),
        Ok(tch::Device::Cpu)
    );
    if !tch::Cuda::is_available() {
        let err = agents::check_device(ComputeDevice::Cuda(0)).unwrap_err();
        assert!(matches!(err, agents::DeviceError::NoCuda { .. }), "{err}");
        assert!(err.to_string().contains("CUDA is not available"), "{err}");
    }
}

#[test]
fn unknown_agents_are_named() {
    let err = factory::agent("dqm").err().unwrap().to_string();
    assert!(err.contains("unknown agent 'dqm'"), "{err}");
    assert!(err.contains("boot_dqn"), "{err}");
}

/// Ids with every observation size, action count and episode length bsuite has in little:
/// replicas of one batch finish at different times, and some pad more than others.
const MIXED: [&str; 9] = [
    "catch/0",
    "catch/1",
    "bandit_noise/3",
    "deep_sea/2",
    "mnist/0",
    "cartpole/0",
    "memory_size/5",
    "umbrella_distract/4",
    "discounting_chain/1",
];

/// The results files of `dir` by name (temporary files left by a kill are not results).
fn csv_files(dir: &Path) -> BTreeMap<String, String> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|entry| {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            name.ends_with(".csv")
                .then(|| (name, std::fs::read_to_string(&path).unwrap()))
        })
        .collect()
}

/// The rows of a CSV as numbers (a partial file may still render a column as int that
/// the full one renders as float).
fn rows(text: &str) -> Vec<Vec<f64>> {
    text.lines()
        .skip(1)
        .map(|l| l.split(',').map(|c| c.parse().unwrap()).collect())
        .collect()
}

fn run_agent(
    agent: &str,
    config: Option<&AgentConfig>,
    dir: &Path,
    episodes: usize,
    batch_size: usize,
    jobs: usize,
) {
    let ids: Vec<BsuiteId> = MIXED.iter().map(|id| id.parse().unwrap()).collect();
    let options = RunnerOptions {
        results_dir: dir.to_owned(),
        jobs,
        num_episodes: Some(episodes),
        batch_size,
        config: config.cloned(),
        ..RunnerOptions::default()
    };
    let entry = factory::agent(agent).unwrap();
    let reports = runner::run_ids(&ids, entry, &options, &Progress::default(), &|_| {}).unwrap();
    for report in &reports {
        assert!(matches!(report.outcome, Outcome::Ran { .. }), "{report}");
    }
}

#[test]
fn replicas_in_a_batch_compute_what_they_compute_alone() {
    let root = std::env::temp_dir().join(format!("bsuite-tch-batch-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let agents = [
        ("dqn", 60),
        ("boot_dqn", 30),
        ("actor_critic", 60),
        ("actor_critic_rnn", 20),
    ];
    for (agent, episodes) in agents {
        let batches = [(4, 2), (2, 1), (9, 1)];
        assert_batch_independent(agent, None, &root.join(agent), episodes, &batches);
    }
    std::fs::remove_dir_all(&root).unwrap();
}

/// Runs the `MIXED` ids one by one (each id its own agent), then in batches of each
/// `(batch_size, jobs)` of `batches`, and checks that every id's file is the same each time.
fn assert_batch_independent(
    agent: &str,
    config: Option<&AgentConfig>,
    root: &Path,
    episodes: usize,
    batches: &[(usize, usize)],
) {
    let what = config.map_or(agent.to_string(), |c| format!("{agent} {}", c.changed()));
    let alone_dir = root.join("alone");
    run_agent(agent, config, &alone_dir, episodes, 1, 2);
    let alone = csv_files(&alone_dir);
    assert_eq!(alone.len(), MIXED.len());
    for &(batch_size, jobs) in batches {
        let dir = root.join(format!("batch-{batch_size}"));
        run_agent(agent, config, &dir, episodes, batch_size, jobs);
        let batched = csv_files(&dir);
        for (name, text) in &alone {
            assert_eq!(
                batched.get(name),
                Some(text),
                "{what}: {name} differs with batches of {batch_size}"
            );
        }
    }
    let catch = &alone["bsuite_id_-_catch-0.csv"];
    assert!(catch.lines().count() > 10, "{what}: {catch}");
}

#[test]
fn replicas_with_other_configurations_compute_what_they_compute_alone() {
    let root = std::env::temp_dir().join(format!("bsuite-tch-configs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let cases: [(&str, &[&str], usize); 4] = [
        ("dqn", &["optimizer=rmsprop", "hidden_sizes=32,32"], 40),
        (
            "boot_dqn",
            &[
                "optimizer=sgd",
                "learning_rate=0.01",
                "num_ensemble=3",
                "mask_prob=0.5",
                "noise_scale=0.5",
                "batch_size=16",
                "min_replay_size=16",
            ],
            30,
        ),
        (
            "actor_critic",
            &["optimizer=rmsprop", "hidden_sizes=32", "sequence_length=8"],
            40,
        ),
        (
            "actor_critic_rnn",
            &[
                "optimizer=sgd",
                "hidden_sizes=16",
                "lstm_size=16",
                "td_lambda=0.5",
            ],
            20,
        ),
    ];
    for (agent, pairs, episodes) in cases {
        let config = config(agent, 42, pairs);
        let batches = [(4, 2), (9, 1)];
        assert_batch_independent(agent, Some(&config), &root.join(agent), episodes, &batches);
    }
    std::fs::remove_dir_all(&root).unwrap();
}

fn bsuite_run(dir: &Path, extra: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_bsuite-run"));
    cmd.args([
        "dqn",
        "--plain",
        "--jobs",
        "2",
        "--num-episodes",
        "60",
        "--results",
    ])
    .arg(dir)
    .arg("--ids")
    .args(MIXED)
    .args(extra)
    .stdout(Stdio::null())
    .stderr(Stdio::null());
    cmd
}

#[test]
fn killed_and_sharded_dqn_sweeps_end_with_the_files_of_one_run() {
    let root = std::env::temp_dir().join(format!("bsuite-tch-kill-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let whole = root.join("whole");
    assert!(bsuite_run(&whole, &[]).status().unwrap().success());
    let expected = csv_files(&whole);
    assert_eq!(expected.len(), MIXED.len());

    // SIGKILL at moments spread over a run, then resume to the end.
    let killed = root.join("killed");
    let started = Instant::now();
    let mut child = bsuite_run(&killed, &[]).spawn().unwrap();
    assert!(child.wait().unwrap().success());
    let full_run = started.elapsed();
    let _ = std::fs::remove_dir_all(&killed);
    // Each resumed run goes a little further before it is killed again.
    for fraction in [0.3, 0.35, 0.4] {
        let mut child = bsuite_run(&killed, &[]).spawn().unwrap();
        std::thread::sleep(full_run.mul_f64(fraction));
        child.kill().unwrap();
        child.wait().unwrap();
        // Whatever is there is the uninterrupted run's file or its first rows.
        if killed.exists() {
            let files = csv_files(&killed);
            let complete = files
                .iter()
                .filter(|(name, text)| expected[*name] == **text);
            println!(
                "killed at {fraction}: {} files, {} complete",
                files.len(),
                complete.count()
            );
            for (name, text) in files {
                let (ours, whole) = (rows(&text), rows(&expected[&name]));
                assert_eq!(ours[..], whole[..ours.len()], "{name}: not a prefix");
            }
        }
    }
    assert!(bsuite_run(&killed, &[]).status().unwrap().success());
    assert_eq!(csv_files(&killed), expected, "resumed run differs");

    // Three shards as three processes into one directory.
    let sharded = root.join("sharded");
    let children: Vec<_> = (0..3)
        .map(|i| {
            bsuite_run(&sharded, &["--shard", &format!("{i}/3")])
                .spawn()
                .unwrap()
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success());
    }
    assert_eq!(csv_files(&sharded), expected, "sharded run differs");
    std::fs::remove_dir_all(&root).unwrap();
}
