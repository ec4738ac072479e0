"""CuPy arrays and cupyx.scipy.sparse matrices: device vectors taken in
place (their device addresses), results of the kind given, against NumPy and
SciPy. Skipped visibly without CuPy or a GPU."""

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from conftest import random_sparse
from test_spmv import assert_product

import tessera


def test_spmv_with_device_vectors(cupy, cuda):
    A = tessera.gen.rmat(12, 8, seed=2)
    x = np.random.default_rng(1).standard_normal(A.shape[1])
    plan = tessera.SpMV(A, context=cuda)
    y = plan(cupy.asarray(x))
    assert isinstance(y, cupy.ndarray) and y.dtype == np.float64
    assert_product(cupy.asnumpy(y), A, x)
    # In place: y keeps its memory.
    out = cupy.full(A.shape[0], 3.0)
    address = out.data.ptr
    assert plan.execute(cupy.asarray(x), out, 1.0, 2.0) is out and out.data.ptr == address
    assert_product(cupy.asnumpy(out), A, x, 1.0, 2.0, np.full(A.shape[0], 3.0))
    # Converted where the type or layout differs.
    strided = cupy.asarray(np.repeat(x, 2))[::2]
    np.testing.assert_array_equal(cupy.asnumpy(plan(strided)), cupy.asnumpy(plan(cupy.asarray(x))))
    np.testing.assert_allclose(cupy.asnumpy(plan(cupy.asarray(x, dtype=np.float32))), A @ x.astype(np.float32),
                               rtol=1e-6, atol=1e-6)
    with pytest.raises(ValueError, match="shape"):
        plan(cupy.ones(A.shape[1] + 1))
    with pytest.raises(TypeError):
        plan(cupy.ones(A.shape[1], dtype=np.complex128))
    shared = cupy.ones(A.shape[0])
    square = tessera.SpMV(random_sparse(A.shape[0], A.shape[0], 0.001, 3), context=cuda)
    with pytest.raises(ValueError, match="overlap"):
        square.execute(shared, shared)


def test_cupyx_sparse_matrices(cupy, cuda):
    cupyx_sparse = pytest.importorskip("cupyx.scipy.sparse")
    A = random_sparse(500, 500, 0.01, 4)
    device_A = cupyx_sparse.csr_matrix(A)
    x = np.random.default_rng(2).standard_normal(500)
    y = tessera.spmv(device_A, cupy.asarray(x), context=cuda)
    assert isinstance(y, cupy.ndarray)
    assert_product(cupy.asnumpy(y), A, x)
    solution = tessera.spsolve(device_A, cupy.asarray(x), context=cuda)
    assert isinstance(solution, cupy.ndarray)
    np.testing.assert_allclose(cupy.asnumpy(solution), spla.spsolve(A.tocsc(), x), rtol=1e-9)
    lu = tessera.splu(cupyx_sparse.csc_matrix(A), context=cuda)
    B = cupy.asarray(np.random.default_rng(3).standard_normal((500, 4)))
    np.testing.assert_allclose(cupy.asnumpy(lu.solve(B)), spla.splu(A.tocsc()).solve(cupy.asnumpy(B)), rtol=1e-9)


def test_sort_and_search_with_device_arrays(cupy, cuda):
    rng = np.random.default_rng(7)
    for dtype in (np.uint32, np.int32, np.float32, np.uint64, np.float64, np.int64, np.int16):
        host = (rng.standard_normal(50000) * 1e4).astype(dtype)
        a = cupy.asarray(host)
        got = tessera.sort(a, context=cuda)
        assert isinstance(got, cupy.ndarray) and got.dtype == dtype
        np.testing.assert_array_equal(cupy.asnumpy(got), np.sort(host, kind="stable"))
        np.testing.assert_array_equal(cupy.asnumpy(tessera.argsort(a, context=cuda)), np.argsort(host, kind="stable"))
        np.testing.assert_array_equal(cupy.asnumpy(a), host)  # the input is left alone
        keys = np.sort(host)
        queries = (rng.standard_normal(3000) * 1e4).astype(dtype)
        got = tessera.searchsorted(cupy.asarray(keys), cupy.asarray(queries), side="right", context=cuda)
        assert isinstance(got, cupy.ndarray)
        np.testing.assert_array_equal(cupy.asnumpy(got), np.searchsorted(keys, queries, side="right"))
    grid = cupy.asarray(rng.standard_normal((20, 30)))
    np.testing.assert_array_equal(cupy.asnumpy(tessera.sort(grid, axis=0, context=cuda)),
                                  np.sort(cupy.asnumpy(grid), axis=0))


