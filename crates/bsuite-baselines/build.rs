//! Records the git revision the crate is built from (for the results manifest) and, with
//! the `libtorch` feature, bakes LibTorch's library directory into this crate's binaries, tests
//! and examples as an rpath, so they run without `LD_LIBRARY_PATH`.

use std::path::Path;
use std::process::Command;

/// The sources the agents' results depend on, relative to this crate: the agents, the
/// environments and the logging, and the locked versions of everything else.
const RESULT_SOURCES: [&str; 4] = [
    ".",
    "../bsuite-envs",
    "../bsuite-logging",
    "../../Cargo.lock",
];

/// `BSUITE_GIT_REVISION` for `env!`-style lookup, when the source is a git checkout: the
/// commit, with `-modified` after it when the files of [`RESULT_SOURCES`] differ from the
/// commit's, since those results are not the commit's. The files, not the index, are what
/// is compiled, so staging is neither here nor there.
fn record_git_revision() {
    let here = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    let git = |args: &[&str]| {
        let output = Command::new("git")
            .args(args)
            .current_dir(&here)
            .output()
            .ok()?;
        output
            .status
            .success()
            .then(|| String::from_utf8_lossy(&output.stdout).trim().to_string())
    };
    let Some(revision) = git(&["rev-parse", "HEAD"]) else {
        return;
    };
    let mut diff = vec!["diff", "--name-only", "HEAD", "--"];
    diff.extend(RESULT_SOURCES);
    let modified = git(&diff).is_some_and(|changes| !changes.is_empty());
    let suffix = if modified { "-modified" } else { "" };
    println!("cargo:rustc-env=BSUITE_GIT_REVISION={revision}{suffix}");
    // Run again when the sources change (an edit makes the build modified, a checkout may
    // make it clean) and when HEAD moves: HEAD itself, and the branch it points at.
    for source in RESULT_SOURCES {
        println!("cargo:rerun-if-changed={source}");
    }
    let mut watched = vec!["HEAD".to_string()];
    watched.extend(git(&["symbolic-ref", "-q", "HEAD"]));
    for name in watched {
        if let Some(path) = git(&["rev-parse", "--git-path", &name]) {
            let path = Path::new(&here).join(path);
            if path.exists() {
                println!("cargo:rerun-if-changed={}", path.display());
            }
        }
    }
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    record_git_revision();
    if std::env::var_os("CARGO_FEATURE_LIBTORCH").is_none() {
        return;
    }
    // torch-sys (`links = "tch"`) publishes the directory it linked against.
    let Ok(lib) = std::env::var("DEP_TCH_LIBTORCH_LIB") else {
        return;
    };
    match std::env::var("CARGO_CFG_TARGET_OS").as_deref() {
        Ok("linux") | Ok("macos") => println!("cargo:rustc-link-arg=-Wl,-rpath,{lib}"),
        _ => {}
    }
    // Nothing references libtorch_cuda directly, so the linker's --as-needed drops it and
    // CUDA stays unregistered. `cargo xtask ... --device cuda` asks to keep it (a CPU-only
    // install has the library but not the CUDA libraries it needs).
    println!("cargo:rerun-if-env-changed=BSUITE_TORCH_CUDA");
    let cuda = std::env::var("BSUITE_TORCH_CUDA").is_ok_and(|v| v == "1");
    if cuda && std::path::Path::new(&lib).join("libtorch_cuda.so").exists() {
        println!("cargo:rustc-link-arg=-Wl,--no-as-needed,-ltorch_cuda,--as-needed");
    }
}
