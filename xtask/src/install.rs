//! `cargo xtask install --prefix DIR`: the `bsuite` command, and LibTorch where it needs
//! it, as a tree that runs anywhere it is moved, so that cluster tasks run binaries, not
//! cargo.
//!
//! The tree:
//! - `bin/bsuite`: the user's commands (`bsuite run AGENT ... --shard auto`, `merge`,
//!   `verify`, `score`, `report`), the shipped baselines built in; what `cargo install
//!   --path crates/bsuite-cli` installs;
//! - with `--cuda`, `bin/bsuite-run` built with LibTorch, which `bsuite run --engine
//!   libtorch` and `--device cuda` run, and `lib/torch/lib/` and `lib/nvidia/`: LibTorch's
//!   libraries, found by `bsuite-run` through a run path relative to itself
//!   (`$ORIGIN/../lib/torch/lib`), never the build checkout's path; LibTorch's own run path
//!   (`$ORIGIN/../../nvidia/...`) finds the CUDA runtime beside it.
//!
//! The features the tree is built with are [`features`]'s, in one place: only
//! `--cuda` builds LibTorch in, since the host engines need none of it.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use clap::Args;

use crate::libtorch;

/// Arguments of `cargo xtask install`.
#[derive(Args, Debug)]
pub struct InstallArgs {
    /// Where the tree goes (created; an earlier install there is replaced file by file).
    #[arg(long, value_name = "DIR")]
    pub prefix: PathBuf,
    /// Install the CUDA variant of LibTorch, for `--device cuda`.
    #[arg(long)]
    pub cuda: bool,
}

/// The cargo features of the installed `bsuite-run`, where the tree has one. The one place
/// that says so: the host engines need no LibTorch, and `bsuite` runs them itself, so only
/// `--cuda` (for `--device cuda`) installs a `bsuite-run`, with the LibTorch engine built
/// in and LibTorch carried in the tree.
pub fn features(cuda: bool) -> Option<&'static [&'static str]> {
    cuda.then_some(&["libtorch"])
}

/// The directory of a LibTorch install the installed `bsuite-run` finds its libraries in,
/// relative to the binary.
const RUNPATH: &str = "$ORIGIN/../lib/torch/lib";

/// Runs `cargo xtask install`.
pub fn run(args: &InstallArgs) -> Result<()> {
    let features = features(args.cuda);
    let torch = match features {
        Some(_) => Some(libtorch::provision(args.cuda)?),
        None => None,
    };
    let root = libtorch::workspace_root();
    let manifest = root.join("Cargo.toml");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    if let (Some(features), Some(torch)) = (features, &torch) {
        let mut build = libtorch::cargo(torch, args.cuda);
        build
            .args(["build", "--release", "--manifest-path"])
            .arg(&manifest)
            .args(["-p", "bsuite-baselines", "--bin", "bsuite-run"])
            .args(["--features", &features.join(",")]);
        bsuite_baselines::errln!("xtask: building bsuite-run (--release, features {features:?})");
        libtorch::run_status(build, "cargo build bsuite-run")?;
    }
    // As `cargo install --locked --path crates/bsuite-cli` builds it.
    let mut command = Command::new(&cargo);
    command
        .args(["build", "--release", "--locked", "--manifest-path"])
        .arg(&manifest)
        .args(["-p", "bsuite-cli", "--bin", "bsuite"]);
    bsuite_baselines::errln!("xtask: building bsuite (--release)");
    libtorch::run_status(command, "cargo build bsuite")?;

    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| root.join("target"), PathBuf::from)
        .join("release");
    let prefix = &args.prefix;
    let bin = prefix.join("bin");
    fs::create_dir_all(&bin).with_context(|| format!("creating {}", bin.display()))?;
    let bsuite = bin.join(format!("bsuite{}", std::env::consts::EXE_SUFFIX));
    install_file(&target.join("bsuite"), &bsuite, |_| Ok(()))?;
    // An earlier tree's programs that this one replaces.
    let _ = fs::remove_file(bin.join("bsuite-xtask"));
    if let Some(torch) = &torch {
        let lib = prefix.join("lib");
        copy_tree(&torch.root.join("lib"), &lib.join("torch").join("lib"))?;
        // The PyPI wheel's CUDA runtime, which libtorch_cpu finds through its own run path.
        if let Some(nvidia) = torch.root.parent().map(|p| p.join("nvidia")) {
            if nvidia.is_dir() {
                copy_tree(&nvidia, &lib.join("nvidia"))?;
            }
        }
        let run = bin.join("bsuite-run");
        install_file(&target.join("bsuite-run"), &run, |bytes| {
            set_runpath(bytes, &torch.root.join("lib"), RUNPATH)
        })?;
        check_runs(&run)?;
    } else {
        let _ = fs::remove_file(bin.join("bsuite-run"));
    }
    check_runs(&bsuite)?;
    bsuite_baselines::outln!(
        "installed {}{}",
        match torch {
            Some(_) => "bsuite and bsuite-run",
            None => "bsuite",
        },
        match &torch {
            Some(torch) => format!(
                " into {}, LibTorch from {} into {}/lib",
                bin.display(),
                torch.source,
                prefix.display()
            ),
            None => format!(" into {}", bin.display()),
        }
    );
    Ok(())
}

