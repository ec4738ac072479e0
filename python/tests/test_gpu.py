"""The CUDA backend with host (NumPy) inputs: the library's GPU paths behind
the same calls, checked against SciPy and NumPy. Skipped visibly where
tessera was built without CUDA or no GPU is usable."""

import numpy as np
import pytest
import scipy.sparse.linalg as spla
from conftest import random_sparse
from test_spmv import assert_product

import tessera


def test_spmv_on_the_gpu(cuda):
    for dtype in (np.float32, np.float64):
        A = tessera.gen.power_law(5000, 4000, 80000, 1.1, seed=3, dtype=dtype)
        x = np.random.default_rng(1).standard_normal(4000).astype(dtype)
        reference = None
        for schedule in tessera.SCHEDULES:
            plan = tessera.SpMV(A, schedule, context=cuda)
            y = plan(x)
            assert_product(y, A, x)
            # Each schedule repeats bitwise; across schedules the GPU adds a
            # row's entries in different orders (the C library's promise is
            # run to run), so the schedules agree to rounding.
            np.testing.assert_array_equal(plan(x), y)
            if reference is None:
                reference = y
            tolerance = 1e-4 if dtype == np.float32 else 1e-12
            np.testing.assert_allclose(y, reference, rtol=tolerance, atol=tolerance)
        y0 = np.ones(5000, dtype=dtype)
        y = y0.copy()
        tessera.SpMV(A, context=cuda).execute(x, y, 2.0, 0.5)
        assert_product(y, A, x, 2.0, 0.5, y0)
        xt = np.random.default_rng(2).standard_normal(5000).astype(dtype)
        assert_product(tessera.SpMV(A, transpose=True, context=cuda)(xt), A.T, xt)


def test_lu_on_the_gpu(cuda):
    A = tessera.gen.circuit(20000, seed=4)
    b = np.random.default_rng(3).standard_normal(20000)
    lu = tessera.splu(A, context=cuda, backend="cuda")  # AUTO keeps a factorization this small on the host
    x = lu.solve(b)
    expected = spla.splu(A.tocsc()).solve(b)
    np.testing.assert_allclose(x, expected, rtol=1e-9, atol=1e-12)
    assert lu.stats.peak_device_bytes > 0
    B = A.copy()
    B.data *= 1.5
    lu.refactor(B)
    np.testing.assert_allclose(lu.solve(b), expected / 1.5, rtol=1e-9, atol=1e-12)
    host = tessera.splu(A, context=cuda, backend="cpu")
    assert host.stats.peak_device_bytes == 0
    np.testing.assert_allclose(host.solve(b), expected, rtol=1e-9, atol=1e-12)


def test_complex_lu_and_estimates_on_the_gpu(cuda):
    A = tessera.gen.circuit(20000, seed=5)
    C = A.astype(np.complex128)
    C.data = C.data * np.exp(1j * np.random.default_rng(6).uniform(0, 2 * np.pi, C.nnz))
    b = np.random.default_rng(7).standard_normal(20000) * (1 + 1j)
    lu = tessera.splu(C, context=cuda, backend="cuda")
    assert lu.stats.factor_backend == "cuda"
    reference = spla.splu(C.tocsc())
    for trans in ("N", "T", "H"):
        np.testing.assert_allclose(lu.solve(b, trans=trans), reference.solve(b, trans=trans), rtol=1e-9, atol=1e-12)
    host = tessera.splu(C, context=cuda, backend="cpu")
    # The same analysis: factors equal to rounding on either side.
    assert lu.rcond() == pytest.approx(host.rcond(), rel=1e-6)
    assert lu.rgrowth() == pytest.approx(host.rgrowth(), rel=1e-6)
    assert lu.condest() > 0


def test_lu_batch_on_the_gpu(cuda):
    A = tessera.gen.circuit(3000, seed=8)
    rng = np.random.default_rng(9)
    matrices = []
    for _ in range(16):
        M = A.copy()
        M.data = M.data * rng.uniform(0.5, 1.5, M.nnz)
        matrices.append(M)
    rhs = rng.standard_normal((16, 3000))
    batch = tessera.splu_batch(matrices, context=cuda, backend="cuda")
    x = batch.solve(rhs)
    assert batch.stats.on_gpu
    for got, M, b in zip(x, matrices, rhs):
        np.testing.assert_allclose(got, spla.splu(M.tocsc()).solve(b), rtol=1e-9, atol=1e-10)
        assert np.abs(b - M @ got).max() <= 1e-13 * abs(M).sum(axis=1).max() * np.abs(got).max()


