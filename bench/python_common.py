"""Shared pieces of the Python benchmarks (bench/python_*.py): run metadata
and Markdown output."""

import datetime
import os
import platform
import subprocess
import sys

import numpy as np
import scipy

import tessera


def commit():
    """TESSERA_COMMIT from the environment, else git's HEAD, else "unknown"."""
    if os.environ.get("TESSERA_COMMIT"):
        return os.environ["TESSERA_COMMIT"]
    try:
        here = os.path.dirname(os.path.abspath(__file__))
        return subprocess.run(["git", "-C", here, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def metadata(context):
    """Run metadata as (key, value) pairs."""
    info = context.device_info()
    load = os.getloadavg() if hasattr(os, "getloadavg") else ("?", "?", "?")
    return [
        ("date (UTC)", datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")),
        ("commit", commit()),
        ("host", f"{platform.node()}: {cpu_name()}, {os.cpu_count()} CPUs visible"),
        ("device", f"{context.backend}: {info['name']}"),
        ("tessera", f"{tessera.__version__} (CUDA built: {tessera.built_with_cuda})"),
        ("python", f"{platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}"),
        ("load average at start", " ".join(f"{x:.2f}" if isinstance(x, float) else x for x in load)),
        ("command", " ".join([os.path.basename(sys.executable)] + sys.argv)),
    ]


def markdown_table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def emit(text, out):
    """Print text, and write it to the file out when given."""
    print(text)
    if out:
        with open(out, "w") as f:
            f.write(text + "\n")
