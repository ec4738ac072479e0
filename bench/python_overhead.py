"""Per-call overhead of the Python binding over the C library on a tiny
input: SpMV on the 2-D Laplacian of a 4 x 4 grid (16 rows, 64 entries,
double) on a one-thread CPU context, from C (bench/python_overhead_anchor, the
same product in the same kind of context) and from Python, in the forms a
caller uses. Each figure is the median of 21 blocks of 100,000 calls.

    python bench/python_overhead.py [--anchor build/bench/python_overhead_anchor] [--out FILE]

The goal: at most 5 microseconds per call over the C library.
"""

import argparse
import os
import statistics
import subprocess
import sys
import timeit

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import python_common  # noqa: E402

import tessera  # noqa: E402

BLOCKS, CALLS = 21, 100_000


def per_call_ns(call):
    timer = timeit.Timer(call)
    return statistics.median(timer.timeit(CALLS) / CALLS * 1e9 for _ in range(BLOCKS))


def anchor_ns(path):
    output = subprocess.run([path, "1"], capture_output=True, text=True, check=True).stdout
    values = dict(line.split(": ", 1) for line in output.strip().splitlines())
    return float(values["c_execute"]), float(values["c_wrap_execute"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--anchor", default="build/bench/python_overhead_anchor", help="the C anchor program")
    parser.add_argument("--out", help="also write the Markdown report here")
    args = parser.parse_args()

    context = tessera.Context("cpu", threads=1)
    A = tessera.gen.laplacian_2d(4, 4, context=context)
    plan = tessera.SpMV(A, context=context)
    x = np.linspace(1.0, 2.0, 16)
    y = np.empty(16)
    raw = plan._plan
    c_floor, c_wrapped = anchor_ns(args.anchor)
    forms = [
        ("C: ts_spmv_execute on buffers made once (the floor)", c_floor),
        ("C: x and y wrapped (ts_buffer_wrap), execute, unwrapped", c_wrapped),
        ("Python: the extension's SpMV.execute(x, y) (no Python layer)", per_call_ns(lambda: raw.execute(x, y))),
        ("Python: plan.execute(x, y), y in place", per_call_ns(lambda: plan.execute(x, y))),
        ("Python: y = plan(x), y allocated", per_call_ns(lambda: plan(x))),
        ("SciPy: y = A @ x (for scale)", per_call_ns(lambda: A @ x)),
    ]
    rows = [(name, f"{ns / 1e3:.2f}", f"{(ns - c_floor) / 1e3:+.2f}" if name.startswith("Python") else "")
            for name, ns in forms]
    worst = max(ns - c_floor for name, ns in forms if name.startswith("Python"))
    text = "\n".join(
        ["# Python binding: per-call overhead over the C library (SpMV, 16 x 16, one CPU thread)", ""]
        + [f"- {key}: {value}" for key, value in python_common.metadata(context)]
        + ["", python_common.markdown_table(["call", "us per call", "over the C floor, us"], rows), "",
           f"Largest overhead over the C floor: {worst / 1e3:.2f} us per call (goal: at most 5 us)."]
    )
    python_common.emit(text, args.out)


if __name__ == "__main__":
    main()
