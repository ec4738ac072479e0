"""tessera.dijkstra, bfs and the BFS/SSSP plans against scipy.sparse.csgraph
on generated graphs and the corpus: the same distances and hop counts,
predecessors that lie on shortest paths (tessera's rule for ties checked
independently), and the refusals of bad input."""

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from conftest import corpus_params
from scipy.sparse import csgraph

import tessera


def weighted_graph(n, per_row, seed, dtype=np.float64):
    rng = np.random.default_rng(seed)
    rows = np.repeat(np.arange(n), per_row)
    cols = rng.integers(0, n, size=n * per_row)
    weights = rng.uniform(0.1, 10.0, size=n * per_row)
    return sp.csr_matrix((weights, (rows, cols)), shape=(n, n)).astype(dtype)


def check_predecessors(G, directed, source, distances, predecessors, reference_predecessors):
    """Each reached vertex's predecessor has an edge to it that is tight:
    dist(p) + w(p, v) == dist(v); the -9999 marks are where SciPy's are."""
    np.testing.assert_array_equal(predecessors == tessera.NO_PREDECESSOR,
                                  reference_predecessors == tessera.NO_PREDECESSOR)
    edges = sp.csr_matrix(G)
    if not directed:
        edges = sp.csr_matrix(sp.vstack([sp.coo_matrix(G), sp.coo_matrix(G).T]))
    for v in np.flatnonzero(predecessors != tessera.NO_PREDECESSOR):
        p = predecessors[v]
        row = edges.getrow(p)
        weights = row.data[row.indices == v] if directed else None
        if not directed:
            both = sp.coo_matrix(G)
            mask = ((both.row == p) & (both.col == v)) | ((both.row == v) & (both.col == p))
            weights = both.data[mask]
        assert weights.size > 0, f"no edge {p} -> {v}"
        assert np.any(np.isclose(distances[p] + weights, distances[v], rtol=1e-12, atol=0)), f"{p} -> {v} is not tight"


@pytest.mark.parametrize("directed", [True, False])
def test_dijkstra_matches_scipy(directed):
    G = weighted_graph(600, 3, 1)
    for source in (0, 17, 599):
        expected, expected_pred = csgraph.dijkstra(G, directed=directed, indices=source, return_predecessors=True)
        got, pred = tessera.dijkstra(G, directed=directed, indices=source, return_predecessors=True)
        assert got.dtype == np.float64 and pred.dtype == np.int32
        np.testing.assert_allclose(got, expected, rtol=1e-12)
        check_predecessors(G, directed, source, got, pred, expected_pred)
    sources = [3, 1, 4]
    np.testing.assert_allclose(tessera.dijkstra(G, directed, sources), csgraph.dijkstra(G, directed, sources),
                               rtol=1e-12)
    small = weighted_graph(40, 2, 2)
    np.testing.assert_allclose(tessera.dijkstra(small, directed), csgraph.dijkstra(small, directed), rtol=1e-12)


def test_unweighted_and_bfs_match_scipy_hop_counts():
    G = tessera.gen.rmat(11, 4, symmetric=False, seed=3)
    for directed in (True, False):
        expected = csgraph.shortest_path(G, directed=directed, unweighted=True, indices=5)
        np.testing.assert_array_equal(tessera.dijkstra(G, directed, 5, unweighted=True), expected)
        levels, parents = tessera.bfs(G, 5, directed, return_predecessors=True)
        assert levels.dtype == np.int32
        np.testing.assert_array_equal(levels, np.where(np.isinf(expected), -1, expected))
        # The parent: the smallest-numbered vertex one level up with an edge to the vertex.
        edges = sp.csr_matrix(G) if directed else sp.csr_matrix(G + G.T)
        incoming = edges.T.tocsr()
        for v in np.flatnonzero(levels > 0):
            candidates = incoming.indices[incoming.indptr[v]:incoming.indptr[v + 1]]
            up = candidates[levels[candidates] == levels[v] - 1]
            assert parents[v] == up.min()
        assert parents[5] == tessera.NO_PREDECESSOR and np.all(parents[levels < 0] == tessera.NO_PREDECESSOR)


def test_plans_are_reused_and_describe_themselves():
    G = weighted_graph(800, 4, 5)
    plan = tessera.SSSP(G)
    for source in range(0, 800, 97):
        np.testing.assert_allclose(plan(source), csgraph.dijkstra(G, indices=source), rtol=1e-12)
    run = plan.last_run
    assert run["source"] == list(range(0, 800, 97))[-1] and 1 <= run["reached"] <= 800
    info = plan.info
    assert info["vertices"] == 800 and info["edges"] == G.nnz and isinstance(info["explain"], str)
    bfs = tessera.BFS(G, directed=False, direction_optimizing=False)
    assert bfs.info["bottom_up"] is False and bfs.info["edges"] == 2 * G.nnz
    for schedule in ("auto", "thread-mapped", "warp-mapped", "block-mapped", "group-mapped"):
        np.testing.assert_array_equal(tessera.BFS(G, schedule=schedule)(7), tessera.BFS(G)(7))