/// Checks that the installed `program` runs as it is: it finds its libraries without the
/// checkout.
fn check_runs(program: &Path) -> Result<()> {
    let check = Command::new(program)
        .arg("--version")
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .with_context(|| format!("running {}", program.display()))?;
    if !check.status.success() {
        bail!(
            "the installed {} does not run: {}",
            program.display(),
            String::from_utf8_lossy(&check.stderr).trim()
        );
    }
    Ok(())
}

/// Copies the regular files under `from` to `to` (hard links where they share a
/// filesystem; the files are only read), keeping the layout.
fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    fs::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    for entry in fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let entry = entry?;
        let (source, dest) = (entry.path(), to.join(entry.file_name()));
        let kind = fs::metadata(&source)?;
        if kind.is_dir() {
            copy_tree(&source, &dest)?;
        } else if kind.is_file() {
            let _ = fs::remove_file(&dest);
            if fs::hard_link(&source, &dest).is_err() {
                fs::copy(&source, &dest).with_context(|| {
                    format!("copying {} to {}", source.display(), dest.display())
                })?;
            }
        }
    }
    Ok(())
}

/// Writes `from`'s bytes, changed by `change`, to `to` through a temporary file renamed
/// into place, executable.
fn install_file(
    from: &Path,
    to: &Path,
    change: impl FnOnce(&mut Vec<u8>) -> Result<()>,
) -> Result<()> {
    let mut bytes = fs::read(from).with_context(|| format!("reading {}", from.display()))?;
    change(&mut bytes).with_context(|| format!("installing {}", from.display()))?;
    let tmp = to.with_extension("tmp");
    fs::write(&tmp, &bytes).with_context(|| format!("writing {}", tmp.display()))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&tmp, fs::Permissions::from_mode(0o755))?;
    }
    fs::rename(&tmp, to).with_context(|| format!("moving {} to {}", tmp.display(), to.display()))
}

/// Replaces the run path `old` of the ELF executable `elf` with `new`, in place (as
/// `chrpath` does: the new string takes the old one's bytes, so it may not be longer).
pub fn set_runpath(elf: &mut [u8], old: &Path, new: &str) -> Result<()> {
    let old = old.to_string_lossy();
    let found = runpath(elf)?;
    let Some((at, len)) = found else {
        bail!("the binary has no run path (was it built with LibTorch?)");
    };
    let current = String::from_utf8_lossy(&elf[at..at + len]).into_owned();
    if current != old {
        bail!("the binary's run path is {current}, not LibTorch's {old}");
    }
    if new.len() > len {
        bail!(
            "the run path {new} is longer than the build's ({current}); build with a LibTorch \
             at a longer path, or set the run path with patchelf"
        );
    }
    elf[at..at + len].fill(0);
    elf[at..at + new.len()].copy_from_slice(new.as_bytes());
    Ok(())
}

