//! LibTorch for the agents' LibTorch engine: find it or install it, then build and run
//! tch code against it. The host engines need none of this.
//!
//! xtask itself never links LibTorch. It resolves a LibTorch 2.11.0 directory (the version
//! tch 0.24 is written for) and hands it to cargo as `LIBTORCH` when it builds
//! `bsuite-baselines` with `--features libtorch`; the crate's build script bakes the library
//! directory into the binaries as an rpath, so they run without `LD_LIBRARY_PATH`.
//!
//! Where LibTorch comes from, first match wins:
//! 1. `LIBTORCH`, a directory with `include/` and `lib/` (a LibTorch zip or a `torch`
//!    Python package directory);
//! 2. the project-local install from an earlier run, `.bsuite/torch-cpu` (or `-cuda`);
//! 3. the `torch` package of `python3` or `python` on `PATH`, if it is 2.11.0;
//! 4. a fresh `pip install torch==2.11.0` from PyPI into `.bsuite/torch-cpu`: on Linux
//!    x86_64 without `--device cuda` only the CPU libraries and the two small CUDA runtime
//!    libraries they link (about 550 MB to download, 1.3 GB on disk), otherwise the full
//!    wheel with its CUDA dependencies (about 4.6 GB) into `.bsuite/torch-cuda`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{bail, Context, Result};

/// The LibTorch version tch 0.24 requires, exactly.
pub const TORCH_VERSION: &str = "2.11.0";

/// The two CUDA packages that `libtorch_cpu.so` of the PyPI wheel links to (`libcudart`,
/// `libcupti`), at the versions that torch 2.11.0's `cuda-toolkit==13.0.2` pins.
const CPU_ONLY_EXTRAS: [&str; 2] = [
    "nvidia-cuda-runtime==13.0.96.*",
    "nvidia-cuda-cupti==13.0.85.*",
];

/// A LibTorch installation cargo can build tch against.
#[derive(Clone, Debug)]
pub struct LibTorch {
    /// The directory with `include/` and `lib/`, passed to cargo as `LIBTORCH`.
    pub root: PathBuf,
    /// Where it came from, for messages.
    pub source: String,
}

/// The repository root.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

/// The project-local install directory of the CPU or the CUDA variant.
pub fn local_install_dir(cuda: bool) -> PathBuf {
    let variant = if cuda { "torch-cuda" } else { "torch-cpu" };
    workspace_root().join(".bsuite").join(variant)
}

/// The version of the LibTorch at `root`: `build-version` of a LibTorch zip, or
/// `version.py` of a Python `torch` package. `None` when neither exists.
pub fn libtorch_version(root: &Path) -> Option<String> {
    if let Ok(text) = std::fs::read_to_string(root.join("build-version")) {
        return Some(base_version(text.trim()).to_string());
    }
    let text = std::fs::read_to_string(root.join("version.py")).ok()?;
    text.lines().find_map(|line| {
        let value = line.strip_prefix("__version__")?.trim_start();
        let value = value.strip_prefix('=')?.trim();
        let value = value.trim_matches(|c| c == '\'' || c == '"');
        Some(base_version(value).to_string())
    })
}

/// `2.11.0+cu130` -> `2.11.0`.
fn base_version(version: &str) -> &str {
    version.split_once('+').map_or(version, |(v, _)| v)
}

fn has_libraries(root: &Path) -> bool {
    ["libtorch_cpu.so", "libtorch_cpu.dylib", "torch_cpu.dll"]
        .iter()
        .any(|name| root.join("lib").join(name).exists())
}

