"""Batches of sparse LU systems: :func:`splu_batch` factors a list of sparse
matrices in one call and solves them all in another.

Matrices with the same pattern share one analysis (matching and scaling
from the values of the first of them, ordering, symbolic factorization), as
``tessera/lu_batch.h`` describes: each member gets the factors and the
solution that ``splu(first).refactor(member)`` followed by ``solve`` would
give. A parameter sweep or a Monte Carlo run of one circuit is one pattern
with many members; matrices of several patterns may be mixed.
"""

import types

import numpy as np
import scipy.sparse as sp

from . import _arrays, _core
from ._context import resolve
from .linalg import _option_codes

__all__ = ["splu_batch", "SparseLUBatch"]

# ts_status: errors are 1 to 99, warnings from 100.
_WARNINGS = 100


def _matrix_list(matrices, what):
    """matrices as a list, or a TypeError for one matrix or array given
    where a sequence of matrices is expected (iterating a sparse matrix
    would yield its rows)."""
    if sp.issparse(matrices) or _arrays.is_cupy_sparse(matrices) or isinstance(matrices, np.ndarray):
        raise TypeError(
            f"{what}: expected a list of sparse matrices, got a single {type(matrices).__name__}; "
            "pass [A] for a batch of one"
        )
    try:
        return list(matrices)
    except TypeError:
        raise TypeError(f"{what}: expected a list of sparse matrices, got {type(matrices).__name__}") from None


