"""tessera: sparse LU, SpMV, sorting and searching on NVIDIA GPUs, with a CPU
backend that gives the same answers where no GPU is present, in the shapes
SciPy and NumPy users know.

    import tessera
    lu = tessera.splu(A)              # A: a scipy.sparse matrix
    x = lu.solve(b)                   # as scipy.sparse.linalg.splu(A).solve(b)
    x = tessera.spsolve(A, b)
    xs = tessera.splu_batch(As).solve(bs)  # many systems in one call
    y = tessera.SpMV(A)(x)            # A @ x, the plan reused for every x
    C = tessera.SpMM(A)(B)            # A @ B for a dense B; tessera.spgemm(A, B) for a sparse B
    s = tessera.sort(keys)            # as numpy.sort; also argsort, searchsorted
    d = tessera.dijkstra(G, indices=0)  # as scipy.sparse.csgraph.dijkstra; also bfs
    A = tessera.mmread("m.mtx")       # as scipy.io.mmread
    A = tessera.gen.laplacian_2d(100, 100)

Work runs on a :class:`Context`: the GPU when tessera was built with CUDA and
a GPU is usable, the CPU otherwise (``tessera.default_context().backend``
says which). Errors from the library are raised as exceptions carrying its
message (:mod:`tessera.errors`); long calls release the GIL and stop on
Ctrl-C where the library reports progress.
"""

from . import _core
from . import _errors as errors
from ._context import Context, default_context, set_default_context
from ._errors import *  # noqa: F401,F403
from . import gen
from .graph import BFS, NO_PREDECESSOR, SSSP, bfs, dijkstra
from .io import mminfo, mmread, mmwrite
from .linalg import LUStats, SparseLU, splu, spsolve
from .lu_batch import SparseLUBatch, splu_batch
from .sorting import SEARCH_ALGORITHMS, SearchPlan, argsort, searchsorted, sort
from .spmv import SCHEDULES, SpMV, spmv
from .products import SpMM, spgemm, spmm

__version__ = "{}.{}.{}".format(_core.version // 10000, _core.version // 100 % 100, _core.version % 100)

built_with_cuda = bool(_core.built_with_cuda)
"""True when the library inside this package was built with the CUDA backend."""

__all__ = [
    "Context",
    "default_context",
    "set_default_context",
    "errors",
    "gen",
    "mmread",
    "mminfo",
    "mmwrite",
    "splu",
    "spsolve",
    "SparseLU",
    "LUStats",
    "splu_batch",
    "SparseLUBatch",
    "SpMV",
    "spmv",
    "SCHEDULES",
    "SpMM",
    "spmm",
    "spgemm",
    "sort",
    "argsort",
    "searchsorted",
    "SearchPlan",
    "SEARCH_ALGORITHMS",
    "BFS",
    "SSSP",
    "bfs",
    "dijkstra",
    "NO_PREDECESSOR",
    "built_with_cuda",
] + list(errors.__all__)
