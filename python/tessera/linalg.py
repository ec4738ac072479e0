"""Sparse LU shaped like ``scipy.sparse.linalg``: :func:`splu` returns a
:class:`SparseLU` with ``solve``, and :func:`spsolve` solves at once.

The factorization is tessera's: a maximum-product matching with scaling, a
fill-reducing ordering (AMD on A + A^T by default), a symbolic factorization,
and a numeric factorization with static pivoting whose tiny pivots are
perturbed; every solve refines the residual in double, and falls back to
partial pivoting on the host when the refined answer is still not accurate.
On a CUDA context the numeric factorization and the solves run on the GPU.
Complex matrices (complex64, complex128) are factored in complex double.
"""

import difflib
import math
import types

import numpy as np
import scipy.sparse as sp

from . import _arrays, _core
from ._context import resolve
from ._errors import InvalidArgumentError

__all__ = ["splu", "spsolve", "SparseLU", "LUStats"]

_ORDERINGS = {"auto": 0, "amd": 1, "colamd": 2, "natural": 3, "nd": 4}
# SciPy's permc_spec names, mapped to the nearest of tessera's orderings.
_PERMC_SPEC = {"MMD_AT_PLUS_A": "amd", "COLAMD": "colamd", "MMD_ATA": "colamd", "NATURAL": "natural"}
_BACKENDS = {None: 0, "auto": 0, "cpu": 1, "cuda": 2}
_PIVOTINGS = {"auto": 0, "static": 1, "partial": 2}
_PERTURBED_PIVOTS = 100
# The parts of _core.LU.extract(): L and U in CSC, the permutations, the scaling
# (the factors' values complex128 for a complex matrix).
_EXTRACT_TYPES = (np.int64, np.int32, np.float64, np.int64, np.int32, np.float64, np.int32, np.int32, np.float64,
                  np.float64)
_FACTOR_VALUE_PARTS = (2, 5)
# ts_operation: A, A^T, A^H.
_TRANS = {"N": 0, "n": 0, "T": 1, "t": 1, "H": 2, "h": 2}


class LUStats(types.SimpleNamespace):
    """Statistics of a factorization and of its last solve.

    Attributes: ``n``, ``nnz_a``, ``nnz_l`` (unit diagonal included), ``nnz_u``,
    ``flops``, ``levels``, ``max_level_size``, ``symbolic_chunks``,
    ``structural_rank``, ``perturbed_pivots`` (tiny pivots replaced),
    ``singular_column`` (-1 if none), ``peak_device_bytes``, the phase times in
    seconds ``time_matching``, ``time_ordering``, ``time_symbolic``,
    ``time_levelize``, ``time_factor``, ``time_solve``.

    Of the last factorization: ``max_multiplier`` (largest ``|L(i,j)|``),
    ``pivot_growth`` (``max|U| / max|M|``, M the scaled, permuted matrix),
    ``pivots_refreshed`` (True when degraded pivots were analyzed anew, see
    ``refresh_pivots``), ``factor_backend`` (``"cpu"`` or ``"cuda"``: where it
    and its solves ran) and ``factor_threads`` (host threads; 0 on the GPU).

    The estimates, 0 until computed (by :meth:`SparseLU.condest`,
    :meth:`SparseLU.rcond`, :meth:`SparseLU.rgrowth`; ``condest`` also by a
    factorization that perturbed pivots): ``condest`` (1-norm condition
    number, a lower bound, as KLU's ``klu_condest``), ``scaled_condest``
    (that of the scaled matrix the factors are of, made by the singularity
    rule where A's own did not let perturbed factors stand), ``rcond``
    (``min|u_kk| / max|u_kk|``, as ``klu_rcond``), ``rgrowth`` (reciprocal
    pivot growth, as ``klu_rgrowth``).

    Of the last solve (the largest over the right-hand sides):
    ``backward_error`` (normwise, ``|b - Ax| / (|A| |x| + |b|)`` in the
    infinity norm), ``scaled_backward_error`` (the same for the scaled system
    that was factored), ``componentwise_backward_error`` (Oettli and Prager's
    ``max_i |b - Ax|_i / (|A| |x| + |b|)_i``), ``residual_norm``
    (``|b - Ax|_inf``), ``solution_norm`` (``|x|_inf``), ``refinement_steps``
    and ``partial_pivoting`` (True when it fell back to partial pivoting).

    Of the analysis: ``pivoting`` (``"static"`` or ``"partial"``: how its
    pivots were chosen, see :func:`splu`'s ``pivoting``) and ``ordering``
    (``"amd"``, ``"nd"``, ``"colamd"`` or ``"natural"``: the one it used, what
    ``"auto"`` chose).
    """


