"""Reference counts and memory do not grow over 10^4 calls of each entry
point, on its success and its error paths: the reference counts of the
arguments (sys.getrefcount), Python's allocated blocks
(sys.getallocatedblocks: one leaked object per call would add 10^4), the C
heap (glibc's mallinfo2 where present: one leaked ts_buffer per call would
add hundreds of KiB) and the resident set."""

import ctypes
import gc
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import random_sparse

import tessera

CALLS = 10_000


class MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks",
                 "keepcost")]


def c_heap_bytes():
    """Bytes in use on the C heap (glibc), or None where mallinfo2 is absent."""
    try:
        mallinfo2 = ctypes.CDLL(None).mallinfo2
    except (AttributeError, OSError):
        return None
    mallinfo2.restype = MallInfo2
    info = mallinfo2()
    return info.uordblks + info.hblkhd


def resident_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def check_no_growth(call, watched=()):
    """Run call 10^4 times after a warm-up; the reference counts of watched
    objects, Python's allocated blocks and the C heap must not grow with the
    number of calls."""
    for _ in range(200):
        call()
    gc.collect()
    counts = [sys.getrefcount(obj) for obj in watched]
    blocks_before = sys.getallocatedblocks()
    heap_before = c_heap_bytes()
    resident_before = resident_bytes()
    for _ in range(CALLS):
        call()
    gc.collect()
    blocks_growth = sys.getallocatedblocks() - blocks_before
    heap_after = c_heap_bytes()
    resident_growth = resident_bytes() - resident_before
    assert [sys.getrefcount(obj) for obj in watched] == counts
    assert blocks_growth < CALLS // 10, f"{blocks_growth} more Python blocks after {CALLS} calls"
    if heap_before is not None:
        heap_growth = heap_after - heap_before
        assert heap_growth < 64 * 1024, f"the C heap grew {heap_growth} bytes over {CALLS} calls"
    assert resident_growth < 16 * 2**20, f"resident memory grew {resident_growth} bytes over {CALLS} calls"


@pytest.fixture(scope="module")
def small():
    A = random_sparse(8, 8, 0.4, 1)
    return A, np.linspace(1.0, 2.0, 8)


def test_spmv_calls(small, cpu1):
    A, x = small
    plan = tessera.SpMV(A, context=cpu1)
    y = np.empty(8)
    check_no_growth(lambda: plan(x), (A, x, plan, cpu1))
    check_no_growth(lambda: plan.execute(x, y, 2.0, 1.0), (x, y, plan))
    check_no_growth(lambda: tessera.spmv(A, x, context=cpu1), (A, x, cpu1))


def test_lu_calls(small, cpu1):
    A, x = small
    lu = tessera.splu(A, context=cpu1)
    B = np.ones((8, 3))
    check_no_growth(lambda: lu.solve(x), (x, lu))
    check_no_growth(lambda: lu.solve(B, trans="T"), (B, lu))
    check_no_growth(lambda: lu.refactor(A), (A, lu))
    check_no_growth(lambda: lu.stats, (lu,))
    check_no_growth(lambda: tessera.splu(A, context=cpu1).solve(x), (A, x, cpu1))
    check_no_growth(lambda: (lu.condest(), lu.rcond(), lu.rgrowth()), (lu,))
    C = A.astype(np.complex128) * (1 + 1j)
    z = x * (1 - 2j)
    complex_lu = tessera.splu(C, context=cpu1)
    check_no_growth(lambda: complex_lu.solve(z, trans="H"), (z, complex_lu))
    check_no_growth(lambda: complex_lu.L, (complex_lu,))
    check_no_growth(lambda: tessera.splu(C, context=cpu1).solve(z), (C, z, cpu1))


def test_lu_batch_calls(small, cpu1):
    A, x = small
    matrices = [A, A * 2.0, A * 3.0]
    rhs = np.ones((3, A.shape[0]))
    batch = tessera.splu_batch(matrices, context=cpu1)
    check_no_growth(lambda: batch.solve(rhs), (rhs, batch))
    check_no_growth(lambda: batch.refactor(matrices), (batch,))
    check_no_growth(lambda: batch.member_stats(1), (batch,))
    check_no_growth(lambda: tessera.splu_batch(matrices, context=cpu1).solve(rhs), (rhs, cpu1))


