#!/usr/bin/env python3
"""Plot a model_validate CSV: predicted against measured time (log axes),
one marker per kernel family, the diagonal and the +-10 % band.

Usage: model_plot.py CSV [PNG]   (PNG defaults to the CSV name with .png)
"""

import csv
import statistics
import sys


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    path = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else path.rsplit(".", 1)[0] + ".png"
    with open(path, newline="") as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot")
        return 0
    families = []
    for r in rows:
        if r["family"] not in families:
            families.append(r["family"])
    fig, ax = plt.subplots(figsize=(7, 6))
    markers = "osD^vP*X"
    for i, fam in enumerate(families):
        pts = [(float(r["measured_us"]), float(r["predicted_us"])) for r in rows if r["family"] == fam]
        err = statistics.median(abs(p - m) / m * 100 for m, p in pts)
        ax.scatter([m for m, _ in pts], [p for _, p in pts], marker=markers[i % len(markers)], s=22,
                   label=f"{fam} ({len(pts)}, median |err| {err:.1f} %)")
    lo = min(min(float(r["measured_us"]), float(r["predicted_us"])) for r in rows) / 1.5
    hi = max(max(float(r["measured_us"]), float(r["predicted_us"])) for r in rows) * 1.5
    ax.plot([lo, hi], [lo, hi], color="black", linewidth=0.8)
    ax.fill_between([lo, hi], [lo * 0.9, hi * 0.9], [lo * 1.1, hi * 1.1], color="grey", alpha=0.2, label="+-10 %")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel("measured time (us)")
    ax.set_ylabel("predicted time (us)")
    all_err = statistics.median(abs(float(r["predicted_us"]) - float(r["measured_us"])) / float(r["measured_us"]) * 100
                                for r in rows)
    ax.set_title(f"Performance model on the H200: median |error| {all_err:.1f} % over {len(rows)} kernels")
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(True, which="both", linewidth=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
