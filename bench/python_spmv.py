"""tessera.SpMV(A)(x) against SciPy's A @ x on the CPU, and, with --cupy on a
GPU machine, tessera on the GPU against CuPy's A @ x (cuSPARSE), on the
corpus matrices above --min-nnz entries and on generated matrices.

Each figure is the median over --repeat blocks of the mean time of --calls
products (the GPU's with the device synchronised at the end of each block),
the plan made once beforehand; results are checked against SciPy's.

    python bench/python_spmv.py [--matrices DIR] [--backend cpu|cuda] [--cupy] [--threads N] [--out FILE]
"""

import argparse
import csv
import os
import statistics
import sys
import time

import numpy as np
import scipy.io
import scipy.sparse as sp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import python_common  # noqa: E402
from python_splu import default_matrices  # noqa: E402

import tessera  # noqa: E402


def per_call_seconds(call, calls, repeat, sync=None):
    call()
    if sync:
        sync()
    blocks = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(calls):
            call()
        if sync:
            sync()
        blocks.append((time.perf_counter() - start) / calls)
    return statistics.median(blocks)


def matrices(args):
    if args.matrices:
        with open(os.path.join(args.matrices, "MANIFEST.tsv"), newline="") as f:
            for entry in csv.DictReader(f, delimiter="\t"):
                if int(entry["nnz"]) > args.min_nnz and entry["field"] != "complex":
                    A = sp.csr_matrix(scipy.io.mmread(os.path.join(args.matrices, entry["name"] + ".mtx")))
                    yield entry["name"], A.astype(np.float64)
    yield "laplacian_2d 1000^2", tessera.gen.laplacian_2d(1000, 1000)
    yield "rmat 20", tessera.gen.rmat(20, 16, seed=1)
    yield "circuit 1e6", tessera.gen.circuit(1_000_000, seed=1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matrices", default=default_matrices())
    parser.add_argument("--min-nnz", type=int, default=10_000)
    parser.add_argument("--backend", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--cupy", action="store_true", help="also time CuPy's A @ x (needs a GPU)")
    parser.add_argument("--threads", type=int, default=0, help="tessera's CPU threads (0: OpenMP's default)")
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out")
    args = parser.parse_args()

    context = tessera.Context(args.backend, threads=args.threads)
    cupy = None
    if args.cupy:
        import cupy
        import cupyx.scipy.sparse as cupy_sparse
    rows = []
    for name, A in matrices(args):
        x = np.random.default_rng(1).standard_normal(A.shape[1])
        expected = A @ x
        t_scipy = per_call_seconds(lambda: A @ x, args.calls, args.repeat)
        plan = tessera.SpMV(A, context=context)
        if context.backend == "cuda" and cupy is not None:
            dx = cupy.asarray(x)
            y = plan(dx)
            got = cupy.asnumpy(y)
            t_tessera = per_call_seconds(lambda: plan(dx), args.calls, args.repeat, context.sync)
        else:
            got = plan(x)
            t_tessera = per_call_seconds(lambda: plan(x), args.calls, args.repeat)
        error = np.abs(got - expected).max() / max(np.abs(expected).max(), 1e-300)
        row = [name, A.shape[0], A.nnz, f"{t_scipy * 1e6:.1f}", f"{t_tessera * 1e6:.1f}",
               f"{t_scipy / t_tessera:.2f}", plan.schedule, f"{error:.1e}"]
        if cupy is not None:
            dA, dx = cupy_sparse.csr_matrix(A), cupy.asarray(x)
            t_cupy = per_call_seconds(lambda: dA @ dx, args.calls, args.repeat, cupy.cuda.get_current_stream().synchronize)
            row += [f"{t_cupy * 1e6:.1f}", f"{t_cupy / t_tessera:.2f}"]
        rows.append(row)
        print(f"{name}: SciPy {t_scipy * 1e6:.1f} us, tessera {t_tessera * 1e6:.1f} us", file=sys.stderr)
    header = ["matrix", "rows", "nnz", "SciPy us", f"tessera ({context.backend}, {context.device_info()['multiprocessors']} threads) us" if context.backend == "cpu" else "tessera (cuda) us", "SciPy / tessera", "schedule",
              "max rel. difference"]
    if cupy is not None:
        header += ["CuPy us", "CuPy / tessera"]
    text = "\n".join(
        [f"# tessera.SpMV(A)(x) against SciPy's A @ x{' and CuPy' if cupy is not None else ''}", ""]
        + [f"- {key}: {value}" for key, value in python_common.metadata(context)]
        + [f"- per call: median over {args.repeat} blocks of {args.calls} calls", "",
           python_common.markdown_table(header, rows)]
    )
    python_common.emit(text, args.out)


if __name__ == "__main__":
    main()
