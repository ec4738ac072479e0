"""Matrix generators, returning SciPy CSR matrices (``csr_matrix``, or
``csr_array`` with ``spmatrix=False``).

Every generator is deterministic from its seed: the same arguments give the
same matrix, byte for byte, whatever the number of threads. The matrices are
built in tessera's memory and handed to SciPy without a copy; Ctrl-C stops a
long generation.
"""

import operator

import numpy as np
import scipy.sparse as sp

from . import _arrays, _core
from ._context import resolve
from .io import matrix_arrays

__all__ = ["laplacian_2d", "laplacian_3d", "banded", "random_uniform", "power_law", "rmat", "circuit"]


def _seed(seed):
    """seed as the library's 64-bit unsigned seed, or an error (no wrapping:
    2**64 is not seed 0)."""
    try:
        seed = operator.index(seed)
    except TypeError:
        raise TypeError(f"seed: expected an integer, got {type(seed).__name__}") from None
    if not 0 <= seed < 2**64:
        raise ValueError(f"seed: expected 0 <= seed < 2**64, got {seed}")
    return seed


def _sizes(**sizes):
    """Integer parameters as ints the library takes (int64), each named in
    the TypeError or OverflowError of a bad one (2.5, None, 2**70)."""
    return tuple(_arrays.bounded_integer(value, name, _arrays.INT64_RANGE) for name, value in sizes.items())


def _generate(kind, args, dtype, spmatrix, context, overrides=None):
    dtype = _arrays.value_dtype(dtype, "dtype")
    matrix = _core.generate(resolve(context), kind, _arrays.VALUE_CODES[dtype], tuple(args), overrides or {})
    indptr, indices, values, description = matrix_arrays(matrix)
    shape = (description["rows"], description["cols"])
    csr = sp.csr_matrix if spmatrix else sp.csr_array
    return csr((values, indices, indptr), shape=shape)


def laplacian_2d(nx, ny, *, dtype=np.float64, spmatrix=True, context=None):
    """The 5-point Laplacian on an nx-by-ny grid (row x + nx*y): 4 on the
    diagonal, -1 to each neighbour."""
    return _generate("laplacian_2d", _sizes(nx=nx, ny=ny), dtype, spmatrix, context)


def laplacian_3d(nx, ny, nz, *, dtype=np.float64, spmatrix=True, context=None):
    """The 7-point Laplacian on an nx-by-ny-by-nz grid: 6 on the diagonal, -1
    to each neighbour."""
    return _generate("laplacian_3d", _sizes(nx=nx, ny=ny, nz=nz), dtype, spmatrix, context)


def banded(n, lower, upper, *, seed=0, dtype=np.float64, spmatrix=True, context=None):
    """An n-by-n band of ``lower`` sub- and ``upper`` super-diagonals, random
    off the diagonal in [-1, 1), strictly diagonally dominant."""
    return _generate("banded", _sizes(n=n, lower=lower, upper=upper) + (_seed(seed),), dtype, spmatrix, context)


def random_uniform(rows, cols, per_row, *, seed=0, dtype=np.float64, spmatrix=True, context=None):
    """Each row with ``per_row`` distinct uniformly random columns, values in [-1, 1)."""
    args = _sizes(rows=rows, cols=cols, per_row=per_row) + (_seed(seed),)
    return _generate("random_uniform", args, dtype, spmatrix, context)


def power_law(rows, cols, nnz, exponent, *, seed=0, dtype=np.float64, spmatrix=True, context=None):
    """Row lengths following a power law of ``exponent``, about ``nnz``
    entries in all; values in [-1, 1)."""
    args = _sizes(rows=rows, cols=cols, nnz=nnz) + (_arrays.real_scalar(exponent, "exponent"), _seed(seed))
    return _generate("power_law", args, dtype, spmatrix, context)


def rmat(
    scale,
    edge_factor=16,
    *,
    a=0.57,
    b=0.19,
    c=0.19,
    symmetric=True,
    scramble=True,
    seed=0,
    dtype=np.float64,
    spmatrix=True,
    context=None,
):
    """An R-MAT graph of 2^scale vertices and edge_factor * 2^scale drawn edges
    (Graph500's parameters by default), duplicates merged, values in (0, 1]."""
    overrides = {name: _arrays.real_scalar(value, name) for name, value in (("a", a), ("b", b), ("c", c))}
    overrides.update(symmetric=int(bool(symmetric)), scramble=int(bool(scramble)))
    args = (
        _arrays.bounded_integer(scale, "scale"),
        _arrays.bounded_integer(edge_factor, "edge_factor"),
        _seed(seed),
    )
    return _generate("rmat", args, dtype, spmatrix, context, overrides)


def circuit(
    n,
    *,
    avg_degree=None,
    locality=None,
    dense_nets=None,
    dense_fraction=None,
    asymmetry=None,
    mesh_radius=None,
    seed=0,
    dtype=np.float64,
    spmatrix=True,
    context=None,
):
    """A circuit-like unsymmetric matrix, strictly diagonally dominant; the
    parameters left as None take the library's defaults (average degree 4,
    locality 0: a hierarchical netlist, 3 dense nets on 5% of the rows,
    asymmetry 0.05, mesh radius 3)."""
    reals = {"avg_degree": avg_degree, "locality": locality, "dense_fraction": dense_fraction, "asymmetry": asymmetry}
    overrides = {name: _arrays.real_scalar(value, name) for name, value in reals.items() if value is not None}
    for name, value in (("dense_nets", dense_nets), ("mesh_radius", mesh_radius)):
        if value is not None:
            overrides[name] = _arrays.bounded_integer(value, name)
    return _generate("circuit", _sizes(n=n) + (_seed(seed),), dtype, spmatrix, context, overrides)
