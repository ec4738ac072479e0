"""Complex matrices in tessera.splu and tessera.spsolve (complex128 and
complex64) against SciPy's splu and spsolve, on generated matrices and on
corpus matrices given random complex values: solutions with trans 'N', 'T'
and 'H' (the conjugate transpose), complex factors, refactorization, real
matrices with complex right-hand sides, and the refusals of other types."""

import warnings

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from conftest import corpus_params, random_sparse

import tessera

EPS = np.finfo(np.float64).eps


def complex_values(A, seed, dtype=np.complex128):
    """A's pattern with complex values: each entry's modulus kept, its phase
    random (so the matrix stays as well scaled as A, but is not Hermitian)."""
    A = sp.csr_matrix(A, dtype=np.float64)
    phases = np.random.default_rng(seed).uniform(0, 2 * np.pi, A.nnz)
    C = sp.csr_matrix((A.data * np.exp(1j * phases), A.indices, A.indptr), shape=A.shape)
    return C.astype(dtype)


def complex_vector(n, seed, k=None):
    rng = np.random.default_rng(seed)
    shape = (n,) if k is None else (n, k)
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def backward_error(A, x, b):
    r = b - A @ x
    return np.abs(r).max() / (abs(A).sum(axis=1).max() * np.abs(x).max() + np.abs(b).max())


def operator(A, trans):
    return {"N": A, "T": A.T, "H": A.conj().T}[trans]


def check_against_scipy(A, b, trans, tolerance=1e-9):
    csc = sp.csc_matrix(A)
    expected = spla.splu(csc).solve(b, trans=trans)
    got = tessera.splu(A).solve(b, trans=trans)
    assert got.dtype == expected.dtype == np.complex128 and got.shape == expected.shape
    assert backward_error(operator(csc, trans), got, b) <= 64 * EPS
    np.testing.assert_allclose(got, expected, rtol=tolerance, atol=tolerance * np.abs(expected).max())


@pytest.mark.parametrize("trans", ["N", "T", "H"])
@pytest.mark.parametrize("n,density,seed", [(1, 1.0, 1), (9, 0.4, 2), (300, 0.02, 3), (1200, 0.004, 4)])
def test_complex_splu_matches_scipy(n, density, seed, trans):
    A = complex_values(random_sparse(n, n, density, seed), seed + 10)
    check_against_scipy(A, complex_vector(n, seed), trans)


def test_conjugate_transpose_differs_from_transpose():
    A = complex_values(random_sparse(50, 50, 0.1, 5), 6)
    b = complex_vector(50, 7)
    lu = tessera.splu(A)
    x_t, x_h = lu.solve(b, trans="T"), lu.solve(b, trans="H")
    assert np.abs(x_t - x_h).max() > 1e-3 * np.abs(x_h).max()
    np.testing.assert_allclose(A.conj().T @ x_h, b, rtol=0, atol=1e-12 * np.abs(b).max())
    np.testing.assert_allclose(A.T @ x_t, b, rtol=0, atol=1e-12 * np.abs(b).max())


def test_several_right_hand_sides_and_real_ones():
    A = complex_values(random_sparse(80, 80, 0.05, 8), 9)
    B = complex_vector(80, 10, k=4)
    expected = spla.splu(A.tocsc()).solve(B)
    np.testing.assert_allclose(tessera.splu(A).solve(B), expected, rtol=1e-10, atol=1e-12)
    real_b = np.linspace(1.0, 2.0, 80)
    np.testing.assert_allclose(tessera.splu(A).solve(real_b), spla.spsolve(A.tocsc(), real_b), rtol=1e-10)


def test_complex64_matrix_gives_complex64_solutions():
    A = complex_values(random_sparse(60, 60, 0.08, 11), 12, dtype=np.complex64)
    b = complex_vector(60, 13).astype(np.complex64)
    x = tessera.splu(A).solve(b)
    assert x.dtype == np.complex64
    expected = spla.spsolve(A.astype(np.complex128).tocsc(), b.astype(np.complex128))
    np.testing.assert_allclose(x, expected, rtol=1e-5, atol=1e-5 * np.abs(expected).max())


def test_real_matrix_with_complex_right_hand_side():
    A = random_sparse(70, 70, 0.06, 14)
    b = complex_vector(70, 15, k=2)
    for trans in ("N", "T", "H"):
        x = tessera.splu(A).solve(b, trans=trans)
        assert x.dtype == np.complex128
        reference = spla.splu(A.tocsc())  # whose solve takes real right-hand sides only
        expected = reference.solve(b.real, trans=trans) + 1j * reference.solve(b.imag, trans=trans)
        np.testing.assert_allclose(x, expected, rtol=1e-10, atol=1e-12)
    x32 = tessera.splu(A.astype(np.float32)).solve(b.astype(np.complex64))
    assert x32.dtype == np.complex64


