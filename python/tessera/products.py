"""Sparse times dense and sparse times sparse: :class:`SpMM` (``A @ B`` for a
dense B, a plan called on many B) with :func:`spmm`, and :func:`spgemm`
(``A @ B`` for a sparse B).

Both are bitwise repeatable: each entry of the result sums its terms in an
order fixed by the plan. :func:`spgemm` runs the library's two phases
(symbolic: the exact size of C; numeric: its entries) and, where C does not
fit the memory budget or the device, its row-blocked mode.
"""

import math
import numbers

import numpy as np
import scipy.sparse as sp

from . import _arrays, _core
from ._context import resolve
from .io import matrix_arrays
from .spmv import _schedule_code

__all__ = ["SpMM", "spmm", "spgemm"]


class SpMM:
    """A prepared product C = A B for dense B: ``C = plan(B)``.

    Args:
        A: a ``scipy.sparse`` matrix or array (any format), float32 or
            float64 (a ``cupyx.scipy.sparse`` matrix is copied to the host to
            build the plan).
        schedule: the GPU schedule, one of :data:`tessera.SCHEDULES`.
        group_size: threads per row for group-mapped (0: chosen).
        pass_columns: run the product in passes over bands of this many
            columns of B and C (the last band narrower), each reading A
            again but gathering only its band of B; 0 lets the plan choose
            (bands of 512 bytes a row of B on the GPU where B is row-major,
            many times the L2 and A's columns scattered; one pass
            otherwise and always on the CPU). Results agree with one pass
            to rounding (the same bits on the CPU and under thread-mapped).
        context: a :class:`tessera.Context`.

    The library plans for one width and layout; this object makes a plan for
    each (width, layout) of B it meets, on first use, and keeps it (each
    holds A in backend memory).

    Attributes:
        shape: A's shape.
        dtype: the value type; B is converted to it, C has it.
    """

    def __init__(self, A, schedule="auto", *, group_size=0, pass_columns=0, context=None):
        self._context = resolve(context)
        # A copy: the plans are made later, one per width, and must all see
        # the A of this call whatever the caller does to its arrays since.
        self._arrays = _arrays.csr_arrays(A, "A").copy()
        self._schedule = _schedule_code(schedule)
        self._group_size = _arrays.bounded_integer(group_size, "group_size")
        self._pass_columns = _arrays.bounded_integer(pass_columns, "pass_columns", _arrays.INT64_RANGE)
        if self._pass_columns < 0:
            raise ValueError(f"pass_columns: expected 0 (the plan's choice) or a count of columns, got {pass_columns}")
        self._plans = {}
        self.shape = self._arrays.shape
        self.dtype = self._arrays.dtype

    def plan(self, width, col_major=False):
        """The library's plan for B of ``width`` columns (row-major, or
        column-major), made on first use; its ``schedule`` and ``explain``
        say what it runs."""
        key = (int(width), bool(col_major))
        plan = self._plans.get(key)
        if plan is None:
            a = self._arrays
            plan = _core.SpMM(self._context, a.indptr, a.indices, a.data, a.shape[0], a.shape[1], a.code, key[0],
                              self._schedule, key[1], self._group_size, self._pass_columns)
            self._plans[key] = plan
        return plan

    def __call__(self, B):
        """A @ B as a new array of B's kind (NumPy or CuPy) and layout; a 1-D
        B gives a 1-D result."""
        return self.execute(B, None)

    def execute(self, B, C=None, alpha=1.0, beta=0.0):
        """C = alpha A B + beta C, in place when C is given.

        Args:
            B: a 2-D array (or 1-D, one column) of A's column count of rows:
                NumPy, CuPy, or what ``numpy.asarray`` takes. A C- or
                Fortran-ordered B is used as it is; another layout is copied.
            C: None (a new array in B's layout), or an array of A's row count
                of rows, B's width, the plan's type and B's layout (after
                conversion), of B's kind; it must not overlap B.
        Returns:
            C.
        """
        alpha, beta = _arrays.real_scalar(alpha, "alpha"), _arrays.real_scalar(beta, "beta")
        device = _arrays.is_cupy(B)
        if device and self._context.backend != "cuda":
            return _arrays.through_host(self.execute, B, C, alpha, beta)
        if device:
            xp = _arrays.cupy_module()
            _arrays.check_device(B, self._context, "B")
        else:
            given = B
            xp, B = np, _arrays.dense(B, "B")
        B = _arrays.cast_kind(B, self.dtype, "B")
        vector = B.ndim == 1
        B, col_major = self._dense_operand(B, xp)
        shape = (self.shape[0], B.shape[1])
        if C is None:
            C = xp.empty(shape, dtype=self.dtype, order="F" if col_major else "C")
            beta = 0.0
        else:
            C = self._check_output(C, xp.ndarray, shape, col_major, vector)
        out = C.reshape(shape, order="F" if col_major else "C")  # a view: a column C as a matrix
        plan = self.plan(B.shape[1], col_major)
        if device:
            with _arrays.DeviceOrder(self._context):
                plan.execute(_arrays.device_address(B), _arrays.device_address(out), alpha, beta)
        else:
            plan.execute(B, out, alpha, beta)
        result = C.reshape(-1) if vector and C.ndim == 2 else C
        if not device and isinstance(given, np.matrix) and not isinstance(result, np.matrix):
            result = np.asmatrix(result)  # as SciPy's A @ B keeps numpy.matrix
        return result

    def _dense_operand(self, B, xp):
        """(B as a 2-D array in a layout the library takes, column-major?)."""
        if B.ndim == 1:
            B = B.reshape(-1, 1)
        if B.ndim != 2 or B.shape[0] != self.shape[1]:
            raise ValueError(f"B: expected shape ({self.shape[1]}, k) or ({self.shape[1]},), got {B.shape}")
        if B.flags.c_contiguous:
            return B, False
        if B.flags.f_contiguous:
            return B, True
        return xp.ascontiguousarray(B), False

    def _check_output(self, C, kind, shape, col_major, vector):
        if vector and isinstance(C, kind) and C.shape == (shape[0],):
            C = C.reshape(shape)
        if not isinstance(C, kind) or C.dtype != self.dtype or C.shape != shape:
            raise TypeError(f"C: expected a {kind.__module__}.ndarray of shape {shape} and type {self.dtype}")
        if not (C.flags.f_contiguous if col_major else C.flags.c_contiguous):
            raise ValueError(f"C: expected a {'Fortran' if col_major else 'C'}-ordered array, as B is")
        return C

    def __repr__(self):
        return f"<tessera.SpMM {self.shape[0]} x {self.shape[1]} {self.dtype}, {len(self._plans)} plans>"



