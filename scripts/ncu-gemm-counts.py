#!/usr/bin/env python3
"""Counts of one GEMM kernel from Nsight Compute's text report, for the
performance model's description of a kernel whose source is not at hand
(cuBLAS SGEMM; bench/model_validate.cu, family "cublas").

  ncu --print-metric-instances details --metrics METRICS PROGRAM ... > report.txt
  scripts/ncu-gemm-counts.py N report.txt [KERNEL_REGEX] >> counts.csv

METRICS: launch__grid_size, launch__block_size, launch__registers_per_thread,
launch__shared_mem_per_block_static, launch__shared_mem_per_block_dynamic,
smsp__inst_executed.sum, smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,
l1tex__data_pipe_lsu_wavefronts_mem_shared.sum, lts__t_bytes.sum,
dram__bytes.sum, sass__inst_executed_per_opcode.

Writes one CSV row (no header with --no-header) for the first kernel whose
name matches KERNEL_REGEX (default: any name not starting with tsi_ or
fill), N being the GEMM's order. Exit status 1 when no kernel matches."""
import re
import sys

UNITS = {"": 1, "byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "inst": 1, "register/thread": 1,
         "byte/block": 1, "Kbyte/block": 1e3, "Mbyte/block": 1e6}
COLUMNS = ["n", "kernel", "grid", "threads", "registers", "shared_bytes", "warp_instructions", "ffma_thread",
           "lds", "sts", "ldgsts", "ldg", "stg", "bar", "shared_wavefronts", "l2_bytes", "dram_bytes"]


def kernels(text):
    """(name, body) for each kernel's section of the report."""
    parts = re.split(r"\n  (?=\S)", text)
    for part in parts:
        head, _, body = part.partition("\n")
        if "Section:" in body:
            yield head.strip(), body


def metric(body, name):
    m = re.search(r"\n\s*" + re.escape(name) + r"\s+(\S+)?\s+([\d,.]+)", body)
    if not m:
        raise KeyError(name)
    unit = m.group(1) or ""
    if unit not in UNITS:  # a value without a unit: the unit column is empty
        unit = ""
    return float(m.group(2).replace(",", "")) * UNITS[unit]


def opcodes(body):
    m = re.search(r"sass__inst_executed_per_opcode\s+[\d,]+\s+\(([^)]*)\)", body, re.S)
    if not m:
        raise KeyError("sass__inst_executed_per_opcode (with --print-metric-instances details)")
    return {k: int(v.replace(",", "")) for k, v in re.findall(r"([A-Z0-9_.]+):\s*([\d,]+)", m.group(1))}


def ffma_threads(body, ops):
    """Thread FFMAs; without the metric, 32 a warp instruction (GEMM
    main loops run with every lane on)."""
    try:
        return metric(body, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum")
    except KeyError:
        return 32.0 * ops.get("FFMA", 0)


def main():
    args = [a for a in sys.argv[1:] if a != "--no-header"]
    if len(args) < 2:
        sys.exit(__doc__)
    n, path = int(args[0]), args[1]
    pattern = re.compile(args[2] if len(args) > 2 else r"^(?!void tsi_|tsi_|void fill|fill)")
    text = open(path, encoding="utf-8", errors="replace").read()
    for name, body in kernels(text):
        if not pattern.search(name):
            continue
        ops = opcodes(body)
        base = re.sub(r"\s*\(\d+, \d+, \d+\)x\(\d+, \d+, \d+\).*", "", name)
        row = [n, base, metric(body, "launch__grid_size"), metric(body, "launch__block_size"),
               metric(body, "launch__registers_per_thread"),
               metric(body, "launch__shared_mem_per_block_static") + metric(body, "launch__shared_mem_per_block_dynamic"),
               metric(body, "smsp__inst_executed.sum"),
               ffma_threads(body, ops),
               ops.get("LDS", 0) + ops.get("LDSM", 0), ops.get("STS", 0), ops.get("LDGSTS", 0), ops.get("LDG", 0),
               ops.get("STG", 0) + ops.get("ST", 0), ops.get("BAR", 0),
               metric(body, "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"), metric(body, "lts__t_bytes.sum"),
               metric(body, "dram__bytes.sum")]
        if "--no-header" not in sys.argv:
            print(",".join(COLUMNS))
        print(",".join('"%s"' % v if isinstance(v, str) else "%.0f" % v for v in row))
        return 0
    print("no kernel matches %s in %s" % (pattern.pattern, path), file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
