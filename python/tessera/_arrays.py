"""Inputs as Python users hold them, turned into what the library takes:
SciPy sparse matrices into canonical CSR arrays (int64 offsets, int32
indices), NumPy arrays into contiguous arrays of the expected type and shape,
CuPy arrays into device addresses; and the refusals, each saying what was
expected."""

import numbers
import operator

import numpy as np
import scipy.sparse as sp

from . import _core
from ._context import LEGACY_STREAM
from ._errors import InvalidMatrixError

VALUE_CODES = {np.dtype(np.float32): 0, np.dtype(np.float64): 1}
# Complex values, taken where the library has a complex path (the sparse LU).
COMPLEX_CODES = {np.dtype(np.complex64): 2, np.dtype(np.complex128): 3}
MAX_DIMENSION = 2**31 - 1


def integer_option(value, name):
    """An integer option as an int (NumPy integers too): 2.5 and "4" are
    refused with TypeError, not truncated."""
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{name}: expected an integer, got {type(value).__name__}") from None


INT32_RANGE = (-(2**31), 2**31 - 1)
INT64_RANGE = (-(2**63), 2**63 - 1)


def bounded_integer(value, name, bounds=INT32_RANGE):
    """integer_option(value, name) within bounds (the C type the library
    takes: int32 unless told), else an OverflowError naming the option
    (rather than the C conversion's, which names nothing)."""
    value = integer_option(value, name)
    low, high = bounds
    if not low <= value <= high:
        raise OverflowError(f"{name}: expected an integer from {low} to {high}, got {value}")
    return value


def is_cupy(obj):
    """True for a CuPy array (checked by module, so CuPy need not be installed).
    The interface is looked up on the type: on the array it is a property that
    builds its dictionary at every access."""
    kind = type(obj)
    return kind.__module__.startswith("cupy") and hasattr(kind, "__cuda_array_interface__")


def is_cupy_sparse(obj):
    """True for a cupyx.scipy.sparse matrix."""
    return type(obj).__module__.startswith("cupyx.scipy.sparse")


def native(dtype):
    """dtype in the machine's byte order: big-endian values are converted, not
    refused (every input is copied or cast on its way in anyway)."""
    dtype = np.dtype(dtype)
    return dtype if dtype.byteorder in "=|" else dtype.newbyteorder("=")


def value_dtype(dtype, what, complex_ok=False):
    """The value type for ``dtype`` (float32 or float64; complex64 or
    complex128 too when complex_ok), or a TypeError."""
    dt = native(dtype)
    if dt in VALUE_CODES or (complex_ok and dt in COMPLEX_CODES):
        return dt
    if complex_ok:
        raise TypeError(
            f"{what}: expected float32, float64, complex64 or complex128 values, got {dt} "
            "(convert with .astype(numpy.float64))"
        )
    if dt.kind == "c":
        raise TypeError(f"{what}: complex values ({dt}) are not supported yet; expected float32 or float64")
    raise TypeError(f"{what}: expected float32 or float64 values, got {dt} (convert with .astype(numpy.float64))")


class CsrArrays:
    """A matrix as the library takes it: canonical CSR (sorted column indices,
    no duplicates), int64 row offsets, int32 column indices."""

    __slots__ = ("indptr", "indices", "data", "shape", "dtype", "code")

    def __init__(self, indptr, indices, data, shape, dtype):
        self.indptr = indptr
        self.indices = indices
        self.data = data
        self.shape = shape
        self.dtype = dtype
        self.code = VALUE_CODES[dtype] if dtype in VALUE_CODES else COMPLEX_CODES[dtype]

    def copy(self):
        """The same matrix in arrays of its own (those above may be the
        caller's)."""
        return CsrArrays(self.indptr.copy(), self.indices.copy(), self.data.copy(), self.shape, self.dtype)


