"""tessera.gen: each generator against its definition (Laplacians built by
SciPy from Kronecker products; the stated properties of the random ones),
determinism from the seed, and the refusals of bad arguments."""

import numpy as np
import pytest
import scipy.sparse as sp

import tessera


def path_laplacian(n):
    """1-D second difference with zero diagonal: -1 to each neighbour."""
    return sp.diags([-np.ones(n - 1), -np.ones(n - 1)], [-1, 1], shape=(n, n))


def test_laplacians_equal_kronecker_sums():
    nx, ny, nz = 7, 5, 3
    expected2 = sp.kron(sp.eye(ny), path_laplacian(nx)) + sp.kron(path_laplacian(ny), sp.eye(nx)) + 4 * sp.eye(nx * ny)
    got2 = tessera.gen.laplacian_2d(nx, ny)
    assert isinstance(got2, sp.csr_matrix) and got2.has_canonical_format
    np.testing.assert_array_equal(got2.toarray(), expected2.toarray())
    assert got2.nnz == 5 * nx * ny - 2 * nx - 2 * ny
    ex, ey, ez = sp.eye(nx), sp.eye(ny), sp.eye(nz)
    expected3 = (
        sp.kron(ez, sp.kron(ey, path_laplacian(nx)))
        + sp.kron(ez, sp.kron(path_laplacian(ny), ex))
        + sp.kron(path_laplacian(nz), sp.kron(ey, ex))
        + 6 * sp.eye(nx * ny * nz)
    )
    np.testing.assert_array_equal(tessera.gen.laplacian_3d(nx, ny, nz).toarray(), expected3.toarray())


def test_banded_is_banded_and_dominant():
    A = tessera.gen.banded(200, 3, 5, seed=7)
    rows, cols = A.nonzero()
    assert np.all(cols - rows <= 5) and np.all(rows - cols <= 3)
    assert A.nnz == sum(min(200, i + 6) - max(0, i - 3) for i in range(200))
    diagonal = np.abs(A.diagonal())
    off = np.asarray(abs(A).sum(axis=1)).ravel() - diagonal
    assert np.all(diagonal > off)
    off_values = A.data[np.repeat(np.arange(200), np.diff(A.indptr)) != A.indices]
    assert np.all(off_values >= -1) and np.all(off_values < 1)


def test_random_uniform_rows_have_per_row_distinct_columns():
    A = tessera.gen.random_uniform(300, 50, 7, seed=3)
    assert A.shape == (300, 50)
    np.testing.assert_array_equal(np.diff(A.indptr), 7)
    assert A.has_canonical_format  # sorted, so distinct within a row
    assert np.all(A.data >= -1) and np.all(A.data < 1)


def test_power_law_total_and_shape():
    A = tessera.gen.power_law(5000, 4000, 60000, 1.0, seed=2)
    assert A.shape == (5000, 4000)
    assert abs(A.nnz - 60000) <= 0.02 * 60000
    lengths = np.sort(np.diff(A.indptr))[::-1]
    assert lengths[0] > 20 * np.median(lengths) and lengths.min() >= 1


def test_rmat_symmetric_graph():
    A = tessera.gen.rmat(10, 8, seed=4)
    assert A.shape == (1024, 1024)
    assert (A != A.T).nnz == 0  # undirected: both directions, equal values
    assert 0 < A.nnz <= 2 * 8 * 1024
    assert np.all(A.data > 0) and np.all(A.data <= 1)
    directed = tessera.gen.rmat(10, 8, symmetric=False, scramble=False, a=0.45, b=0.15, c=0.15, seed=4)
    assert (directed != directed.T).nnz > 0


def test_circuit_is_dominant_and_nearly_symmetric():
    A = tessera.gen.circuit(2000, seed=9)
    diagonal = A.diagonal()
    off = np.asarray(abs(A).sum(axis=1)).ravel() - np.abs(diagonal)
    assert np.all(np.abs(diagonal) > off)
    pattern = (A != 0).astype(np.int8)
    asymmetric = (pattern != pattern.T).nnz / max(pattern.nnz, 1)
    assert asymmetric < 0.2
    grid = tessera.gen.circuit(2000, locality=1.0, mesh_radius=2, dense_nets=0, seed=9)
    assert grid.shape == (2000, 2000) and (grid != A).nnz > 0


def test_seeds_and_types():
    a = tessera.gen.random_uniform(100, 100, 5, seed=1)
    b = tessera.gen.random_uniform(100, 100, 5, seed=1)
    c = tessera.gen.random_uniform(100, 100, 5, seed=2)
    assert (a != b).nnz == 0 and (a != c).nnz > 0
    f = tessera.gen.laplacian_2d(4, 4, dtype=np.float32, spmatrix=False)
    assert isinstance(f, sp.csr_array) and f.dtype == np.float32


def test_bad_arguments():
    with pytest.raises(tessera.InvalidArgumentError):
        tessera.gen.laplacian_2d(0, 5)
    with pytest.raises(ValueError):
        tessera.gen.random_uniform(10, 5, 6)
    with pytest.raises(OverflowError):
        tessera.gen.laplacian_2d(2**31, 1)
    with pytest.raises(ValueError):
        tessera.gen.rmat(8, 4, a=0.9, b=0.2, c=0.2)
    with pytest.raises(TypeError, match="float32 or float64"):
        tessera.gen.laplacian_2d(3, 3, dtype=np.int64)
    with pytest.raises(TypeError):
        tessera.gen.banded(10, 1, "x")


def test_seeds_are_not_wrapped():
    for seed in (2**64, -1, 2**200):
        with pytest.raises(ValueError, match="seed"):
            tessera.gen.random_uniform(10, 10, 2, seed=seed)
    with pytest.raises(TypeError, match="seed"):
        tessera.gen.random_uniform(10, 10, 2, seed=1.5)
    assert (tessera.gen.random_uniform(10, 10, 2, seed=2**64 - 1) != tessera.gen.random_uniform(10, 10, 2, seed=0)).nnz