class SparseLUBatch:
    """The LU factorizations of a list of sparse square real matrices (see
    :func:`splu_batch`).

    Attributes:
        shapes: each matrix's shape, in the order given.
        patterns: how many distinct patterns were analysed.
        stats: a namespace of the batch's statistics: ``members``,
            ``patterns``, ``nnz_lu`` (entries of L + U summed), ``flops``,
            ``failed_members``, ``perturbed_members``, ``host_members``,
            ``peak_device_bytes``, ``on_gpu``, ``time_analyze``,
            ``time_factor``, ``time_solve`` (seconds), and of the last solve
            ``backward_error`` (the largest) and ``refinement_steps``.
    """

    def __init__(self, matrices, permc_spec=None, *, check=True, context=None, **options):
        context = resolve(context)
        codes = _option_codes(permc_spec, "splu_batch", **options)
        matrices = _matrix_list(matrices, "matrices")
        if not matrices:
            raise ValueError("matrices: expected at least one sparse matrix")
        arrays = [_arrays.csr_arrays(A, f"matrices[{i}]", square=True) for i, A in enumerate(matrices)]
        # Group by pattern, in the order of first appearance (the library
        # numbers the members pattern by pattern).
        groups = {}
        for i, a in enumerate(arrays):
            key = (a.shape[0], a.indptr.tobytes(), a.indices.tobytes())
            groups.setdefault(key, []).append(i)
        members = [i for group in groups.values() for i in group]
        first = [arrays[group[0]] for group in groups.values()]
        self._lu = _core.LUBatch(
            context,
            tuple((a.indptr, a.indices, a.data, a.shape[0], a.code) for a in first),
            tuple(len(group) for group in groups.values()),
            *codes,
        )
        self._context = context
        self.shapes = [a.shape for a in arrays]
        self.patterns = len(groups)
        self._dtypes = [a.dtype for a in arrays]
        # The library's member index of each matrix, and where its values
        # and vectors lie in the batch's arrays.
        self._member = np.empty(len(arrays), dtype=np.int64)
        self._member[members] = np.arange(len(arrays))
        records = [self._lu.member(m) for m in range(len(arrays))]
        self._value_offset = [records[m]["value_offset"] for m in self._member]
        self._vector_offset = [records[m]["vector_offset"] for m in self._member]
        self._patterns = [(a.indptr, a.indices) for a in arrays]
        self._counts = self._lu.stats()
        self._factor(arrays, check)

    def __len__(self):
        return len(self.shapes)

    def _factor(self, arrays, check):
        values = np.empty(self._counts["values"], dtype=np.float64)
        for i, a in enumerate(arrays):
            values[self._value_offset[i] : self._value_offset[i] + a.data.shape[0]] = a.data
        self._lu.factor(values, check)

    def refactor(self, new_matrices, check=True):
        """Factor new values of every matrix, each with the pattern of the
        matrix it replaces (the analyses are kept).

        Args:
            new_matrices: a list of sparse matrices, as many as the batch
                has and in the same order, each with its predecessor's
                pattern (explicit zeros included).
            check: raise the first failed member's exception (True, the
                default), or leave the outcome to :meth:`failed`.
        Raises:
            ValueError: a matrix's pattern differs from its predecessor's.
        """
        new_matrices = _matrix_list(new_matrices, "new_matrices")
        if len(new_matrices) != len(self):
            raise ValueError(f"new_matrices: {len(new_matrices)} matrices for a batch of {len(self)}")
        arrays = []
        for i, A in enumerate(new_matrices):
            a = _arrays.csr_arrays(A, f"new_matrices[{i}]", square=True)
            indptr, indices = self._patterns[i]
            if a.shape != self.shapes[i] or not (np.array_equal(a.indptr, indptr) and np.array_equal(a.indices, indices)):
                raise ValueError(f"new_matrices[{i}]: its pattern differs from that of matrix {i} of the batch")
            arrays.append(a)
        self._dtypes = [a.dtype for a in arrays]
        self._factor(arrays, check)

    def solve(self, rhs, check=True):
        """Solve A_i x_i = b_i for every matrix of the batch, refined in
        double (as :meth:`SparseLU.solve`).

        Args:
            rhs: one right-hand side per matrix: a list of 1-D arrays, or a
                2-D array of shape (count, n) when every matrix has order n.
            check: raise the first failed member's exception (True), or
                give NaN solutions for members without factors (False).
        Returns:
            the solutions in rhs's form (a list, or a (count, n) array), each
            in its matrix's value type.
        """
        count = len(self)
        given_array = isinstance(rhs, np.ndarray)
        if given_array and (rhs.ndim != 2 or rhs.shape[0] != count):
            raise ValueError(f"rhs: expected shape ({count}, n) or a list of {count} vectors, got {rhs.shape}")
        if rhs is None or isinstance(rhs, (str, bytes)):
            raise TypeError(
                f"rhs: expected a list of {count} vectors or an array of shape ({count}, n), got {type(rhs).__name__}"
            )
        try:
            vectors = list(rhs)
        except TypeError:
            raise TypeError(
                f"rhs: expected a list of {count} vectors or an array of shape ({count}, n), got {type(rhs).__name__}"
            ) from None
        if len(vectors) != count:
            raise ValueError(f"rhs: {len(vectors)} right-hand sides for a batch of {count}")
        b = np.empty(self._counts["rows"], dtype=np.float64)
        for i, vector in enumerate(vectors):
            n = self.shapes[i][0]
            start = self._vector_offset[i]
            b[start : start + n] = _arrays.host_vector(vector, n, np.dtype(np.float64), f"rhs[{i}]")
        x = np.empty_like(b)
        self._lu.solve(b, x, check)
        solutions = [
            x[self._vector_offset[i] : self._vector_offset[i] + shape[0]].astype(self._dtypes[i])
            for i, shape in enumerate(self.shapes)
        ]
        return np.array(solutions) if given_array else solutions

    def member_stats(self, i):
        """Matrix i's outcome: ``status`` (0, a warning's code, or the error
        that failed it), ``status_name``, ``singular_column`` (-1 if none),
        ``perturbed_pivots``, ``pattern``, and of the last solve
        ``backward_error``, ``refinement_steps``, ``partial_pivoting``,
        ``on_host`` (a GPU batch handed it to the host)."""
        i = _arrays.integer_option(i, "i")
        if not 0 <= i < len(self):
            raise IndexError(f"matrix {i} of a batch of {len(self)}")
        record = self._lu.member(int(self._member[i]))
        record["status_name"] = _core.status_string(record["status"])
        return types.SimpleNamespace(**record)

    def failed(self):
        """The indices of the matrices whose last factorization or solve
        failed (their solutions are NaN)."""
        return [i for i in range(len(self)) if 0 < self.member_stats(i).status < _WARNINGS]

    @property
    def stats(self):
        return types.SimpleNamespace(**self._lu.stats())

    def __repr__(self):
        return f"<tessera.SparseLUBatch of {len(self)} matrices, {self.patterns} pattern(s)>"


def splu_batch(matrices, permc_spec=None, **options):
    """LU factorizations of many sparse square matrices in one call.

    ``tessera.splu_batch(As).solve(bs)`` gives
    ``[scipy.sparse.linalg.splu(A).solve(b) for A, b in zip(As, bs)]`` to
    rounding. Matrices with the same pattern share one analysis (from the
    values of the first of them), so a batch of one pattern is analysed once.

    Args:
        matrices: a sequence of ``scipy.sparse`` square matrices, float32 or
            float64 (complex values are refused: the library's batches are
            real).
        permc_spec, ordering, matching, perturbation, pivot_threshold,
            float_factors, refine_steps, refine_tolerance, backend, context:
            as for :func:`splu`.
        check: a member whose factorization fails (numerically singular,
            values not finite) raises its exception, whose message names the
            member (True, the default); with False the others are factored
            all the same and :meth:`SparseLUBatch.failed` lists the failed
            ones. A pattern whose analysis fails (structurally singular)
            raises whatever ``check`` says, naming the pattern: its members
            have no analysis to be factored with.

    Returns:
        A :class:`SparseLUBatch`.
    """
    return SparseLUBatch(matrices, permc_spec, **options)
