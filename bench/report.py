#!/usr/bin/env python3
"""Render tessera benchmark CSVs as Markdown tables and PNG plots.

Usage: report.py [--out DIR] CSV_OR_FOLDER...

Each CSV written by the benchmark harness starts with "# key: value" lines
(the run metadata), then a header row and data rows. Every CSV becomes a
Markdown section of DIR/report.md; SpMV results (columns matrix, dtype,
variant, gbps) also become a bar chart of GB/s per matrix and variant with
the measured copy bandwidth drawn as a line (DIR/<csv name>.png). SpMV
schedule sweeps (spmv_schedules: a ran_as column, many matrices) get instead
geometric means by nnz bin and a scatter of speed over cuSPARSE ALG1 against
nnz (log axes), one marker per schedule. SpMM and SpGEMM runs (bench/spmm,
bench/spgemm) get tessera's geometric mean speed over their anchor by width
or set and a scatter of it against nnz or the intermediate products. Needs only python3; the plots need
matplotlib and are skipped, with a note, without it.
"""

import argparse
import csv
import math
import os
import sys


def read_harness_csv(path):
    """Return (metadata dict, header list, list of row dicts)."""
    meta, lines = {}, []
    with open(path, newline="") as f:
        for line in f:
            if line.startswith("#"):
                key, sep, value = line[1:].strip().partition(":")
                if sep:
                    meta[key.strip()] = value.strip()
            elif line.strip():
                lines.append(line)
    rows = list(csv.reader(lines))
    if not rows:
        return meta, [], []
    header = rows[0]
    data = [dict(zip(header, r)) for r in rows[1:] if len(r) == len(header)]
    return meta, header, data


