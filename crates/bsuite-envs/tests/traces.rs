//! Conformance with bsuite 0.3.6: every pinned reference trace is replayed and compared
//! timestep by timestep, bit for bit.
//!
//! The fixtures in `tests/fixtures/` were written by the reference harness
//! (`tools/reference/ref_trace.py ID --episodes E --seed S --env-seed N --info`): one JSON
//! line per timestep, resets included, with the action stream drawn from numpy's
//! `RandomState(S).randint(num_actions)` and the RNGs bsuite leaves unseeded seeded with `N`.
//!
//! - `traces/`: 32 ids (`MANIFEST.tsv`), action seed 0, env seed 0.
//! - `traces_extra/`: the last setting of every experiment, 2 episodes, action seed 7, env
//!   seed 3.
//! - `trace_hashes.tsv`: all 468 ids (2 episodes, seeds 7 and 3) and 13 long runs (40
//!   episodes, seeds 11 and 5), as the line count and SHA-256 of the reference's text.
//!
//! The full traces are compared as parsed values: every float's bits (so `-0.0` is not
//! `0.0`), integers as integers, the info keys in order. The hashed ones need the text
//! itself, so this file writes timesteps as the reference does (Python's float `repr`,
//! compact JSON); `cargo xtask trace ID` prints the same text for any id.

use std::io::Read;
use std::path::{Path, PathBuf};

use bsuite_envs::{BsuiteId, InfoValue, RandomState, TimeStep};
use serde_json::Value;
use sha2::{Digest, Sha256};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn read_gz(path: &Path) -> String {
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_string(&mut text)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text
}

/// One timestep of a trace, as the reference writes it.
struct Step<'a> {
    t: usize,
    episode: usize,
    ts: &'a TimeStep,
    action: Option<usize>,
    info: bsuite_envs::BsuiteInfo,
}

/// Runs `episodes` episodes of `id` as the reference's trace does and hands every timestep
/// (resets included) to `visit`.
fn replay(id: &str, episodes: usize, action_seed: u32, env_seed: u32, mut visit: impl FnMut(Step)) {
    let id: BsuiteId = id.parse().unwrap();
    let mut env = id.load_with_env_seed(env_seed).unwrap();
    let num_actions = env.action_spec().num_actions;
    let mut rng = RandomState::new(action_seed);
    let mut ts = TimeStep::default();
    let mut t = 0;
    for episode in 0..episodes {
        env.reset_into(&mut ts);
        let mut action = None;
        loop {
            let info = env.bsuite_info();
            visit(Step {
                t,
                episode,
                ts: &ts,
                action,
                info,
            });
            t += 1;
            if ts.last() {
                break;
            }
            let a = rng.randint(num_actions);
            env.step_into(a, &mut ts).unwrap();
            action = Some(a);
        }
    }
}

/// The bits of a JSON float; an error for anything else (an integer included).
fn float_bits(v: &Value, what: &str) -> Result<u64, String> {
    match v {
        Value::Number(n) if n.is_f64() => Ok(n.as_f64().unwrap().to_bits()),
        _ => Err(format!("{what}: the reference has {v}, not a float")),
    }
}

fn opt_float_bits(v: &Value, what: &str) -> Result<Option<u64>, String> {
    if v.is_null() {
        Ok(None)
    } else {
        float_bits(v, what).map(Some)
    }
}

