//! The agents flush subnormal results to zero while they compute, as bsuite's JAX agents do.
//!
//! XLA's CPU client runs every computation with the x86 flush-to-zero (FTZ) and
//! denormals-are-zero (DAZ) modes on, following TensorFlow's convention, so bsuite 0.3.6's
//! agents never hold a subnormal float. Ours would: Adam's moments of a parameter whose
//! gradient stays exactly zero (a dead ReLU unit, an input a batch never sees) decay by β
//! a step into the subnormal range, and there round to a fixed point, a few units of the
//! smallest subnormal, that they keep for as long as the gradient stays zero. On Intel
//! cores every operation on such a value takes a microcode assist, about 70 times an
//! ordinary one (22.6 ns against 0.34 ns an Adam update of a parameter, on a Xeon with
//! AMX); that made dqn 4.5 times slower there than with the mode on (catch/0: 7.5 s
//! against 1.7 s of CPU) and boot_dqn 1.5 to 5.8 times (`docs/performance.md`). AMD's
//! cores take subnormals at nearly full speed, which is why the same builds were fast on
//! them.
//!
//! [`FlushSubnormals`] turns FTZ on for the calling thread while an agent computes and
//! restores the mode the thread had before, so environments, loggers and users' code keep
//! IEEE arithmetic. It sets FTZ alone: with FTZ on, the agents' own arithmetic never makes
//! a subnormal for DAZ to read as zero (and Rust documents changing DAZ, unlike FTZ, as
//! undefined behaviour). Flushing only changes what a subnormal would have been; no CSV
//! was seen to move (the engines' bit fixtures pass, and ids of the shipped baselines
//! rerun with the mode on are byte-identical).

/// While alive, the calling thread flushes subnormal float results to zero (x86-64's
/// MXCSR flush-to-zero bit); dropping it restores the thread's previous mode. Elsewhere it
/// does nothing.
///
/// Every entry point of an agent engine holds one: acting and learning, on the host and in
/// LibTorch on the CPU.
#[must_use = "the mode lasts only while the guard lives"]
pub(crate) struct FlushSubnormals {
    #[cfg(target_arch = "x86_64")]
    previous: u32,
}

#[cfg(target_arch = "x86_64")]
impl FlushSubnormals {
    /// MXCSR's flush-to-zero bit.
    const FTZ: u32 = 1 << 15;

    /// Turns flush-to-zero on for this thread until the guard drops.
    #[inline]
    pub(crate) fn new() -> Self {
        let previous = read_mxcsr();
        if previous & Self::FTZ == 0 {
            write_mxcsr(previous | Self::FTZ);
        }
        FlushSubnormals { previous }
    }
}

#[cfg(target_arch = "x86_64")]
impl Drop for FlushSubnormals {
    #[inline]
    fn drop(&mut self) {
        if self.previous & Self::FTZ == 0 {
            // Only the mode bit goes back: the exception flags the agent raised stay.
            write_mxcsr(read_mxcsr() & !Self::FTZ);
        }
    }
}

#[cfg(target_arch = "x86_64")]
fn read_mxcsr() -> u32 {
    let mut csr = 0u32;
    // SAFETY: stmxcsr stores the 4-byte register to the given, valid address.
    unsafe {
        std::arch::asm!(
            "stmxcsr [{}]",
            in(reg) &mut csr,
            options(nostack, preserves_flags)
        );
    }
    csr
}

#[cfg(target_arch = "x86_64")]
fn write_mxcsr(csr: u32) {
    // SAFETY: ldmxcsr loads a value read from the register with only the flush-to-zero bit
    // changed, which Rust allows (unlike the rounding mode, exception masks or DAZ).
    unsafe {
        std::arch::asm!(
            "ldmxcsr [{}]",
            in(reg) &csr,
            options(nostack, preserves_flags, readonly)
        );
    }
}

#[cfg(not(target_arch = "x86_64"))]
impl FlushSubnormals {
    /// Does nothing off x86-64.
    #[inline]
    pub(crate) fn new() -> Self {
        FlushSubnormals {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A product whose exact value is subnormal: flushed to zero inside the guard, kept
    /// outside it, and the thread's mode is back as it was after the guard.
    #[test]
    fn flushes_only_while_held() {
        let tiny = std::hint::black_box(1e-20f32);
        let product = |a: f32| std::hint::black_box(a) * std::hint::black_box(1e-20f32);
        assert!(product(tiny) > 0.0, "IEEE keeps a subnormal product");
        {
            let _flush = FlushSubnormals::new();
            let flushed = product(tiny);
            if cfg!(target_arch = "x86_64") {
                assert_eq!(flushed, 0.0, "flush-to-zero is on inside the guard");
            }
            // Nested guards leave the outer one's mode alone.
            drop(FlushSubnormals::new());
            if cfg!(target_arch = "x86_64") {
                assert_eq!(
                    product(tiny),
                    0.0,
                    "an inner guard's drop keeps the outer mode"
                );
            }
        }
        assert!(
            product(tiny) > 0.0,
            "the guard's drop restores IEEE subnormals"
        );
        assert!(product(tiny).is_subnormal());
    }
}