def _own(array, host, name):
    """array, copied where it may share memory with the caller's array of
    that name (a CSR or CSC matrix's indptr or indices)."""
    given = getattr(host, name, None)
    return array.copy() if given is not None and np.may_share_memory(array, given) else array


def _ordering_code(permc_spec, ordering):
    if permc_spec is not None and ordering is not None:
        raise ValueError("give permc_spec (SciPy's names) or ordering (tessera's), not both")
    if permc_spec is not None:
        if permc_spec not in _PERMC_SPEC:
            raise ValueError(f"permc_spec must be one of {sorted(_PERMC_SPEC)}, got {permc_spec!r}")
        ordering = _PERMC_SPEC[permc_spec]
    ordering = "auto" if ordering is None else ordering
    if ordering not in _ORDERINGS:
        raise ValueError(f"ordering must be one of {sorted(_ORDERINGS)}, got {ordering!r}")
    return _ORDERINGS[ordering]


def _trans_code(trans):
    if trans in _TRANS:
        return _TRANS[trans]  # real matrices: A^H = A^T
    raise ValueError(f"trans must be 'N', 'T' or 'H', got {trans!r}")


_OPTION_NAMES = (
    "ordering",
    "matching",
    "perturbation",
    "pivot_threshold",
    "float_factors",
    "refine_steps",
    "refine_tolerance",
    "backend",
    "amd_dense",
)


def _check_option_names(options, caller):
    """A TypeError naming the public function for an unknown keyword (a
    typo), with the nearest option's name."""
    for name in options:
        if name not in _OPTION_NAMES:
            known = _OPTION_NAMES + ("permc_spec", "pivoting", "refresh_pivots", "check", "context")
            near = difflib.get_close_matches(name, known, 1)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            raise TypeError(f"{caller}() got an unexpected keyword argument {name!r}{hint}")


def _option_codes(permc_spec=None, caller="splu", **options):
    _check_option_names(options, caller)
    return _option_codes_checked(permc_spec, **options)


def _option_codes_checked(
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
    amd_dense=None,
):
    """The options of :func:`splu` (and :func:`tessera.splu_batch`), checked,
    as the ts_lu_options arguments of _core.LU and _core.LUBatch: ordering,
    no_matching, no_perturbation, pivot_threshold, float_factors,
    refine_max_steps, refine_tolerance, backend, amd_dense."""
    if backend not in _BACKENDS:
        raise ValueError(f"backend must be one of 'auto', 'cpu', 'cuda' or None, got {backend!r}")
    if refine_steps is not None and (int(refine_steps) != refine_steps or refine_steps < 0):
        raise ValueError(f"refine_steps must be a whole number >= 0, got {refine_steps!r}")
    for name, value in (("pivot_threshold", pivot_threshold), ("refine_tolerance", refine_tolerance)):
        if value is not None and not value > 0:
            raise ValueError(f"{name} must be positive, got {value!r}")
    if amd_dense is not None and (isinstance(amd_dense, bool) or not math.isfinite(amd_dense)):
        raise ValueError(f"amd_dense must be a finite number (negative: no dense rows), got {amd_dense!r}")
    return (
        _ordering_code(permc_spec, ordering),
        0 if matching else 1,
        0 if perturbation else 1,
        float(pivot_threshold or 0.0),
        1 if float_factors else 0,
        -1 if refine_steps == 0 else int(refine_steps or 0),
        float(refine_tolerance or 0.0),
        _BACKENDS[backend],
        float(amd_dense or 0.0),
    )


