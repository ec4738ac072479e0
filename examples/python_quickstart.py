"""tessera from Python, beside the SciPy and NumPy calls it replaces.

    python3 -m venv venv && venv/bin/pip install .     # from the repository root
    venv/bin/python examples/python_quickstart.py

Each step checks tessera's answer against SciPy's or NumPy's and exits with
an error if they differ.
"""

import time

import numpy as np
import scipy.sparse.linalg as spla

import tessera


def timed(call):
    start = time.perf_counter()
    result = call()
    return result, time.perf_counter() - start


print(f"tessera {tessera.__version__}: the {tessera.default_context().backend} backend")

# A circuit-like matrix (a scipy.sparse.csr_matrix; scipy.io.mmread or
# tessera.mmread would read one from a file).
A = tessera.gen.circuit(20000, seed=1)
b = A @ np.ones(A.shape[0])

# scipy.sparse.linalg.splu(A).solve(b)  ->  tessera.splu(A).solve(b)
x_scipy, t_scipy = timed(lambda: spla.splu(A.tocsc()).solve(b))
x, t_tessera = timed(lambda: tessera.splu(A).solve(b))
print(f"splu + solve, n = {A.shape[0]}, nnz = {A.nnz}: SciPy {t_scipy * 1e3:.1f} ms, tessera {t_tessera * 1e3:.1f} ms")
assert np.allclose(x, x_scipy, rtol=1e-10, atol=1e-12), "tessera's solution differs from SciPy's"

# Factor once, solve many times, refactor with new values of the same pattern.
lu = tessera.splu(A)
B = np.random.default_rng(0).standard_normal((A.shape[0], 4))
X = lu.solve(B)
assert np.allclose(A @ X, B)
A2 = A.copy()
A2.data *= 2.0
lu.refactor(A2)
assert np.allclose(lu.solve(b), x / 2.0)
print(f"nnz(L+U) = {lu.nnz}, backward error of the last solve {lu.stats.backward_error:.1e}")

# A @ x  ->  tessera.SpMV(A)(x): the plan is made once, then called.
plan = tessera.SpMV(A)
y = plan(x)
assert np.allclose(y, A @ x)
print(f"SpMV: schedule {plan.schedule} ({plan.explain})")

# numpy.sort / argsort / searchsorted  ->  tessera.sort / argsort / searchsorted
keys = np.random.default_rng(1).standard_normal(1_000_000)
ordered = tessera.sort(keys)
assert np.array_equal(ordered, np.sort(keys))
assert np.array_equal(tessera.argsort(keys), np.argsort(keys, kind="stable"))
queries = np.array([-1.0, 0.0, 1.0])
assert np.array_equal(tessera.searchsorted(ordered, queries), np.searchsorted(ordered, queries))
print("sort, argsort and searchsorted agree with NumPy")
