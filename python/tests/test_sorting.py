"""tessera.sort, argsort and searchsorted against NumPy's: every key type,
axes, NaNs, stability, descending order; the refusals of bad input."""

import numpy as np
import pytest

import tessera

DTYPES = [np.uint32, np.int32, np.float32, np.uint64, np.float64, np.int64, np.int16, np.int8, np.uint8, np.uint16,
          np.float16, np.bool_]


def random_keys(dtype, shape, seed, distinct=None):
    """Random keys spanning the type's range (few distinct values when
    distinct is given, so that ties test stability)."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if distinct is not None:
        return rng.integers(0, distinct, size=shape).astype(dtype)
    if dtype.kind == "f":
        keys = rng.standard_normal(shape) * 1e3
        return keys.astype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, size=shape).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)


@pytest.mark.parametrize("dtype", DTYPES)
def test_sort_and_argsort_match_numpy(dtype):
    for n in (0, 1, 2, 17, 1000, 20000):
        a = random_keys(dtype, n, n)
        got = tessera.sort(a)
        assert got.dtype == a.dtype and got.shape == a.shape
        np.testing.assert_array_equal(got, np.sort(a, kind="stable"))
        positions = tessera.argsort(a)
        assert positions.dtype == np.intp
        np.testing.assert_array_equal(positions, np.argsort(a, kind="stable"))
    ties = random_keys(dtype, 5000, 9, distinct=2 if dtype == np.bool_ else 7)
    np.testing.assert_array_equal(tessera.argsort(ties), np.argsort(ties, kind="stable"))


def test_the_input_is_left_alone():
    a = random_keys(np.int64, 100, 1)
    copy = a.copy()
    tessera.sort(a)
    tessera.argsort(a)
    np.testing.assert_array_equal(a, copy)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_floating_point_order_with_nans_and_infinities(dtype):
    a = np.array([3.0, np.nan, -np.inf, 0.0, np.inf, -1.5, np.nan, -0.0, 2.0], dtype=dtype)
    got = tessera.sort(a)
    np.testing.assert_array_equal(got, np.sort(a))  # NaNs last, as NumPy
    assert np.signbit(got[2]) and got[2] == 0 and not np.signbit(got[3])  # -0.0 before +0.0
    np.testing.assert_array_equal(np.isnan(a[tessera.argsort(a)]), np.isnan(np.sort(a)))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_argsort_keeps_nans_of_any_sign_in_input_order(dtype):
    """NaNs with the sign bit set (what inf - inf gives on x86) and other
    payloads are equal to NumPy's argsort: they keep their input order."""
    bits = {np.float16: np.uint16, np.float32: np.uint32, np.float64: np.uint64}[dtype]
    negative_nan = np.copysign(dtype(np.nan), dtype(-1))
    payload = (np.array([np.nan], dtype=dtype).view(bits) + 1).view(dtype)[0]
    a = np.array([negative_nan, np.nan, 1.0, payload, -2.0, negative_nan, np.nan], dtype=dtype)
    assert np.signbit(a[0]) and np.isnan(a[3])
    np.testing.assert_array_equal(tessera.argsort(a), np.argsort(a, kind="stable"))
    grid = np.stack([a, a[::-1]])
    for axis in (0, 1, None):
        np.testing.assert_array_equal(tessera.argsort(grid, axis=axis), np.argsort(grid, axis=axis, kind="stable"))
    np.testing.assert_array_equal(np.isnan(tessera.sort(a)), np.isnan(np.sort(a)))


def test_axes_like_numpy():
    a = random_keys(np.float64, (4, 5, 6), 3)
    for axis in (0, 1, 2, -1, -2, -3):
        np.testing.assert_array_equal(tessera.sort(a, axis=axis), np.sort(a, axis=axis))
        np.testing.assert_array_equal(tessera.argsort(a, axis=axis), np.argsort(a, axis=axis, kind="stable"))
    np.testing.assert_array_equal(tessera.sort(a, axis=None), np.sort(a, axis=None))
    np.testing.assert_array_equal(tessera.argsort(a, axis=None), np.argsort(a, axis=None, kind="stable"))
    fortran = np.asfortranarray(a)
    np.testing.assert_array_equal(tessera.sort(fortran, axis=1), np.sort(a, axis=1))
    np.testing.assert_array_equal(tessera.sort(a[:, ::2, 1:]), np.sort(a[:, ::2, 1:]))
    np.testing.assert_array_equal(tessera.sort([3, 1, 2]), [1, 2, 3])
    assert tessera.sort(np.zeros((3, 0))).shape == (3, 0)
    with pytest.raises(np.exceptions.AxisError if hasattr(np, "exceptions") else np.AxisError):
        tessera.sort(a, axis=3)
    with pytest.raises(np.exceptions.AxisError if hasattr(np, "exceptions") else np.AxisError):
        tessera.sort(np.float64(1.0))


