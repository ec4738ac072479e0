#!/usr/bin/env python3
"""BFS and SSSP results beside Gunrock's: a Markdown table and a PNG.

Usage: graph_report.py [--out DIR] [--gunrock DIR] [--gunrock-logs DIR] GRAPH_CSV

GRAPH_CSV is the CSV of bench/graph_bfs_sssp (metadata lines "# key: value",
then one row per graph, algorithm and schedule). --gunrock names a folder of
Gunrock's --export_metrics JSON files named <app>_<graph>.json (app bfs or
sssp), run on the same graphs from the same sources (scripts/graph-gpu-run
does both). Gunrock's times are its own (its enactor's timer, which leaves
out its problem set-up); tessera's include clearing the search state and
writing both outputs. --gunrock-logs names the folder of Gunrock's printed
output (gunrock_<app>_<graph>.log): from it the report checks how far
Gunrock's last search reached (its first 40 distances, BFS against SSSP from
the same source) and sets Gunrock's SSSP times against the least time one
pass over the reached edges takes (8 bytes an edge at the copy bandwidth).
Writes DIR/graph_report.md and, with matplotlib, DIR/graph_report.png
(traversed edges per second per graph).
"""

import argparse
import json
import os
import statistics
import sys

# Gunrock 1.0 on a V100 (gunrock/io results): BFS ms and GTEPS, SSSP ms.
PUBLISHED = {
    "kron21": ("kron_g500-logn21, V100", 1.06, 172.0, 25.7),
    "kron21_ef48": ("kron_g500-logn21, V100", 1.06, 172.0, 25.7),
    "rmat24": ("rmat_n24_e16, V100", 5.1, 51.0, None),
}


