"""Shared fixtures: the Matrix Market corpus (where present), the CPU
context, and the CUDA context and CuPy (skipped visibly where absent)."""

import csv
import os
import pathlib

import numpy as np
import pytest
import scipy.sparse as sp

import tessera

ROOT = pathlib.Path(__file__).resolve().parents[2]


def corpus_dir():
    """The folder of the Matrix Market corpus: $TESSERA_MATRICES, the full
    corpus in ../shared/matrices beside the repository (the CMake default),
    or the small one in tests/data/corpus; None when none holds a
    MANIFEST.tsv."""
    candidates = [
        os.environ.get("TESSERA_MATRICES"),
        ROOT.parent / "shared" / "matrices",
        ROOT / "tests" / "data" / "corpus",
    ]
    for candidate in candidates:
        if candidate and (pathlib.Path(candidate) / "MANIFEST.tsv").is_file():
            return pathlib.Path(candidate)
    return None


def corpus_entries():
    """(name, path, manifest row) of every corpus matrix present."""
    folder = corpus_dir()
    if folder is None:
        return []
    entries = []
    with open(folder / "MANIFEST.tsv", newline="") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            for suffix in (".mtx", ".mtx.gz"):
                path = folder / (row["name"] + suffix)
                if path.is_file():
                    entries.append((row["name"], path, row))
                    break
    return entries


CORPUS = corpus_entries()
CORPUS_REASON = "no Matrix Market corpus (set TESSERA_MATRICES; tests/data/corpus or ../shared/matrices)"


def corpus_params(select=lambda row: True):
    """pytest parameters for the corpus matrices whose manifest row passes
    select; one visible skip when there is no corpus."""
    chosen = [pytest.param(path, row, id=name) for name, path, row in CORPUS if select(row)]
    return chosen or [pytest.param(None, None, id="no-corpus", marks=pytest.mark.skip(reason=CORPUS_REASON))]


@pytest.fixture(scope="session")
def cpu():
    """A context on the CPU backend."""
    return tessera.Context("cpu")


@pytest.fixture(scope="session")
def cpu1():
    """A context on the CPU backend with one thread (quick for loops of tiny calls)."""
    return tessera.Context("cpu", threads=1)


@pytest.fixture(scope="session")
def cuda():
    """A context on the GPU, or a visible skip."""
    if not tessera.built_with_cuda:
        pytest.skip("tessera was built without CUDA (the package's build found no nvcc, or was told CPU only)")
    try:
        return tessera.Context("cuda")
    except tessera.NoDeviceError as error:
        pytest.skip(f"no usable GPU: {error}")


@pytest.fixture(scope="session")
def cupy():
    """The cupy module with a usable GPU, or a visible skip."""
    module = pytest.importorskip("cupy", reason="CuPy is not installed")
    try:
        module.cuda.runtime.getDeviceCount()
    except Exception as error:  # CUDARuntimeError without a driver
        pytest.skip(f"CuPy has no usable GPU: {error}")
    return module


def random_sparse(rows, cols, density, seed, dtype=np.float64, fmt="csr"):
    """A reproducible random sparse matrix with a strong diagonal when square."""
    rng = np.random.default_rng(seed)
    a = sp.random(rows, cols, density=density, format="coo", random_state=rng, dtype=np.float64)
    if rows == cols:
        a = a + sp.diags(rng.uniform(1.0, 2.0, rows) * (1.0 + abs(a).sum(axis=1).A.ravel()))
    return a.asformat(fmt).astype(dtype)
