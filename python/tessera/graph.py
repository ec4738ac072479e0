"""Graph traversal shaped like ``scipy.sparse.csgraph``: :func:`dijkstra`
and :func:`bfs` for one call, and the plans :class:`SSSP` and :class:`BFS`,
made once per graph and run from any source.

A graph is a square sparse matrix: entry (u, v) is the edge u -> v with its
weight (explicit zeros are edges of weight 0, as in SciPy). ``directed=False``
lets every edge be followed both ways, each way with its weight, as SciPy
does. Predecessors follow SciPy's convention: -9999 for the source and for
unreached vertices. Where several shortest paths tie, tessera's predecessor
is determined (the vertex the fewest tight edges from the source, then the
smallest-numbered) and may differ from SciPy's; the distances are the same.
On the GPU, BFS switches between top-down and bottom-up steps and SSSP runs
near-far label correcting, each as one persistent kernel; on the CPU, a
queue and Dijkstra.
"""

import operator

import numpy as np
import scipy.sparse as sp

from . import _arrays, _core
from ._context import resolve
from .spmv import SCHEDULES

__all__ = ["BFS", "SSSP", "bfs", "dijkstra", "NO_PREDECESSOR"]

NO_PREDECESSOR = -9999
"""SciPy's mark for the source's and unreached vertices' predecessors."""


def _check_weight_type(dtype):
    if dtype.kind == "c":
        raise TypeError(f"csgraph: complex weights ({dtype}) are not supported; expected real values")
    if dtype.kind not in "fiub":
        raise TypeError(f"csgraph: expected numeric weights, got {dtype}")


def _graph_arrays(csgraph, directed, weighted):
    """(indptr int64, indices int32, values, value code, n, on_device) of a
    graph; undirected graphs get each edge in both directions (parallel
    edges kept: each way keeps its weight)."""
    on_device = _arrays.is_cupy_sparse(csgraph)
    if isinstance(csgraph, np.ndarray):
        if csgraph.ndim != 2:
            raise ValueError(f"csgraph: expected a 2-D array, got shape {csgraph.shape}")
        _check_weight_type(csgraph.dtype)
        if csgraph.dtype.kind == "f":
            # A dense graph's zeros, infinities and NaNs are non-edges, as SciPy reads them.
            csgraph = np.where(np.isfinite(csgraph), csgraph, 0)
        csgraph = sp.csr_matrix(csgraph)
    A = _arrays.host_sparse(csgraph, "csgraph")
    n, cols = A.shape
    if n != cols:
        raise ValueError(f"csgraph: expected a square matrix, got {n} x {cols}")
    if n > _arrays.MAX_DIMENSION:
        raise OverflowError(f"csgraph: {n} vertices; tessera's graphs have at most {_arrays.MAX_DIMENSION}")
    dtype = A.dtype
    _check_weight_type(dtype)
    if not weighted:
        dtype = np.dtype(np.float32)  # values are ignored by BFS
    elif dtype not in _arrays.VALUE_CODES:
        dtype = np.dtype(np.float64)  # integer weights, as SciPy takes them
    if A.format != "csr":
        A = A.tocsr()  # COO duplicates summed, as SciPy's csgraph does
    # Checked here: the undirected graph is built in Python from these (the
    # entries only: indices and values past indptr[-1] are not edges).
    edges = int(A.indptr[-1])
    checked = _arrays.index_array(A.indices[:edges], n, "csgraph", "vertex", always=True)
    if directed:
        indptr = np.ascontiguousarray(A.indptr, dtype=np.int64)
        indices = checked
        values = np.ascontiguousarray(A.data[:edges], dtype=dtype) if weighted else np.zeros(edges, dtype=dtype)
    else:
        # The entries in CSR order, as A.tocoo() gives them (which would
        # take the arrays' tails past indptr[-1] as entries).
        rows = np.repeat(np.arange(n, dtype=np.int32), np.diff(A.indptr))
        heads = np.concatenate([rows, checked])
        order = np.argsort(heads, kind="stable")
        tails = np.concatenate([checked, rows])[order]
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(heads, minlength=n), out=indptr[1:])
        indices = np.ascontiguousarray(tails, dtype=np.int32)
        if weighted:
            data = A.data[:edges]
            values = np.ascontiguousarray(np.concatenate([data, data])[order], dtype=dtype)
        else:
            values = np.zeros(indices.shape[0], dtype=dtype)
    return indptr, indices, values, _arrays.VALUE_CODES[dtype], n, on_device


