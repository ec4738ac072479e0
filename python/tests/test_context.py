"""Contexts, errors as exceptions, threads, the GIL and Ctrl-C."""

import os
import signal
import threading
import time

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import random_sparse

import tessera


def test_contexts_and_backends():
    cpu = tessera.Context("cpu", threads=2)
    assert cpu.backend == "cpu" and cpu.stream == 0 and cpu.device == 0
    assert "cpu" in repr(cpu)
    info = cpu.device_info()
    assert info["ordinal"] == -1 and info["multiprocessors"] == 2
    cpu.sync()
    # Ordering with another stream: nothing to do on the CPU; the stream given as an int or by .ptr.
    cpu.wait_for_stream(0)
    cpu.stream_wait(type("Stream", (), {"ptr": 12345})())
    with pytest.raises(TypeError):
        cpu.wait_for_stream("stream")
    with pytest.raises(ValueError, match="address"):
        cpu.stream_wait(-4)
    with pytest.raises(ValueError, match="address"):
        tessera.Context("cpu", stream=-1)
    assert tessera.Context("cpu", stream=0).stream == 0
    assert tessera.default_context().backend in ("cpu", "cuda")
    with pytest.raises(ValueError, match="backend"):
        tessera.Context("tpu")
    with pytest.raises(tessera.InvalidArgumentError, match="negative"):
        tessera.Context("cpu", threads=-1)
    with pytest.raises(TypeError, match="Context"):
        tessera.splu(random_sparse(3, 3, 1.0, 1), context="cpu")
    with pytest.raises(TypeError):
        tessera.set_default_context("cpu")


def test_cuda_context_where_there_is_no_gpu():
    try:
        context = tessera.Context("cuda")
    except tessera.NoDeviceError as error:
        assert isinstance(error, RuntimeError) and error.status == 8
        assert "CUDA" in str(error) or "device" in str(error)
        return
    pytest.skip(f"a GPU is usable ({context.device_info()['name']}): the refusal cannot be checked here")


def test_default_context_can_be_replaced():
    previous = tessera.default_context()
    mine = tessera.Context("cpu", threads=1)
    try:
        tessera.set_default_context(mine)
        assert tessera.default_context() is mine
        A = random_sparse(5, 5, 0.5, 2)
        np.testing.assert_allclose(tessera.spmv(A, np.ones(5)), A @ np.ones(5))
    finally:
        tessera.set_default_context(previous)


def test_errors_carry_the_library_message_and_status():
    with pytest.raises(tessera.TesseraError) as info:
        tessera.gen.laplacian_2d(-1, 3)
    error = info.value
    assert isinstance(error, ValueError) and error.status == 1 and error.status_name == "invalid argument"
    assert "laplacian" in str(error)
    assert issubclass(tessera.SingularMatrixError, np.linalg.LinAlgError)
    assert issubclass(tessera.FileError, OSError) and issubclass(tessera.OutOfMemoryError, MemoryError)


def test_objects_keep_their_context_alive():
    context = tessera.Context("cpu")
    A = random_sparse(30, 30, 0.2, 3)
    plan = tessera.SpMV(A, context=context)
    lu = tessera.splu(A, context=context)
    del context
    np.testing.assert_allclose(plan(np.ones(30)), A @ np.ones(30))
    np.testing.assert_allclose(A @ lu.solve(np.ones(30)), np.ones(30))


def test_threads_share_a_context_one_call_at_a_time():
    context = tessera.Context("cpu")
    matrices = [random_sparse(400, 400, 0.01, seed) for seed in range(4)]
    plans = [tessera.SpMV(A, context=context) for A in matrices]
    lus = [tessera.splu(A, context=context) for A in matrices]
    failures = []

    def work(i):
        rng = np.random.default_rng(i)
        for _ in range(50):
            x = rng.standard_normal(400)
            y = plans[i](x)
            if not np.allclose(y, matrices[i] @ x):
                failures.append(f"spmv {i}")
            z = lus[i].solve(y)
            if not np.allclose(z, x, rtol=1e-8, atol=1e-10):
                failures.append(f"solve {i}")
            if not np.array_equal(tessera.sort(x, context=context), np.sort(x)):
                failures.append(f"sort {i}")

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def test_long_calls_release_the_gil():
    """A Python thread keeps running while the library generates a matrix."""
    ticks = []
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    thread = threading.Thread(target=count)
    thread.start()
    try:
        time.sleep(0.05)
        start = time.perf_counter()
        tessera.gen.rmat(19, 16, seed=1)  # 0.1-1 s: long enough on a machine of many cores
        end = time.perf_counter()
    finally:
        stop.set()
        thread.join()
    during = [t for t in ticks if start < t < end]
    assert end - start > 0.05, "the call was too quick to tell"
    # Held GIL: no tick at all during the call; released: one every few ms.
    assert len(during) >= 5, f"{len(during)} ticks in {end - start:.3f} s"


@pytest.mark.skipif(not hasattr(signal, "SIGINT") or os.name != "posix", reason="needs POSIX signals")
def test_ctrl_c_stops_a_long_call():
    """SIGINT during a generation that takes seconds raises KeyboardInterrupt
    within a second, and the context stays usable."""
    context = tessera.Context("cpu")
    done = threading.Event()

    def press_ctrl_c():
        # A signal the interpreter takes before the call starts, or one a
        # loaded machine delivers late, would leave the call running: a
        # user presses again, and so does this test (every 0.25 s).
        for _ in range(8):
            if done.wait(0.3 if _ == 0 else 0.25):
                return
            os.kill(os.getpid(), signal.SIGINT)

    # A process started in the background by a shell without job control
    # inherits SIGINT ignored, and Python then leaves it ignored: the test
    # installs Python's own handler for its duration.
    previous_handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    presser = threading.Thread(target=press_ctrl_c)
    start = time.perf_counter()
    presser.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            tessera.gen.rmat(21, 16, seed=2, context=context)  # about 3-10 s and 800 MB uninterrupted
    finally:
        done.set()
        presser.join()
        signal.signal(signal.SIGINT, previous_handler)
    elapsed = time.perf_counter() - start
    assert elapsed < 0.3 + 1.0, f"KeyboardInterrupt came {elapsed - 0.3:.2f} s after the first signal"
    A = tessera.gen.laplacian_2d(3, 3, context=context)
    assert A.shape == (9, 9)


def test_sparse_arrays_and_matrices_both_accepted():
    A = random_sparse(20, 20, 0.2, 5)
    x = np.ones(20)
    for kind in (sp.csr_matrix, sp.csr_array, sp.csc_array, sp.coo_array):
        np.testing.assert_allclose(tessera.SpMV(kind(A))(x), A @ x)
        np.testing.assert_allclose(A @ tessera.spsolve(kind(A), x), x)
