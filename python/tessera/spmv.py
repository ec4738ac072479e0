"""Sparse matrix-vector products: :class:`SpMV`, a plan made once per matrix
and called on many vectors, and :func:`spmv` for one product.

The plan holds the matrix in backend memory (GPU memory on a CUDA context)
with the chosen schedule's workspace, so each call only runs the product.
Every schedule gives bitwise the same result, run after run (each row is
summed in a fixed order).
"""

import numpy as np

from . import _arrays, _core
from ._context import resolve

__all__ = ["SpMV", "spmv", "SCHEDULES"]

SCHEDULES = tuple(_core.schedule_names)
"""Schedule names, ``"auto"`` first (the library's names)."""


def _schedule_code(schedule):
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {list(SCHEDULES)}, got {schedule!r}")
    return SCHEDULES.index(schedule)


class SpMV:
    """A prepared product y = op(A) x, called like a function: ``y = plan(x)``.

    Args:
        A: a ``scipy.sparse`` matrix or array (any format), float32 or
            float64; a ``cupyx.scipy.sparse`` matrix is copied to the host to
            build the plan (the library builds plans from host CSR), which
            then holds it in backend memory.
        schedule: the GPU schedule, one of :data:`SCHEDULES` (default
            ``"auto"``, chosen from the row lengths; the CPU backend has one
            implementation and records the choice only).
        transpose: plan y = A^T x instead.
        group_size: threads per group (group-mapped) or per short row
            (split-rows); 0 lets the library choose.
        context: a :class:`tessera.Context` (default: :func:`default_context`).

    Attributes:
        shape: the operator's shape (A's, or A^T's with ``transpose``).
        dtype: the value type; x is converted to it, y has it.
        schedule: the schedule the plan runs (``"auto"`` resolved).
        explain: why the plan runs that schedule.
        bytes: bytes one product moves at least.
    """

    def __init__(self, A, schedule="auto", *, transpose=False, group_size=0, context=None):
        context = resolve(context)
        arrays = _arrays.csr_arrays(A, "A")
        rows, cols = arrays.shape
        self._plan = _core.SpMV(
            context,
            arrays.indptr,
            arrays.indices,
            arrays.data,
            rows,
            cols,
            arrays.code,
            _schedule_code(schedule),
            bool(transpose),
            _arrays.bounded_integer(group_size, "group_size"),
        )
        self._context = context
        self.dtype = arrays.dtype
        self.shape = (cols, rows) if transpose else (rows, cols)
        self._x_shape = (self.shape[1],)

    @property
    def schedule(self):
        return self._plan.schedule

    @property
    def explain(self):
        return self._plan.explain

    @property
    def bytes(self):
        return self._plan.bytes

    def __call__(self, x):
        """op(A) x as a new array of the kind x is (NumPy or CuPy)."""
        if type(x) is np.ndarray and x.dtype is self.dtype and x.shape == self._x_shape and x.flags.c_contiguous:
            y = np.empty(self.shape[0], self.dtype)
            self._plan.execute(x, y)
            return y
        return self.execute(x, None)

    def execute(self, x, y=None, alpha=1.0, beta=0.0):
        """y = alpha op(A) x + beta y, in place when y is given.

        Args:
            x: a vector of op(A)'s column count (NumPy, CuPy, or anything
                ``numpy.asarray`` takes).
            y: None (a new vector), or a contiguous vector of the plan's
                value type and op(A)'s row count, of x's kind, written in
                place; it must not overlap x. With beta = 0 its input is
                not read (NaN in y does not propagate).
            alpha, beta: the scalars.
        Returns:
            y.
        """
        rows = self.shape[0]
        # The common case, without conversions (alpha and beta Python floats:
        # anything else is checked below).
        if (
            type(alpha) is float
            and type(beta) is float
            and type(x) is np.ndarray
            and type(y) is np.ndarray
            and x.dtype is self.dtype
            and y.dtype is self.dtype
            and x.shape == self._x_shape
            and y.shape == (rows,)
            and x.flags.c_contiguous
            and y.flags.c_contiguous
            and y.flags.writeable
        ):
            self._plan.execute(x, y, alpha, beta)
            return y
        alpha, beta = _arrays.real_scalar(alpha, "alpha"), _arrays.real_scalar(beta, "beta")
        if _arrays.is_cupy(x):
            return self._execute_device(x, y, alpha, beta)
        x = _arrays.host_vector(x, self.shape[1], self.dtype, "x")
        if y is None:
            y = np.empty(rows, self.dtype)
            beta = 0.0
        elif not isinstance(y, np.ndarray) or y.dtype != self.dtype or y.shape != (rows,):
            raise TypeError(f"y: expected a numpy.ndarray of shape ({rows},) and type {self.dtype}")
        elif not y.flags.writeable:
            raise ValueError("y: the array is read-only (a writable output is needed)")
        elif not y.flags.c_contiguous:
            raise ValueError("y: expected a contiguous array")
        self._plan.execute(x, y, alpha, beta)
        return y

    def _execute_device(self, x, y, alpha, beta):
        cupy = _arrays.cupy_module()
        rows = self.shape[0]
        if self._context.backend != "cuda":
            return _arrays.through_host(self.execute, x, y, alpha, beta)
        # The common case without conversions: contiguous CuPy arrays of the plan's type and shapes (the library
        # checks the device of each address it has not seen before).
        if (
            type(x) is cupy.ndarray
            and x.dtype == self.dtype
            and x.shape == self._x_shape
            and x.flags.c_contiguous
            and (y is None or (type(y) is cupy.ndarray and y.dtype == self.dtype and y.shape == (rows,)
                               and y.flags.c_contiguous))
        ):
            if y is None:
                y, beta = cupy.empty(rows, self.dtype), 0.0
            # DeviceOrder's work, in the same library call as the product: this is the path where its cost shows.
            stream = cupy.cuda.get_current_stream().ptr or _arrays.LEGACY_STREAM
            self._plan.execute(x.data.ptr, y.data.ptr, alpha, beta, 0 if stream == self._context.stream else stream)
            return y
        x = _arrays.device_vector(x, self.shape[1], self.dtype, "x", self._context)
        if y is None:
            y = cupy.empty(rows, self.dtype)
            beta = 0.0
        elif not _arrays.is_cupy(y) or y.dtype != self.dtype or y.shape != (rows,) or not y.flags.c_contiguous:
            raise TypeError(f"y: expected a contiguous cupy.ndarray of shape ({rows},) and type {self.dtype}")
        with _arrays.DeviceOrder(self._context):
            self._plan.execute(_arrays.device_address(x), _arrays.device_address(y), alpha, beta)
        return y

    def __repr__(self):
        return f"<tessera.SpMV {self.shape[0]} x {self.shape[1]} {self.dtype}, schedule {self.schedule}>"


def spmv(A, x, *, transpose=False, schedule="auto", context=None):
    """op(A) x for one vector: ``A @ x`` (or ``A.T @ x`` with ``transpose``).

    For many products with one matrix, make an :class:`SpMV` once: this
    function builds a plan (a copy of A in backend memory) for every call.

    Args:
        A: as for :class:`SpMV`.
        x: a 1-D NumPy or CuPy array (or what ``numpy.asarray`` takes) of A's
            column count (row count with ``transpose``).
    Returns:
        y as a new array of x's kind, in A's value type.
    """
    return SpMV(A, schedule, transpose=transpose, context=context)(x)
