"""Sparse LU shaped like ``scipy.sparse.linalg``: :func:`splu` returns a
:class:`SparseLU` with ``solve``, and :func:`spsolve` solves at once.

The factorization is tessera's: a maximum-product matching with scaling, a
fill-reducing ordering (AMD on A + A^T by default), a symbolic factorization,
and a numeric factorization with static pivoting whose tiny pivots are
perturbed; every solve refines the residual in double, and falls back to
partial pivoting on the host when the refined answer is still not accurate.
On a CUDA context the numeric factorization and the solves run on the GPU.
"""

import types

import numpy as np
import scipy.sparse as sp

from . import _arrays, _core
from ._context import resolve

__all__ = ["splu", "spsolve", "SparseLU", "LUStats"]

_ORDERINGS = {"amd": 0, "colamd": 1, "natural": 2}
# SciPy's permc_spec names, mapped to the nearest of tessera's orderings.
_PERMC_SPEC = {"MMD_AT_PLUS_A": "amd", "COLAMD": "colamd", "MMD_ATA": "colamd", "NATURAL": "natural"}
_BACKENDS = {None: 0, "auto": 0, "cpu": 1, "cuda": 2}
_PERTURBED_PIVOTS = 100
# The parts of _core.LU.extract(): L and U in CSC, the permutations, the scaling.
_EXTRACT_TYPES = (np.int64, np.int32, np.float64, np.int64, np.int32, np.float64, np.int32, np.int32, np.float64,
                  np.float64)


class LUStats(types.SimpleNamespace):
    """Statistics of a factorization and of its last solve.

    Attributes: ``n``, ``nnz_a``, ``nnz_l`` (unit diagonal included), ``nnz_u``,
    ``flops``, ``levels``, ``max_level_size``, ``symbolic_chunks``,
    ``structural_rank``, ``perturbed_pivots`` (tiny pivots replaced),
    ``singular_column`` (-1 if none), ``peak_device_bytes``, the phase times in
    seconds ``time_matching``, ``time_ordering``, ``time_symbolic``,
    ``time_levelize``, ``time_factor``, ``time_solve``, and of the last solve
    ``backward_error`` (normwise), ``refinement_steps`` and
    ``partial_pivoting`` (True when it fell back to partial pivoting).
    """


def _ordering_code(permc_spec, ordering):
    if permc_spec is not None and ordering is not None:
        raise ValueError("give permc_spec (SciPy's names) or ordering (tessera's), not both")
    if permc_spec is not None:
        if permc_spec not in _PERMC_SPEC:
            raise ValueError(f"permc_spec must be one of {sorted(_PERMC_SPEC)}, got {permc_spec!r}")
        ordering = _PERMC_SPEC[permc_spec]
    ordering = "amd" if ordering is None else ordering
    if ordering not in _ORDERINGS:
        raise ValueError(f"ordering must be one of {sorted(_ORDERINGS)}, got {ordering!r}")
    return _ORDERINGS[ordering]


def _trans_flag(trans):
    if trans in ("N", "n"):
        return False
    if trans in ("T", "t", "H", "h"):
        return True  # real matrices: A^H = A^T
    raise ValueError(f"trans must be 'N', 'T' or 'H', got {trans!r}")


