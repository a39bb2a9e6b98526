//! Resume verifies, not trusts: a results file that the strict reader rejects (a `nan`,
//! episodes going back, a duplicated row, an extra cell, a missing cell, a cut at any byte)
//! is reported by name, kept as `*.corrupt`, and its id rerun from the start to the same
//! file an uninterrupted run writes.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

fn bench_all(dir: &Path) -> Output {
    let results = dir.to_str().unwrap();
    let args = [
        "bench-all",
        "random",
        "--plain",
        "--no-score",
        "--ids",
        "catch/0",
    ];
    common::run(&[&args[..], &["--results", results]].concat())
}

fn corrupt_files(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains(".corrupt"))
        .collect();
    found.sort();
    found
}

#[test]
fn damaged_results_are_kept_aside_and_rerun() {
    let dir = common::scratch("damaged");
    assert!(bench_all(&dir).status.success());
    let file = dir.join("bsuite_id_-_catch-0.csv");
    let good = fs::read_to_string(&file).unwrap();
    let lines: Vec<&str> = good.lines().collect();
    let rows = lines.len() - 1;
    assert!(rows > 10, "enough rows to damage");
    let with_lines = |edit: &dyn Fn(&mut Vec<String>)| {
        let mut lines: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        edit(&mut lines);
        lines.join("\n") + "\n"
    };
    let middle = rows / 2;
    let mut damaged = vec![
        (
            "nan",
            with_lines(&|l| {
                let mut cells: Vec<String> = l[middle].split(',').map(String::from).collect();
                cells[2] = "nan".into();
                l[middle] = cells.join(",");
            }),
        ),
        (
            "episodes going back",
            with_lines(&|l| l.swap(middle, middle + 1)),
        ),
        (
            "a duplicated row",
            with_lines(&|l| l.insert(middle, l[middle].clone())),
        ),
        ("an extra cell", with_lines(&|l| l[middle].push_str(",7"))),
        (
            "a missing cell",
            with_lines(&|l| {
                let last = l.len() - 1;
                let cut = l[last].rfind(',').unwrap();
                l[last].truncate(cut);
            }),
        ),
    ];
    for at in [good.len() / 3, good.len() / 2, good.len() - 2] {
        damaged.push(("a cut", good[..at].to_string()));
    }
    for (what, text) in damaged {
        for old in corrupt_files(&dir) {
            fs::remove_file(old).unwrap();
        }
        fs::write(&file, &text).unwrap();
        let rerun = bench_all(&dir);
        let stdout = String::from_utf8_lossy(&rerun.stdout).into_owned();
        assert!(rerun.status.success(), "{what}: {stdout}");
        assert_eq!(
            fs::read_to_string(&file).unwrap(),
            good,
            "{what}: rerun to the same file"
        );
        let kept = corrupt_files(&dir);
        let short_but_sound = text.ends_with('\n') && what == "a cut";
        if short_but_sound {
            assert!(
                kept.is_empty(),
                "{what}: a sound partial file is replaced, not kept"
            );
        } else {
            assert_eq!(kept.len(), 1, "{what}: {stdout}");
            assert_eq!(
                fs::read_to_string(&kept[0]).unwrap(),
                text,
                "{what}: kept as it was"
            );
            assert!(
                stdout.contains("bsuite_id_-_catch-0.csv") && stdout.contains("damaged"),
                "{what}: {stdout}"
            );
        }
    }
    fs::remove_dir_all(&dir).unwrap();
}
