"""Sorting and searching shaped like NumPy's: :func:`sort`, :func:`argsort`
and :func:`searchsorted`, and :class:`SearchPlan` for many searches in one
sorted array.

The library sorts and searches uint32, int32, float32, uint64 and float64
keys. Other integer types are carried through an order-preserving map:
int64 by flipping its sign bit (as uint64), bool, int8, int16, uint8 and
uint16 by widening to int32, float16 by widening to float32. The sort is
stable whatever ``kind`` says. Floating-point keys sort as NumPy's do, NaNs
last; :func:`sort` puts -0.0 before +0.0 (NumPy treats them as equal),
:func:`argsort` takes them as equal keys, as NumPy's stable argsort does.
"""

import operator
import re

import numpy as np

from . import _arrays, _core
from ._context import resolve
from ._errors import InvalidArgumentError

__all__ = ["sort", "argsort", "searchsorted", "SearchPlan", "SEARCH_ALGORITHMS"]

_KEY_CODES = {
    np.dtype(np.uint32): 0,
    np.dtype(np.int32): 1,
    np.dtype(np.float32): 2,
    np.dtype(np.uint64): 3,
    np.dtype(np.float64): 4,
}
_SIGN_BIT = np.uint64(1 << 63)
_KINDS = (None, "quicksort", "mergesort", "heapsort", "stable")

SEARCH_ALGORITHMS = tuple(_core.search_algorithm_names)
"""Search algorithm names, ``"auto"`` first (the library's names)."""

_AxisError = getattr(getattr(np, "exceptions", np), "AxisError")


def _key_form(dtype, what):
    """(key dtype, key code, to_key, from_key) for values of ``dtype``."""
    dtype = _arrays.native(dtype)
    if dtype in _KEY_CODES:
        return dtype, _KEY_CODES[dtype], None, None
    if dtype == np.dtype(np.int64):
        to_key = lambda a: np.ascontiguousarray(a, dtype=np.int64).view(np.uint64) ^ _SIGN_BIT  # noqa: E731
        from_key = lambda k: (k ^ _SIGN_BIT).view(np.int64)  # noqa: E731
        return np.dtype(np.uint64), _KEY_CODES[np.dtype(np.uint64)], to_key, from_key
    if dtype.kind in "biu" and dtype.itemsize <= 2:
        return np.dtype(np.int32), _KEY_CODES[np.dtype(np.int32)], None, lambda k: k.astype(dtype)
    if dtype == np.dtype(np.float16):
        return np.dtype(np.float32), _KEY_CODES[np.dtype(np.float32)], None, lambda k: k.astype(dtype)
    raise TypeError(
        f"{what}: expected integer, unsigned, float or bool values (float16 to float64, up to 64-bit integers), "
        f"got {dtype}"
    )


def _keys_copy(a, key_dtype, to_key):
    """A new C-contiguous array of keys (never the caller's memory)."""
    if to_key is not None:
        keys = to_key(a)
        return keys if keys.flags.c_contiguous else np.ascontiguousarray(keys)
    return np.array(a, dtype=key_dtype, order="C", copy=True)


def _check_sort_arguments(kind, order):
    if kind not in _KINDS:
        raise ValueError(f"kind must be one of {list(_KINDS)}, got {kind!r} (tessera's sort is always stable)")
    if order is not None:
        raise ValueError("order (fields of structured arrays) is not supported")


def _axis_last(a, axis, moveaxis):
    """(a with the axis to sort moved last, that axis) for axis None (the
    flattened array) or an int, as NumPy checks it."""
    if axis is None:
        return a.reshape(-1), 0
    try:
        axis = operator.index(axis)
    except TypeError:
        raise TypeError(f"axis: expected an integer or None, got {type(axis).__name__}") from None
    if not -a.ndim <= axis < a.ndim:
        raise _AxisError(f"axis {axis} is out of bounds for array of dimension {a.ndim}")
    axis = axis % a.ndim
    return moveaxis(a, axis, -1), axis