def test_sort_and_search_on_the_gpu(cuda):
    rng = np.random.default_rng(5)
    for dtype in (np.uint32, np.int32, np.float32, np.uint64, np.float64, np.int64):
        a = (rng.standard_normal(100000) * 1e6).astype(dtype)
        np.testing.assert_array_equal(tessera.sort(a, context=cuda), np.sort(a, kind="stable"))
        np.testing.assert_array_equal(tessera.argsort(a, context=cuda), np.argsort(a, kind="stable"))
        keys = np.sort(a)
        queries = (rng.standard_normal(5000) * 1e6).astype(dtype)
        for algorithm in tessera.SEARCH_ALGORITHMS:
            plan = tessera.SearchPlan(keys, algorithm, context=cuda)
            np.testing.assert_array_equal(plan.searchsorted(queries), np.searchsorted(keys, queries))
            np.testing.assert_array_equal(plan.searchsorted(queries, "right"), np.searchsorted(keys, queries, "right"))
    grid = (rng.standard_normal((30, 40)) * 10).astype(np.float32)
    np.testing.assert_array_equal(tessera.sort(grid, axis=0, context=cuda), np.sort(grid, axis=0))


def test_generators_and_errors_on_the_gpu(cuda):
    A = tessera.gen.laplacian_2d(30, 30, context=cuda)
    assert A.shape == (900, 900)
    plan = tessera.SpMV(random_sparse(10, 10, 0.3, 1), context=cuda)
    try:
        plan(np.ones(11))
    except ValueError as error:
        assert "(10,)" in str(error)
    cuda.sync()
    assert cuda.backend == "cuda" and cuda.stream != 0
    info = cuda.device_info()
    assert info["ordinal"] == 0 and info["compute_capability"][0] >= 5


def test_graphs_on_the_gpu(cuda):
    from scipy.sparse import csgraph

    G = tessera.gen.rmat(14, 8, seed=6)
    for directed in (True, False):
        expected = csgraph.shortest_path(G, directed=directed, unweighted=True, indices=3)
        levels = tessera.BFS(G, directed, context=cuda)(3)
        np.testing.assert_array_equal(levels, np.where(np.isinf(expected), -1, expected))
        np.testing.assert_allclose(tessera.SSSP(G, directed, context=cuda)(3),
                                   csgraph.dijkstra(G, directed=directed, indices=3), rtol=1e-12)


def test_products_on_the_gpu(cuda):
    from test_products import assert_dense_product

    A = tessera.gen.power_law(3000, 2000, 40000, 1.1, seed=7)
    B = np.random.default_rng(8).standard_normal((2000, 32))
    plan = tessera.SpMM(A, context=cuda)
    C = plan(B)
    assert_dense_product(C, A, B)
    np.testing.assert_array_equal(plan(B), C)  # run to run, bitwise
    # A column-major B takes other kernels: the same product to rounding.
    np.testing.assert_allclose(plan(np.asfortranarray(B)), C, rtol=1e-12, atol=1e-12)
    for schedule in tessera.SCHEDULES:
        # Another schedule groups the sums its own way: the same product to rounding.
        np.testing.assert_allclose(tessera.SpMM(A, schedule, context=cuda)(B), C, rtol=1e-12, atol=1e-12)
    G = tessera.gen.rmat(12, 8, seed=9)
    product = tessera.spgemm(G, G, context=cuda)
    host = tessera.spgemm(G, G, context=tessera.Context("cpu"))
    # The same pattern; the GPU sums long rows' products in fixed shares
    # (include/tessera/spgemm.h), so the values agree to rounding, and
    # bitwise from run to run.
    assert (product.indptr == host.indptr).all() and (product.indices == host.indices).all()
    np.testing.assert_allclose(product.data, host.data, rtol=1e-12, atol=1e-12 * np.abs(host.data).max())
    np.testing.assert_array_equal(tessera.spgemm(G, G, context=cuda).data, product.data)
    a_bytes = G.data.nbytes + G.indices.nbytes + 8 * (G.shape[0] + 1)
    c_bytes = product.data.nbytes + 4 * product.nnz + 8 * (product.shape[0] + 1)
    budget = 2 * a_bytes + c_bytes // 2  # room for the workspace, not for C
    blocked, info = tessera.spgemm(G, G, memory_budget=budget, return_info=True, context=cuda)
    assert info["blocked"] and (blocked != product).nnz == 0