def host_sparse(A, what):
    """A SciPy sparse matrix for A (a cupyx sparse matrix is copied to the
    host), or a TypeError that says what was expected; its arrays checked
    against its shape (check_structure)."""
    if is_cupy_sparse(A):
        A = A.get()
    if not sp.issparse(A):
        raise TypeError(
            f"{what}: expected a scipy.sparse matrix or array (CSR, CSC or COO), got {type(A).__module__}."
            f"{type(A).__name__} (for a dense array use scipy.sparse.csr_array(A))"
        )
    if len(A.shape) != 2:
        raise ValueError(f"{what}: expected a 2-D sparse matrix, got shape {A.shape}")
    check_structure(A, what)
    return A


def _invalid_matrix(message):
    error = InvalidMatrixError(message)
    error.status = 2  # TS_ERROR_INVALID_MATRIX, as the library reports it
    return error


def _check_bounds(indices, bound, what, name):
    if indices.size:
        low, high = int(indices.min()), int(indices.max())
        if low < 0 or high >= bound:
            raise _invalid_matrix(f"{what}: {name} index {low if low < 0 else high} is outside [0, {bound})")


def check_structure(A, what):
    """An InvalidMatrixError unless A's arrays describe a matrix of its shape
    (arrays assigned after the matrix was made are not checked by SciPy):
    SciPy's conversions and sum_duplicates index memory with the offsets,
    and CSC's and COO's conversions with the indices, unchecked, so that a
    decreasing indptr or an index past the shape would crash them. CSR's
    column indices are left to the library's check (sorting and summing
    duplicates do not index with them). O(rows) for CSR, O(nnz) for the
    formats converted."""
    fmt = A.format
    if fmt in ("csr", "csc", "bsr"):
        if fmt == "bsr":
            block_rows, block_cols = A.blocksize
            major, minor = A.shape[0] // block_rows, A.shape[1] // block_cols
            name = "block column"
        else:
            major, minor = A.shape if fmt == "csr" else A.shape[::-1]
            name = "column" if fmt == "csr" else "row"
        indptr, indices, data = A.indptr, A.indices, A.data
        if not (isinstance(indptr, np.ndarray) and isinstance(indices, np.ndarray) and isinstance(data, np.ndarray)):
            indptr, indices, data = np.asarray(indptr), np.asarray(indices), np.asarray(data)
        if indptr.dtype.kind not in "iu" or indices.dtype.kind not in "iu":
            raise _invalid_matrix(
                f"{what}: expected integer indptr and indices, got {indptr.dtype} and {indices.dtype}"
            )
        if indptr.shape != (major + 1,) or indices.ndim != 1:
            raise _invalid_matrix(
                f"{what}: a {fmt.upper()} matrix of shape {A.shape} needs indptr of shape ({major + 1},), "
                f"got {indptr.shape}"
            )
        if indptr.dtype not in (np.int32, np.int64):
            indptr = indptr.astype(np.int64)  # unsigned or narrow offsets: checked as int64
        # One pass in C (_core.offsets_fault): start, order and end.
        fault = _core.offsets_fault(np.ascontiguousarray(indptr), min(indices.shape[0], data.shape[0]))
        if fault is not None:
            kind, i = fault
            if kind == 0:
                raise _invalid_matrix(f"{what}: indptr must start at 0, got indptr[0] = {int(indptr[0])}")
            if kind == 1:
                raise _invalid_matrix(
                    f"{what}: indptr must not decrease, got indptr[{i}] = {int(indptr[i])} "
                    f"and indptr[{i + 1}] = {int(indptr[i + 1])}"
                )
            raise _invalid_matrix(
                f"{what}: indptr ends at {int(indptr[-1])}, past the {indices.shape[0]} indices and "
                f"{data.shape[0]} values given"
            )
        if fmt != "csr":
            _check_bounds(indices[: int(indptr[-1])], minor, what, name)
    elif fmt == "coo":
        row, col, data = np.asarray(A.row), np.asarray(A.col), np.asarray(A.data)
        if row.dtype.kind not in "iu" or col.dtype.kind not in "iu":
            raise _invalid_matrix(f"{what}: expected integer row and col, got {row.dtype} and {col.dtype}")
        if not row.shape == col.shape == data.shape or data.ndim != 1:
            raise _invalid_matrix(
                f"{what}: a COO matrix needs row, col and data of one length, got shapes {row.shape}, {col.shape} "
                f"and {data.shape}"
            )
        _check_bounds(row, A.shape[0], what, "row")
        _check_bounds(col, A.shape[1], what, "column")