def test_descending_is_stable_and_keeps_nans_last():
    a = np.array([2.0, np.nan, 5.0, 2.0, -1.0, 5.0])
    np.testing.assert_array_equal(tessera.sort(a, descending=True), [5.0, 5.0, 2.0, 2.0, -1.0, np.nan])
    np.testing.assert_array_equal(tessera.argsort(a, descending=True), [2, 5, 0, 3, 4, 1])
    keys = random_keys(np.int32, 3000, 4, distinct=10)
    expected = np.argsort(-keys.astype(np.int64), kind="stable")
    np.testing.assert_array_equal(tessera.argsort(keys, descending=True), expected)


def test_sort_refusals():
    with pytest.raises(TypeError, match="complex"):
        tessera.sort(np.ones(4, dtype=np.complex128))
    with pytest.raises(TypeError):
        tessera.sort(np.array(["b", "a"]))
    with pytest.raises(TypeError):
        tessera.sort(np.array([object(), object()]))
    with pytest.raises(ValueError, match="kind"):
        tessera.sort(np.ones(3), kind="bogosort")
    with pytest.raises(ValueError, match="order"):
        tessera.sort(np.ones(3), order="x")
    for kind in (None, "quicksort", "mergesort", "heapsort", "stable"):
        np.testing.assert_array_equal(tessera.sort(np.array([2, 1]), kind=kind), [1, 2])


@pytest.mark.parametrize("dtype", DTYPES)
def test_searchsorted_matches_numpy(dtype):
    keys = np.sort(random_keys(dtype, 3000, 1))
    queries = random_keys(dtype, 1000, 2)
    queries[:50] = keys[:50]  # exact hits, with duplicates among the keys for the small types
    for side in ("left", "right"):
        got = tessera.searchsorted(keys, queries, side=side)
        assert got.dtype == np.intp
        np.testing.assert_array_equal(got, np.searchsorted(keys, queries, side=side))


def test_searchsorted_forms():
    keys = np.array([1.0, 2.0, 2.0, 3.5, np.nan])
    assert tessera.searchsorted(keys, 2.0) == 1 and tessera.searchsorted(keys, 2.0, "right") == 3
    assert type(tessera.searchsorted(keys, 2.0)) is type(np.searchsorted(keys, 2.0))  # NumPy's intp scalar
    np.testing.assert_array_equal(tessera.searchsorted(keys, [np.nan, -np.inf, 4.0]), [4, 0, 4])
    queries = np.array([[0.0, 2.0], [3.0, 9.0]])
    np.testing.assert_array_equal(tessera.searchsorted(keys, queries), np.searchsorted(keys, queries))
    # Mixed types: brought to their common type, as NumPy.
    ints = np.array([1, 3, 5, 7], dtype=np.int32)
    np.testing.assert_array_equal(tessera.searchsorted(ints, [2.5, 5.0]), np.searchsorted(ints, [2.5, 5.0]))
    # sorter: positions that sort the keys.
    unsorted = np.array([5.0, 1.0, 3.0])
    sorter = np.argsort(unsorted)
    np.testing.assert_array_equal(
        tessera.searchsorted(unsorted, [2.0, 4.0], sorter=sorter), np.searchsorted(unsorted, [2.0, 4.0], sorter=sorter)
    )
    assert tessera.searchsorted(np.array([], dtype=np.float64), [1.0]).tolist() == [0]
    assert tessera.searchsorted(keys, np.array([], dtype=np.float64)).shape == (0,)


def test_search_plan_reused():
    keys = np.sort(random_keys(np.uint64, 10000, 5))
    plan = tessera.SearchPlan(keys)
    assert plan.algorithm in tessera.SEARCH_ALGORITHMS and isinstance(plan.explain, str)
    for seed in range(3):
        queries = random_keys(np.uint64, 500, 10 + seed)
        np.testing.assert_array_equal(plan.searchsorted(queries), np.searchsorted(keys, queries))
        np.testing.assert_array_equal(plan.searchsorted(queries, "right"), np.searchsorted(keys, queries, "right"))
    for algorithm in tessera.SEARCH_ALGORITHMS:
        other = tessera.SearchPlan(keys, algorithm, sorted_queries=True)
        sorted_queries = np.sort(random_keys(np.uint64, 300, 7))
        np.testing.assert_array_equal(other.searchsorted(sorted_queries), np.searchsorted(keys, sorted_queries))