def _one_nan(keys, xp):
    """keys' NaNs made one quiet NaN and -0.0 made +0.0, in place: the
    library orders NaNs by sign and payload and -0.0 before +0.0 (so that
    sorted keys keep their bits), NumPy's argsort takes every NaN as equal,
    and both zeros, so that they keep their input order."""
    if keys.dtype.kind == "f":
        nans = xp.isnan(keys)
        if nans.any():
            keys[nans] = xp.nan
        zeros = keys == 0
        if zeros.any():
            keys[zeros] = 0


def _sorted(a, axis, descending, with_index, context):
    """(sorted keys in a's dtype or None, positions as intp or None), for a
    NumPy array."""
    work, axis = _axis_last(a, axis, np.moveaxis)
    key_dtype, code, to_key, from_key = _key_form(a.dtype, "a")
    keys = _keys_copy(work, key_dtype, to_key)
    if with_index:
        _one_nan(keys, np)
    n = keys.shape[-1]
    rows = keys.size // n if n else 0
    index = np.empty(keys.shape, dtype=np.int32) if with_index else None
    _core.sort(resolve(context), code, with_index, bool(descending), rows, n, keys, index)
    if with_index:
        return None, np.moveaxis(index.astype(np.intp), -1, axis)
    return np.moveaxis(from_key(keys) if from_key else keys, -1, axis), None


def _device_sorted(a, axis, descending, with_index, context):
    """sort/argsort of a CuPy array: in place on a device copy when the
    context is on CUDA and the keys are of a type the library sorts, else on
    the host and back."""
    cupy = _arrays.cupy_module()
    context = resolve(context)
    if context.backend != "cuda" or a.dtype not in _KEY_CODES:
        values, positions = _sorted(cupy.asnumpy(a), axis, descending, with_index, context)
        return cupy.asarray(positions if with_index else values)
    if a.device.id != context.device:
        raise ValueError(f"a: the array is on device {a.device.id}, the context on device {context.device}")
    work, axis = _axis_last(a, axis, cupy.moveaxis)
    keys = cupy.array(work, order="C", copy=True)
    if with_index:
        _one_nan(keys, cupy)
    n = keys.shape[-1]
    rows = keys.size // n if n else 0
    index = cupy.empty(keys.shape, dtype=np.int32) if with_index else None
    if rows:
        with _arrays.DeviceOrder(context):
            _core.sort(
                context,
                _KEY_CODES[a.dtype],
                with_index,
                bool(descending),
                rows,
                n,
                _arrays.device_address(keys),
                _arrays.device_address(index) if with_index else None,
            )
    result = index.astype(np.intp) if with_index else keys
    return cupy.moveaxis(result, -1, axis)


def _host_array(a):
    """a as a NumPy array; a masked array is refused (its mask would be
    lost: NumPy's sort puts masked values last)."""
    if isinstance(a, np.ma.MaskedArray):
        raise TypeError(
            "a: masked arrays are not supported (sort a.compressed() or a.filled(value), or use numpy.ma.sort)"
        )
    return np.asarray(a)


def _as_kind_of(a, result):
    """result as the ndarray subclass that a is (numpy.matrix stays one)."""
    return result.view(type(a)) if isinstance(a, np.ndarray) and type(a) is not np.ndarray else result


def sort(a, axis=-1, kind=None, order=None, *, stable=None, descending=False, context=None):
    """A sorted copy of an array, as ``numpy.sort``.

    Args:
        a: a NumPy array (or what ``numpy.asarray`` takes) or a CuPy array
            (sorted on the GPU when the context is on CUDA; the result is of
            a's kind, an ndarray subclass such as ``numpy.matrix`` included).
            A masked array is refused (TypeError): its mask would be lost.
        axis: the axis to sort along (default the last); None sorts the
            flattened array.
        kind, stable: accepted for NumPy's signature; the sort is always stable.
        order: not supported (structured arrays).
        descending: largest first (NaNs still last), still stable.
        context: a :class:`tessera.Context`.
    """
    _check_sort_arguments(kind, order)
    if _arrays.is_cupy(a):
        return _device_sorted(a, axis, descending, False, context)
    return _as_kind_of(a, _sorted(_host_array(a), axis, descending, False, context)[0])


