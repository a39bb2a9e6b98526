//! What the kernels ask of the CPU: the widest instruction set it has, chosen once at run
//! time (`simd_level`), for which the [`kernel!`] macro compiles each kernel, and hints
//! that fetch cache lines ahead of a gather.

/// A hint to fetch the cache line holding `value` (into every level of cache when
/// `nearest`, else into L2 and beyond, where it waits out work that would evict it from
/// L1). A hint only: nothing computed depends on it.
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T, nearest: bool) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0, _MM_HINT_T1};
        let p = (value as *const T).cast();
        // SAFETY: SSE is part of x86_64, and a prefetch reads nothing.
        unsafe {
            if nearest {
                _mm_prefetch::<_MM_HINT_T0>(p)
            } else {
                _mm_prefetch::<_MM_HINT_T1>(p)
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (value, nearest);
}

/// Defines a kernel once and compiles it for AVX-512, AVX2 and the baseline, picking the
/// widest the CPU has at run time. All three give the same bits (see [`crate::host`]).
///
/// Hand-written rather than `multiversion`'s attribute, which generates the same clones
/// and dispatch: the widths must be selectable on one CPU to compare their bits and speed
/// (`BSUITE_NO_SIMD`, `BSUITE_NO_AVX512`, read by `simd_level`), which multiversion's own
/// detection does not offer, and the macro is the whole of it. `pulp` would change the
/// loops into explicit SIMD types, and with them the order of the sums that pins the bits.
macro_rules! kernel {
    ($(#[$meta:meta])* pub(crate) fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $body:block) => {
        $(#[$meta])*
        pub(crate) fn $name($($arg: $ty),*) {
            #[inline(always)]
            fn generic($($arg: $ty),*) $body
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
                unsafe fn avx512($($arg: $ty),*) {
                    generic($($arg),*)
                }
                #[target_feature(enable = "avx2,fma")]
                unsafe fn avx2($($arg: $ty),*) {
                    generic($($arg),*)
                }
                use $crate::host::dispatch::{simd_level, SimdLevel};
                match simd_level() {
                    // SAFETY: the CPU has these features (checked by `simd_level`).
                    SimdLevel::Avx512 => return unsafe { avx512($($arg),*) },
                    SimdLevel::Avx2 => return unsafe { avx2($($arg),*) },
                    SimdLevel::Baseline => {}
                }
            }
            generic($($arg),*)
        }
    };
}
pub(crate) use kernel;

/// The instruction sets the kernels are compiled for, narrowest first.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum SimdLevel {
    Baseline,
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    Avx2,
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    Avx512,
}

/// The widest instruction set the kernels use on this CPU. `BSUITE_NO_SIMD` forces the
/// baseline and `BSUITE_NO_AVX512` at most AVX2, to compare them on one CPU (the bits are
/// the same; on a Zen 4, whose AVX-512 runs at AVX2's width, AVX2 was still slower).
pub(crate) fn simd_level() -> SimdLevel {
    use std::sync::OnceLock;
    static LEVEL: OnceLock<SimdLevel> = OnceLock::new();
    *LEVEL.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            if std::env::var_os("BSUITE_NO_SIMD").is_some() {
                return SimdLevel::Baseline;
            }
            if std::env::var_os("BSUITE_NO_AVX512").is_none()
                && std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512vl")
                && std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                return SimdLevel::Avx512;
            }
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                return SimdLevel::Avx2;
            }
        }
        SimdLevel::Baseline
    })
}