def test_search_refusals():
    with pytest.raises(ValueError, match="key 2 is less than key 1"):
        tessera.searchsorted(np.array([1.0, 3.0, 2.0, 4.0]), [1.0])
    # Keys the library compares in another type are named in the caller's.
    for dtype in (np.int64, np.int8, np.uint16, np.float16):
        with pytest.raises(ValueError, match=rf"key 1 is less than key 0 \({np.dtype(dtype)} keys"):
            tessera.SearchPlan(np.array([5, 1, 3], dtype=dtype))
    with pytest.raises(ValueError, match="1-D"):
        tessera.searchsorted(np.ones((2, 2)), [1.0])
    with pytest.raises(ValueError, match="side"):
        tessera.searchsorted(np.ones(3), [1.0], side="middle")
    with pytest.raises(TypeError, match="complex"):
        tessera.searchsorted(np.ones(3, dtype=np.complex64), [1.0])
    with pytest.raises(ValueError, match="algorithm"):
        tessera.SearchPlan(np.ones(3), "linear")
    plan = tessera.SearchPlan(np.arange(10, dtype=np.int32))
    with pytest.raises(TypeError, match="float64"):
        plan.searchsorted(np.array([1.5]))
    with pytest.raises(TypeError, match="int64"):
        tessera.SearchPlan(np.arange(5, dtype=np.uint8)).searchsorted([1, 300])
    with pytest.raises(TypeError, match="float64"):
        tessera.SearchPlan(np.arange(5, dtype=np.float32)).searchsorted(2.0000001)


def test_search_plan_takes_python_numbers_that_keep_their_value():
    """Python numbers and lists arrive as float64 or int64; where each keeps
    its value in the keys' type the plan answers as NumPy does."""
    for keys, queries in (
        (np.arange(5, dtype=np.float32), 2.5),
        (np.arange(5, dtype=np.float32), [2.5, 0.0, -1.0, np.inf]),
        (np.arange(5, dtype=np.int32), 2),
        (np.arange(5, dtype=np.uint8), [1, 3]),
        (np.arange(5, dtype=np.float16), [0.5, 4.0]),
    ):
        plan = tessera.SearchPlan(keys)
        for side in ("left", "right"):
            np.testing.assert_array_equal(plan.searchsorted(queries, side), np.searchsorted(keys, queries, side))


def test_searchsorted_sorter_checked_as_numpy_does():
    keys = np.array([3.0, 1.0, 2.0, 5.0])
    order = np.argsort(keys)
    assert tessera.searchsorted(keys, 2.5, sorter=order) == np.searchsorted(keys, 2.5, sorter=order)
    with pytest.raises(ValueError, match="one position per key"):
        tessera.searchsorted(keys, 2.5, sorter=order[:3])  # NumPy: sorter.size must equal a.size
    with pytest.raises(ValueError, match="must lie in"):
        tessera.searchsorted(keys, 2.5, sorter=np.array([0, 1, 2, 4]))
    with pytest.raises(TypeError, match="integer positions"):
        tessera.searchsorted(keys, 2.5, sorter=order.astype(np.float64))


def test_sort_refuses_masked_arrays_and_keeps_subclasses():
    masked = np.ma.array([3, 1, 2, 0], mask=[0, 0, 0, 1])
    with pytest.raises(TypeError, match="masked arrays"):
        tessera.sort(masked)
    with pytest.raises(TypeError, match="masked arrays"):
        tessera.argsort(masked)
    m = np.matrix([[3.0, 1.0, 2.0]])
    got = tessera.sort(m)
    assert type(got) is type(np.sort(m)) and np.array_equal(got, np.sort(m))


def test_big_endian_keys_are_converted():
    keys = np.array([3.0, 1.0, 2.0], dtype=">f8")
    np.testing.assert_array_equal(tessera.sort(keys), np.sort(keys))
    np.testing.assert_array_equal(tessera.argsort(np.array([3, 1, 2], dtype=">i4")), [1, 2, 0])