def argsort(a, axis=-1, kind=None, order=None, *, stable=None, descending=False, context=None):
    """The positions that sort an array, as ``numpy.argsort`` (stable: equal
    keys keep their order, and NaNs of any sign or payload, last, keep theirs,
    as NumPy's). Arguments as for :func:`sort`; the result is intp."""
    _check_sort_arguments(kind, order)
    if _arrays.is_cupy(a):
        return _device_sorted(a, axis, descending, True, context)
    return _as_kind_of(a, _sorted(_host_array(a), axis, descending, True, context)[1])


class SearchPlan:
    """Sorted keys prepared once for many batched searches.

    Args:
        a: a sorted 1-D array (NumPy, or CuPy: copied to the host, as the
            library builds its layout from host keys); NaNs, if any, last.
        algorithm: the GPU algorithm, one of :data:`SEARCH_ALGORITHMS`
            (default ``"auto"``; the CPU backend runs a binary search).
        sorted_queries: the queries will come sorted (a hint for ``"auto"``).
        context: a :class:`tessera.Context`.

    Raises:
        ValueError: a is not sorted (the message gives the first index out of
            order) or not 1-D.
    """

    def __init__(self, a, algorithm="auto", *, sorted_queries=False, context=None):
        if algorithm not in SEARCH_ALGORITHMS:
            raise ValueError(f"algorithm must be one of {list(SEARCH_ALGORITHMS)}, got {algorithm!r}")
        context = resolve(context)
        keys = _arrays.cupy_module().asnumpy(a) if _arrays.is_cupy(a) else np.asarray(a)
        if keys.ndim != 1:
            raise ValueError(f"a: expected a 1-D sorted array, got shape {keys.shape}")
        self.dtype = keys.dtype
        self._key_dtype, code, self._to_key, _ = _key_form(keys.dtype, "a")
        keys = _keys_copy(keys, self._key_dtype, self._to_key)
        try:
            self._plan = _core.SearchPlan(context, code, keys, SEARCH_ALGORITHMS.index(algorithm), bool(sorted_queries))
        except InvalidArgumentError as error:
            if self._key_dtype == self.dtype:
                raise
            # The library saw the converted keys (the same positions): name the caller's type.
            renamed = InvalidArgumentError(re.sub(r"\(\w+ keys", f"({self.dtype} keys", str(error)))
            renamed.status = error.status
            raise renamed from None
        self._context = context
        self.size = keys.shape[0]

    @property
    def algorithm(self):
        return self._plan.algorithm

    @property
    def explain(self):
        return self._plan.explain

    def searchsorted(self, v, side="left"):
        """Indices where v's values would be inserted to keep the keys sorted,
        as ``numpy.searchsorted(a, v, side)``: intp, of v's shape (a scalar for
        a scalar v) and kind (NumPy or CuPy)."""
        if side not in ("left", "right"):
            raise ValueError(f"side must be 'left' or 'right', got {side!r}")
        upper = side == "right"
        if _arrays.is_cupy(v):
            return self._search_device(v, upper)
        queries = np.asarray(v)
        results = self._search_host(queries, upper)
        return results.reshape(())[()] if queries.ndim == 0 else results  # an intp scalar, as NumPy's

    def _queries(self, queries):
        if queries.dtype.kind not in "biuf":
            _key_form(queries.dtype, "v")  # objects, strings, complex: refused, naming their type
        if queries.dtype != self.dtype:
            if np.result_type(self.dtype, queries.dtype) != self.dtype and not self._exactly(queries):
                raise TypeError(
                    f"v: {queries.dtype} queries in {self.dtype} keys would change their values; "
                    f"make the plan with keys of type {np.result_type(self.dtype, queries.dtype)}"
                )
            queries = queries.astype(self.dtype)
        return _keys_copy(queries.reshape(-1), self._key_dtype, self._to_key)

    def _exactly(self, queries):
        """Whether every query keeps its value in the keys' type (Python
        numbers and lists arrive as float64 or int64: 2.5 in float32 keys,
        2 in uint8 keys), so that comparing in that type gives NumPy's
        answer."""
        if queries.dtype.kind not in "biuf":
            return False
        with np.errstate(over="ignore", invalid="ignore"):
            converted = queries.astype(self.dtype)
            back = converted.astype(queries.dtype)
        return bool(np.array_equal(back, queries, equal_nan=queries.dtype.kind == "f"))

    def _search_host(self, queries, upper):
        keys = self._queries(queries)
        results = np.empty(keys.shape[0], dtype=np.int64)
        self._plan.execute(upper, keys, keys.shape[0], results)
        return results.astype(np.intp, copy=False).reshape(queries.shape)

    def _search_device(self, v, upper):
        cupy = _arrays.cupy_module()
        if self._context.backend != "cuda" or v.dtype != self.dtype or self.dtype not in _KEY_CODES:
            return cupy.asarray(self._search_host(cupy.asnumpy(v), upper))
        queries = cupy.ascontiguousarray(v.reshape(-1))
        results = cupy.empty(queries.shape[0], dtype=np.int64)
        with _arrays.DeviceOrder(self._context):
            self._plan.execute(
                upper, _arrays.device_address(queries), queries.shape[0], _arrays.device_address(results)
            )
        return results.reshape(v.shape)