class SparseLU:
    """The LU factorization of a sparse square matrix (see :func:`splu`).

    Attributes:
        shape: the matrix's shape.
        dtype: the matrix's value type (float32, float64, complex64 or
            complex128); solutions have it (complex for a complex
            right-hand side with a real matrix).
        nnz: entries of L and U (each diagonal counted in both).
        stats: a :class:`LUStats` of the factorization and the last solve.
        L, U: the factors, ``scipy.sparse.csc_matrix`` in float64 (complex128
            for a complex matrix; L unit
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

    def __init__(self, A, permc_spec=None, *, refresh_pivots=False, pivoting="auto", context=None, **options):
        context = resolve(context)
        codes = _option_codes(permc_spec, **options)
        if pivoting not in _PIVOTINGS:
            raise ValueError(f"pivoting must be one of 'auto', 'static', 'partial', got {pivoting!r}")
        host = _arrays.host_sparse(A, "A")
        arrays = _arrays.host_csr_arrays(host, "A", square=True, complex_ok=True)
        self._lu = _core.LU(context, *codes, 1 if refresh_pivots else 0, _PIVOTINGS[pivoting])
        self.shape = arrays.shape
        self.dtype = arrays.dtype
        self._context = context
        # The pattern is kept for refactor: copies, not views of the caller's
        # arrays (which the caller may reuse once A is factored).
        self._pattern = (_own(arrays.indptr, host, "indptr"), _own(arrays.indices, host, "indices"))
        # The layout of A.data as given, for refactor(array).
        self._given_format = host.format if host.format in ("csr", "csc") and host.has_canonical_format else None
        self._given_pattern = (
            (host.indptr.copy(), host.indices[: host.indptr[-1]].copy()) if self._given_format == "csc" else None
        )
        self._csc_to_csr = None
        self._factors = None
        status = self._lu.factor(arrays.indptr, arrays.indices, arrays.data, arrays.shape[0], arrays.code, True)
        self._perturbed = status == _PERTURBED_PIVOTS

    def _extracted(self):
        if self._factors is None:
            parts = self._lu.extract()
            n = self.shape[0]
            kinds = list(_EXTRACT_TYPES)
            if self._complex:
                for part in _FACTOR_VALUE_PARTS:
                    kinds[part] = np.complex128
            arrays = [np.frombuffer(part, dtype=kind) for part, kind in zip(parts, kinds)]
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

    L = property(lambda self: self._extracted()[0], doc="L, unit lower triangular, CSC (float64 or complex128).")
    U = property(lambda self: self._extracted()[1], doc="U, upper triangular, CSC (float64 or complex128).")
    perm_r = property(lambda self: self._extracted()[2], doc="Row i of A is row perm_r[i] of L U (SciPy's).")
    perm_c = property(lambda self: self._extracted()[3], doc="Column j of A is column perm_c[j] of L U (SciPy's).")
    row_scale = property(lambda self: self._extracted()[4], doc="The matching's row scaling, by A's rows.")
    col_scale = property(lambda self: self._extracted()[5], doc="The matching's column scaling, by A's columns.")

    _complex = property(lambda self: self.dtype.kind == "c")

    @property
    def stats(self):
        """A :class:`LUStats` of the factorization and the last solve."""
        return LUStats(**self._lu.stats())

    def condest(self):
        """The 1-norm condition number ``|A|_1 |A^-1|_1`` of the factored
        matrix, estimated from at most eleven solves (Hager's method with
        Higham's refinements, as KLU's ``klu_condest``): a lower bound of the
        true value, usually within a factor of 3; also in ``stats.condest``."""
        return self._lu.condest()

    def rcond(self):
        """``min|u_kk| / max|u_kk|`` over U's diagonal (as KLU's
        ``klu_rcond``): a cheap, rough sign of ill-conditioning (0 with a zero
        pivot); also in ``stats.rcond``."""
        return self._lu.rcond()

    def rgrowth(self):
        """The reciprocal pivot growth ``min(1, min_k max|M(:,k)| / max|U(:,k)|)``
        of the scaled, permuted matrix M that was factored (as KLU's
        ``klu_rgrowth``): near 1 the elimination was stable, small values mean
        U's entries grew; also in ``stats.rgrowth``."""
        return self._lu.rgrowth()

    @property
    def nnz(self):
        s = self._lu.stats()
        return s["nnz_l"] + s["nnz_u"]

    def solve(self, rhs, trans="N"):
        """Solve A x = rhs (trans='N'), A^T x = rhs ('T') or A^H x = rhs
        ('H', the conjugate transpose; the same as 'T' for real matrices).

        Args:
            rhs: a NumPy array of shape (n,) or (n, k) (or a CuPy array,
                copied to the host and back: the library's solves take host
                vectors). Integer values are converted; complex values with a
                real matrix are solved as their real and imaginary parts.
        Returns:
            x of rhs's shape, in the matrix's value type (complex for a
            complex rhs), as the kind of array rhs was. Refined in double (see
            ``stats.backward_error``).
        """
        op = _trans_code(trans)
        on_device = _arrays.is_cupy(rhs)
        b = _arrays.cupy_module().asnumpy(rhs) if on_device else _arrays.dense(rhs, "rhs")
        n = self.shape[0]
        if b.ndim not in (1, 2) or b.shape[0] != n:
            raise ValueError(f"rhs: expected shape ({n},) or ({n}, k) for a {n} x {n} matrix, got {b.shape}")
        kind = np.result_type(self.dtype, b.dtype) if b.dtype.kind == "c" else self.dtype
        if self._complex:
            x = self._solve_host(_arrays.cast_kind(b, np.dtype(np.complex128), "rhs"), op)
        elif b.dtype.kind == "c":
            # A real matrix: its solution of a complex rhs is the solutions of
            # the real and imaginary parts.
            b = b.astype(np.complex128, copy=False)
            x = self._solve_host(np.ascontiguousarray(b.real), op) + 1j * self._solve_host(
                np.ascontiguousarray(b.imag), op
            )
        else:
            x = self._solve_host(_arrays.cast_kind(b, np.dtype(np.float64), "rhs"), op)
        if kind != x.dtype:
            x = x.astype(kind)
        return _arrays.cupy_module().asarray(x) if on_device else x

    def _solve_host(self, b, op):
        """x = op(A)^-1 b for a host array b of the factors' value type
        (float64, or complex128 for a complex matrix)."""
        b = np.asfortranarray(b)
        x = np.empty(b.shape, dtype=b.dtype, order="F")
        nrhs = 1 if b.ndim == 1 else b.shape[1]
        self._factors = None  # a solve may fall back to partial pivoting
        self._lu.solve(b, x, nrhs, op)
        return x

    def refactor(self, new_values):
        """Factor new values with the pattern of the matrix factored first
        (a Newton step): the analysis (matching, ordering, symbolic) is
        reused and only the numeric factorization runs.

        Args:
            new_values: a sparse matrix with the same pattern (explicit zeros
                included), or a 1-D array of the values in the order of
                ``A.data`` of the matrix given to :func:`splu` when that was a
                CSR or CSC matrix in canonical form. The values are of the
                kind that was factored: real, or complex (real values are
                taken as complex for a complex factorization).
        Raises:
            ValueError: the pattern differs (the message gives the row); the
                earlier factorization stands.
            TypeError: complex values for a real factorization.
            InvalidMatrixError, SingularMatrixError: values that do not
                factor; the object then holds no factorization (solve raises)
                but keeps the analysis, so a later ``refactor`` with other
                values may succeed (a Newton loop shortening its step).
        """
        if sp.issparse(new_values) or _arrays.is_cupy_sparse(new_values):
            arrays = _arrays.csr_arrays(new_values, "new_values", square=True, complex_ok=self._complex)
            if arrays.shape != self.shape:
                raise ValueError(f"new_values: a {arrays.shape[0]} x {arrays.shape[1]} matrix; factored {self.shape}")
            values, indptr, indices = arrays.data, arrays.indptr, arrays.indices
            if self._complex and values.dtype.kind != "c":
                values = values.astype(np.result_type(values.dtype, np.complex64))
        else:
            values = self._values_in_csr_order(new_values)
            indptr, indices = self._pattern
        code = _arrays.CsrArrays(None, None, None, None, values.dtype).code
        try:
            status = self._lu.refactor(indptr, indices, values, self.shape[0], code)
        except InvalidArgumentError:
            raise  # refused before factoring: the earlier factorization stands
        except BaseException:
            self._factors = None
            raise
        self.dtype = values.dtype
        self._factors = None
        self._perturbed = status == _PERTURBED_PIVOTS

    def _values_in_csr_order(self, new_values):
        if _arrays.is_cupy(new_values):
            new_values = _arrays.cupy_module().asnumpy(new_values)
        values = np.asarray(new_values)
        accepted = _arrays.COMPLEX_CODES if self._complex else _arrays.VALUE_CODES
        if values.dtype not in accepted:
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
        ordering: tessera's names instead: ``"auto"`` (the default: AMD, or
            nested dissection where it promises less work), ``"amd"``,
            ``"colamd"``, ``"natural"``, ``"nd"`` (METIS nested dissection).
        matching: the maximum-product matching and scaling (default True).
        perturbation: replace tiny pivots (default True); False makes a zero
            pivot raise :class:`SingularMatrixError` naming the column.
        pivot_threshold: the tiny-pivot threshold relative to the largest entry.
        float_factors: factors in single precision (refinement stays double).
        refine_steps: most refinement steps per solve (0: none).
        refine_tolerance: refinement stops below this backward error.
        backend: where the numeric phase and the solves run: None or
            ``"auto"`` (the context's backend), ``"cpu"``, ``"cuda"``.
        amd_dense: AMD's dense-row control (``ts_lu_options.amd_dense``):
            rows of A + A^T with more than max(16, amd_dense * sqrt(n))
            entries are ordered last, outside the minimum-degree search.
            None or 0: AMD's default, 10; negative: no row is dense. A lower value
            orders a matrix with a few long rows (a circuit's supply nets)
            much faster at the price of some fill: for a factorization
            solved a few times rather than refactored many times.
        pivoting: how the pivots are chosen (``ts_lu_options.pivoting``):
            ``"auto"`` (the default: static pivots, replaced by partial
            pivoting where the first factorization has to perturb one, on
            the host), ``"static"`` (the matching's, fixed before the
            values are factored; tiny pivots perturbed and refined), or
            ``"partial"`` (for real matrices: the matching's scaling, then
            threshold partial pivoting on the values given to splu, as KLU
            pivots; refactorizations keep those pivots). ``stats.pivoting``
            says which the factors have.
        refresh_pivots: when a :meth:`SparseLU.refactor` finds the pivots of
            the analysis degraded for the new values, or the singularity
            rule refuses them (the values' units changed since the
            analysis), analyze those values anew and factor again
            (``stats.pivots_refreshed``) instead of warning or raising
            (default False).
        context: a :class:`tessera.Context` (default: :func:`default_context`).

    Returns:
        A :class:`SparseLU`.

    Raises:
        TypeError: A is not sparse, or its values are not float32, float64,
            complex64 or complex128.
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
            matrix (solved densely; the result is sparse of b's kind, except
            for a sparse (n, 1) b, a vector whose x is dense, as SciPy's).
        permc_spec, options: as for :func:`splu`.

    Returns:
        x, shaped as SciPy's (a vector for b of shape (n,) or (n, 1)), of the
        kind b was.

    Raises:
        SingularMatrixError: where SciPy warns (MatrixRankWarning) and returns
            NaN, tessera raises.
    """
    _check_option_names(options, "spsolve")
    lu = SparseLU(A, permc_spec, **options)
    if sp.issparse(b) and b.ndim == 2 and b.shape[1] == 1:
        b = b.toarray()  # a vector: SciPy returns a dense one
    if sp.issparse(b):
        x = lu.solve(b.toarray())
        x = x.reshape(-1, 1) if x.ndim == 1 else x
        kind = sp.csc_matrix if isinstance(b, sp.spmatrix) else sp.csc_array
        return kind(x)
    x = lu.solve(b)
    if x.ndim == 2 and x.shape[1] == 1:
        x = x.reshape(-1)
    return x