def test_context_on_cupys_stream(cupy):
    stream = cupy.cuda.Stream(non_blocking=True)
    context = tessera.Context("cuda", stream=stream)
    assert context.stream == stream.ptr
    A = random_sparse(2000, 2000, 0.002, 5)
    plan = tessera.SpMV(A, context=context)
    x = np.random.default_rng(4).standard_normal(2000)
    with stream:
        dx = cupy.asarray(x)
        y = plan(dx)  # no host synchronisation: tessera runs in CuPy's order
        z = y * 2.0
    stream.synchronize()
    assert_product(cupy.asnumpy(z) / 2.0, A, x)


def test_own_stream_ordered_with_cupys_streams(cupy):
    """A context on its own stream, CuPy on a non-blocking stream of its own: x is written by CuPy's kernels just
    before the product and y read by CuPy's kernels just after, with no host synchronisation between them (each
    stream waits for the other's event on the GPU); the results must still be those of the values written."""
    context = tessera.Context("cuda")
    A = random_sparse(3000, 3000, 0.002, 7)
    plan = tessera.SpMV(A, context=context)
    rng = np.random.default_rng(8)
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        for round in range(20):
            x = rng.standard_normal(3000)
            big = cupy.ones(1 << 22)
            dx = cupy.zeros(3000)
            for _ in range(4):  # kernels queued ahead of the write, so that the write lands late
                big = cupy.sqrt(big * 1.0000001)
            dx += cupy.asarray(x) + (big[:3000] - big[:3000])
            y = plan(dx)
            z = y * 2.0
            got = cupy.asnumpy(z, stream=stream, blocking=True) / 2.0
            assert_product(got, A, x)


def test_context_on_cupys_null_stream(cupy):
    """CuPy's null stream (pointer 0) is CUDA's legacy default stream: a context made on it runs there (not on a
    stream of its own) and needs no ordering with CuPy's work on it."""
    context = tessera.Context("cuda", stream=cupy.cuda.Stream.null)
    assert context.stream == 1  # cudaStreamLegacy
    A = random_sparse(2500, 2500, 0.002, 12)
    plan = tessera.SpMV(A, context=context)
    x = np.random.default_rng(13).standard_normal(2500)
    with cupy.cuda.Stream.null:
        big = cupy.ones(1 << 22)
        for _ in range(4):
            big = cupy.sqrt(big * 1.0000001)
        dx = cupy.asarray(x) + (big[:2500] - big[:2500])
        z = plan(dx) * 2.0
        assert_product(cupy.asnumpy(z) / 2.0, A, x)


def test_threads_with_streams_of_their_own_share_a_context(cupy):
    """Four threads, each on a CuPy stream of its own, call plans of one context (on its own stream) at once, with
    x written late and y read at once by CuPy's kernels: each call orders the context's stream with the calling
    thread's stream, the record and its wait under the context's lock."""
    import threading

    context = tessera.Context("cuda")
    A = random_sparse(3000, 3000, 0.002, 14)
    plan = tessera.SpMV(A, context=context)
    failures = []

    def work(seed):
        rng = np.random.default_rng(seed)
        stream = cupy.cuda.Stream(non_blocking=True)
        with stream:
            for _ in range(15):
                x = rng.standard_normal(3000)
                big = cupy.ones(1 << 21)
                for _ in range(3):
                    big = cupy.sqrt(big * 1.0000001)
                dx = cupy.asarray(x) + (big[:3000] - big[:3000])
                z = plan(dx) * 2.0
                got = cupy.asnumpy(z, stream=stream, blocking=True) / 2.0
                if not np.allclose(got, A @ x, rtol=1e-12, atol=1e-12):
                    failures.append(seed)

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(20, 24)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


def test_context_orders_with_a_stream_by_hand(cupy):
    """Context.wait_for_stream / stream_wait for a call on raw device addresses (the extension's plan), with CuPy's
    work on a stream of its own before and after."""
    context = tessera.Context("cuda")
    A = random_sparse(2000, 2000, 0.003, 15)
    plan = tessera.SpMV(A, context=context)
    x = np.random.default_rng(16).standard_normal(2000)
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        big = cupy.ones(1 << 22)
        for _ in range(4):
            big = cupy.sqrt(big * 1.0000001)
        dx = cupy.asarray(x) + (big[:2000] - big[:2000])
        dy = cupy.zeros(2000)
        context.wait_for_stream(stream)
        plan._plan.execute(dx.data.ptr, dy.data.ptr, 1.0, 0.0)
        context.stream_wait(stream)
        z = dy * 2.0
        assert_product(cupy.asnumpy(z, stream=stream, blocking=True) / 2.0, A, x)


