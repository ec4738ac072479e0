"""Per-call overhead of the Python binding over the C library on a tiny
input: SpMV on the 2-D Laplacian of a 4 x 4 grid (16 rows, 64 entries,
double) on a one-thread CPU context, from C (bench/python_overhead_anchor, the
same product in the same kind of context) and from Python, in the forms a
caller uses. Each figure is the median of 21 blocks of 100,000 calls. With
--backend cuda the same on a CUDA context with x and y CuPy arrays (and
device memory in C), 11 blocks of 20,000 calls, each block ending when the
GPU has finished its products; CuPy's own A @ x beside it.

    python bench/python_overhead.py [--anchor build/bench/python_overhead_anchor] [--backend cpu|cuda] [--out FILE]

The goal: at most 5 microseconds per call over the C library.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time
import timeit

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import python_common  # noqa: E402

import tessera  # noqa: E402

BLOCKS, CALLS = 21, 100_000


def per_call_ns(call):
    timer = timeit.Timer(call)
    return statistics.median(timer.timeit(CALLS) / CALLS * 1e9 for _ in range(BLOCKS))


def per_call_ns_gpu(call, sync):
    """Median of 11 blocks of 20,000 calls, each block ending with the GPU idle."""
    call()
    sync()
    blocks = []
    for _ in range(11):
        start = time.perf_counter()
        for _ in range(20_000):
            call()
        sync()
        blocks.append((time.perf_counter() - start) / 20_000 * 1e9)
    return statistics.median(blocks)


def anchor_ns(path, backend="cpu"):
    output = subprocess.run([path, "1", backend], capture_output=True, text=True, check=True).stdout
    values = dict(line.split(": ", 1) for line in output.strip().splitlines())
    return {key: float(value) for key, value in values.items() if key.startswith("c_")}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--anchor", default="build/bench/python_overhead_anchor", help="the C anchor program")
    parser.add_argument("--backend", default="cpu", choices=["cpu", "cuda"], help="the context's backend")
    parser.add_argument("--out", help="also write the Markdown report here")
    args = parser.parse_args()
    if args.backend == "cuda":
        return main_cuda(args)

    context = tessera.Context("cpu", threads=1)
    A = tessera.gen.laplacian_2d(4, 4, context=context)
    plan = tessera.SpMV(A, context=context)
    x = np.linspace(1.0, 2.0, 16)
    y = np.empty(16)
    raw = plan._plan
    anchor = anchor_ns(args.anchor)
    c_floor, c_wrapped = anchor["c_execute"], anchor["c_wrap_execute"]
    forms = [
        ("C: ts_spmv_execute on buffers made once (the floor)", c_floor),
        ("C: x and y wrapped (ts_buffer_wrap), execute, unwrapped", c_wrapped),
        ("Python: the extension's SpMV.execute(x, y) (no Python layer)", per_call_ns(lambda: raw.execute(x, y))),
        ("Python: plan.execute(x, y), y in place", per_call_ns(lambda: plan.execute(x, y))),
        ("Python: y = plan(x), y allocated", per_call_ns(lambda: plan(x))),
        ("SciPy: y = A @ x (for scale)", per_call_ns(lambda: A @ x)),
    ]
    report("one CPU thread", context, forms, c_floor, "Python", "Largest overhead", args.out)


def report(where, context, forms, c_floor, judged, verdict, out, extra=None):
    """The Markdown table of forms (name, nanoseconds) over the C floor, and
    the largest overhead among the forms whose names start with judged."""
    rows = [(name, f"{ns / 1e3:.2f}", f"{(ns - c_floor) / 1e3:+.2f}" if name.startswith("Python") else "")
            for name, ns in forms]
    worst = max(ns - c_floor for name, ns in forms if name.startswith(judged))
    text = "\n".join(
        [f"# Python binding: per-call overhead over the C library (SpMV, 16 x 16, {where})", ""]
        + [f"- {key}: {value}" for key, value in python_common.metadata(context)]
        + ["", python_common.markdown_table(["call", "us per call", "over the C floor, us"], rows), "",
           f"{verdict} over the C floor: {worst / 1e3:.2f} us per call (goal: at most 5 us)."]
        + ([extra] if extra else [])
    )
    python_common.emit(text, out)


def main_cuda(args):
    import cupy
    import cupyx.scipy.sparse as cupy_sparse

    own = tessera.Context("cuda", threads=1)
    cupy_stream = cupy.cuda.get_current_stream()
    A = tessera.gen.laplacian_2d(4, 4, context=own)
    plan = tessera.SpMV(A, context=own)
    dx = cupy.asarray(np.linspace(1.0, 2.0, 16))
    dy = cupy.empty(16)
    raw, x_address, y_address = plan._plan, int(dx.data.ptr), int(dy.data.ptr)
    shared = tessera.Context("cuda", threads=1, stream=cupy_stream)
    plan_shared = tessera.SpMV(A, context=shared)
    dA = cupy_sparse.csr_matrix(A)

    def both():
        cupy_stream.synchronize()
        own.sync()

    def host_synchronised():  # the ordering before 2026-12-06: the host waits for each side
        cupy_stream.synchronize()
        raw.execute(x_address, y_address, 1.0, 0.0)
        own.sync()

    anchor = anchor_ns(args.anchor, "cuda")
    c_floor, c_wrapped, c_ordered = anchor["c_execute"], anchor["c_wrap_execute"], anchor["c_ordered_execute"]
    forms = [
        ("C: ts_spmv_execute on device buffers made once (the floor)", c_floor),
        ("C: x and y wrapped (ts_buffer_wrap), execute, unwrapped", c_wrapped),
        ("C: execute ordered with another stream (ts_context_wait_for_stream, execute, ts_stream_wait_for_context)",
         c_ordered),
        ("Python: the extension's SpMV.execute(x, y) on device addresses (no Python layer)",
         per_call_ns_gpu(lambda: raw.execute(x_address, y_address, 1.0, 0.0), both)),
        ("Python: plan.execute(x, y), CuPy arrays, the plan's context on a stream of its own",
         per_call_ns_gpu(lambda: plan.execute(dx, dy), both)),
        ("Python: y = plan(x), y allocated, a stream of its own", per_call_ns_gpu(lambda: plan(dx), both)),
        ("Python: plan.execute(x, y), the context on CuPy's stream (no ordering needed)",
         per_call_ns_gpu(lambda: plan_shared.execute(dx, dy), both)),
        ("Python: the extension's execute with the host waiting for each side (for comparison)",
         per_call_ns_gpu(host_synchronised, both)),
        ("CuPy: y = A @ x (cuSPARSE, for scale)", per_call_ns_gpu(lambda: dA @ dx, both)),
    ]
    np.testing.assert_allclose(cupy.asnumpy(plan(dx)), A @ np.linspace(1.0, 2.0, 16), rtol=1e-12)
    own_ns = dict(forms)["Python: plan.execute(x, y), CuPy arrays, the plan's context on a stream of its own"]
    like_for_like = (f"The plan on a stream of its own over the C call with the same ordering: "
                     f"{(own_ns - c_ordered) / 1e3:+.2f} us per call.")
    report("CUDA, CuPy arrays", own, forms, c_floor, "Python: plan", "Largest overhead of the plan's calls", args.out,
           like_for_like)

if __name__ == "__main__":
    main()