def spmm(A, B, *, schedule="auto", context=None):
    """A @ B for a sparse A and a dense B (NumPy or CuPy), as a new array of
    B's kind; see :class:`SpMM` to reuse the plan."""
    return SpMM(A, schedule, context=context)(B)


def _memory_budget(value):
    """memory_budget as a positive int64 number of bytes (a whole float such
    as 2e9 too): a TypeError for a non-number (True included), a ValueError
    for a fraction, NaN or a count below 1, an OverflowError past int64."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.number)) or isinstance(
        value, np.complexfloating
    ):
        raise TypeError(f"memory_budget: expected a positive number of bytes, got {type(value).__name__}")
    if isinstance(value, (numbers.Integral, np.integer)):
        value = int(value)
    else:
        value = float(value)
        if math.isnan(value) or (math.isfinite(value) and not value.is_integer()):
            raise ValueError(f"memory_budget must be a positive number of bytes, got {value!r}")
        if math.isfinite(value):
            value = int(value)
    if value <= 0:
        raise ValueError(f"memory_budget must be a positive number of bytes, got {value!r}")
    if value > _arrays.INT64_RANGE[1]:
        raise OverflowError(f"memory_budget: expected at most {_arrays.INT64_RANGE[1]} bytes, got {value!r}")
    return value


def spgemm(A, B, *, memory_budget=None, return_info=False, context=None):
    """C = A @ B for sparse A and B, as ``A @ B`` in SciPy.

    Args:
        A, B: ``scipy.sparse`` matrices or arrays (any format; or
            ``cupyx.scipy.sparse``, copied to the host), float32 or float64,
            A's column count equal to B's row count; B is brought to A's
            value type.
        memory_budget: bytes of backend memory the product may hold at once
            (A, B, the workspace and C); where C does not fit, it is computed
            in blocks of rows into host memory. None: the device's memory.
        return_info: also return a dict: ``nnz``, ``products`` (Gustavson's
            intermediate count), ``blocked`` (True when computed in row
            blocks) and ``explain``.
    Returns:
        C in CSR with sorted column indices: a ``csr_matrix`` when A is a
        SciPy matrix, a ``csr_array`` when it is an array, a
        ``cupyx.scipy.sparse.csr_matrix`` when A was one. Its pattern is the
        structural one: an entry whose products cancel to zero is kept
        (SciPy drops it; ``C.eliminate_zeros()`` does the same).
    """
    on_device = _arrays.is_cupy_sparse(A)
    host_A = _arrays.host_sparse(A, "A")
    a = _arrays.host_csr_arrays(host_A, "A")
    host_B = _arrays.host_sparse(B, "B")
    if host_B.dtype != a.dtype:
        if not np.can_cast(host_B.dtype, a.dtype, casting="same_kind"):
            raise TypeError(f"B: expected {a.dtype} values (or values that convert to it), got {host_B.dtype}")
        host_B = host_B.astype(a.dtype)
    b = _arrays.host_csr_arrays(host_B, "B")
    if a.shape[1] != b.shape[0]:
        raise ValueError(f"dimension mismatch: A is {a.shape[0]} x {a.shape[1]}, B is {b.shape[0]} x {b.shape[1]}")
    budget = 0 if memory_budget is None else _memory_budget(memory_budget)
    matrix, info = _core.spgemm(
        resolve(context), a.indptr, a.indices, a.data, a.shape[0], a.shape[1], b.indptr, b.indices, b.data,
        b.shape[0], b.shape[1], a.code, budget,
    )
    indptr, indices, values, description = matrix_arrays(matrix)
    shape = (description["rows"], description["cols"])
    if on_device:
        import cupyx.scipy.sparse as cupy_sparse

        C = cupy_sparse.csr_matrix(sp.csr_matrix((values, indices, indptr), shape=shape))
    else:
        kind = sp.csr_matrix if isinstance(host_A, sp.spmatrix) else sp.csr_array
        C = kind((values, indices, indptr), shape=shape)
    return (C, info) if return_info else C
