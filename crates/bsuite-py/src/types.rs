//! The Python objects every timestep is made of, looked up once.
//!
//! `bsuite_rs._compat` decides what a timestep is: dm_env's own `TimeStep` and `StepType`
//! when dm_env is installed, look-alikes otherwise. The classes, the three step types and
//! the discounts 0.0 and 1.0 are cached here so that a step builds its timestep without any
//! lookup.

use bsuite_envs::{StepType, TimeStep};
use numpy::PyArrayDyn;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyFloat, PyTuple, PyType};

/// The cached objects.
pub struct Types {
    timestep: Py<PyType>,
    /// How a timestep is made; see [`Construct`].
    construct: Construct,
    step_types: [Py<PyAny>; 3],
    zero: Py<PyFloat>,
    one: Py<PyFloat>,
}

/// How to make a `TimeStep` object.
enum Construct {
    /// A namedtuple's `__new__` is `tuple.__new__(cls, fields)`, which allocates with the
    /// class's `tp_alloc` and fills the items: done here directly, it makes the same object
    /// without a Python call (about half the cost of a step).
    Alloc(ffi::allocfunc),
    /// Any other class (not a heap-type tuple subclass): call it.
    Call,
}

static TYPES: PyOnceLock<Types> = PyOnceLock::new();

/// The cached objects, imported from `bsuite_rs._compat` on first use.
pub fn types(py: Python<'_>) -> PyResult<&'static Types> {
    TYPES.get_or_try_init(py, || {
        let compat = py.import("bsuite_rs._compat")?;
        let step_type = compat.getattr("StepType")?;
        let member = |name: &str| step_type.getattr(name).map(Bound::unbind);
        let timestep = compat.getattr("TimeStep")?.cast_into::<PyType>()?;
        Ok(Types {
            construct: construct(&timestep)?,
            timestep: timestep.unbind(),
            step_types: [member("FIRST")?, member("MID")?, member("LAST")?],
            zero: PyFloat::new(py, 0.0).unbind(),
            one: PyFloat::new(py, 1.0).unbind(),
        })
    })
}

impl Types {
    /// `ts` as a `TimeStep(step_type, reward, discount, observation)` with `observation`,
    /// an array holding `ts.observation` that nobody else refers to.
    pub fn timestep<'py>(
        &self,
        py: Python<'py>,
        ts: &TimeStep,
        observation: Bound<'py, PyArrayDyn<f32>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let step_type = self.step_type(py, ts.step_type);
        let reward = match ts.reward {
            Some(reward) => PyFloat::new(py, reward).into_any(),
            None => py.None().into_bound(py),
        };
        let discount = match ts.discount {
            Some(discount) => self.float(py, discount).into_any(),
            None => py.None().into_bound(py),
        };
        let fields = [step_type, reward, discount, observation.into_any()];
        let class = self.timestep.bind(py);
        match self.construct {
            // SAFETY: `alloc` is the `tp_alloc` of `class`, a tuple subclass (checked in
            // `construct`), asked for exactly the four items that are then set.
            Construct::Alloc(alloc) => unsafe { new_tuple(py, class, alloc, fields) },
            Construct::Call => class.call1(PyTuple::new(py, fields)?),
        }
    }

    /// The `StepType` member of `step_type`.
    pub fn step_type<'py>(&self, py: Python<'py>, step_type: StepType) -> Bound<'py, PyAny> {
        self.step_types[usize::from(step_type.code())]
            .bind(py)
            .clone()
    }

    /// `value` as a Python float, sharing the cached objects for the discounts 0.0 and 1.0.
    pub fn float<'py>(&self, py: Python<'py>, value: f64) -> Bound<'py, PyFloat> {
        // Bits, not ==, so that -0.0 stays -0.0.
        if value.to_bits() == 0.0f64.to_bits() {
            self.zero.bind(py).clone()
        } else if value.to_bits() == 1.0f64.to_bits() {
            self.one.bind(py).clone()
        } else {
            PyFloat::new(py, value)
        }
    }
}

/// How instances of `class` are made: by its `tp_alloc` when it is a heap-type subclass of
/// `tuple` whose `__new__` is a namedtuple's (dm_env's `TimeStep` and ours), else by calling it.
fn construct(class: &Bound<'_, PyType>) -> PyResult<Construct> {
    let is_tuple = class.is_subclass_of::<PyTuple>()?;
    let fields: Option<Vec<String>> = class
        .getattr("_fields")
        .and_then(|fields| fields.extract())
        .ok();
    let is_namedtuple =
        fields.is_some_and(|f| f == ["step_type", "reward", "discount", "observation"]);
    // SAFETY: `class` is a valid type object.
    let flags = unsafe { ffi::PyType_GetFlags(class.as_type_ptr()) };
    // PyType_GetSlot reads only heap types before Python 3.10.
    let heap = flags & ffi::Py_TPFLAGS_HEAPTYPE != 0;
    if !(is_tuple && is_namedtuple && heap) {
        return Ok(Construct::Call);
    }
    // SAFETY: a heap type; `Py_tp_alloc` is an `allocfunc` slot.
    let alloc = unsafe { ffi::PyType_GetSlot(class.as_type_ptr(), ffi::Py_tp_alloc) };
    if alloc.is_null() {
        return Ok(Construct::Call);
    }
    // SAFETY: the slot holds an `allocfunc`.
    Ok(Construct::Alloc(unsafe {
        std::mem::transmute::<*mut std::ffi::c_void, ffi::allocfunc>(alloc)
    }))
}

/// `tuple.__new__(class, fields)`, as CPython's `tuple_subtype_new` does it.
///
/// # Safety
///
/// `class` must be a subclass of `tuple` and `alloc` its `tp_alloc`.
unsafe fn new_tuple<'py, const N: usize>(
    py: Python<'py>,
    class: &Bound<'py, PyType>,
    alloc: ffi::allocfunc,
    fields: [Bound<'py, PyAny>; N],
) -> PyResult<Bound<'py, PyAny>> {
    let object = unsafe { alloc(class.as_type_ptr(), N as ffi::Py_ssize_t) };
    if object.is_null() {
        return Err(PyErr::fetch(py));
    }
    // Owned from here: dropped (and freed) on any error below.
    let object = unsafe { Bound::from_owned_ptr(py, object) };
    for (i, field) in fields.into_iter().enumerate() {
        // Steals the reference to `field`; the new object's count is 1, as required.
        if unsafe { ffi::PyTuple_SetItem(object.as_ptr(), i as ffi::Py_ssize_t, field.into_ptr()) }
            != 0
        {
            return Err(PyErr::fetch(py));
        }
    }
    // `PyType_GenericAlloc` tracks the object already; another `tp_alloc` might not.
    unsafe {
        if ffi::PyObject_GC_IsTracked(object.as_ptr()) == 0 {
            ffi::PyObject_GC_Track(object.as_ptr().cast());
        }
    }
    Ok(object)
}
