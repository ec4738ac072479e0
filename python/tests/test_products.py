"""tessera.SpMM/spmm and tessera.spgemm against SciPy's A @ B: formats,
types, layouts and widths, in place, every schedule, the memory budget's
row-blocked mode, the corpus; the refusals of bad input."""

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from conftest import corpus_params, random_sparse

import tessera


def assert_dense_product(C, A, B, alpha=1.0, beta=0.0, C0=None):
    """C = alpha A B + beta C0 to within the rounding of each entry's sum of
    |A||B| terms (the reference in double by SciPy)."""
    A64, B64 = sp.csr_matrix(A).astype(np.float64), np.asarray(B, dtype=np.float64)
    expected = alpha * (A64 @ B64)
    bound = abs(alpha) * (abs(A64) @ np.abs(B64))
    if C0 is not None and beta != 0.0:
        expected = expected + beta * C0
        bound = bound + abs(beta) * np.abs(C0)
    terms = (np.diff(A64.indptr) + 2).reshape(-1, *([1] * (expected.ndim - 1)))
    assert np.all(np.abs(np.asarray(C, dtype=np.float64) - expected) <= terms * np.finfo(C.dtype).eps * bound + 1e-300)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_spmm_matches_scipy(dtype, fmt):
    A = random_sparse(300, 200, 0.04, 2, dtype=dtype, fmt=fmt)
    plan = tessera.SpMM(A)
    rng = np.random.default_rng(1)
    for width in (1, 7, 64):
        B = rng.standard_normal((200, width)).astype(dtype)
        C = plan(B)
        assert C.shape == (300, width) and C.dtype == dtype and C.flags.c_contiguous
        assert_dense_product(C, A, B)
        F = plan(np.asfortranarray(B))
        assert F.flags.f_contiguous
        assert_dense_product(F, A, B)
        np.testing.assert_array_equal(plan(np.asfortranarray(B)), F)  # bitwise repeatable in each layout
        if plan._context.backend == "cpu":
            np.testing.assert_array_equal(F, C)  # the host sums each entry in row order in either layout
    assert_dense_product(plan(B[:, ::2]), A, B[:, ::2])  # a strided B is copied
    vector = plan(B[:, 0].copy())
    assert vector.shape == (300,)
    assert_dense_product(vector, A, B[:, 0])
    assert plan(np.zeros((200, 0), dtype=dtype)).shape == (300, 0)


def test_spmm_in_place_and_schedules():
    A = tessera.gen.power_law(1500, 1000, 20000, 1.1, seed=2)
    B = np.random.default_rng(3).standard_normal((1000, 16))
    C0 = np.random.default_rng(4).standard_normal((1500, 16))
    C = C0.copy()
    plan = tessera.SpMM(A)
    assert plan.execute(B, C, alpha=2.0, beta=-1.0) is C
    assert_dense_product(C, A, B, 2.0, -1.0, C0)
    reference = plan(B)
    np.testing.assert_array_equal(plan(B), reference)  # run to run, bitwise
    for schedule in tessera.SCHEDULES:
        other = tessera.SpMM(A, schedule)
        result = other(B)
        # Each schedule repeats bitwise; schedules add a row's products in
        # their own orders on the GPU, so across them only to rounding.
        np.testing.assert_array_equal(other(B), result)
        np.testing.assert_allclose(result, reference, rtol=1e-12, atol=1e-12)
        assert other.plan(16).schedule in tessera.SCHEDULES and isinstance(other.plan(16).explain, str)
    np.testing.assert_allclose(tessera.spmm(A, B), reference, rtol=1e-12, atol=1e-12)
    assert "SpMM" in repr(plan)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_spmm_passes_match_scipy(cpu, dtype):
    # Passes over bands of columns: bands dividing the width and not, one
    # column, wider than B; either layout; in place with beta. On the CPU
    # every entry sums its terms in one order whatever the band: the same
    # bits as one pass.
    A = random_sparse(300, 200, 0.04, 9, dtype=dtype)
    rng = np.random.default_rng(10)
    B = rng.standard_normal((200, 75)).astype(dtype)
    C0 = rng.standard_normal((300, 75)).astype(dtype)
    whole = tessera.SpMM(A, context=cpu)
    reference = whole(B)
    assert_dense_product(reference, A, B)
    for pass_columns in (1, 7, 25, 64, 75, 1000):
        plan = tessera.SpMM(A, pass_columns=pass_columns, context=cpu)
        C = plan(B)
        assert_dense_product(C, A, B)
        np.testing.assert_array_equal(C, reference)
        np.testing.assert_array_equal(plan(np.asfortranarray(B)), reference)
        expected = "one pass" if pass_columns >= 75 else f"{-(-75 // pass_columns)} passes of {pass_columns} columns"
        assert expected in plan.plan(75).explain
        C = C0.copy()
        plan.execute(B, C, alpha=-0.5, beta=2.0)
        assert_dense_product(C, A, B, -0.5, 2.0, C0)
    assert "one pass" in whole.plan(75).explain
    with pytest.raises(ValueError, match="pass_columns"):
        tessera.SpMM(A, pass_columns=-1)
    for not_a_count in (2.5, "4"):
        with pytest.raises(TypeError, match="pass_columns: expected an integer"):
            tessera.SpMM(A, pass_columns=not_a_count)
        with pytest.raises(TypeError, match="group_size: expected an integer"):
            tessera.SpMM(A, group_size=not_a_count)
    assert "passes of 25 columns" in tessera.SpMM(A, pass_columns=np.int64(25), context=cpu).plan(75).explain


