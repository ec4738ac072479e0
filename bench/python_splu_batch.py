"""tessera.splu_batch(As).solve(bs) against a loop of SciPy's splu(A).solve(b),
on batches of one pattern (a generated circuit, a 2-D Laplacian) and on a
mixed batch of eight patterns, each member with its own values.

For each set: SciPy's loop (SuperLU with its default COLAMD, one thread, each
member factored from scratch: SciPy has no refactorization) against tessera's
first call (splu_batch: one analysis per pattern, every member factored, then
one solve of all) and its Newton-loop step (refactor with new values of the
same patterns, then solve). Both take their preferred input, built before the
clock starts (CSC for SciPy, CSR for tessera). Each figure is the best of
--repeat runs, the loop and tessera's calls alternating. The backward errors
|b - A x| / (|A| |x| + |b|) of both are computed here in double, and the largest
difference between the two solutions relative to SciPy's.

    python bench/python_splu_batch.py [--members 200] [--repeat 3] [--sets LIST] [--threads N]
                                      [--backend cpu|cuda] [--out FILE]
"""

import argparse
import os
import sys
import time
import warnings

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import python_common  # noqa: E402

import tessera  # noqa: E402

SETS = ("circuit-1k", "laplacian-1k", "circuit-10k", "laplacian-10k", "mixed")


def patterns_of(name, members):
    """The set's matrices (one per pattern) and members per pattern."""
    if name.startswith("circuit"):
        n = 10_000 if name.endswith("10k") else 1000
        return [tessera.gen.circuit(n, seed=1).tocsr()], [members]
    if name.startswith("laplacian"):
        side = 100 if name.endswith("10k") else 32
        return [tessera.gen.laplacian_2d(side, side).tocsr()], [members]
    circuits = [tessera.gen.circuit(n + 20, seed=11 + k).tocsr() for k, n in enumerate((500, 1000, 2000, 4000))]
    laplacians = [tessera.gen.laplacian_2d(s, s).tocsr() for s in (16, 24, 32, 48)]
    share = max(1, members // 8)
    return circuits + laplacians, [share] * 8


def members_of(patterns, counts, seed, spread=0.1):
    """Each pattern's matrix with its values scaled by 1 + spread * u, u
    uniform in (-1, 1), one draw per member (the pattern kept)."""
    rng = np.random.default_rng(seed)
    out = []
    for A, count in zip(patterns, counts):
        for _ in range(count):
            M = A.copy()
            M.data = M.data * (1.0 + spread * rng.uniform(-1.0, 1.0, M.nnz))
            out.append(M)
    return out


def backward_error(A, x, b):
    r = b - A @ x
    return float(np.max(np.abs(r) / (abs(A) @ np.abs(x) + np.abs(b))))


def best(times):
    return min(times) * 1e3


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--members", type=int, default=200, help="members of a one-pattern set (mixed: split in 8)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sets", default=",".join(SETS), help="comma-separated, of " + ", ".join(SETS))
    parser.add_argument("--threads", type=int, default=0, help="tessera's CPU threads (0: OpenMP's default)")
    parser.add_argument("--backend", default="cpu", choices=["cpu", "cuda"], help="where tessera factors and solves")
    parser.add_argument("--out", help="also write the Markdown report here")
    args = parser.parse_args()
    unknown = [s for s in args.sets.split(",") if s not in SETS]
    if unknown or args.members < 1 or args.repeat < 1:
        parser.error(f"unknown sets {unknown}" if unknown else "--members and --repeat must be positive")

    context = tessera.Context(args.backend, threads=args.threads)
    run_metadata = python_common.metadata(context)
    rows = []
    for name in args.sets.split(","):
        patterns, counts = patterns_of(name, args.members)
        first_values = members_of(patterns, counts, seed=1)
        next_values = members_of(patterns, counts, seed=2)
        csc = [A.tocsc() for A in next_values]
        rng = np.random.default_rng(3)
        rhs = [rng.uniform(1.0, 2.0, A.shape[0]) for A in next_values]

        def scipy_loop():
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                return [spla.splu(A).solve(b) for A, b in zip(csc, rhs)]

        def tessera_first():
            lu = tessera.splu_batch(first_values, context=context)
            return lu, lu.solve(rhs)

        lu, _ = tessera_first()

        def tessera_newton():
            lu.refactor(next_values)
            return lu.solve(rhs)

        scipy_times, first_times, newton_times = [], [], []
        for _ in range(args.repeat):
            start = time.perf_counter()
            x_scipy = scipy_loop()
            scipy_times.append(time.perf_counter() - start)
            start = time.perf_counter()
            tessera_first()
            first_times.append(time.perf_counter() - start)
            start = time.perf_counter()
            x_tessera = tessera_newton()
            newton_times.append(time.perf_counter() - start)
        berr_scipy = max(backward_error(A, x, b) for A, x, b in zip(next_values, x_scipy, rhs))
        berr_tessera = max(backward_error(A, x, b) for A, x, b in zip(next_values, x_tessera, rhs))
        difference = max(float(np.max(np.abs(x - y)) / np.max(np.abs(y))) for x, y in zip(x_tessera, x_scipy))
        t_scipy, t_first, t_newton = best(scipy_times), best(first_times), best(newton_times)
        rows.append([name, len(next_values), len(patterns), next_values[0].shape[0], f"{t_scipy:.1f}",
                     f"{t_first:.1f}", f"{t_scipy / t_first:.2f}", f"{t_newton:.1f}", f"{t_scipy / t_newton:.2f}",
                     f"{berr_scipy:.1e}", f"{berr_tessera:.1e}", f"{difference:.1e}", "yes" if lu.stats.on_gpu else "no"])
        print(" | ".join(str(c) for c in rows[-1]), file=sys.stderr)

    header = ["set", "members", "patterns", "n (first)", "SciPy loop ms", "tessera first call ms", "speedup",
              "tessera refactor + solve ms", "speedup", "SciPy max berr", "tessera max berr",
              "solution difference from SciPy (max norm, relative)", "on the GPU"]
    lines = ["# tessera.splu_batch against a loop of SciPy's splu", ""]
    lines += [f"- {key}: {value}" for key, value in run_metadata]
    lines += [f"- members per one-pattern set: {args.members}; best of {args.repeat}", ""]
    lines += [python_common.markdown_table(header, rows), ""]
    report = "\n".join(lines)
    print(report)
    if args.out:
        with open(args.out, "w") as f:
            f.write(report)


if __name__ == "__main__":
    main()