def index_array(indices, bound, what, name="column", always=False):
    """indices as a contiguous int32 array. Wider indices are checked first
    against [0, bound): a cast alone would wrap 2**32 + 2 to 2, a valid index
    of another matrix. int32 ones are left to the library's check unless
    ``always`` (where Python itself indexes with them)."""
    indices = np.asarray(indices)
    if (always or indices.dtype != np.int32) and indices.size:
        low, high = int(indices.min()), int(indices.max())
        if low < 0 or high >= bound:
            bad = low if low < 0 else high
            error = InvalidMatrixError(f"{what}: {name} index {bad} is outside [0, {bound})")
            error.status = 2  # TS_ERROR_INVALID_MATRIX, as the library reports it
            raise error
    return np.ascontiguousarray(indices, dtype=np.int32)


def csr_arrays(A, what="A", square=False, complex_ok=False):
    """CsrArrays for a sparse matrix (scipy.sparse in any format, or
    cupyx.scipy.sparse, copied to the host); complex values only when
    complex_ok."""
    return host_csr_arrays(host_sparse(A, what), what, square, complex_ok)


def host_csr_arrays(A, what="A", square=False, complex_ok=False):
    """csr_arrays of a matrix host_sparse has already given (and checked):
    the callers that hold it call this, so that its check runs once."""
    dtype = value_dtype(A.dtype, what, complex_ok)
    rows, cols = A.shape
    if rows > MAX_DIMENSION or cols > MAX_DIMENSION:
        raise OverflowError(f"{what}: a {rows} x {cols} matrix; tessera's dimensions are at most {MAX_DIMENSION}")
    if square and rows != cols:
        raise ValueError(f"{what}: expected a square matrix, got {rows} x {cols}")
    if A.format == "csc" and A.has_canonical_format:
        return _csc_as_csr(A, dtype)
    if A.format != "csr":
        A = A.tocsr()
    if not A.has_canonical_format:
        A = A.copy()
        A.sum_duplicates()
    indptr = np.ascontiguousarray(A.indptr, dtype=np.int64)
    # Indices and values past indptr[-1] (arrays assigned longer) are not entries.
    nnz = int(indptr[-1])
    indices = index_array(A.indices[:nnz], cols, what)
    data = np.ascontiguousarray(A.data[:nnz], dtype=dtype)
    return CsrArrays(indptr, indices, data, (rows, cols), dtype)


def _csc_as_csr(A, dtype):
    """CsrArrays of a canonical CSC matrix (checked by host_sparse) in one C
    pass (_core.csc_to_csr) rather than tocsr and the conversions after it:
    SciPy's splu takes CSC, and on small matrices those passes were most of
    the binding's time."""
    rows, cols = A.shape
    nnz = int(A.indptr[-1])
    indptr = A.indptr if A.indptr.dtype in (np.int32, np.int64) else A.indptr.astype(np.int64)
    indices = A.indices[:nnz]
    if indices.dtype not in (np.int32, np.int64):
        indices = indices.astype(np.int64)
    data = np.ascontiguousarray(A.data[:nnz], dtype=dtype)
    out_indptr = np.empty(rows + 1, dtype=np.int64)
    out_indices = np.empty(nnz, dtype=np.int32)
    out_data = np.empty(nnz, dtype=dtype)
    _core.csc_to_csr(np.ascontiguousarray(indptr), np.ascontiguousarray(indices), data, rows, out_indptr, out_indices,
                     out_data)
    return CsrArrays(out_indptr, out_indices, out_data, (rows, cols), dtype)


