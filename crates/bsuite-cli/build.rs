//! Embeds the repository's shipped baselines (`baselines/<name>.tar.gz`) in the library, so
//! that an installed `bsuite` (and the Python wheel's) reports beside them with no checkout.
//! A build without that directory (a packaged crate) embeds none and says so; its
//! `--baselines` then needs `--baselines-dir`.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it");
    let dir = Path::new(&manifest_dir).join("../../baselines");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut archives: Vec<(String, std::path::PathBuf)> = Vec::new();
    match std::fs::read_dir(&dir) {
        Ok(entries) => {
            for entry in entries {
                let path = entry.expect("reading baselines/").path();
                let file = path.file_name().unwrap_or_default().to_string_lossy();
                if let Some(name) = file.strip_suffix(".tar.gz") {
                    archives.push((name.to_string(), path.clone()));
                }
            }
        }
        Err(_) => println!(
            "cargo:warning=no {} to embed: this bsuite's --baselines needs --baselines-dir",
            dir.display()
        ),
    }
    archives.sort();
    let mut code = String::from("&[\n");
    for (name, path) in &archives {
        println!("cargo:rerun-if-changed={}", path.display());
        let bytes = std::fs::read(path).expect("reading a baseline");
        let path = path.canonicalize().expect("the baseline exists");
        let _ = writeln!(
            code,
            "    Embedded {{ name: {name:?}, bytes: include_bytes!({:?}), hash: {:#018x} }},",
            path.to_string_lossy(),
            fnv1a(&bytes)
        );
    }
    code.push_str("]\n");
    let out = Path::new(&std::env::var("OUT_DIR").expect("cargo sets it")).join("embedded.rs");
    std::fs::write(out, code).expect("writing embedded.rs");
}

/// FNV-1a, 64 bits: what tells one build's archive from another's in the unpacked copy's
/// stamp (not a defence against anyone).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}
