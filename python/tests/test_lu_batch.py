"""tessera.splu_batch against per-matrix SciPy solves: one pattern with many
members, several patterns mixed (and interleaved in the list), refactoring,
a singular member that fails alone, and the refusals of bad input."""

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from conftest import random_sparse

import tessera

EPS = np.finfo(np.float64).eps


def with_values(A, seed):
    """A's pattern with its values scaled by random factors in [0.5, 1.5]."""
    B = sp.csr_matrix(A, copy=True)
    B.data = B.data * np.random.default_rng(seed).uniform(0.5, 1.5, B.nnz)
    return B


def scipy_solutions(matrices, rhs):
    return [spla.splu(sp.csc_matrix(A)).solve(b) for A, b in zip(matrices, rhs)]


def test_one_pattern_many_members_matches_scipy():
    A = random_sparse(150, 150, 0.03, 1)
    matrices = [with_values(A, seed) for seed in range(20)]
    rhs = np.random.default_rng(2).standard_normal((20, 150))
    batch = tessera.splu_batch(matrices)
    assert len(batch) == 20 and batch.patterns == 1
    x = batch.solve(rhs)
    assert isinstance(x, np.ndarray) and x.shape == (20, 150)
    for got, expected, M, b in zip(x, scipy_solutions(matrices, rhs), matrices, rhs):
        np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-13)
        assert np.abs(b - M @ got).max() <= 64 * EPS * abs(M).sum(axis=1).max() * np.abs(got).max()
    s = batch.stats
    assert s.members == 20 and s.patterns == 1 and s.failed_members == 0
    # AUTO keeps a batch this small on the host even on a CUDA context.
    assert not s.on_gpu or tessera.default_context().backend == "cuda"
    assert batch.member_stats(3).status == 0 and batch.member_stats(3).backward_error <= 64 * EPS


def test_several_patterns_interleaved_keep_the_callers_order():
    first = random_sparse(60, 60, 0.08, 3)
    second = random_sparse(90, 90, 0.05, 4)
    third = tessera.gen.laplacian_2d(8, 8)
    matrices = [with_values(first, 5), with_values(second, 6), third, with_values(first, 7), with_values(second, 8)]
    rng = np.random.default_rng(9)
    rhs = [rng.standard_normal(M.shape[0]) for M in matrices]
    batch = tessera.splu_batch(matrices)
    assert batch.patterns == 3
    x = batch.solve(rhs)
    assert isinstance(x, list) and [v.shape for v in x] == [(60,), (90,), (64,), (60,), (90,)]
    for got, expected in zip(x, scipy_solutions(matrices, rhs)):
        np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-13)
    assert [batch.member_stats(i).pattern for i in range(5)] == [0, 1, 2, 0, 1]


def test_refactor_gives_the_new_values_solutions():
    A = random_sparse(80, 80, 0.05, 10)
    batch = tessera.splu_batch([with_values(A, s) for s in range(5)])
    new = [with_values(A, s + 100) for s in range(5)]
    batch.refactor(new)
    rhs = np.ones((5, 80))
    for got, expected in zip(batch.solve(rhs), scipy_solutions(new, rhs)):
        np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-13)
    with pytest.raises(ValueError, match="pattern"):
        batch.refactor([random_sparse(80, 80, 0.05, 11)] * 5)
    with pytest.raises(ValueError, match="5"):
        batch.refactor(new[:4])


def test_a_singular_member_fails_alone():
    good = sp.csr_matrix(np.array([[4.0, 1.0], [1.0, 3.0]]))
    singular = sp.csr_matrix(np.array([[1.0, 2.0], [2.0, 4.0]]))
    matrices = [good, singular, with_values(good, 1)]
    with pytest.raises(tessera.SingularMatrixError, match="member"):
        tessera.splu_batch(matrices, perturbation=False)
    batch = tessera.splu_batch(matrices, perturbation=False, check=False)
    assert batch.failed() == [1] and batch.stats.failed_members == 1
    assert batch.member_stats(1).status_name and batch.member_stats(1).singular_column in (0, 1)
    x = batch.solve([np.ones(2)] * 3, check=False)
    assert np.all(np.isnan(x[1]))
    np.testing.assert_allclose(x[0], np.linalg.solve(good.toarray(), np.ones(2)), rtol=1e-12)
    np.testing.assert_allclose(x[2], np.linalg.solve(matrices[2].toarray(), np.ones(2)), rtol=1e-12)


def test_a_structurally_singular_pattern_fails_the_batch():
    # No analysis for its members to be factored with, whatever check says.
    good = sp.csr_matrix(np.array([[4.0, 1.0], [1.0, 3.0]]))
    empty_row = sp.csr_matrix(np.array([[4.0, 1.0], [0.0, 0.0]]))
    for check in (True, False):
        with pytest.raises(tessera.SingularMatrixError, match="pattern 1.*structurally singular"):
            tessera.splu_batch([good, empty_row], check=check)


def test_float32_members_give_float32_solutions():
    A = random_sparse(40, 40, 0.1, 12, dtype=np.float32)
    x = tessera.splu_batch([A, A]).solve(np.ones((2, 40)))
    assert x.dtype == np.float32
    np.testing.assert_allclose(x[1], spla.spsolve(A.astype(np.float64).tocsc(), np.ones(40)), rtol=1e-5)


def test_bad_inputs():
    A = random_sparse(10, 10, 0.3, 13)
    with pytest.raises(ValueError, match="at least one"):
        tessera.splu_batch([])
    with pytest.raises(TypeError, match="float32 or float64"):
        tessera.splu_batch([A, A.astype(np.complex128)])
    with pytest.raises(ValueError, match="square"):
        tessera.splu_batch([random_sparse(10, 12, 0.3, 1)])
    with pytest.raises(TypeError, match="scipy.sparse"):
        tessera.splu_batch([A.toarray()])
    with pytest.raises(TypeError, match=r"single csr_matrix; pass \[A\]"):
        tessera.splu_batch(A)
    with pytest.raises(TypeError, match="list of sparse matrices, got int"):
        tessera.splu_batch(3)
    batch = tessera.splu_batch([A, A])
    with pytest.raises(TypeError, match="new_matrices: expected a list"):
        batch.refactor(A)
    with pytest.raises(ValueError, match="2"):
        batch.solve([np.ones(10)])
    with pytest.raises(ValueError, match=r"\(10,\)"):
        batch.solve([np.ones(10), np.ones(9)])
    with pytest.raises(ValueError):
        batch.solve(np.ones((3, 10)))
    with pytest.raises(IndexError):
        batch.member_stats(2)
