"""The estimates and statistics of tessera.splu against independent
references: condest() against NumPy's exact 1-norm condition number, rcond()
and rgrowth() against their definitions (KLU's klu_rcond and klu_rgrowth)
evaluated on the extracted factors .L/.U, and the statistics of the pivot
check and of the last solve recomputed from A, x and b."""

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import random_sparse

import tessera

EPS = np.finfo(np.float64).eps


def unsymmetric_sparse(n, density, seed, dtype=np.float64):
    """A random sparse matrix without a dominant diagonal (its conditioning
    varies with the seed), made nonsingular by a permuted identity."""
    rng = np.random.default_rng(seed)
    a = sp.random(n, n, density=density, format="csr", random_state=rng)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * sp.random(n, n, density=density, format="csr", random_state=rng)
    a = a + sp.csr_matrix((rng.uniform(0.1, 1.0, n), (np.arange(n), rng.permutation(n))), shape=(n, n))
    return sp.csr_matrix(a).astype(dtype)


def graded_tridiagonal(n, decades):
    """A tridiagonal matrix whose rows span `decades` decades: ill conditioned
    in the 1-norm unless scaled."""
    scales = np.logspace(0, decades, n)
    main = 4.0 * np.ones(n)
    off = -np.ones(n - 1)
    return sp.diags(scales) @ sp.diags([off, main, off], [-1, 0, 1], format="csr")


SMALL_MATRICES = [
    pytest.param(lambda: random_sparse(40, 40, 0.1, 1), id="dominant-40"),
    pytest.param(lambda: unsymmetric_sparse(30, 0.15, 2), id="unsymmetric-30"),
    pytest.param(lambda: unsymmetric_sparse(60, 0.08, 3), id="unsymmetric-60"),
    pytest.param(lambda: unsymmetric_sparse(25, 0.2, 4, np.complex128), id="complex-25"),
    pytest.param(lambda: graded_tridiagonal(50, 8), id="graded-50"),
    pytest.param(lambda: sp.csr_matrix(np.array([[1.0, 1.0], [1.0, 1.0 + 1e-9]])), id="nearly-singular-2"),
]


@pytest.mark.parametrize("make", SMALL_MATRICES)
def test_condest_is_within_a_tenth_of_the_true_condition_number(make):
    A = make()
    lu = tessera.splu(A)
    estimate = lu.condest()
    exact = np.linalg.cond(A.toarray(), 1)
    assert 0.1 * exact <= estimate <= exact * (1 + 1e-6), f"condest {estimate:.6g}, cond_1 {exact:.6g}"
    assert lu.stats.condest == estimate


@pytest.mark.parametrize("make", SMALL_MATRICES)
def test_rcond_and_rgrowth_follow_their_definitions_on_the_factors(make):
    A = make()
    lu = tessera.splu(A)
    rcond, rgrowth = lu.rcond(), lu.rgrowth()
    L, U = lu.L, lu.U
    pivots = np.abs(U.diagonal())
    assert rcond == pytest.approx(pivots.min() / pivots.max(), rel=1e-12)
    # M = P R A C Q, the scaled, permuted matrix that was factored.
    n = A.shape[0]
    pr = sp.csc_matrix((np.ones(n), (lu.perm_r, np.arange(n))), shape=(n, n))
    pc = sp.csc_matrix((np.ones(n), (np.arange(n), lu.perm_c)), shape=(n, n))
    M = (pr @ sp.diags(lu.row_scale) @ sp.csc_matrix(A) @ sp.diags(lu.col_scale) @ pc).toarray()
    column_max_m = np.abs(M).max(axis=0)
    column_max_u = np.abs(U.toarray()).max(axis=0)
    kept = column_max_u > 0
    expected = min(1.0, (column_max_m[kept] / column_max_u[kept]).min())
    assert rgrowth == pytest.approx(expected, rel=1e-12)
    assert 0 < rgrowth <= 1
    s = lu.stats
    assert s.rcond == rcond and s.rgrowth == rgrowth
    # The pivot check's measures, on the same factors.
    multipliers = np.abs(sp.tril(L, -1).toarray())
    assert s.max_multiplier == pytest.approx(multipliers.max() if multipliers.size else 0.0, rel=1e-12, abs=1e-300)
    assert s.pivot_growth == pytest.approx(np.abs(U.toarray()).max() / np.abs(M).max(), rel=1e-12)


def test_estimates_are_zero_until_computed_and_need_factors(cpu):
    A = random_sparse(30, 30, 0.1, 5)
    lu = tessera.splu(A, context=cpu)
    s = lu.stats
    assert s.condest == 0 and s.rcond == 0 and s.rgrowth == 0
    assert s.factor_backend == "cpu" and s.factor_threads >= 1
    assert s.pivots_refreshed is False
    singular = sp.csr_matrix(np.array([[1.0, 2.0], [2.0, 4.0]]))
    with pytest.raises(tessera.SingularMatrixError):
        tessera.splu(singular, perturbation=False)


def test_solve_statistics_match_a_recomputation():
    A = unsymmetric_sparse(80, 0.06, 7)
    rng = np.random.default_rng(8)
    b = rng.standard_normal((80, 3))
    lu = tessera.splu(A)
    x = lu.solve(b)
    s = lu.stats
    r = b - A @ x
    norm_a = abs(A).sum(axis=1).max()
    assert s.solution_norm == pytest.approx(np.abs(x).max(), rel=1e-12)
    assert s.residual_norm <= 64 * EPS * norm_a * np.abs(x).max()
    normwise = (np.abs(r).max(axis=0) / (norm_a * np.abs(x).max(axis=0) + np.abs(b).max(axis=0))).max()
    assert s.backward_error <= 64 * EPS and normwise <= 64 * EPS
    componentwise = (np.abs(r) / (abs(A) @ np.abs(x) + np.abs(b))).max()
    assert s.componentwise_backward_error <= 1e-12 and componentwise <= 1e-12
    assert 0 <= s.scaled_backward_error <= 64 * EPS


def test_refresh_pivots_analyzes_degraded_values_again():
    """Pivots chosen for a matrix whose diagonal dominates are degraded by
    values whose diagonal is tiny: refresh_pivots analyzes them anew."""
    first = sp.csr_matrix(np.array([[4.0, 1.0, 0.0], [1.0, 4.0, 1.0], [0.0, 1.0, 4.0]]))
    degraded = sp.csr_matrix(np.array([[1e-13, 1.0, 0.0], [1.0, 1e-13, 1.0], [0.0, 1.0, 4.0]]))
    b = np.array([1.0, 2.0, 3.0])
    expected = np.linalg.solve(degraded.toarray(), b)
    for refresh in (False, True):
        lu = tessera.splu(first, matching=False, refresh_pivots=refresh)
        assert lu.stats.pivots_refreshed is False
        lu.refactor(degraded)
        assert lu.stats.pivots_refreshed is refresh
        np.testing.assert_allclose(lu.solve(b), expected, rtol=1e-10)
