"""tessera.splu(A).solve(b) against SciPy's splu(A).solve(b) on the corpus:
every square matrix of more than 10^4 entries that SciPy factors, on the CPU.

Both start from the same CSC matrix (the form SciPy's splu takes) and a
right-hand side b = A (1, ..., 2); each side's time covers its whole call
(tessera's includes its conversion to CSR, the analysis, the factorization
and the refined solve). The two run alternately; each figure is the best of
--repeat runs (the speedup of the medians beside it), since on a shared
machine the other loads only ever add time. The backward errors of both
solutions are computed by SciPy in double. SciPy's splu is SuperLU with its
default COLAMD ordering, on one thread. tessera's phase times are those of
its best run (ts_lu_stats); "other" is what that run took beyond the
library's phase timers: the binding's share (its conversion to CSR is also
timed alone) and the library's untimed work (creating the object, scaling).

    python bench/python_splu.py [--matrices DIR] [--repeat 5] [--min-nnz 10000] [--threads N] [--skip NAMES]
                                [--backend cpu|cuda] [--cupy] [--out FILE]

The goal: at least 2x SciPy on every such matrix, on the CPU alone.
"""

import argparse
import csv
import os
import pathlib
import statistics
import sys
import time
import warnings

import numpy as np
import scipy.io
import scipy.sparse as sp
import scipy.sparse.linalg as spla

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import python_common  # noqa: E402

import tessera  # noqa: E402
from tessera._arrays import csr_arrays  # noqa: E402


def backward_error(A, x, b):
    r = b - A @ x
    return np.abs(r).max() / (abs(A).sum(axis=1).max() * np.abs(x).max() + np.abs(b).max())


def default_matrices():
    here = pathlib.Path(__file__).resolve().parents[1]
    for candidate in (os.environ.get("TESSERA_MATRICES"), here.parent / "shared" / "matrices", here / "tests" / "data" / "corpus"):
        if candidate and (pathlib.Path(candidate) / "MANIFEST.tsv").is_file():
            return str(candidate)
    return None