/// Checks that `root` holds LibTorch 2.11.0.
fn check_root(root: &Path, what: &str) -> Result<()> {
    if !has_libraries(root) || !root.join("include").is_dir() {
        bail!("{what} is not a LibTorch directory: it needs include/ and lib/libtorch_cpu.so");
    }
    match libtorch_version(root) {
        Some(version) if version == TORCH_VERSION => Ok(()),
        Some(version) => bail!(
            "{what} is LibTorch {version}, but the tch agents (tch 0.24) need exactly \
             LibTorch {TORCH_VERSION}; point LIBTORCH at a {TORCH_VERSION} install, or unset it \
             and xtask installs torch=={TORCH_VERSION} from PyPI into {}",
            local_install_dir(false).display()
        ),
        None => {
            bsuite_baselines::errln!(
                "xtask: warning: cannot tell the version of {what} (no build-version or \
                 version.py); assuming {TORCH_VERSION}"
            );
            Ok(())
        }
    }
}

/// What a Python on `PATH` says about its `torch`.
enum PythonTorch {
    /// No such interpreter.
    Missing,
    /// The interpreter runs but has no usable `torch`.
    NoTorch,
    /// `torch` of this version in this directory.
    Found { version: String, dir: PathBuf },
}

fn python_torch(python: &str) -> PythonTorch {
    let script = "import os, torch; print(torch.__version__); \
                  print(os.path.dirname(torch.__file__))";
    let output = match Command::new(python).args(["-c", script]).output() {
        Ok(output) => output,
        Err(_) => return PythonTorch::Missing,
    };
    if !output.status.success() {
        return PythonTorch::NoTorch;
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let mut lines = text.lines();
    match (lines.next(), lines.next()) {
        (Some(version), Some(dir)) => PythonTorch::Found {
            version: base_version(version.trim()).to_string(),
            dir: PathBuf::from(dir.trim()),
        },
        _ => PythonTorch::NoTorch,
    }
}

fn nvidia_gpu_present() -> bool {
    Path::new("/proc/driver/nvidia/version").exists() || Path::new("/dev/nvidiactl").exists()
}

/// Finds LibTorch 2.11.0, installing it into the project when there is none (see the
/// module docs for the order). `cuda` asks for an install that can run on a GPU.
pub fn provision(cuda: bool) -> Result<LibTorch> {
    if cuda && !nvidia_gpu_present() {
        bail!(
            "--device cuda: no NVIDIA GPU on this machine (no /proc/driver/nvidia/version or \
             /dev/nvidiactl); use --device cpu"
        );
    }
    if let Some(root) = std::env::var_os("LIBTORCH") {
        let root = PathBuf::from(root);
        check_root(&root, &format!("LIBTORCH={}", root.display()))?;
        return Ok(LibTorch {
            root,
            source: "LIBTORCH".into(),
        });
    }
    let local = local_install_dir(cuda).join("torch");
    if local.is_dir() {
        check_root(
            &local,
            &format!("the project-local install {}", local.display()),
        )?;
        return Ok(LibTorch {
            root: local,
            source: "project-local install".into(),
        });
    }

    let mut tried = vec!["LIBTORCH: not set".to_string()];
    let mut pip_python = None;
    for python in ["python3", "python"] {
        match python_torch(python) {
            PythonTorch::Missing => tried.push(format!("{python}: not found on PATH")),
            PythonTorch::NoTorch => {
                tried.push(format!("{python}: no `torch` module"));
                pip_python.get_or_insert(python);
            }
            PythonTorch::Found { version, dir } if version == TORCH_VERSION => {
                if check_root(&dir, &format!("torch of {python} at {}", dir.display())).is_ok() {
                    return Ok(LibTorch {
                        root: dir,
                        source: format!("the torch package of {python}"),
                    });
                }
                tried.push(format!(
                    "{python}: torch {version} at {} lacks include/ or lib/",
                    dir.display()
                ));
                pip_python.get_or_insert(python);
            }
            PythonTorch::Found { version, .. } => {
                tried.push(format!("{python}: torch {version}, not {TORCH_VERSION}"));
                pip_python.get_or_insert(python);
            }
        }
    }

    let how_to_fix = format!(
        "set LIBTORCH to a LibTorch {TORCH_VERSION} directory (with include/ and lib/), or \
         run `pip install torch=={TORCH_VERSION}` for python3 on PATH"
    );
    let Some(python) = pip_python else {
        bail!(
            "no LibTorch {TORCH_VERSION} found and no Python to install it with.\n  tried: {}\n  \
             fix: {how_to_fix}",
            tried.join("; ")
        );
    };
    let dest = local_install_dir(cuda);
    if let Err(err) = pip_install(python, &dest, cuda) {
        tried.push(format!("pip install into {}: {err:#}", dest.display()));
        bail!(
            "could not provision LibTorch {TORCH_VERSION}.\n  tried: {}\n  fix: {how_to_fix}",
            tried.join("; ")
        );
    }
    let root = dest.join("torch");
    check_root(&root, &format!("the fresh install {}", root.display()))?;
    Ok(LibTorch {
        root,
        source: "fresh project-local install".into(),
    })
}

/// Runs `install` into a scratch directory beside `dest` and renames it into place, once,
/// however many processes ask at the same time: the first takes a lock beside `dest` and
/// installs, the others wait for the lock and find `dest` complete. The scratch directory
/// is this process's own, so an install is never deleted by another's start, and one
/// that a kill interrupted is never mistaken for a finished one. Returns whether this
/// process installed.
pub fn install_once(dest: &Path, install: impl FnOnce(&Path) -> Result<()>) -> Result<bool> {
    let parent = dest.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    let lock_path = dest.with_extension("lock");
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .with_context(|| format!("opening {}", lock_path.display()))?;
    lock.lock()
        .with_context(|| format!("locking {}", lock_path.display()))?;
    if dest.is_dir() {
        return Ok(false);
    }
    // Under the lock, scratch directories of earlier installs are those of dead ones.
    let name = dest
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    for entry in std::fs::read_dir(parent)?.flatten() {
        let other = entry.file_name().to_string_lossy().into_owned();
        if other.starts_with(&format!("{name}.partial")) {
            std::fs::remove_dir_all(entry.path()).with_context(|| {
                format!("removing the unfinished install {}", entry.path().display())
            })?;
        }
    }
    let partial = dest.with_extension(format!("partial.{}", std::process::id()));
    std::fs::create_dir_all(&partial).with_context(|| format!("creating {}", partial.display()))?;
    if let Err(error) = install(&partial) {
        let _ = std::fs::remove_dir_all(&partial);
        return Err(error);
    }
    std::fs::rename(&partial, dest)
        .with_context(|| format!("moving {} to {}", partial.display(), dest.display()))?;
    drop(lock);
    Ok(true)
}

/// `pip install --target` into `dest` through [`install_once`].
fn pip_install(python: &str, dest: &Path, cuda: bool) -> Result<()> {
    let lean =
        !cuda && !nvidia_gpu_present() && cfg!(all(target_os = "linux", target_arch = "x86_64"));
    let install = |partial: &Path| -> Result<()> {
        let mut command = Command::new(python);
        command.args([
            "-m",
            "pip",
            "install",
            "--no-input",
            "--disable-pip-version-check",
        ]);
        command.arg("--target").arg(partial);
        if lean {
            bsuite_baselines::errln!(
                "xtask: installing PyTorch {TORCH_VERSION} from PyPI into {}: the CPU \
                 libraries only (about 550 MB to download, 1.3 GB on disk); this takes about \
                 a minute, once",
                dest.display()
            );
            // The wheel's CUDA dependencies are only needed on a GPU; libtorch_cpu links
            // just the CUDA runtime and CUPTI, whose RPATH ($ORIGIN/../../nvidia/cu13/lib)
            // finds them.
            command
                .arg("--no-deps")
                .arg(format!("torch=={TORCH_VERSION}"));
            command.args(CPU_ONLY_EXTRAS);
        } else {
            bsuite_baselines::errln!(
                "xtask: installing PyTorch {TORCH_VERSION} with its CUDA libraries from PyPI \
                 into {} (about 4.6 GB); this takes a few minutes, once",
                dest.display()
            );
            command.arg(format!("torch=={TORCH_VERSION}"));
        }
        let start = Instant::now();
        let status = command
            .status()
            .with_context(|| format!("running {python} -m pip"))?;
        if !status.success() {
            bail!("{python} -m pip install exited with {status}");
        }
        bsuite_baselines::errln!(
            "xtask: installed PyTorch {TORCH_VERSION} in {:.0} s",
            start.elapsed().as_secs_f64()
        );
        Ok(())
    };
    if !install_once(dest, install)? {
        bsuite_baselines::errln!(
            "xtask: another process installed PyTorch {TORCH_VERSION} into {} meanwhile",
            dest.display()
        );
    }
    Ok(())
}

/// A `cargo` command whose tch builds use `libtorch`, linking its CUDA library if `cuda`.
pub fn cargo(libtorch: &LibTorch, cuda: bool) -> Command {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo"));
    let mut command = Command::new(cargo);
    command.env("LIBTORCH", &libtorch.root);
    // torch-sys prefers a Python torch when this is set; ours is already resolved.
    command.env_remove("LIBTORCH_USE_PYTORCH");
    if cuda {
        command.env("BSUITE_TORCH_CUDA", "1");
    } else {
        command.env_remove("BSUITE_TORCH_CUDA");
    }
    command
}

/// Runs `command`, failing with its exit status.
pub fn run_status(mut command: Command, what: &str) -> Result<()> {
    let status = dies_with_xtask(&mut command)
        .status()
        .with_context(|| format!("running {what}"))?;
    if !status.success() {
        bail!("{what} failed ({status})");
    }
    Ok(())
}

/// Makes `command`'s process (and what it `exec`s: `cargo run` becomes the binary it
/// runs) end with a SIGTERM when xtask ends in any way, so that a killed xtask leaves no
/// sweep running that holds its results directory. Where the platform cannot, it is left
/// as it is.
pub fn dies_with_xtask(command: &mut Command) -> &mut Command {
    bsuite_cli::run::dies_with_this_process(command)
}

/// Builds `bin` of bsuite-baselines with `--release` and runs it with `args`. With
/// `libtorch: Some(cuda)`, LibTorch (its CUDA variant if `cuda`) is provisioned first and
/// the build has the `libtorch` feature (its first build compiles LibTorch's C++ bindings:
/// about five minutes on two cores); with `None`, the build has no LibTorch at all.
pub fn run_baselines_bin(bin: &str, args: &[OsString], libtorch: Option<bool>) -> Result<()> {
    let mut command = match libtorch {
        Some(cuda) => {
            let libtorch = provision(cuda)?;
            bsuite_baselines::errln!(
                "xtask: LibTorch {TORCH_VERSION} from {} ({}); building {bin} (--release \
                 --features libtorch)...",
                libtorch.source,
                libtorch.root.display()
            );
            let mut command = cargo(&libtorch, cuda);
            command.args(["run", "--quiet", "--release", "--features", "libtorch"]);
            command
        }
        None => {
            let mut command =
                Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
            command.args(["run", "--quiet", "--release", "--features", "cli"]);
            command
        }
    };
    command
        .arg("--manifest-path")
        .arg(workspace_root().join("Cargo.toml"))
        .args(["--package", "bsuite-baselines", "--bin", bin, "--"])
        .args(args);
    let status = dies_with_xtask(&mut command)
        .status()
        .with_context(|| format!("running cargo run --bin {bin}"))?;
    if !status.success() {
        std::process::exit(status.code().unwrap_or(1));
    }
    Ok(())
}

/// `cargo xtask bench agents [-- ARGS...]`: bsuite-bench-agents, by default dqn and
/// boot_dqn on catch, one by one and batched.
pub fn bench_agents(args: &[OsString]) -> Result<()> {
    run_baselines_bin("bsuite-bench-agents", args, Some(false))
}

/// `cargo xtask libtorch [CARGO ARGS...]`: provision, then print the environment for plain
/// cargo commands, or run `cargo CARGO ARGS...` with it.
pub fn libtorch_command(cuda: bool, cargo_args: &[OsString]) -> Result<()> {
    let libtorch = provision(cuda)?;
    if cargo_args.is_empty() {
        bsuite_baselines::errln!(
            "xtask: LibTorch {TORCH_VERSION} from {}; for plain cargo commands with \
             --features libtorch:",
            libtorch.source
        );
        bsuite_baselines::outln!("export LIBTORCH={}", libtorch.root.display());
        if cuda {
            bsuite_baselines::outln!("export BSUITE_TORCH_CUDA=1");
        }
        return Ok(());
    }
    let mut command = cargo(&libtorch, cuda);
    command.args(cargo_args);
    run_status(command, "cargo")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Finding 6 of issue 30: two first-time tasks provisioning LibTorch at once deleted
    /// each other's `.partial` install. Many at once install once, and all find it whole.
    #[test]
    fn provisioning_at_once_installs_once() {
        let root = std::env::temp_dir().join(format!("xtask-install-once-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let dest = root.join("torch-cpu");
        // What the earlier, killed install left.
        std::fs::create_dir_all(root.join("torch-cpu.partial")).unwrap();
        let installs = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for _ in 0..6 {
                scope.spawn(|| {
                    install_once(&dest, |partial| {
                        installs.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        std::fs::write(partial.join("a"), "1").unwrap();
                        std::thread::sleep(std::time::Duration::from_millis(100));
                        std::fs::write(partial.join("b"), "2").unwrap();
                        Ok(())
                    })
                    .unwrap();
                    // Whoever installed, every caller finds the install whole.
                    assert_eq!(std::fs::read_to_string(dest.join("b")).unwrap(), "2");
                });
            }
        });
        assert_eq!(installs.into_inner(), 1);
        let left: Vec<_> = std::fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains("partial"))
            .collect();
        assert!(left.is_empty(), "{left:?}");
        // A failed install leaves nothing that looks finished.
        let failed = root.join("other");
        assert!(install_once(&failed, |_| bail!("no network")).is_err());
        assert!(!failed.exists());
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn versions_are_read_from_zip_and_wheel_layouts() {
        let dir = std::env::temp_dir().join(format!("xtask-libtorch-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("lib")).unwrap();
        std::fs::create_dir_all(dir.join("include")).unwrap();
        assert_eq!(libtorch_version(&dir), None);
        std::fs::write(
            dir.join("version.py"),
            "from typing import Optional\n__version__ = '2.11.0+cu130'\ngit_version = 'x'\n",
        )
        .unwrap();
        assert_eq!(libtorch_version(&dir).as_deref(), Some("2.11.0"));
        std::fs::write(dir.join("build-version"), "2.5.1+cpu\n").unwrap();
        assert_eq!(libtorch_version(&dir).as_deref(), Some("2.5.1"));

        let err = check_root(&dir, "LIBTORCH=x").unwrap_err().to_string();
        assert!(
            err.contains("LIBTORCH=x is not a LibTorch directory"),
            "{err}"
        );
        std::fs::write(dir.join("lib/libtorch_cpu.so"), "").unwrap();
        let err = check_root(&dir, "LIBTORCH=x").unwrap_err().to_string();
        assert!(
            err.contains(
                "is LibTorch 2.5.1, but the tch agents (tch 0.24) need exactly LibTorch 2.11.0"
            ),
            "{err}"
        );
        std::fs::write(dir.join("build-version"), "2.11.0\n").unwrap();
        check_root(&dir, "LIBTORCH=x").unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
