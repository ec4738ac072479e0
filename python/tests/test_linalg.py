"""tessera.splu and tessera.spsolve against SciPy's, on generated matrices and
on the corpus; refactorization; the refusals of bad input."""

import warnings

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from conftest import corpus_params, random_sparse

import tessera

EPS = np.finfo(np.float64).eps


def backward_error(A, x, b):
    """Normwise backward error |b - A x| / (|A| |x| + |b|) (infinity norms),
    computed by SciPy in double: an independent check of the solution."""
    r = b - A @ x
    norm_a = abs(A).sum(axis=1).max()
    return np.abs(r).max() / (norm_a * np.abs(x).max() + np.abs(b).max())


def condition_estimate(A, scipy_lu):
    """kappa_1(A) estimated with SciPy's factors (Hager's method)."""
    n = A.shape[0]
    inverse = spla.LinearOperator((n, n), matvec=scipy_lu.solve, rmatvec=lambda y: scipy_lu.solve(y, trans="T"))
    return spla.onenormest(A) * spla.onenormest(inverse)


def check_against_scipy(A, b, trans="N"):
    """tessera's solution has a backward error near machine precision and
    agrees with SciPy's to within what the conditioning allows."""
    csc = sp.csc_matrix(A)
    reference_lu = spla.splu(csc)
    expected = reference_lu.solve(b, trans=trans)
    lu = tessera.splu(A)
    got = lu.solve(b, trans=trans)
    op = csc.T if trans != "N" else csc
    assert got.shape == expected.shape and got.dtype == np.float64
    assert backward_error(op, got, b) <= 64 * EPS
    kappa = condition_estimate(csc, reference_lu)
    scale = np.abs(expected).max()
    assert np.abs(got - expected).max() <= max(1e3 * EPS, 1e2 * EPS * kappa) * scale
    return lu


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
@pytest.mark.parametrize("n,density,seed", [(1, 1.0, 1), (7, 0.4, 2), (200, 0.02, 3), (1500, 0.003, 4)])
def test_splu_random_matches_scipy(fmt, n, density, seed):
    A = random_sparse(n, n, density, seed, fmt=fmt)
    b = np.random.default_rng(seed).standard_normal(n)
    check_against_scipy(A, b)
    check_against_scipy(A, b, trans="T")


def test_splu_laplacian_and_circuit_match_scipy():
    for A in (tessera.gen.laplacian_2d(40, 30), tessera.gen.circuit(3000, seed=5), tessera.gen.banded(500, 3, 7, seed=2)):
        b = np.random.default_rng(0).standard_normal(A.shape[0])
        lu = check_against_scipy(A, b)
        assert lu.stats.n == A.shape[0] and lu.stats.nnz_a == A.nnz


def test_solve_several_right_hand_sides_and_shapes():
    A = random_sparse(300, 300, 0.01, 7)
    lu = tessera.splu(A)
    reference = spla.splu(A.tocsc())
    B = np.random.default_rng(1).standard_normal((300, 5))
    X = lu.solve(B)
    assert X.shape == (300, 5)
    np.testing.assert_allclose(X, reference.solve(B), rtol=1e-10, atol=1e-12)
    # C-ordered, Fortran-ordered and integer right-hand sides give the same.
    np.testing.assert_array_equal(lu.solve(np.asfortranarray(B)), X)
    ints = np.arange(300)
    np.testing.assert_allclose(lu.solve(ints), reference.solve(ints.astype(float)), rtol=1e-10, atol=1e-12)
    assert lu.solve(np.zeros((300, 0))).shape == (300, 0)
    # 'H' is 'T' for real matrices.
    np.testing.assert_array_equal(lu.solve(B[:, 0], trans="H"), lu.solve(B[:, 0], trans="T"))


def test_float32_matrix_gives_float32_solutions():
    A = random_sparse(100, 100, 0.05, 3, dtype=np.float32)
    b = np.random.default_rng(2).standard_normal(100).astype(np.float32)
    x = tessera.splu(A).solve(b)
    assert x.dtype == np.float32
    expected = spla.splu(A.astype(np.float64).tocsc()).solve(b.astype(np.float64))
    np.testing.assert_allclose(x, expected, rtol=1e-5, atol=1e-6)