class _GraphPlan:
    _kind = None

    def __init__(self, csgraph, directed, schedule, group_size, top_down_only, delta, context):
        if schedule not in SCHEDULES:
            raise ValueError(f"schedule must be one of {list(SCHEDULES)}, got {schedule!r}")
        context = resolve(context)
        weighted = self._kind == 1
        indptr, indices, values, code, n, on_device = _graph_arrays(csgraph, directed, weighted)
        self._plan = _core.GraphPlan(
            context, self._kind, indptr, indices, values, n, code, False, SCHEDULES.index(schedule),
            _arrays.bounded_integer(group_size, "group_size"), bool(top_down_only),
            0.0 if delta is None else _arrays.real_scalar(delta, "delta"),
        )
        self._context = context
        self.n = n
        self.dtype = values.dtype
        self._device = on_device and context.backend == "cuda"

    @property
    def info(self):
        """What the plan holds and how it chose (a dict: vertices, edges,
        schedule, memory, ``explain``)."""
        return self._plan.info()

    @property
    def last_run(self):
        """What the last run did (a dict: reached vertices and edges, depth,
        steps)."""
        return self._plan.last_run()

    def _run(self, source, first_dtype, with_second):
        try:
            source = operator.index(source)  # 1.7 is refused, not truncated
        except TypeError:
            raise TypeError(f"source: expected an integer vertex number, got {type(source).__name__}") from None
        if not 0 <= source < self.n:
            raise ValueError(f"source {source} is not a vertex of a graph of {self.n} vertices")
        if self._device:
            cupy = _arrays.cupy_module()
            first = cupy.empty(self.n, dtype=first_dtype)
            second = cupy.empty(self.n, dtype=np.int32) if with_second else None
            with _arrays.DeviceOrder(self._context):
                self._plan.execute(
                    source, _arrays.device_address(first), _arrays.device_address(second) if with_second else None
                )
        else:
            first = np.empty(self.n, dtype=first_dtype)
            second = np.empty(self.n, dtype=np.int32) if with_second else None
            self._plan.execute(source, first, second)
        if with_second:
            second[second < 0] = NO_PREDECESSOR
            second[source] = NO_PREDECESSOR
        return first, second


class BFS(_GraphPlan):
    """Breadth-first search over one graph, run from any source: ``levels = plan(source)``.

    Args:
        csgraph: a square ``scipy.sparse`` matrix or array (values ignored),
            a dense 2-D NumPy array (zeros are non-edges), or a
            ``cupyx.scipy.sparse`` matrix (copied to the host to build the
            plan; the results are then CuPy arrays on a CUDA context).
        directed: follow edges u -> v only (True, SciPy's default) or both ways.
        schedule: how the GPU spreads a frontier's edges (one of
            :data:`tessera.SCHEDULES` the library takes for graphs: auto,
            thread-mapped, warp-mapped, block-mapped, group-mapped).
        group_size: threads per vertex (warp-mapped: 4, 8 or 32) or per group.
        direction_optimizing: bottom-up steps where they pay (True).
        context: a :class:`tessera.Context`.
    """

    _kind = 0

    def __init__(self, csgraph, directed=True, *, schedule="auto", group_size=0, direction_optimizing=True,
                 context=None):
        super().__init__(csgraph, directed, schedule, group_size, not direction_optimizing, None, context)

    def __call__(self, source, return_predecessors=False):
        """Levels (hop counts from source, int32, -1 when unreached) and,
        with return_predecessors, each vertex's parent (int32: the
        smallest-numbered vertex one level up with an edge to it; -9999 for
        the source and unreached vertices)."""
        levels, parents = self._run(source, np.int32, return_predecessors)
        return (levels, parents) if return_predecessors else levels


