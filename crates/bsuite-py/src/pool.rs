//! [`ArrayPool`]: result arrays recycled once nobody else holds them.
//!
//! Allocating a numpy array costs about as much as a whole bsuite step (an object, a data
//! block and their release; for a large observation a page fault now and then). A run loop
//! drops each observation a step or two after it gets it, so a few arrays go round: an array
//! is handed out again only when the pool's own reference is the only one left, which means
//! no Python object, view, weak reference or other library holds it, so nobody can see it
//! change. Arrays that are kept (a replay buffer) are never touched again; the pool then
//! allocates new ones as numpy would.

use numpy::npyffi::{
    PyArrayObject, NPY_ARRAY_C_CONTIGUOUS, NPY_ARRAY_OWNDATA, NPY_ARRAY_WRITEABLE,
};
use numpy::{Element, PyArrayDyn, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::exceptions::PyRuntimeError;
use pyo3::ffi;
use pyo3::prelude::*;

/// Arrays of one shape and dtype, recycled when unreferenced.
pub struct ArrayPool<T> {
    shape: Vec<usize>,
    arrays: Vec<Py<PyArrayDyn<T>>>,
    /// The next slot to replace when every pooled array is still held.
    next: usize,
}

/// Enough for a loop that keeps the current and previous results, plus one spare.
const POOLED: usize = 4;

impl<T: Element> ArrayPool<T> {
    /// A pool of C-ordered arrays of `shape`.
    pub fn new(shape: Vec<usize>) -> Self {
        ArrayPool {
            shape,
            arrays: Vec::with_capacity(POOLED),
            next: 0,
        }
    }

    /// A recycled or new array (see [`ArrayPool::take`]) holding `values`.
    pub fn filled<'py>(
        &mut self,
        py: Python<'py>,
        values: &[T],
    ) -> PyResult<Bound<'py, PyArrayDyn<T>>>
    where
        T: Copy,
    {
        if values.len() != self.shape.iter().product::<usize>() {
            return Err(PyRuntimeError::new_err(format!(
                "{} values do not fill an array of shape {:?}",
                values.len(),
                self.shape
            )));
        }
        let array = self.take(py);
        // SAFETY: the array is C-contiguous with exactly `values.len()` elements (checked
        // above, and by `take`), and nobody else refers to it.
        unsafe { array.as_slice_mut() }
            .map_err(|err| PyRuntimeError::new_err(err.to_string()))?
            .copy_from_slice(values);
        Ok(array)
    }

    /// An array of the pool's shape that no one else refers to: a recycled one, or a new
    /// one. Its contents are undefined; the caller writes every element before handing it
    /// out (the array is not visible to Python code until then).
    pub fn take<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyArrayDyn<T>> {
        if let Some(free) = self.arrays.iter().find(|a| self.is_free(a.bind(py))) {
            return free.bind(py).clone();
        }
        // SAFETY: the caller writes every element before the array reaches Python.
        let fresh = unsafe { PyArrayDyn::<T>::new(py, self.shape.as_slice(), false) };
        if self.arrays.len() < POOLED {
            self.arrays.push(fresh.clone().unbind());
        } else {
            // Every pooled array is held elsewhere (a caller keeping results): pool the new
            // one instead of the oldest, which stays with whoever holds it.
            self.arrays[self.next] = fresh.clone().unbind();
            self.next = (self.next + 1) % POOLED;
        }
        fresh
    }

    /// True when `array` may be handed out again: only the pool refers to it, it has no
    /// weak references or base, and it is still the writeable, C-ordered array of the
    /// pool's shape and dtype that it was made as (Python code can change a held array's
    /// flags, shape or dtype in place).
    fn is_free(&self, array: &Bound<'_, PyArrayDyn<T>>) -> bool {
        let dtype = T::get_dtype(array.py());
        // SAFETY: `array` is a live numpy array; only its header is read, and `dimensions`
        // holds `nd` values.
        unsafe {
            if ffi::Py_REFCNT(array.as_ptr()) != 1 {
                return false;
            }
            let fields = &(*array.as_array_ptr().cast::<PyArrayObject>()).fields;
            let wanted = NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_OWNDATA | NPY_ARRAY_WRITEABLE;
            fields.weakreflist.is_null()
                && fields.base.is_null()
                && fields.flags & wanted == wanted
                // numpy's built-in dtypes are singletons: another object means a changed dtype.
                && std::ptr::eq(fields.descr.cast(), dtype.as_ptr())
                && usize::try_from(fields.nd) == Ok(self.shape.len())
                && (self.shape.is_empty()
                    || (!fields.dimensions.is_null()
                        && std::slice::from_raw_parts(fields.dimensions, self.shape.len())
                            .iter()
                            .zip(&self.shape)
                            .all(|(&have, &want)| usize::try_from(have) == Ok(want))))
        }
    }
}