/// Compares one of our timesteps with a reference line; returns the first difference.
fn compare(step: &Step, line: &str) -> Result<(), String> {
    let r: Value = serde_json::from_str(line).map_err(|e| format!("bad JSON: {e}"))?;
    let int = |key: &str| r[key].as_u64().ok_or(format!("{key}: not an integer"));
    let check = |ok: bool, what: &str, ours: String, theirs: String| {
        if ok {
            Ok(())
        } else {
            Err(format!("{what}: ours {ours}, reference {theirs}"))
        }
    };
    let obj = r.as_object().ok_or("not an object")?;
    let keys: Vec<&str> = obj.keys().map(String::as_str).collect();
    check(
        keys == [
            "t",
            "episode",
            "step_type",
            "reward",
            "discount",
            "obs",
            "action",
            "info",
        ],
        "keys",
        "t,episode,step_type,reward,discount,obs,action,info".into(),
        keys.join(","),
    )?;
    check(
        int("t")? == step.t as u64,
        "t",
        step.t.to_string(),
        r["t"].to_string(),
    )?;
    check(
        int("episode")? == step.episode as u64,
        "episode",
        step.episode.to_string(),
        r["episode"].to_string(),
    )?;
    let code = step.ts.step_type.code();
    check(
        int("step_type")? == u64::from(code),
        "step_type",
        code.to_string(),
        r["step_type"].to_string(),
    )?;
    for (key, ours) in [("reward", step.ts.reward), ("discount", step.ts.discount)] {
        check(
            opt_float_bits(&r[key], key)? == ours.map(f64::to_bits),
            key,
            format!("{ours:?}"),
            r[key].to_string(),
        )?;
    }
    let obs = r["obs"].as_array().ok_or("obs: not an array")?;
    check(
        obs.len() == step.ts.observation.len(),
        "obs length",
        step.ts.observation.len().to_string(),
        obs.len().to_string(),
    )?;
    for (k, (&ours, theirs)) in step.ts.observation.iter().zip(obs).enumerate() {
        let ours = f64::from(ours);
        check(
            float_bits(theirs, "obs")? == ours.to_bits(),
            &format!("obs[{k}]"),
            format!("{ours:?}"),
            theirs.to_string(),
        )?;
    }
    let action = r["action"].as_u64().map(|a| a as usize);
    check(
        action == step.action && (action.is_some() || r["action"].is_null()),
        "action",
        format!("{:?}", step.action),
        r["action"].to_string(),
    )?;
    let info = r["info"].as_object().ok_or("info: not an object")?;
    let their_keys: Vec<&str> = info.keys().map(String::as_str).collect();
    let our_keys: Vec<&str> = step.info.iter().map(|(k, _)| *k).collect();
    check(
        our_keys == their_keys,
        "info keys",
        our_keys.join(","),
        their_keys.join(","),
    )?;
    for (key, value) in &step.info {
        let theirs = &info[*key];
        let same = match value {
            InfoValue::Int(v) => theirs.as_i64() == Some(*v) && !theirs.is_f64(),
            InfoValue::Float(v) => float_bits(theirs, key)? == v.to_bits(),
        };
        check(
            same,
            &format!("info.{key}"),
            value.to_string(),
            theirs.to_string(),
        )?;
    }
    Ok(())
}

/// Replays `id` and compares it with the reference's full trace `expected`.
fn assert_same_trace(id: &str, episodes: usize, action_seed: u32, env_seed: u32, expected: &str) {
    let lines: Vec<&str> = expected.lines().collect();
    let mut n = 0;
    replay(id, episodes, action_seed, env_seed, |step| {
        let Some(line) = lines.get(n) else {
            panic!("{id}: the reference trace ends after {n} lines, ours goes on");
        };
        if let Err(e) = compare(&step, line) {
            panic!("{id} line {n} (t {}): {e}\n ref {line}", step.t);
        }
        n += 1;
    });
    assert_eq!(n, lines.len(), "{id}: number of lines");
}

/// Every trace of `traces/MANIFEST.tsv` (action seed 0, env seed 0).
#[test]
fn reproduces_every_pinned_trace() {
    let dir = fixtures().join("traces");
    let manifest = std::fs::read_to_string(dir.join("MANIFEST.tsv")).unwrap();
    let mut checked = 0;
    for row in manifest.lines().skip(1) {
        let cols: Vec<&str> = row.split('\t').collect();
        let (file, id, episodes) = (cols[0], cols[1], cols[2].parse().unwrap());
        let expected = read_gz(&dir.join(format!("{file}.gz")));
        assert_same_trace(id, episodes, 0, 0, &expected);
        checked += 1;
    }
    assert_eq!(checked, 32);
    let files = std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(
        files,
        checked + 1,
        "a trace in {} is not in its MANIFEST",
        dir.display()
    );
}

/// The last setting of every experiment, with other action and env seeds.
#[test]
fn reproduces_the_pinned_traces_of_last_settings_with_other_seeds() {
    let dir = fixtures().join("traces_extra");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap();
        let (exp, index) = name.trim_end_matches(".jsonl.gz").rsplit_once('_').unwrap();
        let id = format!("{exp}/{index}");
        assert_same_trace(&id, 2, 7, 3, &read_gz(&path));
        checked += 1;
    }
    assert_eq!(checked, 23);
}

/// All 468 ids and 13 long runs: our trace text hashes to the reference's, byte for byte.
#[test]
fn trace_text_of_all_ids_hashes_to_the_reference() {
    let table = std::fs::read_to_string(fixtures().join("trace_hashes.tsv")).unwrap();
    let mut mismatches = Vec::new();
    let mut checked = 0;
    let mut line = String::new();
    for row in table.lines().skip(1) {
        let c: Vec<&str> = row.split('\t').collect();
        let (id, episodes, seed, env_seed) = (
            c[1],
            c[2].parse().unwrap(),
            c[3].parse().unwrap(),
            c[4].parse().unwrap(),
        );
        let mut hasher = Sha256::new();
        let mut lines = 0;
        replay(id, episodes, seed, env_seed, |step| {
            line.clear();
            write_line(&mut line, &step);
            hasher.update(line.as_bytes());
            lines += 1;
        });
        let digest = format!("{:x}", hasher.finalize());
        if digest != c[6] || lines.to_string() != c[5] {
            mismatches.push(format!(
                "{id} (episodes {episodes}, seed {seed}, env seed {env_seed})"
            ));
        }
        checked += 1;
    }
    assert_eq!(checked, 481);
    assert!(
        mismatches.is_empty(),
        "traces differ from the reference: {mismatches:?}"
    );
}

