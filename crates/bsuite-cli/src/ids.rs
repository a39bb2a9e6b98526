//! `bsuite ids`: every bsuite_id with its settings, episodes, tags and specs, as JSON.

use std::io::Write;

use anyhow::Result;
use bsuite_envs::SettingValue;
use serde_json::{json, Map, Value};

/// The registry as the JSON object of `ref_trace.py --all-ids`.
pub fn ids_json() -> Result<Value> {
    let mut all = Map::new();
    for id in bsuite_envs::sweep() {
        let env = id.load()?;
        let settings: Map<String, Value> = id
            .settings()
            .into_iter()
            .map(|(key, value)| {
                let value = match value {
                    SettingValue::Int(v) => json!(v),
                    SettingValue::Float(v) => json!(v),
                    SettingValue::None => Value::Null,
                };
                (key.to_string(), value)
            })
            .collect();
        let obs = env.observation_spec();
        all.insert(
            id.to_string(),
            json!({
                "experiment": id.experiment().name,
                "index": id.index(),
                "settings": settings,
                "num_episodes": id.num_episodes(),
                "tags": id.tags().iter().map(|t| t.as_str()).collect::<Vec<_>>(),
                "num_actions": env.action_spec().num_actions,
                "obs_shape": obs.shape,
                "obs_dtype": obs.dtype,
            }),
        );
    }
    Ok(Value::Object(all))
}

/// Runs `bsuite ids`: the registry's JSON ([`ids_json`]) on standard output.
pub fn run() -> Result<()> {
    let mut out = std::io::BufWriter::new(bsuite_baselines::console::Stdout);
    serde_json::to_writer_pretty(&mut out, &ids_json()?)?;
    writeln!(out)?;
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn ids_match_reference_registry() {
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/ids.json");
        let expected: Value =
            serde_json::from_str(&std::fs::read_to_string(fixture).unwrap()).unwrap();
        let ours = ids_json().unwrap();
        let (Value::Object(expected), Value::Object(ours)) = (expected, ours) else {
            panic!("objects expected")
        };
        assert_eq!(
            ours.keys().collect::<Vec<_>>(),
            expected.keys().collect::<Vec<_>>(),
            "ids or their order differ"
        );
        for (id, want) in &expected {
            assert_eq!(&ours[id], want, "{id}");
        }
    }
}
