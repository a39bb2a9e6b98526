//! Memory the extension is about to need, asked for before it is used.
//!
//! A failed allocation in Rust aborts the process: no `MemoryError` can be raised from it, and
//! the interpreter dies with SIGABRT. So what may be large is sized first and a block of that
//! size asked for ([`reserve`]): a `VecEnv` of millions of environments, or a bootstrap of
//! `2**40` replicates, is refused with `MemoryError` before it is built. The size of one
//! environment is measured, not guessed: the extension's allocator counts the bytes each
//! thread holds ([`Counting`], [`measure`]).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::fmt::Display;

use pyo3::exceptions::PyMemoryError;
use pyo3::{PyErr, PyResult};

/// The extension's allocator: the system's, counting the bytes that each thread has
/// allocated and not freed.
pub struct Counting;

#[global_allocator]
static ALLOCATOR: Counting = Counting;

thread_local! {
    /// Bytes this thread allocated, less those it freed (another thread's frees of them
    /// count there).
    static HELD: Cell<isize> = const { Cell::new(0) };
}

fn count(delta: isize) {
    // Const-initialised and without a destructor, so it is there even while the thread
    // ends; `try_with` only for certainty.
    let _ = HELD.try_with(|held| held.set(held.get().wrapping_add(delta)));
}

// SAFETY: every call is passed on to the system allocator unchanged; counting allocates
// nothing.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is the system allocator's.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            count(layout.size() as isize);
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            count(layout.size() as isize);
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as for `alloc`.
        unsafe { System.dealloc(ptr, layout) };
        count(-(layout.size() as isize));
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            count((new_size as isize).wrapping_sub(layout.size() as isize));
        }
        new
    }
}

/// The bytes this thread has allocated through Rust and not freed.
pub fn thread_bytes() -> isize {
    HELD.try_with(Cell::get).unwrap_or(0)
}

/// What `f` returns, and the bytes it left allocated by this thread (0 if it freed more).
pub fn measure<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = thread_bytes();
    let value = f();
    let held = thread_bytes().wrapping_sub(before);
    (value, usize::try_from(held).unwrap_or(0))
}

/// Whether the allocator gives a block of `bytes` now (`None`: more than can be
/// addressed, never). The block is given back at once and never touched, so asking costs
/// no memory.
pub fn available(bytes: Option<usize>) -> bool {
    let mut block: Vec<u8> = Vec::new();
    bytes.is_some_and(|bytes| block.try_reserve_exact(bytes).is_ok())
}

/// A `MemoryError` naming `what` unless a block of `bytes` is [`available`]: building it
/// would have aborted the interpreter halfway.
pub fn reserve(bytes: Option<usize>, what: impl Display) -> PyResult<()> {
    match available(bytes) {
        true => Ok(()),
        false => Err(too_large(bytes, what)),
    }
}

/// The `MemoryError` of `what`, which needs `bytes` that cannot be allocated.
pub fn too_large(bytes: Option<usize>, what: impl Display) -> PyErr {
    PyMemoryError::new_err(format!(
        "{what} needs {}, which cannot be allocated",
        describe(bytes)
    ))
}

/// `bytes` as `about 1.5 GB`, or what `None` means.
pub fn describe(bytes: Option<usize>) -> String {
    match bytes {
        Some(bytes) => format!("about {:.1} GB", bytes as f64 / 1e9),
        None => "more memory than can be addressed".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_what_a_thread_holds() {
        let (block, held) = measure(|| vec![0u8; 1 << 20]);
        assert!(held >= 1 << 20, "{held}");
        let ((), freed) = measure(|| drop(block));
        assert_eq!(freed, 0);
        let mut grown = Vec::<u64>::new();
        let ((), held) = measure(|| grown.extend(0..100_000));
        assert!(held >= 800_000, "{held}");
    }

    #[test]
    fn an_impossible_block_is_a_memory_error() {
        assert!(reserve(Some(1 << 20), "a test").is_ok());
        pyo3::Python::initialize();
        for bytes in [None, Some(usize::MAX / 2)] {
            let err = reserve(bytes, "a VecEnv of 9 environments").unwrap_err();
            pyo3::Python::attach(|py| {
                assert!(err.is_instance_of::<PyMemoryError>(py));
                let message = err.value(py).to_string();
                assert!(
                    message.starts_with("a VecEnv of 9 environments needs "),
                    "{message}"
                );
            });
        }
    }
}