class SparseLU:
    """The LU factorization of a sparse square matrix (see :func:`splu`).

    Attributes:
        shape: the matrix's shape.
        dtype: the matrix's value type (float32 or float64); solutions have it.
        nnz: entries of L and U (each diagonal counted in both).
        stats: a :class:`LUStats` of the factorization and the last solve.
        L, U: the factors, ``scipy.sparse.csc_matrix`` in float64 (L unit
            lower triangular with its diagonal stored, U upper triangular),
            as SciPy's ``splu`` gives them.
        perm_r, perm_c: the permutations in SciPy's convention: row i of A
            is row ``perm_r[i]`` of L U, column j of A column ``perm_c[j]``.
        row_scale, col_scale: the scaling of the matching (R, C; ones
            without it), indexed by A's rows and columns.

    With ``Pr = csc_matrix((ones, (perm_r, arange(n))))`` and
    ``Pc = csc_matrix((ones, (arange(n), perm_c)))`` as in SciPy's
    documentation, ``Pr @ diags(row_scale) @ A @ diags(col_scale) @ Pc`` equals
    ``L @ U`` to rounding (``ts_lu_extract_csc``; SciPy's factors have no
    scaling). These are the factors the solves use: after a solve fell back
    to partial pivoting (``stats.partial_pivoting``), the fallback's.
    """

    def __init__(
        self,
        A,
        permc_spec=None,
        *,
        ordering=None,
        matching=True,
        perturbation=True,
        pivot_threshold=None,
        float_factors=False,
        refine_steps=None,
        refine_tolerance=None,
        backend=None,
        context=None,
    ):
        context = resolve(context)
        if backend not in _BACKENDS:
            raise ValueError(f"backend must be one of 'auto', 'cpu', 'cuda' or None, got {backend!r}")
        if refine_steps is not None and (int(refine_steps) != refine_steps or refine_steps < 0):
            raise ValueError(f"refine_steps must be a whole number >= 0, got {refine_steps!r}")
        for name, value in (("pivot_threshold", pivot_threshold), ("refine_tolerance", refine_tolerance)):
            if value is not None and not value > 0:
                raise ValueError(f"{name} must be positive, got {value!r}")
        host = _arrays.host_sparse(A, "A")
        arrays = _arrays.csr_arrays(host, "A", square=True)
        self._lu = _core.LU(
            context,
            _ordering_code(permc_spec, ordering),
            0 if matching else 1,
            0 if perturbation else 1,
            float(pivot_threshold or 0.0),
            1 if float_factors else 0,
            -1 if refine_steps == 0 else int(refine_steps or 0),
            float(refine_tolerance or 0.0),
            _BACKENDS[backend],
        )
        self.shape = arrays.shape
        self.dtype = arrays.dtype
        self._context = context
        self._pattern = (arrays.indptr, arrays.indices)
        # The layout of A.data as given, for refactor(array).
        self._given_format = host.format if host.format in ("csr", "csc") and host.has_canonical_format else None
        self._given_pattern = (host.indptr, host.indices) if self._given_format == "csc" else None
        self._csc_to_csr = None
        self._factors = None
        status = self._lu.factor(arrays.indptr, arrays.indices, arrays.data, arrays.shape[0], arrays.code, True)
        self._perturbed = status == _PERTURBED_PIVOTS

    def _extracted(self):
        if self._factors is None:
            parts = self._lu.extract()
            n = self.shape[0]
            arrays = [np.frombuffer(part, dtype=kind) for part, kind in zip(parts, _EXTRACT_TYPES)]
            l_factor = sp.csc_matrix((arrays[2], arrays[1], arrays[0]), shape=(n, n))
            u_factor = sp.csc_matrix((arrays[5], arrays[4], arrays[3]), shape=(n, n))
            # The library's row_perm[i] is the row of A at position i of L U;
            # SciPy's perm_r is its inverse (and the same for the columns).
            perm_r = np.empty(n, dtype=np.int32)
            perm_r[arrays[6]] = np.arange(n, dtype=np.int32)
            perm_c = np.empty(n, dtype=np.int32)
            perm_c[arrays[7]] = np.arange(n, dtype=np.int32)
            self._factors = (l_factor, u_factor, perm_r, perm_c, arrays[8].copy(), arrays[9].copy())
        return self._factors

    L = property(lambda self: self._extracted()[0], doc="L, unit lower triangular, CSC (float64).")
    U = property(lambda self: self._extracted()[1], doc="U, upper triangular, CSC (float64).")
    perm_r = property(lambda self: self._extracted()[2], doc="Row i of A is row perm_r[i] of L U (SciPy's).")
    perm_c = property(lambda self: self._extracted()[3], doc="Column j of A is column perm_c[j] of L U (SciPy's).")
    row_scale = property(lambda self: self._extracted()[4], doc="The matching's row scaling, by A's rows.")
    col_scale = property(lambda self: self._extracted()[5], doc="The matching's column scaling, by A's columns.")

    @property
    def stats(self):
        return LUStats(**self._lu.stats())

    @property
    def nnz(self):
        s = self._lu.stats()
        return s["nnz_l"] + s["nnz_u"]

    def solve(self, rhs, trans="N"):
        """Solve A x = rhs (trans='N') or A^T x = rhs ('T'; 'H' is the same
        for real matrices).

        Args:
            rhs: a NumPy array of shape (n,) or (n, k) (or a CuPy array,
                copied to the host and back: the library's solves take host
                vectors). Integer values are converted.
        Returns:
            x of rhs's shape, in the matrix's value type, as the kind of
            array rhs was. Refined in double (see ``stats.backward_error``).
        """
        transpose = _trans_flag(trans)
        on_device = _arrays.is_cupy(rhs)
        b = _arrays.cupy_module().asnumpy(rhs) if on_device else np.asarray(rhs)
        b = _arrays.cast_kind(b, np.dtype(np.float64), "rhs")
        n = self.shape[0]
        if b.ndim not in (1, 2) or b.shape[0] != n:
            raise ValueError(f"rhs: expected shape ({n},) or ({n}, k) for a {n} x {n} matrix, got {b.shape}")
        b = np.asfortranarray(b)
        x = np.empty(b.shape, dtype=np.float64, order="F")
        nrhs = 1 if b.ndim == 1 else b.shape[1]
        self._factors = None  # a solve may fall back to partial pivoting
        self._lu.solve(b, x, nrhs, transpose)
        if self.dtype != x.dtype:
            x = x.astype(self.dtype)
        return _arrays.cupy_module().asarray(x) if on_device else x

    def refactor(self, new_values):
        """Factor new values with the pattern of the matrix factored first
        (a Newton step): the analysis (matching, ordering, symbolic) is
        reused and only the numeric factorization runs.

        Args:
            new_values: a sparse matrix with the same pattern (explicit zeros
                included), or a 1-D array of the values in the order of
                ``A.data`` of the matrix given to :func:`splu` when that was a
                CSR or CSC matrix in canonical form.
        Raises:
            ValueError: the pattern differs (the message gives the row).
        """
        if sp.issparse(new_values) or _arrays.is_cupy_sparse(new_values):
            arrays = _arrays.csr_arrays(new_values, "new_values", square=True)
            if arrays.shape != self.shape:
                raise ValueError(f"new_values: a {arrays.shape[0]} x {arrays.shape[1]} matrix; factored {self.shape}")
            values, code = arrays.data, arrays.code
            indptr, indices = arrays.indptr, arrays.indices
        else:
            values = self._values_in_csr_order(new_values)
            code = _arrays.VALUE_CODES[values.dtype]
            indptr, indices = self._pattern
        self.dtype = values.dtype
        self._factors = None
        status = self._lu.refactor(indptr, indices, values, self.shape[0], code)
        self._perturbed = status == _PERTURBED_PIVOTS

    def _values_in_csr_order(self, new_values):
        if _arrays.is_cupy(new_values):
            new_values = _arrays.cupy_module().asnumpy(new_values)
        values = np.asarray(new_values)
        if values.dtype not in _arrays.VALUE_CODES:
            values = _arrays.cast_kind(values, self.dtype, "new_values")
        nnz = self._pattern[1].shape[0]
        if values.shape != (nnz,):
            raise ValueError(f"new_values: expected {nnz} values (the entries of A), got shape {values.shape}")
        if self._given_format is None:
            raise ValueError(
                "new_values: an array of values needs the matrix given to splu in canonical CSR or CSC form "
                "(sorted indices, no duplicates); pass a sparse matrix with the same pattern instead"
            )
        if self._given_format == "csc":
            if self._csc_to_csr is None:
                indptr, indices = self._given_pattern
                positions = sp.csc_matrix((np.arange(nnz, dtype=np.float64), indices, indptr), shape=self.shape)
                self._csc_to_csr = positions.tocsr().data.astype(np.int64)
            values = values[self._csc_to_csr]
        return np.ascontiguousarray(values)

    def __repr__(self):
        n = self.shape[0]
        return f"<tessera.SparseLU of a {n} x {n} {self.dtype} matrix, nnz(L+U) {self.nnz}>"


