"""CSC matrices (the form SciPy's splu takes) reach the library through one
C pass (_core.csc_to_csr) instead of SciPy's tocsr: the arrays it makes
must be SciPy's CSR of the same matrix, for every value type and index
width, with empty rows and columns, no entries, and arrays longer than
their entries; integer values refused as in the other formats; and splu on CSC input solves as SciPy's does."""

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import tessera
from tessera._arrays import csr_arrays


def _random_csc(rows, cols, density, dtype, seed):
    rng = np.random.default_rng(seed)
    A = sp.random(rows, cols, density=density, format="csc", random_state=rng, dtype=np.float64)
    if np.dtype(dtype).kind == "c":
        A = A + 1j * sp.random(rows, cols, density=density, format="csc", random_state=rng)
    A = sp.csc_matrix(A.astype(dtype))
    A.sum_duplicates()
    return A


def _assert_same_csr(arrays, A):
    expected = A.tocsr()
    expected.sort_indices()
    assert arrays.indptr.dtype == np.int64 and arrays.indices.dtype == np.int32
    np.testing.assert_array_equal(arrays.indptr, expected.indptr)
    np.testing.assert_array_equal(arrays.indices, expected.indices)
    np.testing.assert_array_equal(arrays.data, expected.data.astype(arrays.dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("shape", [(1, 1), (7, 3), (3, 7), (50, 50), (200, 31)])
def test_csc_arrays_are_scipys_csr(dtype, shape):
    A = _random_csc(*shape, 0.2, dtype, seed=sum(shape))
    assert A.has_canonical_format
    _assert_same_csr(csr_arrays(A, complex_ok=True), A)


def test_index_widths_empty_and_long_arrays():
    A = _random_csc(40, 30, 0.1, np.float64, seed=3)
    wide = sp.csc_matrix((A.data, A.indices.astype(np.int64), A.indptr.astype(np.int64)), shape=A.shape)
    _assert_same_csr(csr_arrays(wide), A)
    # No entries at all, and a matrix with empty rows and columns only.
    empty = sp.csc_matrix((5, 4))
    arrays = csr_arrays(empty)
    np.testing.assert_array_equal(arrays.indptr, np.zeros(6, dtype=np.int64))
    assert arrays.indices.size == 0 and arrays.data.size == 0
    # Arrays longer than indptr[-1]: only the entries count.
    longer = A.copy()
    longer.indices = np.concatenate([longer.indices, np.array([0, 1], dtype=longer.indices.dtype)])
    longer.data = np.concatenate([longer.data, np.array([9.0, 9.0])])
    _assert_same_csr(csr_arrays(longer), A)
    # Integer values are refused, as in the other formats.
    integers = sp.csc_matrix((np.arange(1, A.nnz + 1), A.indices, A.indptr), shape=A.shape)
    with pytest.raises(TypeError, match="expected float32 or float64 values, got int64"):
        csr_arrays(integers)


def test_splu_on_csc_matches_scipy():
    n = 300
    rng = np.random.default_rng(11)
    A = (sp.random(n, n, density=0.02, random_state=rng) + sp.eye(n) * 4).tocsc()
    b = rng.standard_normal(n)
    x = tessera.splu(A).solve(b)
    np.testing.assert_allclose(x, spla.splu(A).solve(b), rtol=1e-10, atol=1e-12)
    # A CSC with duplicates (not canonical) still takes SciPy's path and sums them.
    coo = A.tocoo()
    twice = sp.csc_matrix((np.concatenate([coo.data, coo.data]) / 2, (np.concatenate([coo.row, coo.row]),
                                                                       np.concatenate([coo.col, coo.col]))),
                          shape=A.shape)
    twice.has_canonical_format = False
    np.testing.assert_allclose(tessera.splu(twice).solve(b), x, rtol=1e-10, atol=1e-12)


def test_the_c_pass_refuses_what_would_index_outside():
    from tessera import _core

    def call(indptr, indices, rows):
        nnz = len(indices)
        _core.csc_to_csr(np.asarray(indptr, dtype=np.int32), np.asarray(indices, dtype=np.int32),
                         np.ones(nnz), rows, np.empty(rows + 1, dtype=np.int64), np.empty(nnz, dtype=np.int32),
                         np.empty(nnz))

    call([0, 1, 2], [0, 1], 2)  # a valid 2 x 2 diagonal
    with pytest.raises(ValueError, match="row index 5 outside"):
        call([0, 1, 2], [0, 5], 2)
    with pytest.raises(ValueError, match="offsets that do not rise"):
        call([0, 2, 1, 2], [0, 1], 2)
    with pytest.raises(ValueError, match="wrong kinds or lengths"):
        call([0, 1, 3], [0, 1], 2)  # the last offset is not the count of indices
