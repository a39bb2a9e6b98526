//! `cargo xtask trace`: JSON lines of one bsuite_id, in the format of the reference's
//! `ref_trace.py`, so the two can be compared line by line.

use std::io::Write;

use anyhow::{bail, Context, Result};
use bsuite_envs::{BsuiteId, Environment, InfoValue, RandomState, TimeStep};
use bsuite_logging::pyfmt::write_float_repr;

/// Where the actions of a trace come from.
pub enum Actions {
    /// `RandomState(seed).randint(num_actions)`, one draw per step, as `ref_trace.py --seed`.
    Random(u32),
    /// A fixed list, one per step; the trace stops with an error if it runs out.
    List(Vec<usize>),
}

/// Options of one trace.
pub struct TraceOptions {
    /// Episodes to run.
    pub episodes: usize,
    /// Seed for RNGs the reference leaves unseeded; `None` uses our default policy.
    pub env_seed: Option<u32>,
    /// Add `bsuite_info()` to every line.
    pub info: bool,
}

/// Writes the trace of `id` to `out`.
pub fn write_trace(
    id: &BsuiteId,
    options: &TraceOptions,
    actions: Actions,
    out: &mut impl Write,
) -> Result<()> {
    let mut env = match options.env_seed {
        Some(seed) => id.load_with_env_seed(seed),
        None => id.load(),
    }?;
    let num_actions = env.action_spec().num_actions;
    let mut rng = match &actions {
        Actions::Random(seed) => Some(RandomState::new(*seed)),
        Actions::List(_) => None,
    };
    let mut listed = match actions {
        Actions::List(list) => list.into_iter(),
        Actions::Random(_) => Vec::new().into_iter(),
    };
    let mut line = String::with_capacity(1024);
    let mut ts = TimeStep::default();
    let mut t = 0usize;
    for episode in 0..options.episodes {
        env.reset_into(&mut ts);
        let mut action = None;
        loop {
            line.clear();
            format_line(
                &mut line,
                t,
                episode,
                &ts,
                action,
                options.info.then(|| env.bsuite_info()),
            );
            line.push('\n');
            out.write_all(line.as_bytes())?;
            t += 1;
            if ts.last() {
                break;
            }
            let a = match &mut rng {
                Some(rng) => rng.randint(num_actions),
                None => match listed.next() {
                    Some(a) => a,
                    None => bail!("the actions file ran out after {} steps", t - episode - 1),
                },
            };
            env.step_into(a, &mut ts)
                .with_context(|| format!("step {t} of {id}"))?;
            action = Some(a);
        }
    }
    Ok(())
}

fn push_opt_float(line: &mut String, x: Option<f64>) {
    match x {
        Some(x) => write_float_repr(line, x),
        None => line.push_str("null"),
    }
}

fn format_line(
    line: &mut String,
    t: usize,
    episode: usize,
    ts: &TimeStep,
    action: Option<usize>,
    info: Option<bsuite_envs::BsuiteInfo>,
) {
    use std::fmt::Write as _;
    let _ = write!(
        line,
        "{{\"t\":{t},\"episode\":{episode},\"step_type\":{},\"reward\":",
        ts.step_type.code()
    );
    push_opt_float(line, ts.reward);
    line.push_str(",\"discount\":");
    push_opt_float(line, ts.discount);
    line.push_str(",\"obs\":[");
    for (k, &v) in ts.observation.iter().enumerate() {
        if k > 0 {
            line.push(',');
        }
        write_float_repr(line, f64::from(v));
    }
    line.push_str("],\"action\":");
    match action {
        Some(a) => {
            let _ = write!(line, "{a}");
        }
        None => line.push_str("null"),
    }
    if let Some(info) = info {
        line.push_str(",\"info\":{");
        for (k, (key, value)) in info.iter().enumerate() {
            if k > 0 {
                line.push(',');
            }
            let _ = write!(line, "\"{key}\":");
            match value {
                InfoValue::Int(v) => {
                    let _ = write!(line, "{v}");
                }
                InfoValue::Float(v) => write_float_repr(line, *v),
            }
        }
        line.push('}');
    }
    line.push('}');
}

/// Parses an actions file: one non-negative integer per line (blank lines ignored).
pub fn read_actions(path: &std::path::Path) -> Result<Vec<usize>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read actions file {}", path.display()))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(n, l)| {
            l.trim().parse::<usize>().with_context(|| {
                format!(
                    "{}:{}: '{}' is not a non-negative integer action",
                    path.display(),
                    n + 1,
                    l.trim()
                )
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn ours(id: &str, episodes: usize, action_seed: u32, env_seed: u32) -> String {
        let mut out = Vec::new();
        let options = TraceOptions {
            episodes,
            env_seed: Some(env_seed),
            info: true,
        };
        let id = id.parse().unwrap();
        write_trace(&id, &options, Actions::Random(action_seed), &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// The text of `cargo xtask trace` is the reference's (`tools/reference/ref_trace.py`)
    /// byte for byte: the first setting of every experiment hashes to the pinned hash. The
    /// values of every pinned trace are checked by bsuite-envs' `tests/traces.rs`.
    #[test]
    fn trace_text_hashes_to_the_reference() {
        use sha2::{Digest, Sha256};
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../crates/bsuite-envs/tests/fixtures/trace_hashes.tsv");
        let table = std::fs::read_to_string(path).unwrap();
        let mut checked = 0;
        for row in table.lines().skip(1) {
            let c: Vec<&str> = row.split('\t').collect();
            if !c[1].ends_with("/0") || c[2] != "2" {
                continue;
            }
            let text = ours(c[1], 2, c[3].parse().unwrap(), c[4].parse().unwrap());
            let digest = format!("{:x}", Sha256::digest(text.as_bytes()));
            assert_eq!(text.lines().count().to_string(), c[5], "{}: lines", c[1]);
            assert_eq!(
                digest, c[6],
                "{}: the trace text differs from the reference",
                c[1]
            );
            checked += 1;
        }
        assert_eq!(checked, 23);
    }

    #[test]
    fn actions_file_drives_the_trace_and_running_out_is_an_error() {
        let id: BsuiteId = "bandit/0".parse().unwrap();
        let options = TraceOptions {
            episodes: 2,
            env_seed: None,
            info: false,
        };
        let mut out = Vec::new();
        write_trace(&id, &options, Actions::List(vec![3, 9]), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.lines().nth(1).unwrap().contains("\"reward\":1.0"));
        assert!(text.lines().nth(3).unwrap().contains("\"reward\":0.0"));
        let err = write_trace(&id, &options, Actions::List(vec![3]), &mut Vec::new()).unwrap_err();
        assert!(err.to_string().contains("ran out"), "{err}");
        let err = write_trace(&id, &options, Actions::List(vec![11]), &mut Vec::new()).unwrap_err();
        assert!(format!("{err:#}").contains("0..=10"), "{err:#}");
    }
}
