//! Single-seed reports keep their look: the bytes of every file of a one-agent and a
//! two-agent report on the random-agent fixtures are pinned as one hash per file in
//! `tests/fixtures/single_seed_report.txt` (last blessed for the print layout of issue 54:
//! figures drawn at their printed size, the score grid, the split tables). Any path of the
//! fixtures is written as `FIXTURES`, so that the pins hold wherever the checkout is, though
//! a report should name none. `BSUITE_BLESS=1` rewrites the pins, for a change that means to
//! alter the single-seed look.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use bsuite_analysis::AgentResults;
use bsuite_report::Options;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/random_results")
}

fn pins() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/single_seed_report.txt")
}

/// FNV-1a, 64 bits: enough to tell a changed file, and no dependency for it.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// `relative path  hash  length` for every file under `dir`, sorted.
fn listing(dir: &Path, prefix: &str, out: &mut Vec<String>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            listing(&path, &format!("{prefix}{name}/"), out);
        } else {
            // The HTML names the results' directory, which is wherever the checkout is.
            let bytes = replace(
                &fs::read(&path).unwrap(),
                fixtures().display().to_string().as_bytes(),
                b"FIXTURES",
            );
            out.push(format!(
                "{prefix}{name} {:016x} {}",
                fnv1a(&bytes),
                bytes.len()
            ));
        }
    }
}

fn replace(bytes: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut rest = bytes;
    while !rest.is_empty() {
        if rest.starts_with(from) {
            out.extend_from_slice(to);
            rest = &rest[from.len()..];
        } else {
            out.push(rest[0]);
            rest = &rest[1..];
        }
    }
    out
}

fn report(label: &str, names: &[&str]) -> Vec<String> {
    let out = std::env::temp_dir().join(format!(
        "bsuite-report-single-seed-{}-{label}",
        std::process::id()
    ));
    let _ = fs::remove_dir_all(&out);
    let agents: Vec<AgentResults> = names
        .iter()
        .map(|name| AgentResults::load(*name, &fixtures()).unwrap())
        .collect();
    bsuite_report::write(&agents, &out, &Options::default()).unwrap();
    let mut lines = Vec::new();
    listing(&out, &format!("{label}/"), &mut lines);
    lines.sort();
    fs::remove_dir_all(&out).unwrap();
    lines
}

#[test]
fn single_seed_reports_are_byte_identical_to_the_pinned_build() {
    let mut lines = report("one", &["random"]);
    lines.extend(report("two", &["random", "random_again"]));
    let mut text = String::new();
    for line in &lines {
        writeln!(text, "{line}").unwrap();
    }
    if std::env::var_os("BSUITE_BLESS").is_some() {
        fs::write(pins(), &text).unwrap();
        return;
    }
    let pinned = fs::read_to_string(pins()).unwrap();
    let changed: Vec<&str> = text
        .lines()
        .filter(|line| !pinned.lines().any(|p| p == *line))
        .collect();
    let gone: Vec<&str> = pinned
        .lines()
        .filter(|line| !text.lines().any(|p| p == *line))
        .collect();
    assert!(
        changed.is_empty() && gone.is_empty(),
        "the single-seed report changed:\nnow {changed:#?}\npinned {gone:#?}"
    );
}