def test_graph_forms_and_types():
    dense = np.array([[0, 2, 0], [0, 0, 3], [1, 0, 0]])
    np.testing.assert_array_equal(tessera.dijkstra(dense, indices=0), csgraph.dijkstra(dense, indices=0))
    coo = sp.coo_matrix(([1.0, 2.0, 5.0], ([0, 0, 1], [1, 1, 2])), shape=(3, 3))  # duplicates summed, as SciPy
    np.testing.assert_array_equal(tessera.dijkstra(coo, indices=0), csgraph.dijkstra(coo, indices=0))
    zero_weight = sp.csr_matrix((np.array([0.0, 2.0]), np.array([1, 2]), np.array([0, 1, 2, 2])), shape=(3, 3))
    np.testing.assert_array_equal(tessera.dijkstra(zero_weight, indices=0), [0.0, 0.0, 2.0])
    single = tessera.SSSP(weighted_graph(50, 3, 6, dtype=np.float32))
    assert single(0).dtype == np.float32
    np.testing.assert_allclose(single(0), csgraph.dijkstra(weighted_graph(50, 3, 6, np.float32), indices=0), rtol=1e-5)
    assert tessera.dijkstra(sp.csr_matrix((4, 4)), indices=2).tolist() == [np.inf, np.inf, 0.0, np.inf]
    # No sources: a (0, n) result, as SciPy gives.
    assert tessera.dijkstra(coo, indices=[]).shape == csgraph.dijkstra(coo, indices=[]).shape == (0, 3)


def test_bad_graphs_and_arguments():
    G = weighted_graph(20, 2, 7)
    negative = G.copy()
    negative.data[3] = -1.0
    with pytest.raises(ValueError, match="weight|negative|edge"):
        tessera.SSSP(negative)
    with pytest.raises(ValueError, match="square"):
        tessera.BFS(sp.random(5, 6, 0.5, format="csr"))
    with pytest.raises(TypeError, match="complex"):
        tessera.SSSP(G.astype(np.complex128))
    with pytest.raises(TypeError):
        tessera.SSSP(np.array([["a", "b"], ["c", "d"]]))
    with pytest.raises(ValueError, match="source 20"):
        tessera.SSSP(G)(20)
    with pytest.raises(ValueError, match="source -1"):
        tessera.BFS(G)(-1)
    with pytest.raises(ValueError, match="schedule"):
        tessera.BFS(G, schedule="fast")
    with pytest.raises(tessera.UnsupportedError):
        tessera.BFS(G, schedule="merge-path")
    with pytest.raises(TypeError, match="scipy.sparse"):
        tessera.BFS([[0, 1], [1, 0]])


def graph_rows(row):
    return row["rows"] == row["cols"] and row["field"] != "complex" and int(row["nnz"]) > 0


@pytest.mark.parametrize("path,row", corpus_params(graph_rows))
def test_corpus_graphs_match_scipy(path, row):
    G = sp.csr_matrix(scipy.io.mmread(str(path)))
    weighted = row["field"] != "pattern"
    if weighted:
        G = abs(G).astype(np.float64)  # weights must not be negative
    symmetric = row["symmetry"] != "general"
    source = int(np.argmax(np.diff(G.indptr)))  # a vertex with edges
    expected = csgraph.dijkstra(G, directed=not symmetric, indices=source, unweighted=not weighted)
    got = tessera.dijkstra(G, directed=not symmetric, indices=source, unweighted=not weighted)
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_dense_graph_non_edges_as_scipy():
    # SciPy reads 0, inf and NaN of a dense graph as "no edge".
    dense = np.array([[0.0, 1.0, np.inf], [0.0, 0.0, 1.0], [np.nan, 0.0, 0.0]])
    for unweighted in (False, True):
        np.testing.assert_array_equal(
            tessera.dijkstra(dense, indices=0, unweighted=unweighted),
            csgraph.dijkstra(dense, indices=0, unweighted=unweighted),
        )
    levels = tessera.bfs(dense, 0)
    np.testing.assert_array_equal(levels, [0, 1, 2])


def test_dijkstra_indices_as_scipy():
    G = sp.csr_matrix(np.array([[0, 1, 0], [0, 0, 2], [3, 0, 0]], dtype=np.float64))
    np.testing.assert_array_equal(tessera.dijkstra(G, indices=-1), csgraph.dijkstra(G, indices=-1))
    two = np.array([[0], [2]])
    got, want = tessera.dijkstra(G, indices=two), csgraph.dijkstra(G, indices=two)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match="not a vertex"):
        tessera.dijkstra(G, indices=3)
    with pytest.raises(TypeError, match="integer"):
        tessera.dijkstra(G, indices=1.5)
    with pytest.raises(TypeError, match="integer"):
        tessera.bfs(G, 1.7)
    for not_a_count in (2.5, "4"):
        with pytest.raises(TypeError, match="group_size: expected an integer"):
            tessera.BFS(G, group_size=not_a_count)
        with pytest.raises(TypeError, match="group_size: expected an integer"):
            tessera.SSSP(G, group_size=not_a_count)


def test_wide_indices_are_checked_not_wrapped():
    # An int64 column index of 2**32 + 2 would be 2 once cast to int32: another
    # matrix. It must be refused like any index outside the matrix.
    A = sp.csr_matrix((np.ones(3), np.array([0, 1, 2], dtype=np.int64), np.array([0, 1, 2, 3])), shape=(3, 3))
    A.indices = np.array([0, 1, 2**32 + 2], dtype=np.int64)
    with pytest.raises(tessera.InvalidMatrixError, match="outside"):
        tessera.bfs(A, 0)
    with pytest.raises(tessera.InvalidMatrixError, match="outside") as caught:
        tessera.spmv(A, np.ones(3))
    assert caught.value.status == 2