/// Where the `DT_RUNPATH` (or `DT_RPATH`) string of a 64-bit little-endian ELF file is:
/// its offset in the file and its length.
fn runpath(elf: &[u8]) -> Result<Option<(usize, usize)>> {
    let bad = || anyhow::anyhow!("not a 64-bit little-endian ELF file");
    if elf.len() < 64 || &elf[..4] != b"\x7fELF" || elf[4] != 2 || elf[5] != 1 {
        return Err(bad());
    }
    let u16_at = |at: usize| {
        elf.get(at..at + 2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
    };
    let u64_at = |at: usize| {
        elf.get(at..at + 8)
            .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
    };
    let shoff = u64_at(0x28).ok_or_else(bad)? as usize;
    let shentsize = u16_at(0x3a).ok_or_else(bad)? as usize;
    let shnum = u16_at(0x3c).ok_or_else(bad)? as usize;
    // Section headers: type at 4, offset at 24, size at 32, link at 40.
    let section = |i: usize| -> Option<(u32, usize, usize, usize)> {
        let at = shoff + i * shentsize;
        let kind = u32::from_le_bytes(elf.get(at + 4..at + 8)?.try_into().ok()?);
        let offset = u64_at(at + 24)? as usize;
        let size = u64_at(at + 32)? as usize;
        let link = u32::from_le_bytes(elf.get(at + 40..at + 44)?.try_into().ok()?) as usize;
        Some((kind, offset, size, link))
    };
    const SHT_DYNAMIC: u32 = 6;
    const DT_RPATH: u64 = 15;
    const DT_RUNPATH: u64 = 29;
    for i in 0..shnum {
        let (kind, offset, size, link) = section(i).ok_or_else(bad)?;
        if kind != SHT_DYNAMIC {
            continue;
        }
        let (_, strtab, strsize, _) = section(link).ok_or_else(bad)?;
        for entry in (offset..offset + size).step_by(16) {
            let tag = u64_at(entry).ok_or_else(bad)?;
            if tag == DT_RUNPATH || tag == DT_RPATH {
                let name = u64_at(entry + 8).ok_or_else(bad)? as usize;
                let start = strtab + name;
                let table = elf.get(start..strtab + strsize).ok_or_else(bad)?;
                let len = table.iter().position(|&b| b == 0).ok_or_else(bad)?;
                return Ok(Some((start, len)));
            }
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The installed binary's run path is relative to it; the build checkout's path is
    /// gone from it (finding 6 of issue 30).
    #[test]
    fn the_run_path_is_rewritten_in_place() {
        // The test binary itself is an ELF file; give it a run path to rewrite by
        // finding its dynamic section only if it has one (cargo's test binaries do not),
        // so build one by hand: a minimal ELF header, one dynamic section and a string
        // table.
        let old = "/work/checkout/.bsuite/torch-cpu/torch/lib";
        let mut elf = vec![0u8; 0x200];
        elf[..6].copy_from_slice(b"\x7fELF\x02\x01");
        let (shoff, strtab, dynamic) = (0x100usize, 0x40usize, 0x80usize);
        elf[0x28..0x30].copy_from_slice(&(shoff as u64).to_le_bytes());
        elf[0x3a..0x3c].copy_from_slice(&64u16.to_le_bytes());
        elf[0x3c..0x3e].copy_from_slice(&3u16.to_le_bytes());
        let strings = format!("\0libc.so.6\0{old}\0");
        elf[strtab..strtab + strings.len()].copy_from_slice(strings.as_bytes());
        let entries: [(u64, u64); 3] = [(1, 1), (29, 11), (0, 0)];
        for (i, (tag, value)) in entries.iter().enumerate() {
            let at = dynamic + 16 * i;
            elf[at..at + 8].copy_from_slice(&tag.to_le_bytes());
            elf[at + 8..at + 16].copy_from_slice(&value.to_le_bytes());
        }
        let header =
            |elf: &mut Vec<u8>, i: usize, kind: u32, offset: usize, size: usize, link: u32| {
                let at = shoff + 64 * i;
                elf[at + 4..at + 8].copy_from_slice(&kind.to_le_bytes());
                elf[at + 24..at + 32].copy_from_slice(&(offset as u64).to_le_bytes());
                elf[at + 32..at + 40].copy_from_slice(&(size as u64).to_le_bytes());
                elf[at + 40..at + 44].copy_from_slice(&link.to_le_bytes());
            };
        header(&mut elf, 1, 3, strtab, strings.len(), 0);
        header(&mut elf, 2, 6, dynamic, 48, 1);
        let err = set_runpath(&mut elf.clone(), Path::new("/elsewhere/lib"), RUNPATH).unwrap_err();
        assert!(
            err.to_string().contains("not LibTorch's /elsewhere/lib"),
            "{err}"
        );
        set_runpath(&mut elf, Path::new(old), RUNPATH).unwrap();
        let (at, len) = runpath(&elf).unwrap().unwrap();
        assert_eq!(&elf[at..at + len], RUNPATH.as_bytes());
        assert!(!String::from_utf8_lossy(&elf).contains("/work/checkout"));
        assert_eq!(&elf[strtab + 1..strtab + 10], b"libc.so.6");
        let long = "x".repeat(old.len() + 1);
        assert!(set_runpath(&mut elf, Path::new(RUNPATH), &long).is_err());
        assert!(runpath(b"not an elf file").is_err());
    }
}
