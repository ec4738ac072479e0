"""Inputs a demanding user could give the newer entry points (splu_batch,
SpMM, spgemm, the graph plans, sort and search, SpMV, io and gen): each
either gets the right answer or an exception that names what was expected,
never a crash or a message from deep inside a conversion."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse import csgraph

import tessera
from tessera import gen


def small():
    return sp.csr_matrix(np.array([[4.0, 1.0, 0.0], [1.0, 4.0, 1.0], [0.0, 1.0, 4.0]]))


# ---- sparse matrices whose arrays were replaced after they were made ----------------
# SciPy checks its arrays when a matrix is made, not when they are assigned
# later; its conversions and sum_duplicates then index memory with them
# unchecked (these inputs crashed the interpreter before the check).


def decreasing_indptr(fmt):
    M = small().asformat(fmt)
    M.indptr = M.indptr.copy()
    M.indptr[1] = 10**8
    return M


def index_past_the_shape(fmt):
    M = small().asformat(fmt)
    if fmt == "coo":
        M.row = M.row.copy()
        M.row[0] = 10**8
    else:
        M.indices = M.indices.copy()
        M.indices[0] = 10**8
    return M


def entry_points():
    x = np.ones(3)
    return {
        "spmv": lambda M: tessera.spmv(M, x),
        "spmm": lambda M: tessera.spmm(M, np.ones((3, 2))),
        "spgemm": lambda M: tessera.spgemm(M, small()),
        "splu": lambda M: tessera.splu(M),
        "splu_batch": lambda M: tessera.splu_batch([M]),
        "dijkstra": lambda M: tessera.dijkstra(M, indices=0),
        "bfs undirected": lambda M: tessera.bfs(M, 0, directed=False),
        "mmwrite": lambda M: tessera.mmwrite("unused.mtx", M),
    }


@pytest.mark.parametrize("name", list(entry_points()))
@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_decreasing_indptr_is_refused_not_a_crash(name, fmt, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(tessera.InvalidMatrixError, match=r"indptr must not decrease, got indptr\[1\] = 100000000"):
        entry_points()[name](decreasing_indptr(fmt))


@pytest.mark.parametrize("name", list(entry_points()))
@pytest.mark.parametrize("fmt", ["csc", "coo"])
def test_index_past_the_shape_is_refused_not_a_crash(name, fmt, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(tessera.InvalidMatrixError, match=r"row index 100000000 is outside \[0, 3\)"):
        entry_points()[name](index_past_the_shape(fmt))


def test_indptr_past_the_arrays_and_of_the_wrong_length_are_refused():
    M = small()
    M.indptr = np.array([0, 2, 5, 70], dtype=np.int32)
    with pytest.raises(tessera.InvalidMatrixError, match="indptr ends at 70, past the 7 indices"):
        tessera.spmv(M, np.ones(3))
    M = small()
    M.indptr = M.indptr[:-1].copy()
    with pytest.raises(tessera.InvalidMatrixError, match=r"needs indptr of shape \(4,\), got \(3,\)"):
        tessera.SpMV(M)


def test_indices_and_values_past_indptr_end_are_not_entries():
    """Arrays assigned longer than indptr[-1]: SciPy's products ignore the
    tail; so does tessera (it refused them with a byte count before)."""
    M = sp.csr_matrix((np.array([1.0, 2.0]), np.array([0, 1]), np.array([0, 1, 2])), shape=(2, 2))
    M.indices = np.array([0, 1, 0, 1], dtype=np.int32)
    M.data = np.array([1.0, 2.0, 3.0, 4.0])
    x = np.array([1.0, 10.0])
    np.testing.assert_array_equal(tessera.spmv(M, x), M @ x)
    np.testing.assert_array_equal(tessera.spmm(M, x[:, None]), M @ x[:, None])
    np.testing.assert_allclose(tessera.splu_batch([M]).solve([x])[0], [1.0, 5.0])
    np.testing.assert_allclose(tessera.splu(M).solve(x), [1.0, 5.0])
    np.testing.assert_array_equal(tessera.dijkstra(M, indices=0), csgraph.dijkstra(M, indices=0))
    np.testing.assert_array_equal(tessera.bfs(M, 0), [0, -1])
    np.testing.assert_array_equal(tessera.bfs(M, 0, directed=False), [0, -1])
    np.testing.assert_array_equal(
        tessera.dijkstra(M, directed=False, indices=1), csgraph.dijkstra(M, directed=False, indices=1)
    )


def test_one_dimensional_sparse_arrays_are_refused_by_shape():
    with pytest.raises(ValueError, match=r"A: expected a 2-D sparse matrix, got shape \(3,\)"):
        tessera.spmv(sp.coo_array(np.array([1.0, 0.0, 2.0])), np.ones(3))


# ---- splu_batch ------------------------------------------------------------------


def test_batch_solve_of_none_names_rhs():
    lu = tessera.splu_batch([small(), 2 * small()])
    with pytest.raises(TypeError, match=r"rhs: expected a list of 2 vectors or an array of shape \(2, n\), got NoneType"):
        lu.solve(None)
    with pytest.raises(TypeError, match="rhs: expected a list of 2 vectors"):
        lu.solve(3.0)


def test_batch_member_stats_takes_integers_only():
    lu = tessera.splu_batch([small(), 2 * small()])
    assert lu.member_stats(np.int64(1)).status == 0
    with pytest.raises(TypeError, match="i: expected an integer, got float"):
        lu.member_stats(1.5)
    with pytest.raises(TypeError, match="i: expected an integer, got NoneType"):
        lu.member_stats(None)


# ---- options past the C types -------------------------------------------------------


def test_group_size_and_pass_columns_past_their_c_types_are_named():
    A = small()
    with pytest.raises(OverflowError, match="group_size: expected an integer from -2147483648 to 2147483647"):
        tessera.SpMV(A, group_size=2**40)
    with pytest.raises(OverflowError, match="group_size: expected an integer"):
        tessera.SpMM(A, group_size=2**40)
    with pytest.raises(OverflowError, match="pass_columns: expected an integer from"):
        tessera.SpMM(A, pass_columns=2**70)
    with pytest.raises(OverflowError, match="group_size: expected an integer"):
        tessera.BFS(A, group_size=2**40)


def test_sssp_delta_must_be_a_real_number():
    with pytest.raises(TypeError, match="delta: expected a real number, got str"):
        tessera.SSSP(small(), delta="a")
    np.testing.assert_array_equal(tessera.SSSP(small(), delta=0)(0), csgraph.dijkstra(small(), indices=0))


def test_spmv_alpha_and_beta_are_named_on_the_fast_path_too():
    P = tessera.SpMV(small())
    x, y = np.ones(3), np.zeros(3)
    with pytest.raises(TypeError, match="alpha: expected a real number, got NoneType"):
        P.execute(x, y, None)
    with pytest.raises(TypeError, match="beta: expected a real number, got str"):
        P.execute(x, y, 1.0, "0")
    with pytest.raises(TypeError, match="alpha: expected a real number, got complex"):
        P.execute(x, y, 1j)
    np.testing.assert_allclose(P.execute(x, y, 2, 0), 2 * (small() @ x))


@pytest.mark.parametrize(
    "budget, kind, message",
    [
        (float("inf"), OverflowError, "memory_budget: expected at most 9223372036854775807 bytes"),
        (2**70, OverflowError, "memory_budget: expected at most"),
        (float("nan"), ValueError, "memory_budget must be a positive number of bytes, got nan"),
        (True, TypeError, "memory_budget: expected a positive number of bytes, got bool"),
        ("100", TypeError, "memory_budget: expected a positive number of bytes, got str"),
    ],
)
def test_spgemm_memory_budget_is_checked(budget, kind, message):
    A = small()
    with pytest.raises(kind, match=message):
        tessera.spgemm(A, A, memory_budget=budget)


# ---- sort, argsort, searchsorted --------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_argsort_takes_both_zeros_as_equal_keys_as_numpy(dtype):
    a = np.array([0.0, -0.0, 1.0, 0.0, -0.0, -1.0], dtype=dtype)
    np.testing.assert_array_equal(tessera.argsort(a), np.argsort(a, kind="stable"))
    grid = np.stack([a, a[::-1]])
    np.testing.assert_array_equal(tessera.argsort(grid, axis=0), np.argsort(grid, axis=0, kind="stable"))
    np.testing.assert_array_equal(tessera.argsort(a, descending=True), [2, 0, 1, 3, 4, 5])


def test_sort_axis_must_be_an_integer():
    with pytest.raises(TypeError, match="axis: expected an integer or None, got float"):
        tessera.sort(np.ones((3, 4)), axis=1.0)
    with pytest.raises(TypeError, match="axis: expected an integer or None, got str"):
        tessera.argsort(np.ones((3, 4)), axis="a")
    np.testing.assert_array_equal(tessera.sort(np.arange(6.0)[::-1].reshape(2, 3), axis=np.int64(1)),
                                  [[3.0, 4.0, 5.0], [0.0, 1.0, 2.0]])


def test_search_plan_refuses_object_queries_by_their_type():
    plan = tessera.SearchPlan(np.array([1.0, 2.0, 3.0]))
    with pytest.raises(TypeError, match="v: expected integer, unsigned, float or bool values .* got object"):
        plan.searchsorted(None)
    with pytest.raises(TypeError, match="v: expected integer, unsigned, float or bool values .* got complex128"):
        plan.searchsorted(np.array([1j]))


# ---- io and gen ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "precision, kind",
    [(float("nan"), ValueError), (float("inf"), ValueError), ([3], TypeError), ("3", TypeError)],
)
def test_mmwrite_precision_is_checked(precision, kind, tmp_path):
    with pytest.raises(kind, match="precision"):
        tessera.mmwrite(tmp_path / "p.mtx", small(), precision=precision)


def test_generator_parameters_are_named():
    with pytest.raises(TypeError, match="nx: expected an integer, got float"):
        gen.laplacian_2d(2.5, 3)
    with pytest.raises(TypeError, match="ny: expected an integer, got NoneType"):
        gen.laplacian_2d(3, None)
    with pytest.raises(OverflowError, match="nx: expected an integer from"):
        gen.laplacian_2d(2**70, 3)
    with pytest.raises(OverflowError, match="scale: expected an integer from -2147483648 to 2147483647"):
        gen.rmat(2**40)
    with pytest.raises(OverflowError, match="edge_factor: expected an integer"):
        gen.rmat(4, 2**40)
    with pytest.raises(TypeError, match="a: expected a real number, got str"):
        gen.rmat(4, a="x")
    with pytest.raises(TypeError, match="exponent: expected a real number, got NoneType"):
        gen.power_law(10, 10, 30, None)
    with pytest.raises(TypeError, match="avg_degree: expected a real number, got str"):
        gen.circuit(100, avg_degree="4")
    with pytest.raises(TypeError, match="dense_nets: expected an integer, got float"):
        gen.circuit(100, dense_nets=2.5)
    with pytest.raises(OverflowError, match="dense_nets: expected an integer from"):
        gen.circuit(100, dense_nets=2**70)
    assert (gen.circuit(100, dense_nets=np.int64(2), avg_degree=4) != gen.circuit(100, dense_nets=2)).nnz == 0
