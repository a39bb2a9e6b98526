//! A write that fails for want of space leaves no temporary file behind: the id fails and
//! says why, and the directory holds only what was complete. The full disk is real enough:
//! a file size limit (`ulimit -f`), under which every write past 512 bytes fails.

mod common;

use std::fs;

use common::scratch;

#[test]
fn a_failed_write_leaves_no_temporary_file() {
    let dir = scratch("full-disk");
    let command = format!(
        "trap '' XFSZ; ulimit -f 1; exec '{}' bench-all random --plain --no-score \
         --ids catch/0 --num-episodes 2000 --results '{}'",
        env!("CARGO_BIN_EXE_xtask"),
        dir.display()
    );
    let out = std::process::Command::new("sh")
        .args(["-c", &command])
        .env("XTASK_NO_REEXEC", "1")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        !out.status.success() && said.contains("File too large"),
        "{said}"
    );
    let left: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
    fs::remove_dir_all(&dir).unwrap();
}