def test_float_factors_and_options():
    A = tessera.gen.laplacian_2d(20, 20)
    b = np.ones(400)
    expected = spla.spsolve(A.tocsc(), b)
    for options in (
        {"float_factors": True},
        {"permc_spec": "COLAMD"},
        {"permc_spec": "NATURAL"},
        {"ordering": "colamd"},
        {"ordering": "nd"},
        {"matching": False},
        {"refine_steps": 0},
        {"refine_tolerance": 1e-8, "pivot_threshold": 1e-10},
        {"backend": "cpu"},
    ):
        x = tessera.splu(A, **options).solve(b)
        np.testing.assert_allclose(x, expected, rtol=1e-6, err_msg=str(options))


def test_amd_dense_orders_a_circuits_nets_last():
    """amd_dense below AMD's default takes the generated circuit's supply nets
    (three rows of 5 % of the nodes) out of the minimum-degree search: another
    ordering, the same solution; the batch takes the option too."""
    A = tessera.gen.circuit(3000, seed=5)
    b = np.arange(3000, dtype=np.float64) % 7 + 1.0
    expected = spla.spsolve(A.tocsc(), b)
    default, lowered = tessera.splu(A), tessera.splu(A, amd_dense=1.0)
    assert default.nnz != lowered.nnz
    assert tessera.splu(A, amd_dense=10.0).nnz == default.nnz
    for lu in (default, lowered):
        np.testing.assert_allclose(lu.solve(b), expected, rtol=1e-10)
    batch = tessera.splu_batch([A, A], amd_dense=1.0)
    np.testing.assert_allclose(batch.solve([b, b])[1], expected, rtol=1e-10)
    for bad in (float("nan"), float("inf"), True):
        with pytest.raises(ValueError, match="amd_dense"):
            tessera.splu(A, amd_dense=bad)


def cancelling_blocks(blocks):
    """Blocks [1 2 0; 2 4 1; 0 1 1] down the diagonal, each coupled to the
    next above it: static pivots in the natural order cancel exactly (4 - 2 * 2)."""
    block = np.array([[1.0, 2.0, 0.0], [2.0, 4.0, 1.0], [0.0, 1.0, 1.0]])
    A = sp.block_diag([block] * blocks, format="lil")
    for k in range(blocks - 1):
        A[3 * k + 2, 3 * k + 3] = 0.5
    return A.tocsr()


def test_pivoting_partial_against_scipy():
    """pivoting: "static" perturbs the cancelled pivots, "partial" (and "auto"
    on a CPU context) factors with partial pivoting instead (stats.pivoting, no perturbed pivot,
    multipliers within the tolerance's 1000); all agree with SciPy; refactor
    keeps the partial pivots; bad values refused."""
    A = cancelling_blocks(20)
    b = np.arange(A.shape[0], dtype=np.float64) % 5 + 1.0
    expected = spla.spsolve(A.tocsc(), b)
    static = tessera.splu(A, ordering="natural", pivoting="static")
    assert static.stats.pivoting == "static" and static.stats.perturbed_pivots > 0
    # AUTO pivots anew only where the factorization runs on the host (a CPU context); on a CUDA context it keeps
    # the static pivots, as "static" above.
    on_host = tessera.default_context().backend == "cpu"
    for pivoting in ("auto", "partial") if on_host else ("partial",):
        lu = tessera.splu(A, ordering="natural", pivoting=pivoting)
        assert lu.stats.pivoting == "partial" and lu.stats.perturbed_pivots == 0, pivoting
        assert lu.stats.max_multiplier <= 1.001e3
        x = lu.solve(b)
        np.testing.assert_allclose(x, expected, rtol=1e-12, atol=1e-12 * abs(expected).max(), err_msg=pivoting)
        assert backward_error(A, x, b) < 4 * EPS
    np.testing.assert_allclose(static.solve(b), expected, rtol=1e-10, atol=1e-10 * abs(expected).max())
    if not on_host:
        auto = tessera.splu(A, ordering="natural", pivoting="auto")
        assert auto.stats.pivoting == "static" and auto.stats.perturbed_pivots > 0
        np.testing.assert_allclose(auto.solve(b), expected, rtol=1e-10, atol=1e-10 * abs(expected).max())
    R = random_sparse(200, 200, 0.03, 4) + sp.eye(200, format="csr") * 1e-3
    lu = tessera.splu(R, pivoting="partial")
    assert lu.stats.pivoting == "partial"
    R2 = R.copy()
    R2.data *= 1.0 + 0.01 * np.cos(np.arange(R2.nnz))
    lu.refactor(R2)
    assert lu.stats.pivoting == "partial"
    b2 = np.arange(200, dtype=np.float64) % 7 + 1.0
    x = lu.solve(b2)
    assert backward_error(R2, x, b2) < 1e-14
    for bad in ("full", None, 2):
        with pytest.raises(ValueError, match="pivoting"):
            tessera.splu(A, pivoting=bad)