def test_sort_and_search_calls(cpu1):
    keys = np.random.default_rng(1).standard_normal(64)
    ordered = np.sort(keys)
    ints = np.arange(64, dtype=np.int64)[::-1].copy()
    plan = tessera.SearchPlan(ordered, context=cpu1)
    check_no_growth(lambda: tessera.sort(keys, context=cpu1), (keys,))
    check_no_growth(lambda: tessera.argsort(ints, context=cpu1), (ints,))
    check_no_growth(lambda: tessera.sort(keys.reshape(8, 8), axis=0, context=cpu1), (keys,))
    check_no_growth(lambda: plan.searchsorted(keys), (keys, plan))
    check_no_growth(lambda: tessera.searchsorted(ordered, 0.5, context=cpu1), (ordered,))


def test_product_calls(small, cpu1):
    A, x = small
    plan = tessera.SpMM(A, context=cpu1)
    B = np.ones((8, 3))
    C = np.empty((8, 3))
    check_no_growth(lambda: plan(B), (A, B, plan))
    check_no_growth(lambda: plan.execute(B, C, 1.0, 1.0), (B, C, plan))
    check_no_growth(lambda: tessera.spgemm(A, A, context=cpu1), (A, cpu1))
    check_no_growth(raises(ValueError, lambda: tessera.spgemm(A, A[:5], context=cpu1)), (A,))


def test_graph_calls(cpu1):
    G = sp.random(16, 16, 0.3, format="csr", random_state=np.random.default_rng(3))
    bfs = tessera.BFS(G, context=cpu1)
    sssp = tessera.SSSP(G, directed=False, context=cpu1)
    check_no_growth(lambda: bfs(0, True), (bfs, cpu1))
    check_no_growth(lambda: sssp(3), (sssp, cpu1))
    check_no_growth(lambda: tessera.dijkstra(G, indices=2, context=cpu1), (G, cpu1))
    check_no_growth(raises(ValueError, lambda: sssp(16)), (sssp,))


def test_generators_and_files(tmp_path, cpu1):
    path = tmp_path / "a.mtx"
    tessera.mmwrite(path, random_sparse(10, 10, 0.3, 2))
    check_no_growth(lambda: tessera.gen.laplacian_2d(3, 4, context=cpu1), (cpu1,))
    check_no_growth(lambda: tessera.mmread(path, context=cpu1), (cpu1,))
    check_no_growth(lambda: tessera.mminfo(path, context=cpu1), (cpu1,))


def test_contexts():
    check_no_growth(lambda: tessera.Context("cpu", threads=1))


def raises(kind, call):
    """A call that must raise kind, as a function of no arguments."""

    def run():
        try:
            call()
        except kind:
            return
        raise AssertionError(f"{kind.__name__} was not raised")

    return run


def test_error_paths(small, cpu1, tmp_path):
    A, x = small
    plan = tessera.SpMV(A, context=cpu1)
    wrong = np.ones(9)
    shared = np.ones(8)
    singular = sp.csr_matrix(np.array([[1.0, 0.0], [1.0, 0.0]]))
    missing = tmp_path / "missing.mtx"
    check_no_growth(raises(ValueError, lambda: plan(wrong)), (plan, wrong))
    check_no_growth(raises(ValueError, lambda: plan.execute(shared, shared)), (plan, shared))
    check_no_growth(raises(np.linalg.LinAlgError, lambda: tessera.splu(singular, context=cpu1)), (singular, cpu1))
    check_no_growth(raises(OSError, lambda: tessera.mmread(missing, context=cpu1)), (cpu1,))
    check_no_growth(raises(ValueError, lambda: tessera.gen.banded(-1, 1, 1, context=cpu1)), (cpu1,))
    unsorted = np.array([2.0, 1.0])
    check_no_growth(raises(ValueError, lambda: tessera.SearchPlan(unsorted, context=cpu1)), (unsorted, cpu1))