def _sorter(order, keys):
    """order checked as NumPy checks a sorter: integer positions, one per key,
    each a position of keys."""
    if order.dtype.kind not in "iu":
        raise TypeError(f"sorter: expected integer positions, got {order.dtype}")
    if order.ndim != 1 or keys.ndim != 1 or order.shape[0] != keys.shape[0]:
        raise ValueError(f"sorter: expected one position per key of a (shape {keys.shape}), got shape {order.shape}")
    if order.size and (int(order.min()) < 0 or int(order.max()) >= keys.shape[0]):
        raise ValueError(f"sorter: positions must lie in [0, {keys.shape[0]})")
    return order


def searchsorted(a, v, side="left", sorter=None, *, context=None):
    """Indices where v's values would be inserted into the sorted a, as
    ``numpy.searchsorted``.

    Args:
        a: a sorted 1-D array (or any order with ``sorter``, the positions
            that sort it); NaNs last.
        v: a scalar or an array of queries (NumPy or CuPy); both are brought
            to their common type (``numpy.result_type``).
        side: ``"left"`` (the first suitable index) or ``"right"`` (the last).
        sorter: None, or integer positions that sort a, one per key (checked
            as NumPy checks them: ValueError otherwise).
    Returns:
        intp indices of v's shape (an ``numpy.intp`` scalar for a scalar v),
        of v's kind.
    Raises:
        ValueError: a is not sorted (the message gives the first index out of
            order).
    """
    on_device = _arrays.is_cupy(a) or _arrays.is_cupy(v)
    cupy = _arrays.cupy_module() if on_device else None
    keys = cupy.asnumpy(a) if _arrays.is_cupy(a) else np.asarray(a)
    if sorter is not None:
        keys = keys[_sorter(cupy.asnumpy(sorter) if _arrays.is_cupy(sorter) else np.asarray(sorter), keys)]
    queries = v if _arrays.is_cupy(v) else np.asarray(v)
    _key_form(queries.dtype, "v")  # the queries' type named before the common type's
    common = np.result_type(keys.dtype, queries.dtype)
    plan = SearchPlan(keys.astype(common, copy=False), context=context)
    if _arrays.is_cupy(v):
        return plan.searchsorted(queries.astype(common, copy=False), side)
    result = plan.searchsorted(queries.astype(common, copy=False), side)
    return cupy.asarray(result) if on_device and not np.isscalar(result) else result