def test_spsolve_shapes_like_scipy():
    A = random_sparse(50, 50, 0.1, 11)
    b = np.random.default_rng(3).standard_normal(50)
    np.testing.assert_allclose(tessera.spsolve(A, b), spla.spsolve(A.tocsc(), b), rtol=1e-10)
    column = b.reshape(-1, 1)
    assert tessera.spsolve(A, column).shape == (50,)
    B = np.random.default_rng(4).standard_normal((50, 3))
    np.testing.assert_allclose(tessera.spsolve(A, B), spla.spsolve(A.tocsc(), B), rtol=1e-10)
    sparse_b = sp.csc_matrix(B)
    x = tessera.spsolve(A, sparse_b)
    assert sp.issparse(x) and isinstance(x, sp.spmatrix) and x.shape == (50, 3)
    np.testing.assert_allclose(x.toarray(), spla.spsolve(A.tocsc(), sparse_b).toarray(), rtol=1e-10, atol=1e-14)
    assert isinstance(tessera.spsolve(A, sp.csc_array(B)), sp.sparray)
    for sparse_column in (sp.csc_matrix(column), sp.csr_array(column)):
        expected = spla.spsolve(A.tocsc(), sparse_column)
        x = tessera.spsolve(A, sparse_column)
        assert type(x) is type(expected) and x.shape == expected.shape == (50,)
        np.testing.assert_allclose(x, expected, rtol=1e-10)


def test_stats_describe_the_factorization():
    A = tessera.gen.laplacian_2d(30, 30)
    lu = tessera.splu(A)
    lu.solve(np.ones(900))
    s = lu.stats
    assert s.n == 900 and s.nnz_a == A.nnz
    assert s.nnz_l >= 900 and s.nnz_u >= 900 and lu.nnz == s.nnz_l + s.nnz_u
    assert s.structural_rank == 900 and s.singular_column == -1
    assert 0 <= s.backward_error <= 64 * EPS and s.time_solve >= 0
    assert s.partial_pivoting is False
    assert "SparseLU" in repr(lu)


@pytest.mark.parametrize("given", ["csr", "csc"])
def test_refactor_with_matrix_or_values(given):
    A = random_sparse(120, 120, 0.03, 21, fmt=given)
    b = np.random.default_rng(5).standard_normal(120)
    lu = tessera.splu(A)
    B = A.copy()
    B.data = B.data * np.random.default_rng(6).uniform(0.5, 1.5, B.data.shape)
    expected = spla.splu(B.tocsc()).solve(b)
    lu.refactor(B)
    np.testing.assert_allclose(lu.solve(b), expected, rtol=1e-9)
    lu2 = tessera.splu(A)
    lu2.refactor(B.data)  # values in the order of A.data as given
    np.testing.assert_allclose(lu2.solve(b), expected, rtol=1e-9)


def test_refactor_refusals():
    A = random_sparse(40, 40, 0.1, 8)
    lu = tessera.splu(A)
    other = random_sparse(40, 40, 0.1, 9)
    with pytest.raises(ValueError, match="pattern"):
        lu.refactor(other)
    with pytest.raises(ValueError, match="expected"):
        lu.refactor(np.ones(3))
    with pytest.raises(ValueError):
        lu.refactor(random_sparse(41, 41, 0.1, 9))
    with pytest.raises(TypeError):
        lu.refactor(A.data.astype(np.complex128))
    coo = random_sparse(40, 40, 0.1, 8, fmt="coo")
    with pytest.raises(ValueError, match="canonical"):
        tessera.splu(coo).refactor(coo.data)