def markdown_table(header, rows):
    def cell(text):
        return str(text).replace("|", "\\|").replace("\n", " ")

    out = ["| " + " | ".join(cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    for r in rows:
        out.append("| " + " | ".join(cell(r.get(h, "")) for h in header) + " |")
    return "\n".join(out)


def to_float(text):
    try:
        value = float(text)
    except (TypeError, ValueError):
        return float("nan")
    return value


def is_spmv(header):
    return all(c in header for c in ("matrix", "dtype", "variant", "gbps"))


def is_schedule_sweep(header):
    return is_spmv(header) and "ran_as" in header and "speed_vs_alg1" in header


NNZ_BINS = [(0, 1e4, "nnz < 1e4"), (1e4, 1e6, "1e4 <= nnz < 1e6"), (1e6, 1e7, "1e6 <= nnz < 1e7"),
            (1e7, float("inf"), "nnz >= 1e7"), (0, float("inf"), "all")]


def geomean(values):
    values = [v for v in values if v > 0 and math.isfinite(v)]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def schedule_sweep_summary(rows):
    """Markdown: geomean speed vs ALG1 per variant, by nnz bin and value type."""
    variants = [v for v in dict.fromkeys(r["variant"] for r in rows) if v != "cusparse_alg1"]
    lines = ["| bin | dtype | matrices | " + " | ".join(variants) + " |", "|" + "---|" * (3 + len(variants))]
    for dtype in sorted({r["dtype"] for r in rows}):
        for lo, hi, label in NNZ_BINS:
            chosen = [r for r in rows if r["dtype"] == dtype and lo <= to_float(r["nnz"]) < hi]
            matrices = len({r["matrix"] for r in chosen})
            if not matrices:
                continue
            cells = []
            for v in variants:
                g = geomean([to_float(r["speed_vs_alg1"]) for r in chosen if r["variant"] == v])
                cells.append("-" if math.isnan(g) else f"{g:.3f}")
            lines.append(f"| {label} | {dtype} | {matrices} | " + " | ".join(cells) + " |")
    failed = sorted({f"{r['matrix']} {r['dtype']} {r['variant']}" for r in rows if r.get("check") != "ok"})
    lines.append("")
    lines.append("Geometric mean speed against cuSPARSE ALG1 (above 1: faster).")
    if failed:
        lines.append("CHECK FAILED: " + ", ".join(failed))
    return "\n".join(lines)


def scatter_panels(series, meta, png_path, title, xlabel, ylabel):
    """Log-log scatter, one panel per value type, one marker per label: series[dtype][label] = [(x, y)]."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    dtypes = sorted(series) or ["-"]
    markers = ["o", "s", "^", "v", "D", "P", "*", "X", "<", ">"]
    fig, axes = plt.subplots(1, len(dtypes), figsize=(7 * len(dtypes), 5), squeeze=False, sharey=True)
    for ax, dtype in zip(axes[0], dtypes):
        for i, (label, points) in enumerate(series.get(dtype, {}).items()):
            points = [(x, y) for x, y in points if x > 0 and y > 0 and math.isfinite(y)]
            if points:
                ax.scatter([p[0] for p in points], [p[1] for p in points], marker=markers[i % len(markers)], s=22,
                           alpha=0.75, label=label)
        ax.axhline(1.0, color="black", linestyle="--", linewidth=1)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_title(f"{title} ({dtype})")
        ax.legend(fontsize=8)
    footer = " ".join(f"{k}={meta[k]}" for k in ("device", "commit", "date_utc") if k in meta)
    fig.text(0.01, 0.01, footer, fontsize=7)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    fig.savefig(png_path, dpi=120)
    plt.close(fig)


def plot_schedule_sweep(rows, meta, png_path, title):
    """Speed over cuSPARSE ALG1 against nnz, one marker per variant, one panel per value type."""
    series = {}
    for r in rows:
        if r["variant"] != "cusparse_alg1":
            series.setdefault(r["dtype"], {}).setdefault(r["variant"], []).append(
                (to_float(r["nnz"]), to_float(r["speed_vs_alg1"])))
    scatter_panels(series, meta, png_path, title, "nonzeros", "speed over cuSPARSE CSR ALG1 (time ALG1 / time)")


def is_spmm(header):
    return all(c in header for c in ("matrix", "dtype", "width", "variant", "speed_vs_best_cusparse"))


def is_spgemm(header):
    return all(c in header for c in ("matrix", "dtype", "products", "variant", "speed_vs_default", "peak_bytes"))


def product_summary(rows, speed_key, group_key, what):
    """Geomean of tessera's speed over its anchor per (dtype, group)."""
    groups = {}
    for r in rows:
        speed = to_float(r.get(speed_key))
        if r.get("variant") == "tessera" and speed > 0 and math.isfinite(speed):
            groups.setdefault((r["dtype"], r.get(group_key, "")), []).append(speed)
    lines = [f"| dtype | {group_key} | cases | geomean speed over {what} |", "|---|---|---|---|"]
    for (dtype, group), speeds in sorted(groups.items(), key=lambda g: (g[0][0], to_float(g[0][1]))):
        lines.append(f"| {dtype} | {group} | {len(speeds)} | {geomean(speeds):.3f} |")
    return "\n".join(lines)


def plot_speed_scatter(rows, meta, png_path, title, x_key, speed_key, group_key, xlabel, ylabel):
    """tessera's speed over its anchor against a size, one marker per group, one panel per value type."""
    series = {}
    for r in rows:
        if r.get("variant") == "tessera":
            label = f"{group_key} {r[group_key]}" if group_key else "tessera"
            series.setdefault(r["dtype"], {}).setdefault(label, []).append((to_float(r[x_key]), to_float(r[speed_key])))
    for dtype in series:
        series[dtype] = dict(sorted(series[dtype].items(), key=lambda item: to_float(item[0].split()[-1])))
    scatter_panels(series, meta, png_path, title, xlabel, ylabel)


def spmv_summary(rows):
    """Geomean of speed_vs_alg1 per (variant, dtype) over matrices."""
    groups = {}
    for r in rows:
        speed = to_float(r.get("speed_vs_alg1"))
        if speed > 0 and math.isfinite(speed):
            groups.setdefault((r["variant"], r["dtype"]), []).append(speed)
    lines = []
    for (variant, dtype), speeds in sorted(groups.items()):
        geomean = math.exp(sum(math.log(s) for s in speeds) / len(speeds))
        lines.append(f"- {variant}, {dtype}: geomean speed vs cuSPARSE ALG1 {geomean:.3f} over {len(speeds)} matrices")
    return "\n".join(lines)


def plot_spmv(rows, meta, png_path, title):
    """Grouped bars: GB/s per matrix (one panel per value type), one bar per variant."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    dtypes = sorted({r["dtype"] for r in rows})
    matrices = list(dict.fromkeys(r["matrix"] for r in rows))
    variants = list(dict.fromkeys(r["variant"] for r in rows))
    copy_gbps = to_float(meta.get("copy_gbps"))
    fig, axes = plt.subplots(1, len(dtypes), figsize=(6 * len(dtypes), 4.5), squeeze=False, sharey=True)
    width = 0.8 / max(1, len(variants))
    for ax, dtype in zip(axes[0], dtypes):
        for v, variant in enumerate(variants):
            heights = []
            for m in matrices:
                match = [r for r in rows if r["dtype"] == dtype and r["matrix"] == m and r["variant"] == variant]
                heights.append(to_float(match[0]["gbps"]) if match else 0.0)
            positions = [i + (v - (len(variants) - 1) / 2) * width for i in range(len(matrices))]
            ax.bar(positions, [0 if math.isnan(h) else h for h in heights], width, label=variant)
        if copy_gbps > 0:
            ax.axhline(copy_gbps, color="black", linestyle="--", linewidth=1)
            ax.text(len(matrices) - 0.5, copy_gbps, f" copy {copy_gbps:.0f} GB/s", va="bottom", ha="right", fontsize=8)
        ax.set_xticks(range(len(matrices)))
        ax.set_xticklabels(matrices, rotation=15, fontsize=8)
        ax.set_title(f"{title} ({dtype})")
        ax.set_ylabel("GB/s of compulsory traffic")
        ax.legend(fontsize=8)
    footer = " ".join(f"{k}={meta[k]}" for k in ("device", "commit", "date_utc") if k in meta)
    fig.text(0.01, 0.01, footer, fontsize=7)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    fig.savefig(png_path, dpi=120)
    plt.close(fig)


def collect_inputs(paths):
    files = []
    for p in paths:
        if os.path.isdir(p):
            files.extend(sorted(os.path.join(p, f) for f in os.listdir(p) if f.endswith(".csv")))
        elif os.path.isfile(p):
            files.append(p)
        else:
            print(f"report.py: {p}: no such file or folder", file=sys.stderr)
    return files


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("inputs", nargs="+", help="CSV files or folders holding them")
    parser.add_argument("--out", default="bench-out/report", help="output folder (default bench-out/report)")
    args = parser.parse_args()

    files = collect_inputs(args.inputs)
    if not files:
        print("report.py: no CSV files found", file=sys.stderr)
        return 1
    os.makedirs(args.out, exist_ok=True)
    try:
        import matplotlib  # noqa: F401

        have_matplotlib = True
    except ImportError:
        have_matplotlib = False

    sections, written = ["# tessera benchmark report", ""], []
    for path in files:
        name = os.path.splitext(os.path.basename(path))[0]
        try:
            meta, header, rows = read_harness_csv(path)
        except (OSError, csv.Error, UnicodeDecodeError) as err:
            print(f"report.py: {path}: {err}", file=sys.stderr)
            continue
        sections += [f"## {name}", ""]
        sections += [f"- {k}: {v}" for k, v in meta.items()] + [""]
        if not header:
            sections += ["(no rows)", ""]
            continue
        if is_schedule_sweep(header) and rows:
            sections += [schedule_sweep_summary(rows), "", f"Every row: {os.path.basename(path)}.", ""]
            if have_matplotlib:
                png = os.path.join(args.out, name + ".png")
                plot_schedule_sweep(rows, meta, png, name)
                sections += [f"![{name}]({name}.png)", ""]
                written.append(png)
            else:
                sections += ["(plot skipped: matplotlib is not installed)", ""]
            continue
        product = None
        if is_spmm(header):
            product = ("nnz", "speed_vs_best_cusparse", "width", "nonzeros of A",
                       "speed over the best cuSPARSE SpMM algorithm", "the best cuSPARSE algorithm")
        elif is_spgemm(header):
            product = ("products", "speed_vs_default", "", "intermediate products",
                       "speed over cuSPARSE SpGEMM default (end to end)", "cuSPARSE's default")
        if product and rows:
            x_key, speed_key, group_key, xlabel, ylabel, what = product
            sections += [product_summary(rows, speed_key, group_key or "set", what), "",
                         f"Every row: {os.path.basename(path)}.", ""]
            if have_matplotlib:
                png = os.path.join(args.out, name + ".png")
                plot_speed_scatter(rows, meta, png, name, x_key, speed_key, group_key, xlabel, ylabel)
                sections += [f"![{name}]({name}.png)", ""]
                written.append(png)
            else:
                sections += ["(plot skipped: matplotlib is not installed)", ""]
            continue
        sections += [markdown_table(header, rows), ""]
        if is_spmv(header) and rows:
            summary = spmv_summary(rows)
            if summary:
                sections += [summary, ""]
            if have_matplotlib:
                png = os.path.join(args.out, name + ".png")
                plot_spmv(rows, meta, png, name)
                sections += [f"![{name}]({name}.png)", ""]
                written.append(png)
            else:
                sections += ["(plot skipped: matplotlib is not installed)", ""]
    report = os.path.join(args.out, "report.md")
    with open(report, "w") as f:
        f.write("\n".join(sections))
    written.insert(0, report)
    for w in written:
        print(f"wrote {w}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