def splu(A, permc_spec=None, **options):
    """LU factorization of a sparse square matrix, as ``scipy.sparse.linalg.splu``.

    ``tessera.splu(A).solve(b)`` gives SciPy's ``splu(A).solve(b)`` to rounding.

    Args:
        A: a ``scipy.sparse`` matrix or array (CSR, CSC, COO or any format
            SciPy converts to CSR), float32 or float64; a
            ``cupyx.scipy.sparse`` matrix is copied to the host.
        permc_spec: SciPy's ordering names: ``"MMD_AT_PLUS_A"`` (tessera's AMD
            on A + A^T, the default), ``"COLAMD"`` or ``"MMD_ATA"`` (COLAMD),
            ``"NATURAL"``.
        ordering: tessera's names instead: ``"amd"``, ``"colamd"``, ``"natural"``.
        matching: the maximum-product matching and scaling (default True).
        perturbation: replace tiny pivots (default True); False makes a zero
            pivot raise :class:`SingularMatrixError` naming the column.
        pivot_threshold: the tiny-pivot threshold relative to the largest entry.
        float_factors: factors in single precision (refinement stays double).
        refine_steps: most refinement steps per solve (0: none).
        refine_tolerance: refinement stops below this backward error.
        backend: where the numeric phase and the solves run: None or
            ``"auto"`` (the context's backend), ``"cpu"``, ``"cuda"``.
        context: a :class:`tessera.Context` (default: :func:`default_context`).

    Returns:
        A :class:`SparseLU`.

    Raises:
        TypeError: A is not sparse, or its values are not float32/float64.
        ValueError: A is not square.
        SingularMatrixError: A is structurally singular (the message gives the
            structural rank), or has a zero pivot with perturbation off.
    """
    return SparseLU(A, permc_spec, **options)


def spsolve(A, b, permc_spec=None, **options):
    """Solve A x = b for a sparse square A, as ``scipy.sparse.linalg.spsolve``.

    Args:
        A: as for :func:`splu`.
        b: a vector (n,) or matrix (n, k): NumPy, CuPy or a SciPy sparse
            matrix (solved densely; the result is sparse of b's kind).
        permc_spec, options: as for :func:`splu`.

    Returns:
        x, shaped as SciPy's (a vector for b of shape (n,) or (n, 1)), of the
        kind b was.

    Raises:
        SingularMatrixError: where SciPy warns (MatrixRankWarning) and returns
            NaN, tessera raises.
    """
    lu = SparseLU(A, permc_spec, **options)
    if sp.issparse(b):
        x = lu.solve(b.toarray())
        x = x.reshape(-1, 1) if x.ndim == 1 else x
        kind = sp.csc_matrix if isinstance(b, sp.spmatrix) else sp.csc_array
        return kind(x)
    x = lu.solve(b)
    if x.ndim == 2 and x.shape[1] == 1:
        x = x.reshape(-1)
    return x
