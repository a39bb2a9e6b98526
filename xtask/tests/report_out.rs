//! A report never clobbers what it did not write: `bench-all` then `report` into a
//! directory holding the user's own `index.html` leaves it untouched and says so; a
//! directory that cannot be made is named once, with the operation.

mod common;

use std::fs;

use common::run as xtask;

#[test]
fn a_users_own_files_survive_a_report() {
    let root = common::scratch("report-out");
    let (results, out) = (root.join("results"), root.join("site"));
    let ran = xtask(&[
        "bench-all",
        "random",
        "--no-score",
        "--ids",
        "bandit/0",
        "--results",
        results.to_str().unwrap(),
    ]);
    assert!(ran.status.success());
    fs::create_dir_all(&out).unwrap();
    fs::write(out.join("index.html"), "my own page").unwrap();
    let report = |extra: &[&str]| {
        let mut args = vec!["report", "--results", results.to_str().unwrap()];
        args.extend(["--out", out.to_str().unwrap()]);
        args.extend(extra);
        xtask(&args)
    };
    let refused = report(&[]);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "{stderr}");
    assert!(
        stderr.contains("index.html") && stderr.contains("--overwrite"),
        "{stderr}"
    );
    assert_eq!(
        fs::read_to_string(out.join("index.html")).unwrap(),
        "my own page"
    );

    let unwritable = xtask(&[
        "report",
        "--results",
        results.to_str().unwrap(),
        "--out",
        "/proc/bsuite-report",
    ]);
    let stderr = String::from_utf8_lossy(&unwritable.stderr);
    assert!(!unwritable.status.success());
    assert!(
        stderr.contains("creating the directory /proc/bsuite-report"),
        "{stderr}"
    );
    assert_eq!(
        stderr.matches("os error").count(),
        1,
        "the cause once: {stderr}"
    );
    // A malformed results file stops a report, naming it, unless --lenient (as `score`).
    fs::write(
        results.join("bsuite_id_-_catch-0.csv"),
        "steps,episode\n1,x\n",
    )
    .unwrap();
    fs::remove_file(out.join("index.html")).unwrap();
    let strict = report(&[]);
    let stderr = String::from_utf8_lossy(&strict.stderr);
    assert!(!strict.status.success(), "{stderr}");
    assert!(
        stderr.contains("catch-0.csv") && stderr.contains("--lenient"),
        "{stderr}"
    );
    let lenient = report(&["--lenient"]);
    let stderr = String::from_utf8_lossy(&lenient.stderr);
    assert!(lenient.status.success(), "{stderr}");
    assert!(
        stderr.contains("warning") && stderr.contains("catch-0.csv"),
        "{stderr}"
    );

    fs::remove_dir_all(&root).unwrap();
}
