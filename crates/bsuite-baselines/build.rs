//! Records the git revision the crate is built from (for the results manifest) and, with
//! the `libtorch` feature, bakes LibTorch's library directory into this crate's binaries, tests
//! and examples as an rpath, so they run without `LD_LIBRARY_PATH`.

use std::path::Path;
use std::process::Command;

/// `BSUITE_GIT_REVISION` for `env!`-style lookup, when the source is a git checkout.
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
    println!("cargo:rustc-env=BSUITE_GIT_REVISION={revision}");
    // Rebuild when HEAD moves: HEAD itself, and the branch it points at.
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