def cast_kind(x, dtype, what):
    """x (an array) as dtype when the cast keeps its kind of value (integers
    and floats to float; not complex to real, not strings), else a TypeError."""
    if x.dtype == dtype:
        return x
    if not np.can_cast(x.dtype, dtype, casting="same_kind"):
        raise TypeError(f"{what}: expected {dtype} values (or values that convert to it), got {x.dtype}")
    return x.astype(dtype)


def dense(x, what):
    """x as a NumPy array, or a TypeError for a sparse matrix (which
    ``numpy.asarray`` would turn into a 0-d array of objects)."""
    if sp.issparse(x) or is_cupy_sparse(x):
        raise TypeError(
            f"{what}: expected a dense array (NumPy or CuPy), got a sparse {type(x).__name__}; "
            "convert it with .toarray()"
        )
    x = np.asarray(x)
    if x.dtype == object:
        raise TypeError(f"{what}: expected an array of numbers, got {type(x.reshape(-1)[0]).__name__ if x.size else 'object'}")
    return x


def real_scalar(value, name):
    """A real scalar option (alpha, beta) as a float: Python and NumPy
    numbers; strings, None and arrays are refused with TypeError."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.number)) or isinstance(
        value, np.complexfloating
    ):
        raise TypeError(f"{name}: expected a real number, got {type(value).__name__}")
    try:
        return float(value)
    except OverflowError:
        raise OverflowError(f"{name}: {value} is too large for a float64") from None


def host_vector(x, length, dtype, what):
    """x as a contiguous 1-D NumPy array of ``length`` values of ``dtype``."""
    x = cast_kind(dense(x, what), dtype, what)
    if x.shape != (length,):
        raise ValueError(f"{what}: expected shape ({length},), got {x.shape}")
    return np.ascontiguousarray(x)


_cupy = None


def cupy_module():
    """The cupy module (imported only when a CuPy array is seen)."""
    global _cupy
    if _cupy is None:
        import cupy

        _cupy = cupy
    return _cupy


def cupy_stream():
    """CuPy's current stream as the int the library takes."""
    return cupy_module().cuda.get_current_stream().ptr or LEGACY_STREAM


def check_device(x, context, what):
    """A ValueError unless the CuPy array x is on the context's device."""
    if x.device.id != context.device:
        raise ValueError(f"{what}: the array is on device {x.device.id}, the context on device {context.device}")


def through_host(execute, x, out, *args):
    """execute(x, out, *args), a method on host arrays, for CuPy x and out
    (None or an array to fill): through host copies, the result as CuPy.
    For a context on the CPU, whose plans live in host memory."""
    cupy = cupy_module()
    result = execute(cupy.asnumpy(x), None if out is None else cupy.asnumpy(out), *args)
    if out is None:
        return cupy.asarray(result)
    out[...] = cupy.asarray(result)
    return out


def device_vector(x, length, dtype, what, context):
    """x (a CuPy array) as a contiguous 1-D CuPy array of ``length`` values of
    ``dtype`` on the context's device (a copy only if the type or layout
    differs)."""
    cupy = cupy_module()
    check_device(x, context, what)
    x = cast_kind(x, dtype, what)
    if x.shape != (length,):
        raise ValueError(f"{what}: expected shape ({length},), got {x.shape}")
    return cupy.ascontiguousarray(x)


class DeviceOrder:
    """Orders tessera's work on a context's stream after CuPy's current
    stream and CuPy's later work after tessera's: nothing to do when the
    context runs on CuPy's current stream, else the library makes each stream
    wait on the GPU for an event recorded on the other (no host wait), with
    the record and its wait in one call under the context's lock."""

    __slots__ = ("context", "stream")

    def __init__(self, context):
        self.context = context
        stream = cupy_stream()
        self.stream = None if stream == context.stream else stream

    def __enter__(self):
        if self.stream is not None:
            self.context._wait_for_stream(self.stream)
        return self

    def __exit__(self, kind, value, traceback):
        # Also after a failure: work the call queued before it failed stays ordered before CuPy's next.
        if self.stream is not None:
            self.context._stream_wait(self.stream)
        return False


def device_address(x):
    """The device address of a CuPy array's first element."""
    return int(x.data.ptr)
