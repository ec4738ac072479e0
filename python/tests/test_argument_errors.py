"""Bad arguments get the exception a NumPy or SciPy user expects, naming the
public function and the argument: keyword typos, None for an array, strings
for scalars, fractions for integer options, read-only outputs."""

import numpy as np
import pytest
import scipy.sparse as sp

import tessera


def small_matrix():
    return sp.csr_matrix(np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]]))


def test_keyword_typos_name_the_function_and_the_nearest_option():
    A = small_matrix()
    with pytest.raises(TypeError, match=r"splu\(\) got an unexpected keyword argument 'permc'; did you mean 'permc_spec'"):
        tessera.splu(A, permc="COLAMD")
    with pytest.raises(TypeError, match=r"spsolve\(\) got an unexpected keyword argument 'oredring'; did you mean 'ordering'"):
        tessera.spsolve(A, np.ones(3), oredring="amd")
    with pytest.raises(TypeError, match=r"splu_batch\(\) got an unexpected keyword argument 'chek'"):
        tessera.splu_batch([A], chek=False)


def test_none_and_strings_are_type_errors():
    A = small_matrix()
    with pytest.raises(TypeError, match="rhs"):
        tessera.splu(A).solve(None)
    with pytest.raises(TypeError, match="alpha"):
        tessera.SpMV(A).execute(np.ones(3), alpha="2")
    with pytest.raises(TypeError, match="beta"):
        tessera.SpMM(A).execute(np.ones((3, 2)), np.zeros((3, 2)), beta="1")
    with pytest.raises(TypeError, match="group_size"):
        tessera.SpMV(A, group_size=2.5)
    with pytest.raises(TypeError, match="^v: "):
        tessera.searchsorted(np.array([1, 2]), 2**64)


def test_read_only_outputs_are_value_errors():
    A = small_matrix()
    y = np.zeros(3)
    y.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        tessera.SpMV(A).execute(np.ones(3), y)
    C = np.zeros((3, 2))
    C.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        tessera.SpMM(A).execute(np.ones((3, 2)), C)


def test_spmm_keeps_numpy_matrix():
    A = small_matrix()
    B = np.asmatrix(np.arange(6.0).reshape(3, 2))
    C = tessera.SpMM(A).execute(B)
    assert isinstance(C, np.matrix) and isinstance(A @ B, np.matrix)
    np.testing.assert_allclose(np.asarray(C), np.asarray(A @ B))
