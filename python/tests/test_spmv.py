"""tessera.SpMV and tessera.spmv against SciPy's A @ x, on generated matrices
of every input format and on the corpus; the refusals of bad input."""

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from conftest import corpus_params, random_sparse

import tessera


def assert_product(y, A, x, alpha=1.0, beta=0.0, y0=None):
    """y = alpha A x + beta y0 to within the rounding of a sum of |A||x| terms
    (each row summed in some order), the reference in double by SciPy."""
    A64 = sp.csr_matrix(A).astype(np.float64)
    x64 = np.asarray(x, dtype=np.float64)
    expected = alpha * (A64 @ x64)
    bound = abs(alpha) * (abs(A64) @ np.abs(x64))
    if y0 is not None and beta != 0.0:
        expected = expected + beta * y0.astype(np.float64)
        bound = bound + abs(beta) * np.abs(y0)
    eps = np.finfo(y.dtype).eps
    row_lengths = np.diff(A64.indptr) + 2
    assert np.all(np.abs(y.astype(np.float64) - expected) <= row_lengths * eps * bound + np.finfo(np.float64).tiny)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "bsr", "lil"])
def test_spmv_matches_scipy_every_format(dtype, fmt):
    A = random_sparse(300, 200, 0.05, 3, dtype=dtype, fmt=fmt)
    x = np.random.default_rng(1).standard_normal(200).astype(dtype)
    plan = tessera.SpMV(A)
    y = plan(x)
    assert y.dtype == dtype and y.shape == (300,)
    assert_product(y, A, x)
    assert plan.shape == (300, 200) and plan.dtype == dtype


def test_duplicates_and_unsorted_indices_are_summed():
    rows = np.array([0, 0, 1, 2, 2, 0])
    cols = np.array([2, 0, 1, 0, 0, 2])
    vals = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    A = sp.coo_matrix((vals, (rows, cols)), shape=(3, 3))
    x = np.array([1.0, 10.0, 100.0])
    np.testing.assert_array_equal(tessera.spmv(A, x), A.toarray() @ x)
    unsorted = sp.csr_matrix((np.array([1.0, 2.0]), np.array([2, 0]), np.array([0, 2, 2, 2])), shape=(3, 3))
    assert not unsorted.has_sorted_indices
    np.testing.assert_array_equal(tessera.spmv(unsorted, x), unsorted.toarray() @ x)


def test_transpose_alpha_beta_and_in_place():
    A = random_sparse(80, 50, 0.1, 4)
    x = np.random.default_rng(2).standard_normal(80)
    plan = tessera.SpMV(A, transpose=True)
    assert plan.shape == (50, 80)
    assert_product(plan(x), A.T, x)
    assert_product(tessera.spmv(A, x, transpose=True), A.T, x)
    y0 = np.random.default_rng(3).standard_normal(50)
    y = y0.copy()
    assert plan.execute(x, y, alpha=2.5, beta=-0.5) is y
    assert_product(y, A.T, x, 2.5, -0.5, y0)
    # beta = 0 ignores y's input, NaN included.
    y[:] = np.nan
    plan.execute(x, y, alpha=1.0, beta=0.0)
    assert np.all(np.isfinite(y))


def test_every_schedule_gives_the_same_result():
    A = tessera.gen.power_law(2000, 2000, 30000, 1.2, seed=1)
    x = np.random.default_rng(5).standard_normal(2000)
    reference = tessera.SpMV(A)(x)
    assert_product(reference, A, x)
    for schedule in tessera.SCHEDULES:
        plan = tessera.SpMV(A, schedule)
        y = plan(x)
        # Each schedule is bitwise repeatable; across schedules the sums may
        # be grouped differently (on the GPU), so they agree to rounding.
        np.testing.assert_array_equal(plan(x), y)
        np.testing.assert_allclose(y, reference, rtol=1e-12, atol=1e-12 * np.abs(reference).max())
        assert plan.schedule in tessera.SCHEDULES and plan.schedule != "auto"
        assert isinstance(plan.explain, str) and plan.bytes > 0
    assert "SpMV" in repr(plan)


def test_repeated_products_are_bitwise_the_same():
    A = tessera.gen.rmat(12, 8, seed=3)
    x = np.random.default_rng(1).standard_normal(A.shape[1])
    plan = tessera.SpMV(A)
    first = plan(x)
    for _ in range(20):
        np.testing.assert_array_equal(plan(x), first)


def test_x_of_other_kinds_is_converted():
    A = random_sparse(20, 10, 0.3, 6)
    plan = tessera.SpMV(A)
    as_list = [float(i) for i in range(10)]
    expected = plan(np.arange(10.0))
    np.testing.assert_array_equal(plan(as_list), expected)
    np.testing.assert_array_equal(plan(np.arange(10)), expected)
    np.testing.assert_array_equal(plan(np.arange(20.0)[::2] / 2), expected)  # a strided view
    np.testing.assert_array_equal(plan(np.arange(10.0, dtype=np.float32)), expected)


def test_bad_inputs_raise_the_right_exceptions():
    A = random_sparse(20, 10, 0.3, 6)
    plan = tessera.SpMV(A)
    with pytest.raises(ValueError, match=r"\(10,\)"):
        plan(np.ones(11))
    with pytest.raises(ValueError, match=r"\(10,\)"):
        plan(np.ones((10, 1)))
    with pytest.raises(TypeError, match="float64"):
        plan(np.ones(10, dtype=np.complex128))
    with pytest.raises(TypeError):
        plan(np.array(["x"] * 10))
    with pytest.raises(TypeError, match="float32 or float64"):
        tessera.SpMV(A.astype(np.int32))
    with pytest.raises(TypeError, match="complex"):
        tessera.SpMV(A.astype(np.complex64))
    with pytest.raises(TypeError, match="scipy.sparse"):
        tessera.SpMV(A.toarray())
    with pytest.raises(ValueError, match="schedule"):
        tessera.SpMV(A, "fastest")
    with pytest.raises(tessera.InvalidArgumentError, match="group size"):
        tessera.SpMV(A, "group-mapped", group_size=3)
    y = np.empty(20)
    with pytest.raises(TypeError, match="y"):
        plan.execute(np.ones(10), np.empty(20, dtype=np.float32))
    with pytest.raises(TypeError, match="y"):
        plan.execute(np.ones(10), np.empty(19))
    with pytest.raises(ValueError, match="contiguous"):
        plan.execute(np.ones(10), np.empty(40)[::2])
    square = tessera.SpMV(random_sparse(10, 10, 0.3, 7))
    shared = np.ones(10)
    with pytest.raises(ValueError, match="overlap"):
        square.execute(shared, shared)
    assert y.shape == (20,)


def test_empty_and_degenerate_shapes():
    for rows, cols in ((0, 0), (0, 5), (5, 0), (1, 1)):
        A = sp.csr_matrix((rows, cols))
        np.testing.assert_array_equal(tessera.SpMV(A)(np.ones(cols)), np.zeros(rows))


@pytest.mark.parametrize("path,row", corpus_params(lambda row: row["field"] != "complex"))
def test_spmv_corpus_matches_scipy(path, row):
    A = sp.csr_matrix(scipy.io.mmread(str(path))).astype(np.float64)
    x = np.random.default_rng(7).standard_normal(A.shape[1])
    assert_product(tessera.SpMV(A)(x), A, x)
    xt = np.random.default_rng(8).standard_normal(A.shape[0])
    assert_product(tessera.SpMV(A, transpose=True)(xt), A.T, xt)