/// One line of the reference's trace text: compact JSON, floats as Python's `repr`.
fn write_line(line: &mut String, step: &Step) {
    use std::fmt::Write as _;
    let ts = step.ts;
    let _ = write!(
        line,
        "{{\"t\":{},\"episode\":{},\"step_type\":{},\"reward\":",
        step.t,
        step.episode,
        ts.step_type.code()
    );
    push_opt_repr(line, ts.reward);
    line.push_str(",\"discount\":");
    push_opt_repr(line, ts.discount);
    line.push_str(",\"obs\":[");
    for (k, &v) in ts.observation.iter().enumerate() {
        if k > 0 {
            line.push(',');
        }
        push_repr(line, f64::from(v));
    }
    line.push_str("],\"action\":");
    match step.action {
        Some(a) => {
            let _ = write!(line, "{a}");
        }
        None => line.push_str("null"),
    }
    line.push_str(",\"info\":{");
    for (k, (key, value)) in step.info.iter().enumerate() {
        if k > 0 {
            line.push(',');
        }
        let _ = write!(line, "\"{key}\":");
        match value {
            InfoValue::Int(v) => {
                let _ = write!(line, "{v}");
            }
            InfoValue::Float(v) => push_repr(line, *v),
        }
    }
    line.push_str("}}\n");
}

fn push_opt_repr(line: &mut String, x: Option<f64>) {
    match x {
        Some(x) => push_repr(line, x),
        None => line.push_str("null"),
    }
}

/// Python's `repr` of a finite float: the shortest digits that round-trip (the nearest such
/// string, ties to even), in fixed notation for exponents -4..16, else as `1e-05`, `1.5e+16`.
fn push_repr(out: &mut String, x: f64) {
    assert!(x.is_finite(), "{x} in a trace");
    if x == 0.0 {
        out.push_str(if x.is_sign_negative() { "-0.0" } else { "0.0" });
        return;
    }
    // `{:e}` gives the shortest digit count; Rust's precision formatting rounds x exactly
    // (half to even), so re-rounding to that count yields Python's choice among the
    // shortest strings when it still round-trips.
    let shortest = format!("{:e}", x.abs());
    let count = shortest.split_once('e').unwrap().0.replace('.', "").len();
    let nearest = format!("{:.*e}", count - 1, x.abs());
    let sci = if nearest.parse::<f64>() == Ok(x.abs()) {
        nearest
    } else {
        shortest
    };
    let (mantissa, exp) = sci.split_once('e').unwrap();
    let exp: i32 = exp.parse().unwrap();
    let digits = mantissa.replace('.', "");
    if x < 0.0 {
        out.push('-');
    }
    if (-4..16).contains(&exp) {
        if exp < 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat('0').take((-exp - 1) as usize));
            out.push_str(&digits);
        } else {
            let int_len = exp as usize + 1;
            if digits.len() <= int_len {
                out.push_str(&digits);
                out.extend(std::iter::repeat('0').take(int_len - digits.len()));
                out.push_str(".0");
            } else {
                out.push_str(&digits[..int_len]);
                out.push('.');
                out.push_str(&digits[int_len..]);
            }
        }
    } else {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let sign = if exp < 0 { '-' } else { '+' };
        out.push_str(&format!("e{sign}{:02}", exp.abs()));
    }
}

#[test]
fn repr_matches_python() {
    for (x, text) in [
        (0.1, "0.1"),
        (-0.0, "-0.0"),
        (1.0, "1.0"),
        (0.30000000000000004, "0.30000000000000004"),
        (1e-5, "1e-05"),
        (0.0001, "0.0001"),
        (-0.007000000000000003, "-0.007000000000000003"),
        (1e16, "1e+16"),
        (1.5e16, "1.5e+16"),
        (123456789012345.6, "123456789012345.6"),
        (2.5e-7, "2.5e-07"),
        (f64::from(-1.0f32 / 255.0), "-0.003921568859368563"),
    ] {
        let mut s = String::new();
        push_repr(&mut s, x);
        assert_eq!(s, text);
    }
}