def read_csv(path):
    """(metadata, rows as dicts) of a harness CSV, read by report.py's reader."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from report import read_harness_csv

    meta, _, rows = read_harness_csv(path)
    return meta, rows


def gunrock_result(folder, app, graph):
    """Median of Gunrock's per-source times in ms, or None."""
    if not folder:
        return None
    path = os.path.join(folder, f"{app}_{graph}.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        data = json.load(f)
    times = data.get("process_times") or []
    return statistics.median(times) if times else None


def gunrock_times(folder, app, graph):
    """Gunrock's per-source times in ms (a list, maybe empty)."""
    path = os.path.join(folder or "", f"{app}_{graph}.json")
    if not folder or not os.path.exists(path):
        return []
    with open(path) as f:
        return list(json.load(f).get("process_times") or [])


def gunrock_reached_of_first(logs, app, graph):
    """(reached, shown) among the first distances Gunrock printed for its last source, or None."""
    path = os.path.join(logs or "", f"gunrock_{app}_{graph}.log")
    if not logs or not os.path.exists(path):
        return None
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("GPU distances"):
                values = line.split("=", 1)[1].split()
                # Unreached: the type's largest value (BFS depths int32, SSSP distances float).
                reached = sum(1 for v in values if float(v) < 2.0e9 and float(v) >= 0)
                return reached, len(values)
    return None


def gunrock_check(lines, rows, meta, folder, logs, graph):
    """Lines saying whether Gunrock's searches on `graph` covered the reached edges."""
    bfs = next((r for r in rows if r["graph"] == graph and r["algorithm"] == "bfs" and r.get("schedule") == "auto"), None)
    times = gunrock_times(folder, "sssp", graph)
    if bfs and times:
        edges = float(bfs["reached_edges"] or 0)
        gbps = float(meta.get("copy_gbps", 0) or 0)
        floor_ms = edges * 8 / (gbps * 1e6) if gbps > 0 else 0.0
        lines += ["", f"Gunrock's SSSP on {graph}: {len(times)} sources, {min(times):.4g} / "
                  f"{statistics.median(times):.4g} / {max(times):.4g} ms (min / median / max). One pass over the "
                  f"{edges / 1e6:.1f} M edges tessera's BFS reached, 8 bytes an edge (head and weight) at "
                  f"{gbps:.0f} GB/s, takes {floor_ms:.3f} ms; a label-correcting SSSP relaxes each several times."]
        below = sum(1 for t in times if t < floor_ms)
        if below:
            lines.append(f"{below} of Gunrock's {len(times)} SSSP times are below that pass: those searches did "
                         "not cover the reached edges.")
    for app in ("bfs", "sssp"):
        seen = gunrock_reached_of_first(logs, app, graph)
        if seen:
            lines.append(f"Gunrock {app}, last source: {seen[0]} of the first {seen[1]} vertices reached.")
    path = os.path.join(logs or "", f"gunrock_sssp_{graph}.log")
    if logs and os.path.exists(path):
        with open(path, errors="replace") as f:
            errors = [line.strip() for line in f if line.startswith("Number of errors")]
        if errors:
            lines.append(f"Gunrock sssp against its own CPU reference (last source): {errors[0]}.")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv")
    parser.add_argument("--out", default="bench-out")
    parser.add_argument("--gunrock", default=None)
    parser.add_argument("--gunrock-logs", default=None)
    args = parser.parse_args()
    meta, rows = read_csv(args.csv)
    os.makedirs(args.out, exist_ok=True)
    lines = ["# BFS and SSSP: tessera beside Gunrock", ""]
    for key in ("date", "commit", "device", "copy_gbps", "command"):
        if key in meta:
            lines.append(f"- {key}: {meta[key]}")
    lines += [
        "",
        "Edges per second count the out-edges of every reached vertex (each undirected edge twice), as",
        "Gunrock reports them. Gunrock 2.1 (gunrock/gunrock, commit 01f125c) built for sm_90 runs top-down",
        "BFS (no direction optimisation) and SSSP as Bellman-Ford over a frontier (no near-far split); its",
        "times leave out its set-up.",
        "",
        "| graph | algorithm | tessera ms | tessera GTEPS | Gunrock 2.1 on this GPU, ms | x Gunrock here | "
        "published V100 | x V100 |",
        "|---|---|---|---|---|---|---|---|",
    ]
    plot = []
    for r in rows:
        if r.get("schedule") != "auto":
            continue
        graph, app = r["graph"], r["algorithm"]
        ms = float(r["ms_median"])
        gteps = float(r["gteps_median"])
        theirs = gunrock_result(args.gunrock, app, graph)
        here = f"{theirs:.4g}" if theirs else "-"
        ratio = f"{theirs / ms:.1f}x" if theirs and ms > 0 else "-"
        seen = gunrock_reached_of_first(args.gunrock_logs, app, graph) if theirs and args.gunrock_logs else None
        if seen and seen[0] <= 1:
            # A search that reached at most its source timed nothing: no anchor.
            here, ratio = f"{theirs:.4g} (reached nothing: invalid)", "-"
        pub, pub_ratio = "-", "-"
        if graph in PUBLISHED:
            name, bfs_ms, bfs_gteps, sssp_ms = PUBLISHED[graph]
            if app == "bfs":
                pub = f"{name}: {bfs_ms} ms, {bfs_gteps} GTEPS"
                pub_ratio = f"{gteps / bfs_gteps:.1f}x GTEPS"
            elif sssp_ms:
                pub = f"{name}: {sssp_ms} ms"
                pub_ratio = f"{sssp_ms / ms:.1f}x faster"
        lines.append(f"| {graph} | {app} | {ms:.4g} | {gteps:.4g} | {here} | {ratio} | {pub} | {pub_ratio} |")
        if app == "bfs":
            reached = float(r["reached_edges"] or 0)
            plot.append((graph, gteps, reached / (theirs * 1e6) if theirs else None))
    lines += ["", "Every row: levels (BFS) or rounds and far phases (SSSP), the time per level or round, and",
              "the check of one source against the CPU backend.", "",
              "| graph | algorithm | schedule | ms | GTEPS | levels or rounds | us each | top-down / bottom-up or "
              "phases | reached | checked |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        bfs = r["algorithm"] == "bfs"
        steps = r["depth"] if bfs else r["rounds"]
        split = f"{r['top_down']} / {r['bottom_up']}" if bfs else r["phases"]
        lines.append(f"| {r['graph']} | {r['algorithm']} | {r.get('schedule', '')} | {float(r['ms_median']):.4g} | "
                     f"{float(r['gteps_median']):.4g} | {steps} | {r['us_per_step']} | {split} | {r['reached']} | "
                     f"{r['checked']} |")
    for graph in ("kron21", "road_2048"):
        gunrock_check(lines, rows, meta, args.gunrock, args.gunrock_logs, graph)
    with open(os.path.join(args.out, "graph_report.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(matplotlib absent: no plot)")
        return 0
    if not plot:
        return 0
    fig, ax = plt.subplots(figsize=(max(6, len(plot) * 0.9), 4))
    xs = range(len(plot))
    ax.bar([x - 0.2 for x in xs], [p[1] for p in plot], width=0.4, label="tessera")
    ax.bar([x + 0.2 for x in xs], [p[2] or 0 for p in plot], width=0.4, label="Gunrock 2.1 (same GPU)")
    ax.set_xticks(list(xs))
    ax.set_xticklabels([p[0] for p in plot], rotation=30, ha="right")
    ax.set_ylabel("GTEPS (reached out-edges / s)")
    ax.set_yscale("log")
    ax.set_title(f"BFS on {meta.get('device', 'the GPU')}")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, "graph_report.png"), dpi=120)
    return 0


if __name__ == "__main__":
    sys.exit(main())
