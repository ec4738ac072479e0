"""The factors of tessera.splu (.L, .U, .perm_r, .perm_c, .row_scale,
.col_scale, from ts_lu_extract_csc): the relation
Pr @ diag(row_scale) @ A @ diag(col_scale) @ Pc == L @ U holds to rounding,
with Pr and Pc built as SciPy's documentation builds them (checked on SciPy's
own splu, so the convention is SciPy's); the factors are triangular, the
permutations are permutations, and a solve through them agrees with SciPy's
spsolve. After a refactorization the factors are the new values'."""

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from conftest import corpus_params, random_sparse

import tessera

EPS = np.finfo(np.float64).eps


def permutation_matrices(perm_r, perm_c):
    """Pr and Pc as in the documentation of scipy.sparse.linalg.splu."""
    n = len(perm_r)
    pr = sp.csc_matrix((np.ones(n), (perm_r, np.arange(n))), shape=(n, n))
    pc = sp.csc_matrix((np.ones(n), (np.arange(n), perm_c)), shape=(n, n))
    return pr, pc


def relation_error(A, L, U, perm_r, perm_c, row_scale=None, col_scale=None):
    """max |Pr R A C Pc - L U| / max (|L| |U|): a few eps for a backward
    stable factorization."""
    n = A.shape[0]
    pr, pc = permutation_matrices(perm_r, perm_c)
    r = sp.diags(np.ones(n) if row_scale is None else row_scale)
    c = sp.diags(np.ones(n) if col_scale is None else col_scale)
    difference = (pr @ r @ sp.csc_matrix(A) @ c @ pc - L @ U).toarray()
    scale = (abs(L) @ abs(U)).max()
    return np.abs(difference).max() / scale if scale > 0 else np.abs(difference).max()


def check_factors(A, lu, tolerance):
    n = A.shape[0]
    L, U = lu.L, lu.U
    assert isinstance(L, sp.csc_matrix) and isinstance(U, sp.csc_matrix)
    assert L.shape == U.shape == (n, n) and L.dtype == U.dtype == np.float64
    assert sp.triu(L, 1).nnz == 0 and np.all(L.diagonal() == 1.0)
    assert sp.tril(U, -1).nnz == 0
    assert sorted(lu.perm_r) == list(range(n)) and sorted(lu.perm_c) == list(range(n))
    assert np.all(lu.row_scale > 0) and np.all(lu.col_scale > 0)
    error = relation_error(A, L, U, lu.perm_r, lu.perm_c, lu.row_scale, lu.col_scale)
    assert error <= tolerance, f"|Pr R A C Pc - L U| / |L||U| = {error:.3g}"


def test_relation_is_scipys_convention():
    """The same formula on SciPy's own factors: the permutations mean what
    SciPy's mean (no scaling there)."""
    A = random_sparse(60, 60, 0.08, seed=3).tocsc()
    reference = spla.splu(A)
    assert relation_error(A, reference.L, reference.U, reference.perm_r, reference.perm_c) <= 16 * EPS


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("options", [{}, {"matching": False}, {"ordering": "natural"}, {"ordering": "colamd"}])
def test_factors_reproduce_the_matrix(seed, options):
    A = random_sparse(200, 200, 0.03, seed=seed)
    # Rows and columns scaled over decades, so that the scaling matters.
    rng = np.random.default_rng(seed)
    A = sp.diags(10.0 ** rng.uniform(-4, 4, 200)) @ A @ sp.diags(10.0 ** rng.uniform(-4, 4, 200))
    try:
        lu = tessera.splu(A, **options)
    except RuntimeError as error:  # an ordering built without SuiteSparse
        pytest.skip(str(error))
    check_factors(A, lu, 64 * EPS)


def test_solve_through_the_factors_matches_scipy():
    """x = C Pc U^-1 L^-1 Pr R b, by SciPy's triangular solves, is SciPy's
    spsolve's answer."""
    A = random_sparse(150, 150, 0.05, seed=9)
    b = np.linspace(-1.0, 2.0, 150)
    lu = tessera.splu(A)
    pr, pc = permutation_matrices(lu.perm_r, lu.perm_c)
    y = spla.spsolve_triangular(lu.L.tocsr(), pr @ (lu.row_scale * b), lower=True)
    z = spla.spsolve_triangular(lu.U.tocsr(), y, lower=False)
    x = lu.col_scale * (pc @ z)
    expected = spla.spsolve(A.tocsc(), b)
    assert np.abs(x - expected).max() <= 1e-10 * np.abs(expected).max()


def test_float_factors_widened():
    A = random_sparse(120, 120, 0.05, seed=4)
    lu = tessera.splu(A, float_factors=True)
    check_factors(A, lu, 64 * np.finfo(np.float32).eps)


def test_factors_follow_a_refactorization():
    A = random_sparse(100, 100, 0.05, seed=5).tocsr()
    lu = tessera.splu(A)
    first_u = lu.U.copy()
    B = A.copy()
    B.data = B.data * np.linspace(0.5, 2.0, B.nnz)
    lu.refactor(B)
    check_factors(B, lu, 64 * EPS)
    assert abs(lu.U - first_u).max() > 0


def test_permutation_matrix_without_matching():
    """[0 1; 1 0] in its own order without the matching: the solve falls
    back to partial pivoting, whose factors are then the ones given."""
    A = sp.csr_matrix(np.array([[0.0, 1.0], [1.0, 0.0]]))
    lu = tessera.splu(A, matching=False, ordering="natural")
    x = lu.solve(np.array([1.0, 2.0]))
    assert np.allclose(x, [2.0, 1.0])
    check_factors(A, lu, 4 * EPS)


def small_square(row):
    return row["rows"] == row["cols"] and row["field"] in ("real", "integer") and 0 < int(row["nnz"]) <= 20_000


@pytest.mark.parametrize("path,row", corpus_params(small_square))
def test_corpus_factors(path, row):
    A = sp.csr_matrix(scipy.io.mmread(str(path))).astype(np.float64)
    try:
        lu = tessera.splu(A)
    except (RuntimeError, np.linalg.LinAlgError) as error:
        pytest.skip(f"tessera does not factor {row['name']}: {error}")
    check_factors(A, lu, 1e3 * EPS)