def test_spsolve_complex_like_scipy():
    A = complex_values(random_sparse(90, 90, 0.05, 16), 17)
    b = complex_vector(90, 18)
    np.testing.assert_allclose(tessera.spsolve(A, b), spla.spsolve(A.tocsc(), b), rtol=1e-10)
    B = sp.csc_matrix(complex_vector(90, 19, k=2))
    x = tessera.spsolve(A, B)
    assert sp.issparse(x) and x.dtype == np.complex128
    np.testing.assert_allclose(x.toarray(), spla.spsolve(A.tocsc(), B).toarray(), rtol=1e-10, atol=1e-13)
    real = random_sparse(90, 90, 0.05, 20)
    np.testing.assert_allclose(tessera.spsolve(real, b), spla.spsolve(real.tocsc(), b), rtol=1e-10)


def test_complex_factors_reproduce_the_matrix():
    A = complex_values(random_sparse(60, 60, 0.08, 21), 22)
    lu = tessera.splu(A)
    L, U = lu.L, lu.U
    assert L.dtype == U.dtype == np.complex128
    assert sp.triu(L, 1).nnz == 0 and np.all(L.diagonal() == 1.0) and sp.tril(U, -1).nnz == 0
    n = A.shape[0]
    pr = sp.csc_matrix((np.ones(n), (lu.perm_r, np.arange(n))), shape=(n, n))
    pc = sp.csc_matrix((np.ones(n), (np.arange(n), lu.perm_c)), shape=(n, n))
    M = pr @ sp.diags(lu.row_scale) @ A.tocsc() @ sp.diags(lu.col_scale) @ pc
    error = np.abs((M - L @ U).toarray()).max() / (abs(L) @ abs(U)).max()
    assert error <= 32 * EPS


def test_complex_refactor():
    A = complex_values(random_sparse(100, 100, 0.04, 23), 24)
    b = complex_vector(100, 25)
    B = A.copy()
    B.data = B.data * np.exp(1j * np.random.default_rng(26).uniform(0, 1, B.nnz))
    expected = spla.spsolve(B.tocsc(), b)
    lu = tessera.splu(A)
    lu.refactor(B)
    np.testing.assert_allclose(lu.solve(b), expected, rtol=1e-10)
    lu2 = tessera.splu(A)
    lu2.refactor(B.data)  # values in the order of A.data
    np.testing.assert_allclose(lu2.solve(b), expected, rtol=1e-10)
    lu3 = tessera.splu(A)
    lu3.refactor(abs(B))  # real values of a complex factorization are taken as complex
    np.testing.assert_allclose(lu3.solve(b), spla.spsolve(abs(B).tocsc(), b), rtol=1e-10)


def test_wrong_types_are_refused_naming_what_was_expected():
    A = random_sparse(10, 10, 0.3, 27)
    expected = "float32, float64, complex64 or complex128"
    with pytest.raises(TypeError, match=expected):
        tessera.splu(A.astype(np.int32))
    with pytest.raises(TypeError, match=expected):
        tessera.splu(A.astype(bool))
    if np.dtype(np.clongdouble).itemsize > 16:
        with pytest.raises(TypeError, match=expected):
            tessera.splu(A.astype(np.clongdouble))
    lu = tessera.splu(A)
    with pytest.raises(TypeError):
        lu.refactor(A.astype(np.complex128))  # complex values for a real factorization
    with pytest.raises(TypeError):
        lu.refactor(A.tocsr().data.astype(np.complex128))
    with pytest.raises(TypeError):
        tessera.splu(A.astype(np.complex128)).solve(np.array(["a"] * 10))
    # The other kernels still take real values only.
    with pytest.raises(TypeError, match="float32 or float64"):
        tessera.SpMV(A.astype(np.complex128))


def test_complex_condest_against_numpy():
    A = complex_values(random_sparse(40, 40, 0.1, 28), 29)
    exact = np.linalg.cond(A.toarray(), 1)
    estimate = tessera.splu(A).condest()
    assert 0.1 * exact <= estimate <= exact * (1 + 1e-6)


def square_real(row):
    return (
        row["rows"] == row["cols"]
        and row["field"] in ("real", "integer")
        and "graph" not in row["kind"]
        and 10_000 <= int(row["nnz"]) <= 100_000
    )


@pytest.mark.parametrize("path,row", corpus_params(square_real))
def test_corpus_with_random_complex_values(path, row):
    A = complex_values(scipy.io.mmread(str(path)), 30)
    n = A.shape[0]
    b = A @ (np.linspace(1.0, 2.0, n) + 1j * np.linspace(-1.0, 1.0, n))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            expected = spla.splu(A.tocsc()).solve(b)
    except (RuntimeError, Warning) as error:
        pytest.skip(f"SciPy does not factor {row['name']} with complex values: {error}")
    try:
        lu = tessera.splu(A)
    except np.linalg.LinAlgError as error:
        pytest.skip(f"tessera does not factor {row['name']} with complex values: {error}")
    got = lu.solve(b)
    assert backward_error(A, got, b) <= 64 * EPS
    reference_error = backward_error(A, expected, b)
    # Both solutions of a system with the same conditioning: they agree as
    # far as the larger backward error times the condition estimate allows.
    kappa = lu.condest()
    scale = np.abs(expected).max()
    assert np.abs(got - expected).max() <= max(1e3 * EPS, 10 * kappa * max(reference_error, EPS)) * scale
