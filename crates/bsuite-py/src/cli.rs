//! The `bsuite` command of the wheel: the console script `bsuite` (`bsuite_rs._cli`) calls
//! [`main`], which runs bsuite-cli's program in this process, so the wheel ships no second
//! binary and its command line is the `bsuite` binary's, parsed by the same definition.

use std::ffi::OsString;

use bsuite_cli::baselines::Baselines;
use bsuite_cli::Host;
use pyo3::prelude::*;

/// Runs `bsuite` with `argv` (`sys.argv`: the program, then its arguments), the GIL
/// released, and returns its exit status: 0, 1 for an error (printed on standard error), 2
/// for a command line it refuses.
#[pyfunction]
pub fn main(py: Python<'_>, argv: Vec<OsString>) -> u8 {
    let host = Host {
        libtorch: no_libtorch,
        baselines: Baselines::built_in(),
    };
    py.detach(|| bsuite_cli::main_from(argv, &host))
}

/// The wheel's LibTorch engine: none. The agents' LibTorch definitions run in a
/// `bsuite-run` built with LibTorch, which the wheel does not carry.
fn no_libtorch(_cuda: bool, _args: &[OsString]) -> anyhow::Result<()> {
    anyhow::bail!(
        "--engine libtorch and --device cuda are not in the Python wheel: they run the \
         agents' LibTorch definitions in a bsuite-run built with LibTorch. Install that \
         `bsuite` from a checkout (`cargo xtask install --cuda --prefix DIR`, then DIR/bin/bsuite), \
         or run `cargo xtask bench-all ... --engine libtorch` there; the host engine (the \
         default) runs every agent here"
    )
}
