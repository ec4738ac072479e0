"""Rows and columns in other units do not make a matrix singular.

A = D_r A0 D_c with A0 well conditioned and D_r, D_c powers of ten across
10^-20 .. 10^20: every pivoting solves it to A0's accuracy in each entry
(the x0 that made b is the reference; a diagonal scaling leaves the
componentwise error unchanged), and the factorization's statistics say
which condition estimate let perturbed factors stand. A singular A0 stays
singular in any units.
"""

import numpy as np
import pytest
import scipy.sparse as sp

import tessera


def cancelling_chain(blocks, rng, singular=False):
    """Chains of [s t 0; u tu/s 1; 0 1 1] (powers of two: the second static
    pivot cancels in the natural order), each block coupled to the next;
    with singular, the last block's third row repeats its second."""
    rows, cols, vals = [], [], []
    for b in range(blocks):
        o = 3 * b
        s, t, u = (2.0 ** rng.integers(0, 4) for _ in range(3))
        last = singular and b + 1 == blocks
        entries = [(o, o, s), (o, o + 1, t), (o + 1, o, u), (o + 1, o + 1, t * u / s), (o + 1, o + 2, 1.0)]
        entries += [(o + 2, o, u), (o + 2, o + 1, t * u / s)] if last else [(o + 2, o + 1, 1.0)]
        entries += [(o + 2, o + 2, 1.0)]
        if b + 1 < blocks:
            entries.append((o + 2, o + 3, 0.5 + 0.25 * rng.random()))
        for r, c, v in entries:
            rows.append(r)
            cols.append(c)
            vals.append(v)
    n = 3 * blocks
    return sp.csr_matrix((vals, (rows, cols)), shape=(n, n))


def in_units(a0, rng, spread):
    n = a0.shape[0]
    row_units = 10.0 ** rng.integers(-spread, spread + 1, n)
    col_units = 10.0 ** rng.integers(-spread, spread + 1, n)
    return sp.diags(row_units) @ a0 @ sp.diags(col_units), col_units


@pytest.mark.parametrize("pivoting", ["auto", "static", "partial"])
@pytest.mark.parametrize("spread", [0, 8, 20])
def test_units_leave_the_solution_accurate(pivoting, spread):
    rng = np.random.default_rng(7 + spread)
    a0 = cancelling_chain(8, rng)
    a, col_units = in_units(a0, rng, spread)
    x0 = (1.0 + np.arange(a.shape[0]) % 7) / col_units
    b = a @ x0
    lu = tessera.splu(a.tocsc(), permc_spec="NATURAL", pivoting=pivoting)
    x = lu.solve(b)
    assert np.max(np.abs(x - x0) / np.abs(x0)) < 1e-9
    stats = lu.stats
    if stats.condest > 1.0 / np.finfo(float).eps:
        # A's own estimate is beyond 1/eps: the factors stood on M's.
        assert 0.0 < stats.scaled_condest <= 1.0 / np.finfo(float).eps


@pytest.mark.parametrize("pivoting", ["auto", "static", "partial"])
def test_singular_stays_singular_in_other_units(pivoting):
    rng = np.random.default_rng(3)
    a0 = cancelling_chain(4, rng, singular=True)
    a, _ = in_units(a0, rng, 20)
    with pytest.raises(tessera.SingularMatrixError):
        tessera.splu(a.tocsc(), permc_spec="NATURAL", pivoting=pivoting)
