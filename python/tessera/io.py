"""Matrix Market files, as ``scipy.io.mmread``, ``mminfo`` and ``mmwrite``.

tessera's reader parses in large chunks (plain text or gzip, recognised by
its magic bytes whatever the name) and reports malformed input with the line
number; Ctrl-C stops a long read.
"""

import math
import numbers
import os

import numpy as np
import scipy.sparse as sp

from . import _arrays, _core
from ._context import resolve

__all__ = ["mmread", "mminfo", "mmwrite"]

_FIELDS = {"real": 0, "integer": 1, "pattern": 2}
_FIELD_NAMES = ("real", "integer", "pattern", "complex")  # by ts_mm_field
_FORMAT_NAMES = ("coordinate", "array")  # by ts_mm_format
_SYMMETRIES = {"general": 0, "symmetric": 1, "skew-symmetric": 2}


def _path(source, what):
    if not isinstance(source, (str, bytes, os.PathLike)):
        raise TypeError(f"{what}: expected a file name (str or os.PathLike), got {type(source).__name__}")
    return os.fsdecode(source)


def _frombuffer(block, dtype, count):
    """A NumPy array over a buffer tessera allocated (no copy); it keeps the
    buffer alive."""
    return np.frombuffer(block, dtype=dtype) if count else np.empty(0, dtype=dtype)


def matrix_arrays(matrix):
    """The three arrays of a _core.Matrix as NumPy arrays over its memory,
    and its description (a dict)."""
    description = matrix.describe()
    first, second, values = matrix.arrays()
    dtype = np.float32 if description["dtype"] == 0 else np.float64
    nnz = description["nnz"]
    index = np.int32 if description["format"] == "coo" else np.int64
    first_count = nnz if description["format"] == "coo" else 1
    return (
        _frombuffer(first, index, first_count),
        _frombuffer(second, np.int32, nnz),
        _frombuffer(values, dtype, nnz),
        description,
    )


def mmread(source, dtype=np.float64, *, spmatrix=True, context=None):
    """Read a Matrix Market file, as ``scipy.io.mmread``.

    Args:
        source: the file name (``.mtx`` or gzip-compressed).
        dtype: float64 (default) or float32; integer and pattern files are
            read as values of this type (pattern entries as 1).
        spmatrix: return a ``coo_matrix`` (True, SciPy's default) or a
            ``coo_array``.
    Returns:
        A COO matrix for coordinate files (symmetric, skew-symmetric and
        hermitian storage expanded to both triangles), a dense NumPy array
        for array files.
    Raises:
        ParseError: malformed text (the message gives the line).
        FileError: the file cannot be read.
        UnsupportedError: complex values.
    """
    dtype = _arrays.value_dtype(dtype, "dtype")
    matrix, info = _core.mm_read(resolve(context), _path(source, "source"), _arrays.VALUE_CODES[dtype], True)
    rows_idx, cols_idx, values, description = matrix_arrays(matrix)
    shape = (description["rows"], description["cols"])
    if _FORMAT_NAMES[info["format"]] == "array":
        dense = np.zeros(shape, dtype=dtype)
        dense[rows_idx, cols_idx] = values
        return dense
    kind = sp.coo_matrix if spmatrix else sp.coo_array
    return kind((values, (rows_idx, cols_idx)), shape=shape)


def mminfo(source, *, context=None):
    """The header of a Matrix Market file, as ``scipy.io.mminfo``:
    (rows, cols, entries, format, field, symmetry)."""
    info = _core.mm_read_info(resolve(context), _path(source, "source"))
    fmt, field = _FORMAT_NAMES[info["format"]], _FIELD_NAMES[info["field"]]
    return info["rows"], info["cols"], info["entries"], fmt, field, info["symmetry"]


def mmwrite(target, a, *, field=None, precision=None, symmetry=None, context=None):
    """Write a matrix as Matrix Market coordinate text, as ``scipy.io.mmwrite``
    (gzip when the name ends in ``.gz``).

    Args:
        target: the file name.
        a: a sparse matrix (any SciPy format) or a 2-D NumPy array, float32
            or float64 (integer values are written as real unless
            ``field="integer"``).
        field: ``"real"`` (default), ``"integer"`` or ``"pattern"``.
        precision: significant digits (default: the shortest exact form).
        symmetry: ``"general"`` (default), or ``"symmetric"`` /
            ``"skew-symmetric"`` to store the lower triangle of a matrix the
            caller knows to have that symmetry.
    """
    field = "real" if field is None else field
    symmetry = "general" if symmetry is None else symmetry
    if field not in _FIELDS:
        raise ValueError(f"field must be one of {sorted(_FIELDS)}, got {field!r}")
    if symmetry not in _SYMMETRIES:
        raise ValueError(f"symmetry must be one of {sorted(_SYMMETRIES)}, got {symmetry!r}")
    if precision is not None:
        if (
            isinstance(precision, (bool, np.bool_, np.complexfloating))
            or not isinstance(precision, (numbers.Real, np.number))
        ):
            raise TypeError(f"precision: expected a whole number of digits from 1 to 17, got {type(precision).__name__}")
        if not (math.isfinite(precision) and int(precision) == precision and 1 <= precision <= 17):
            raise ValueError(f"precision must be a whole number of digits from 1 to 17, got {precision!r}")
    if isinstance(a, np.ndarray):
        if a.ndim != 2:
            raise ValueError(f"a: expected a 2-D array, got shape {a.shape}")
        a = sp.coo_matrix(a)
    a = _arrays.host_sparse(a, "a")
    if a.dtype.kind in "biu":
        a = a.astype(np.float64)
    dtype = _arrays.value_dtype(a.dtype, "a")
    coo = a.tocoo()
    if symmetry != "general":
        if coo.shape[0] != coo.shape[1]:
            raise ValueError(f"a: a {symmetry} matrix must be square, got {coo.shape}")
        coo = sp.tril(coo, k=0 if symmetry == "symmetric" else -1, format="coo")
    rows = np.ascontiguousarray(coo.row, dtype=np.int32)
    cols = np.ascontiguousarray(coo.col, dtype=np.int32)
    values = np.ascontiguousarray(coo.data, dtype=dtype)
    _core.mm_write(
        resolve(context),
        _path(target, "target"),
        coo.shape[0],
        coo.shape[1],
        values.shape[0],
        rows,
        cols,
        values,
        _arrays.VALUE_CODES[dtype],
        _SYMMETRIES[symmetry],
        _FIELDS[field],
        int(precision or 0),
    )