class SSSP(_GraphPlan):
    """Single-source shortest paths over one weighted graph, run from any
    source: ``distances = plan(source)``.

    Args:
        csgraph: as for :class:`BFS`; the values are the edge weights,
            finite and not negative (float32 or float64; integers are read
            as float64). Distances have the weights' type.
        directed, schedule, group_size, context: as for :class:`BFS`.
        delta: the GPU's near-far step in weight units (None: chosen from the
            mean weight and degree: 32 x mean weight / mean out-degree, or a
            quarter of the mean weight from a mean out-degree of 8).

    Raises:
        InvalidMatrixError: a negative or non-finite weight (a ValueError
            naming the edge).
    """

    _kind = 1

    def __init__(self, csgraph, directed=True, *, schedule="auto", group_size=0, delta=None, context=None):
        super().__init__(csgraph, directed, schedule, group_size, False, delta, context)

    def __call__(self, source, return_predecessors=False):
        """Distances from source (+inf when unreached) and, with
        return_predecessors, each vertex's predecessor on a shortest path
        (int32, -9999 for the source and unreached vertices)."""
        distances, predecessors = self._run(source, self.dtype, return_predecessors)
        return (distances, predecessors) if return_predecessors else distances


def _sources(indices, n):
    """(list of sources, the shape of indices) as SciPy reads indices: every
    vertex for None, negative indices counted from the end; the results have
    one row of n values per index, in the shape of indices."""
    if indices is None:
        return list(range(n)), (n,)
    array = np.asarray(indices)
    if array.size == 0:
        array = array.astype(np.int64)  # [] is float64 to NumPy: no sources, as SciPy reads it
    if array.dtype.kind not in "iu":
        raise TypeError(f"indices: expected integer vertex numbers, got {array.dtype}")
    flat = array.astype(np.int64).ravel()
    flat = np.where(flat < 0, flat + n, flat)
    outside = (flat < 0) | (flat >= n)
    if outside.any():
        bad = int(array.ravel()[np.argmax(outside)])
        raise ValueError(f"indices: {bad} is not a vertex of a graph of {n} vertices")
    return flat.tolist(), array.shape


def dijkstra(csgraph, directed=True, indices=None, return_predecessors=False, unweighted=False, *, context=None):
    """Shortest-path distances, as ``scipy.sparse.csgraph.dijkstra``.

    Args:
        csgraph: as for :class:`SSSP` (weights are read as float64, as SciPy).
        directed: follow edges u -> v only (True) or both ways.
        indices: a source, an array of sources (negative ones count from
            the end, as in SciPy), or None (every vertex).
        return_predecessors: also return the predecessor arrays.
        unweighted: hop counts instead of weights (a breadth-first search).
    Returns:
        distances (float64: a vector for one source, else a row per source in
        the shape of ``indices``; +inf when unreached) and, with
        return_predecessors, the predecessors (int32, -9999 for each source
        and the unreached).
    """
    if _arrays.is_cupy_sparse(csgraph):
        csgraph = csgraph.get()
    graph = csgraph if sp.issparse(csgraph) else np.asarray(csgraph)
    _check_weight_type(graph.dtype)
    if not unweighted and graph.dtype != np.float64:
        graph = graph.astype(np.float64)  # SciPy's distances are float64 whatever the weights
    plan = (BFS if unweighted else SSSP)(graph, directed, context=context)
    sources, shape = _sources(indices, plan.n)
    distances = np.empty((len(sources), plan.n))
    predecessors = np.empty((len(sources), plan.n), dtype=np.int32) if return_predecessors else None
    for row, source in enumerate(sources):
        result = plan(source, return_predecessors)
        first, second = result if return_predecessors else (result, None)
        if unweighted:
            first = np.where(first < 0, np.inf, first.astype(np.float64))
        distances[row] = first
        if return_predecessors:
            predecessors[row] = second
    distances = distances.reshape(shape + (plan.n,))
    if return_predecessors:
        predecessors = predecessors.reshape(shape + (plan.n,))
    return (distances, predecessors) if return_predecessors else distances


def bfs(csgraph, i_start, directed=True, return_predecessors=False, *, context=None):
    """Breadth-first levels from i_start (int32 hop counts, -1 when
    unreached) and, with return_predecessors, the parents (-9999 for
    i_start and the unreached), as a one-call :class:`BFS`. The order of
    ``scipy.sparse.csgraph.breadth_first_order`` is the vertices sorted by
    level (ties in any order)."""
    return BFS(csgraph, directed, context=context)(i_start, return_predecessors)