def timed(call):
    start = time.perf_counter()
    result = call()
    return result, time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matrices", default=default_matrices(), help="folder with MANIFEST.tsv and the .mtx files")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--min-nnz", type=int, default=10_000)
    parser.add_argument("--only", help="comma-separated matrix names")
    parser.add_argument("--skip", default="", help="comma-separated matrix names left out (reported as such)")
    parser.add_argument("--threads", type=int, default=0, help="tessera's CPU threads (0: OpenMP's default)")
    parser.add_argument("--backend", default="cpu", choices=["cpu", "cuda"], help="where tessera factors and solves")
    parser.add_argument("--cupy", action="store_true", help="also time cupyx.scipy.sparse.linalg.splu (needs a GPU)")
    parser.add_argument("--out", help="also write the Markdown report here")
    args = parser.parse_args()
    if not args.matrices:
        sys.exit("python_splu: no corpus (give --matrices DIR)")

    context = tessera.Context(args.backend, threads=args.threads)
    if args.cupy:
        import cupy
        import cupyx.scipy.sparse as cupy_sparse
        import cupyx.scipy.sparse.linalg as cupy_linalg
    run_metadata = python_common.metadata(context)  # at the start: the date and load average of the run's start
    rows_out, refused, speedups = [], [], []
    with open(os.path.join(args.matrices, "MANIFEST.tsv"), newline="") as f:
        manifest = list(csv.DictReader(f, delimiter="\t"))
    only = set(args.only.split(",")) if args.only else None
    skipped = [name for name in args.skip.split(",") if name]
    for entry in manifest:
        name = entry["name"]
        if (only and name not in only) or name in skipped:
            continue
        if entry["rows"] != entry["cols"] or int(entry["nnz"]) <= args.min_nnz or entry["field"] == "complex":
            continue
        path = os.path.join(args.matrices, name + ".mtx")
        A = sp.csc_matrix(scipy.io.mmread(path)).astype(np.float64)
        if A.nnz <= args.min_nnz:
            continue
        b = A @ np.linspace(1.0, 2.0, A.shape[0])
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                (scipy_lu, x_scipy), first = timed(lambda: (lambda f: (f, f.solve(b)))(spla.splu(A)))
        except (RuntimeError, Warning) as error:
            refused.append(f"{name} ({' '.join(str(error).split())})")
            print(f"{name}: SciPy does not factor it: {error}", file=sys.stderr)
            continue
        scipy_times, tessera_times = [first], []
        best_stats, x = None, None
        repeat = args.repeat if first < 5.0 else min(args.repeat, 2)  # SciPy's slow cases: fewer runs
        for run in range(repeat):
            (lu, x_run), seconds = timed(lambda: (lambda f: (f, f.solve(b)))(tessera.splu(A, context=context)))
            if not tessera_times or seconds < min(tessera_times):
                best_stats, x = lu.stats, x_run  # the phases of the best run
            tessera_times.append(seconds)
            if run + 1 < repeat:
                scipy_times.append(timed(lambda: spla.splu(A).solve(b))[1])
        t_scipy, t_tessera = min(scipy_times), min(tessera_times)
        # The binding's own work in that time: the CSC matrix to CSR arrays.
        t_convert = min(timed(lambda: csr_arrays(A, "A", square=True))[1] for _ in range(3))
        median_speedup = statistics.median(scipy_times) / statistics.median(tessera_times)
        cupy_cells = []
        if args.cupy:
            dA, db = cupy_sparse.csr_matrix(A), cupy.asarray(b)

            def cupy_solve():
                x_cupy = cupy_linalg.splu(dA).solve(db)
                cupy.cuda.get_current_stream().synchronize()
                return x_cupy

            x_cupy, _ = timed(cupy_solve)
            t_cupy = statistics.median(timed(cupy_solve)[1] for _ in range(args.repeat))
            cupy_cells = [f"{t_cupy * 1e3:.1f}", f"{t_cupy / t_tessera:.2f}",
                          f"{backward_error(A, cupy.asnumpy(x_cupy), b):.1e}"]
        speedup = t_scipy / t_tessera
        speedups.append(speedup)
        s = best_stats
        analysis = s.time_matching + s.time_ordering + s.time_symbolic + s.time_levelize
        # What the best run took beyond the library's phase timers: the
        # binding (conversion to CSR, checks, arrays) and the library's
        # untimed work (creating the object, applying the scaling).
        binding = t_tessera - analysis - s.time_factor - s.time_solve
        rows_out.append((
            name, A.shape[0], A.nnz, f"{t_scipy * 1e3:.1f}", f"{t_tessera * 1e3:.1f}", f"{speedup:.2f}",
            f"{median_speedup:.2f}", f"{t_convert * 1e3:.2f}",
            f"{analysis * 1e3:.1f} / {s.time_factor * 1e3:.1f} / {s.time_solve * 1e3:.1f} / {binding * 1e3:.1f}",
            f"{s.time_matching * 1e3:.1f} / {s.time_ordering * 1e3:.1f} / {s.time_symbolic * 1e3:.1f} / "
            f"{s.time_levelize * 1e3:.1f}",
            s.factor_threads,
            f"{scipy_lu.L.nnz + scipy_lu.U.nnz - A.shape[0]}", f"{s.nnz_l + s.nnz_u - A.shape[0]}",
            f"{backward_error(A, x_scipy, b):.1e}", f"{backward_error(A, x, b):.1e}", s.perturbed_pivots, *cupy_cells,
        ))
        print(f"{name}: SciPy {t_scipy * 1e3:.1f} ms, tessera {t_tessera * 1e3:.1f} ms, {speedup:.2f}x", file=sys.stderr)

    header = ["matrix", "n", "nnz", "SciPy ms", "tessera ms", "speedup", "speedup of medians",
              "of which CSC to CSR ms",
              "tessera analysis / factor / solve / other ms (best run)",
              "of which matching / ordering / symbolic / levelize ms", "factor threads",
              "SciPy nnz(L+U)", "tessera nnz(L+U)", "SciPy backward error", "tessera backward error",
              "perturbed pivots"]
    if args.cupy:
        header += ["CuPy splu ms", "CuPy / tessera", "CuPy backward error"]
    geomean = float(np.exp(np.mean(np.log(speedups)))) if speedups else float("nan")
    below = [row[0] for row in rows_out if float(row[5]) < 2.0]
    summary = [
        f"{len(rows_out)} matrices; speedup geometric mean {geomean:.2f}x, "
        f"min {min(speedups):.2f}x, max {max(speedups):.2f}x." if speedups else "no matrix measured.",
        f"Below the 2x goal: {', '.join(below) if below else 'none'}.",
        f"SciPy does not factor: {'; '.join(refused) if refused else 'none'}.",
        f"Left out (--skip): {', '.join(skipped) if skipped else 'none'}.",
    ]
    text = "\n".join(
        [f"# tessera.splu(A).solve(b) against SciPy's splu(A).solve(b), tessera on the {context.backend}", ""]
        + [f"- {key}: {value}" for key, value in run_metadata]
        + [f"- times: the best of {args.repeat} runs each (2 where SciPy takes over 5 s), SciPy and tessera "
           f"alternating; matrices above {args.min_nnz} entries", "",
           python_common.markdown_table(header, rows_out), ""] + summary
    )
    python_common.emit(text, args.out)


if __name__ == "__main__":
    main()
