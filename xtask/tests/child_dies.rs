//! A killed xtask leaves nothing running: the processes it starts for the work (the
//! optimised xtask, `bsuite-run` through `cargo run`) end with it, so none goes on holding
//! the results directory's lock. Real processes: xtask's child here is a stand-in for
//! cargo (`CARGO`) that records its pid and then waits, as a long sweep would.

mod common;

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::scratch;

/// Whether process `pid` still runs (a zombie awaiting its reaper does not).
fn running(pid: &str) -> bool {
    fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        !stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .starts_with('Z')
    })
}

fn wait_for(what: &str, mut done: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while !done() {
        if start.elapsed() > Duration::from_secs(20) {
            eprintln!("gave up waiting for {what}");
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}

#[test]
fn a_killed_xtask_takes_its_child_with_it() {
    let dir = scratch("child-dies");
    fs::create_dir_all(&dir).unwrap();
    let pid_file = dir.join("child.pid");
    let cargo = dir.join("cargo");
    fs::write(
        &cargo,
        format!(
            "#!/bin/sh\necho $$ > {}\nexec sleep 600\n",
            pid_file.display()
        ),
    )
    .unwrap();
    let made = Command::new("chmod")
        .arg("+x")
        .arg(&cargo)
        .status()
        .unwrap();
    assert!(made.success());
    for signal in ["TERM", "KILL"] {
        let _ = fs::remove_file(&pid_file);
        // Without XTASK_NO_REEXEC, so that xtask starts "cargo run --release".
        let mut xtask = Command::new(env!("CARGO_BIN_EXE_xtask"))
            .args(["bench-all", "random", "--ids", "catch/0", "--results"])
            .arg(dir.join("results"))
            .env("CARGO", &cargo)
            .env_remove("XTASK_NO_REEXEC")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let read_pid = || {
            fs::read_to_string(&pid_file)
                .ok()
                .filter(|p| p.ends_with('\n'))
        };
        assert!(wait_for("the child", || read_pid().is_some()));
        let child = read_pid().unwrap().trim().to_string();
        assert!(running(&child));
        let sent = Command::new("kill")
            .args([format!("-{signal}"), xtask.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        xtask.wait().unwrap();
        let ended = wait_for("the child's end", || !running(&child));
        if !ended {
            let _ = Command::new("kill").arg(&child).status();
        }
        assert!(ended, "SIG{signal} to xtask left its child {child} running");
    }
    fs::remove_dir_all(Path::new(&dir)).unwrap();
}