def test_refactor_refusal_keeps_the_factorization():
    # A matrix refused before factoring (another pattern, the wrong size or
    # count of values) leaves the earlier factorization: the same solution,
    # bit for bit, and the same factors.
    A = random_sparse(50, 50, 0.08, 12)
    b = np.random.default_rng(3).standard_normal(50)
    lu = tessera.splu(A)
    before, L_before = lu.solve(b), lu.L.copy()
    for bad in (random_sparse(50, 50, 0.08, 13), random_sparse(51, 51, 0.08, 12), A.data[:-1]):
        with pytest.raises(ValueError):
            lu.refactor(bad)
        np.testing.assert_array_equal(lu.solve(b), before)
        assert (lu.L != L_before).nnz == 0 and lu.dtype == np.float64


def test_refactor_after_a_failed_refactorization():
    # A Newton step that diverges (NaN) or lands on singular values fails;
    # the analysis stays, so the next step's values refactor and solve.
    A = random_sparse(60, 60, 0.05, 31)
    b = np.random.default_rng(7).standard_normal(60)
    lu = tessera.splu(A)
    bad = A.data.copy()
    bad[0] = np.nan
    with pytest.raises(tessera.errors.InvalidMatrixError, match="nan"):
        lu.refactor(bad)
    with pytest.raises(tessera.NotFactoredError, match="no factorization") as caught:
        lu.solve(b)
    assert caught.value.status == 14  # TS_ERROR_NOT_FACTORED
    for estimate in (lu.condest, lambda: lu.L):
        with pytest.raises(tessera.NotFactoredError, match="no factorization"):
            estimate()
    lu.refactor(A.data * 2.0)
    np.testing.assert_allclose(lu.solve(b), spla.splu((A * 2.0).tocsc()).solve(b), rtol=1e-9)
    with pytest.raises(tessera.errors.SingularMatrixError):
        lu.refactor(np.zeros_like(A.data))
    lu.refactor(A)
    np.testing.assert_allclose(lu.solve(b), spla.splu(A.tocsc()).solve(b), rtol=1e-9)


def test_bad_inputs_raise_the_right_exceptions():
    A = random_sparse(10, 10, 0.3, 1)
    with pytest.raises(TypeError, match="float32, float64, complex64 or complex128"):
        tessera.splu(A.astype(np.int64))
    with pytest.raises(TypeError, match="float32, float64, complex64 or complex128"):
        tessera.splu(A.astype(bool))
    with pytest.raises(TypeError, match="scipy.sparse"):
        tessera.splu(A.toarray())
    with pytest.raises(TypeError, match="scipy.sparse"):
        tessera.splu([[1.0, 0.0], [0.0, 1.0]])
    with pytest.raises(ValueError, match="square"):
        tessera.splu(random_sparse(10, 12, 0.3, 1))
    lu = tessera.splu(A)
    with pytest.raises(ValueError, match=r"\(10,\)"):
        lu.solve(np.ones(11))
    with pytest.raises(ValueError):
        lu.solve(np.ones((10, 2, 2)))
    with pytest.raises(TypeError):
        lu.solve(np.array(["a"] * 10))
    with pytest.raises(ValueError, match="trans"):
        lu.solve(np.ones(10), trans="X")
    with pytest.raises(ValueError, match="permc_spec"):
        tessera.splu(A, permc_spec="MMD")
    with pytest.raises(ValueError, match="ordering"):
        tessera.splu(A, ordering="metis")
    with pytest.raises(ValueError, match="not both"):
        tessera.splu(A, permc_spec="COLAMD", ordering="amd")
    with pytest.raises(ValueError, match="backend"):
        tessera.splu(A, backend="gpu")
    with pytest.raises(ValueError, match="refine_steps"):
        tessera.splu(A, refine_steps=-2)
    with pytest.raises(TypeError):
        tessera.splu(A, diag_pivot_thresh=0.1)  # SuperLU's options are not tessera's
    bad = A.tocsr().copy()
    bad.data[3] = np.nan
    with pytest.raises(tessera.InvalidMatrixError, match="entry"):
        tessera.splu(bad)