def test_plans_keep_their_wraps_of_device_arrays(cupy):
    """A plan keeps the wrap of the last device arrays it was given: arrays alternated, freed and made anew (CuPy's
    pool gives the same addresses back), a vector of another length refused after a kept wrap, SpMM too."""
    A = random_sparse(500, 400, 0.01, 9)
    plan = tessera.SpMV(A)
    rng = np.random.default_rng(10)
    hosts = [rng.standard_normal(400) for _ in range(3)]
    xs, ys = [cupy.asarray(h) for h in hosts], [cupy.empty(500) for _ in hosts]
    for round in range(3):
        for h, x, y in zip(hosts, xs, ys):
            assert plan.execute(x, y) is y
            assert_product(cupy.asnumpy(y), A, h)
    for _ in range(5):  # freed and reallocated at the same addresses, new values
        h = rng.standard_normal(400)
        assert_product(cupy.asnumpy(plan(cupy.asarray(h))), A, h)
    with pytest.raises(ValueError):
        plan.execute(cupy.zeros(399), ys[0])
    assert_product(cupy.asnumpy(plan(xs[1])), A, hosts[1])
    B = cupy.asarray(rng.standard_normal((400, 8)))
    spmm = tessera.SpMM(A)
    for _ in range(3):
        np.testing.assert_allclose(cupy.asnumpy(spmm(B)), A @ cupy.asnumpy(B), rtol=1e-12, atol=1e-12)


def test_cpu_context_with_device_arrays(cupy, cpu):
    """A CPU context takes CuPy arrays through host copies and returns CuPy arrays."""
    A = random_sparse(100, 100, 0.05, 6)
    x = np.random.default_rng(5).standard_normal(100)
    y = tessera.SpMV(A, context=cpu)(cupy.asarray(x))
    assert isinstance(y, cupy.ndarray)
    assert_product(cupy.asnumpy(y), A, x)
    np.testing.assert_array_equal(cupy.asnumpy(tessera.sort(cupy.asarray(x), context=cpu)), np.sort(x))


def test_device_mismatch_is_refused(cupy, cuda):
    if cupy.cuda.runtime.getDeviceCount() < 2:
        pytest.skip("one GPU: a second device is needed to check the refusal")
    plan = tessera.SpMV(random_sparse(10, 10, 0.3, 1), context=cuda)
    with cupy.cuda.Device(1):
        other = cupy.ones(10)
    with pytest.raises(ValueError, match="device 1"):
        plan(other)


def test_graphs_given_on_the_device(cupy, cuda):
    cupyx_sparse = pytest.importorskip("cupyx.scipy.sparse")
    from scipy.sparse import csgraph

    G = tessera.gen.rmat(12, 8, seed=8)
    plan = tessera.SSSP(cupyx_sparse.csr_matrix(G), context=cuda)
    distances, predecessors = plan(5, return_predecessors=True)
    assert isinstance(distances, cupy.ndarray) and isinstance(predecessors, cupy.ndarray)
    np.testing.assert_allclose(cupy.asnumpy(distances), csgraph.dijkstra(G, indices=5), rtol=1e-12)
    assert int(predecessors[5]) == tessera.NO_PREDECESSOR
    levels = tessera.BFS(cupyx_sparse.csr_matrix(G), context=cuda)(5)
    expected = csgraph.shortest_path(G, unweighted=True, indices=5)
    np.testing.assert_array_equal(cupy.asnumpy(levels), np.where(np.isinf(expected), -1, expected))


def test_products_with_device_arrays(cupy, cuda):
    cupyx_sparse = pytest.importorskip("cupyx.scipy.sparse")
    from test_products import assert_dense_product

    A = random_sparse(800, 600, 0.01, 9)
    B = np.random.default_rng(6).standard_normal((600, 8))
    plan = tessera.SpMM(A, context=cuda)
    for layout in ("C", "F"):
        C = plan(cupy.asarray(B, order=layout))
        assert isinstance(C, cupy.ndarray) and (C.flags.f_contiguous if layout == "F" else C.flags.c_contiguous)
        assert_dense_product(cupy.asnumpy(C), A, B)
    out = cupy.ones((800, 8))
    address = out.data.ptr
    plan.execute(cupy.asarray(B), out, 1.0, 1.0)
    assert out.data.ptr == address
    assert_dense_product(cupy.asnumpy(out), A, B, 1.0, 1.0, np.ones((800, 8)))
    device_A = cupyx_sparse.csr_matrix(random_sparse(300, 300, 0.02, 10))
    C = tessera.spgemm(device_A, device_A, context=cuda)
    assert isinstance(C, cupyx_sparse.csr_matrix)
    expected = device_A.get() @ device_A.get()
    np.testing.assert_allclose(C.get().toarray(), expected.toarray(), rtol=1e-12)