def test_spmm_refusals():
    A = random_sparse(20, 10, 0.3, 5)
    for not_a_count in (2.5, "4"):
        with pytest.raises(TypeError, match="group_size: expected an integer"):
            tessera.SpMM(A, group_size=not_a_count)
    plan = tessera.SpMM(A)
    with pytest.raises(ValueError, match=r"\(10, k\)"):
        plan(np.ones((11, 3)))
    with pytest.raises(ValueError):
        plan(np.ones((10, 3, 2)))
    with pytest.raises(TypeError, match="float64"):
        plan(np.ones((10, 3), dtype=np.complex128))
    with pytest.raises(TypeError, match="C"):
        plan.execute(np.ones((10, 3)), np.empty((20, 4)))
    with pytest.raises(ValueError, match="Fortran"):
        plan.execute(np.asfortranarray(np.ones((10, 3))), np.empty((20, 3)))
    square = tessera.SpMM(random_sparse(10, 10, 0.3, 6))
    shared = np.ones((10, 2))
    with pytest.raises(ValueError, match="overlap"):
        square.execute(shared, shared)
    with pytest.raises(TypeError, match="scipy.sparse"):
        tessera.SpMM(np.ones((3, 3)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_spgemm_matches_scipy(dtype):
    A = random_sparse(400, 300, 0.02, 7, dtype=dtype)
    B = random_sparse(300, 500, 0.02, 8, dtype=dtype, fmt="csc")
    C = tessera.spgemm(A, B)
    expected = sp.csr_matrix(A @ B)
    expected.sort_indices()
    assert isinstance(C, sp.csr_matrix) and C.dtype == dtype and C.has_sorted_indices
    np.testing.assert_array_equal(C.indptr, expected.indptr)
    np.testing.assert_array_equal(C.indices, expected.indices)
    np.testing.assert_allclose(C.data, expected.data, rtol=8 * np.finfo(dtype).eps, atol=0)
    assert isinstance(tessera.spgemm(sp.csr_array(A), B), sp.sparray)


def test_spgemm_blocked_under_a_budget_gives_the_same_matrix():
    A = tessera.gen.rmat(11, 8, seed=9)
    whole, info = tessera.spgemm(A, A, return_info=True)
    assert info["blocked"] is False and info["nnz"] == whole.nnz and info["products"] >= whole.nnz
    budget = 2 * (A.data.nbytes + A.indices.nbytes + A.indptr.nbytes) + 200_000  # C does not fit
    blocked, info = tessera.spgemm(A, A, memory_budget=budget, return_info=True)
    assert info["blocked"] is True
    assert (whole != blocked).nnz == 0
    np.testing.assert_array_equal(whole.data, blocked.data)
    expected = sp.csr_matrix(A @ A)
    np.testing.assert_allclose(whole.toarray(), expected.toarray(), rtol=1e-13)


def test_spgemm_refusals_and_forms():
    A = random_sparse(10, 8, 0.3, 1)
    with pytest.raises(ValueError, match="dimension"):
        tessera.spgemm(A, A)
    with pytest.raises(TypeError, match="complex"):
        tessera.spgemm(A.astype(np.complex128), A.T)
    with pytest.raises(TypeError):
        tessera.spgemm(A, A.T.astype(np.complex64))
    with pytest.raises(ValueError, match="memory_budget"):
        tessera.spgemm(A, A.T, memory_budget=-5)
    with pytest.raises(TypeError, match="scipy.sparse"):
        tessera.spgemm(A.toarray(), A.T)
    np.testing.assert_allclose(tessera.spgemm(A, A.T.astype(np.float32)).toarray(), (A @ A.T).toarray(), rtol=1e-6)
    empty = tessera.spgemm(sp.csr_matrix((3, 0)), sp.csr_matrix((0, 4)))
    assert empty.shape == (3, 4) and empty.nnz == 0
    # Products that cancel leave a structural entry holding 0 (SciPy drops it).
    row, col = sp.csr_matrix(np.array([[1.0, 1.0]])), sp.csr_matrix(np.array([[1.0], [-1.0]]))
    cancelled = tessera.spgemm(row, col)
    assert cancelled.nnz == 1 and cancelled.data.tolist() == [0.0] and (row @ col).nnz == 0


@pytest.mark.parametrize("path,row", corpus_params(lambda row: row["field"] != "complex" and int(row["nnz"]) <= 200_000))
def test_corpus_products_match_scipy(path, row):
    A = sp.csr_matrix(scipy.io.mmread(str(path))).astype(np.float64)
    B = A.T.tocsr() if A.shape[0] != A.shape[1] else A
    products = int(np.bincount(A.indices, minlength=A.shape[1]) @ np.diff(B.indptr))
    if products > 5_000_000:  # arrow's dense row and column make A A nearly dense
        pytest.skip(f"{row['name']}: {products} products (the test keeps to 5e6)")
    C = tessera.spgemm(A, B)
    expected = sp.csr_matrix(A @ B)
    expected.sum_duplicates()
    assert C.shape == expected.shape
    difference = abs(C - expected)
    scale = (abs(A) @ abs(B)).max() if A.nnz else 0.0
    assert difference.nnz == 0 or difference.max() <= 64 * np.finfo(np.float64).eps * scale
    X = np.random.default_rng(1).standard_normal((A.shape[1], 4))
    assert_dense_product(tessera.SpMM(A)(X), A, X)


def test_spmm_keeps_the_matrix_it_was_made_with():
    # Plans are made per width on first use: they must all see A as it was
    # when the object was made, whatever the caller does to A's arrays since.
    A = sp.csr_matrix(np.array([[2.0, 0.0], [0.0, 0.0]]))
    plan = tessera.SpMM(A)
    A.data[:] = 20.0
    for width in (1, 2, 3):
        np.testing.assert_array_equal(plan(np.ones((2, width)))[:, 0], [2.0, 0.0])


def test_sparse_operand_where_a_dense_one_is_expected():
    A = sp.csr_matrix(np.eye(3))
    with pytest.raises(TypeError, match="expected a dense array .* convert it with .toarray"):
        tessera.SpMM(A)(sp.csr_matrix(np.ones((3, 2))))
    with pytest.raises(TypeError, match="expected a dense array"):
        tessera.SpMV(A)(sp.csr_matrix(np.ones((3, 1))))
    with pytest.raises(TypeError, match="expected a dense array"):
        tessera.splu(sp.csc_matrix(np.eye(3))).solve(sp.csr_matrix(np.ones((3, 1))))


def test_big_endian_matrix_values_are_converted():
    A = sp.csr_matrix(np.array([[2.0, 1.0], [0.0, 3.0]]))
    big = sp.csr_matrix((A.data.astype(">f8"), A.indices, A.indptr), shape=A.shape)
    np.testing.assert_allclose(tessera.SpMV(big)(np.ones(2)), A @ np.ones(2))
    np.testing.assert_allclose(tessera.splu(big.tocsc()).solve(np.ones(2)), np.linalg.solve(A.toarray(), np.ones(2)))