def test_singular_matrices_raise_linalg_errors():
    structurally = sp.csr_matrix(np.array([[1.0, 2.0, 0.0], [3.0, 4.0, 0.0], [5.0, 6.0, 0.0]]))
    with pytest.raises(np.linalg.LinAlgError, match="structural rank 2"):
        tessera.splu(structurally)
    with pytest.raises(tessera.SingularMatrixError) as info:
        tessera.spsolve(structurally, np.ones(3))
    assert info.value.status == 11 and info.value.status_name
    numerically = sp.csr_matrix(np.array([[1.0, 2.0], [2.0, 4.0]]))
    with pytest.raises(tessera.SingularMatrixError, match="column"):
        tessera.splu(numerically, perturbation=False)
    # SciPy refuses both too.
    for matrix in (structurally, numerically):
        with pytest.raises(RuntimeError, match="singular"):
            spla.splu(matrix.tocsc())


def test_empty_matrix():
    A = sp.csr_matrix((0, 0))
    lu = tessera.splu(A)
    assert lu.solve(np.zeros(0)).shape == (0,)


# ---- the corpus ---------------------------------------------------------------------


def square_real(row):
    """Square matrices with values (graphs' adjacency matrices, mostly
    singular and slow for SciPy to try, are left to the SpMV tests)."""
    return (
        row["rows"] == row["cols"]
        and row["field"] in ("real", "integer")
        and "graph" not in row["kind"]
        and 0 < int(row["nnz"]) <= 2_000_000
    )


@pytest.mark.parametrize("path,row", corpus_params(square_real))
def test_splu_corpus_matches_scipy(path, row):
    A = sp.csr_matrix(scipy.io.mmread(str(path))).astype(np.float64)
    n = A.shape[0]
    b = A @ np.linspace(1.0, 2.0, n)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # SciPy's singular warnings count as refusals
            reference_lu = spla.splu(A.tocsc())
            expected = reference_lu.solve(b)
    except (RuntimeError, Warning) as error:
        pytest.skip(f"SciPy does not factor {row['name']}: {error}")
    if not np.all(np.isfinite(expected)) or backward_error(A, expected, b) > 1e-8:
        pytest.skip(f"SciPy's solution of {row['name']} is not accurate (backward error above 1e-8)")
    lu = tessera.splu(A)
    got = lu.solve(b)
    assert backward_error(A, got, b) <= max(64 * EPS, 10 * backward_error(A, expected, b))
    kappa = condition_estimate(A.tocsc(), reference_lu)
    if kappa * EPS < 1e-6:  # the answer is determined to 6 digits: both must agree
        scale = np.abs(expected).max()
        assert np.abs(got - expected).max() <= max(1e3 * EPS, 1e2 * EPS * kappa) * scale


def test_refactor_does_not_depend_on_the_callers_arrays():
    """The pattern splu keeps is its own: the caller may reuse A's arrays."""
    for fmt in ("csr", "csc"):
        A = (sp.random(30, 30, density=0.2, format=fmt, random_state=4) + 10 * sp.eye(30)).asformat(fmt)
        A.sort_indices()
        kept = A.copy()
        lu = tessera.splu(A)
        A.indices[:] = 0
        A.indptr[:] = 0
        lu.refactor(2 * kept.data)
        b = np.arange(30.0)
        np.testing.assert_allclose(2 * (kept @ lu.solve(b)), b, rtol=1e-12, atol=1e-12)


def test_stats_say_which_ordering_auto_took():
    """AUTO (the default) takes nested dissection on a 3-D grid large enough
    for its rule and AMD on a small matrix; stats.ordering says which."""
    grid = tessera.gen.laplacian_3d(30, 30, 30)
    assert tessera.splu(grid).stats.ordering == "nd"
    assert tessera.splu(grid, ordering="amd").stats.ordering == "amd"
    assert tessera.splu(tessera.gen.laplacian_2d(20, 20)).stats.ordering == "amd"
