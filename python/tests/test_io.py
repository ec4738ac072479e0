"""tessera.mmread, mminfo and mmwrite against scipy.io's, on written files of
every header kind and on the corpus; malformed files raise with the line."""

import gzip

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from conftest import corpus_params, random_sparse

import tessera


def same_matrix(got, expected):
    got = sp.csr_matrix(got)
    expected = sp.csr_matrix(expected)
    got.sum_duplicates()
    expected.sum_duplicates()
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got.indptr, expected.indptr)
    np.testing.assert_array_equal(got.indices, expected.indices)
    np.testing.assert_allclose(got.data, expected.data, rtol=1e-15)


def write(path, text):
    path.write_text(text)
    return str(path)


def test_headers_of_every_kind(tmp_path):
    general = write(tmp_path / "g.mtx", "%%MatrixMarket matrix coordinate real general\n% c\n3 4 3\n1 1 1.5\n3 4 -2\n2 2 1e3\n")
    symmetric = write(tmp_path / "s.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 2\n3 1 -1\n3 2 4\n")
    skew = write(tmp_path / "k.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 5\n3 2 -1\n")
    pattern = write(tmp_path / "p.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 2\n2 1\n")
    integer = write(tmp_path / "i.mtx", "%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 1 7\n2 2 -3\n")
    array = write(tmp_path / "a.mtx", "%%MatrixMarket matrix array real general\n2 3\n1\n2\n3\n4\n5\n6\n")
    for path in (general, symmetric, skew, pattern, integer):
        got = tessera.mmread(path)
        assert isinstance(got, sp.coo_matrix) and got.dtype == np.float64
        same_matrix(got, scipy.io.mmread(path))
        assert tessera.mminfo(path) == scipy.io.mminfo(path)
    dense = tessera.mmread(array)
    assert isinstance(dense, np.ndarray)
    np.testing.assert_array_equal(dense, scipy.io.mmread(array))
    assert isinstance(tessera.mmread(general, spmatrix=False), sp.coo_array)
    assert tessera.mmread(general, dtype=np.float32).dtype == np.float32


def test_gzip_is_recognised_by_its_bytes(tmp_path):
    text = b"%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 3\n2 2 4\n"
    path = tmp_path / "plain-name.mtx"
    path.write_bytes(gzip.compress(text))
    np.testing.assert_array_equal(tessera.mmread(path).toarray(), [[3.0, 0.0], [0.0, 4.0]])


def test_write_and_read_back(tmp_path):
    A = random_sparse(40, 30, 0.1, 3)
    for name in ("a.mtx", "a.mtx.gz"):
        path = tmp_path / name
        tessera.mmwrite(path, A)
        same_matrix(tessera.mmread(path), A)
        same_matrix(scipy.io.mmread(str(path)), A)  # SciPy reads what tessera writes
    S = random_sparse(20, 20, 0.2, 4)
    S = S + S.T
    tessera.mmwrite(tmp_path / "s.mtx", S, symmetry="symmetric")
    assert tessera.mminfo(tmp_path / "s.mtx")[5] == "symmetric"
    same_matrix(tessera.mmread(tmp_path / "s.mtx"), S)
    tessera.mmwrite(tmp_path / "p.mtx", A, field="pattern")
    same_matrix(tessera.mmread(tmp_path / "p.mtx"), (A != 0).astype(np.float64))
    tessera.mmwrite(tmp_path / "d.mtx", np.array([[1.0, 0.0], [2.5, 3.0]]), precision=5)
    np.testing.assert_array_equal(tessera.mmread(tmp_path / "d.mtx").toarray(), [[1.0, 0.0], [2.5, 3.0]])


def test_malformed_and_missing_files(tmp_path):
    bad = write(tmp_path / "bad.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n2 x 3\n")
    with pytest.raises(tessera.ParseError, match=r"bad\.mtx:4: column index") as info:
        tessera.mmread(bad)
    assert isinstance(info.value, ValueError) and info.value.status == 6
    out_of_range = write(tmp_path / "r.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1.0\n")
    with pytest.raises(ValueError, match=r"r\.mtx:3"):
        tessera.mmread(out_of_range)
    complex_file = write(tmp_path / "c.mtx", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 2\n")
    with pytest.raises(NotImplementedError):
        tessera.mmread(complex_file)
    with pytest.raises(OSError, match="missing.mtx") as info:
        tessera.mmread(tmp_path / "missing.mtx")
    assert isinstance(info.value, tessera.FileError) and "missing.mtx" in str(info.value)
    with pytest.raises(TypeError, match="file name"):
        tessera.mmread(open(bad))
    with pytest.raises(TypeError, match="float32 or float64"):
        tessera.mmread(bad, dtype=np.int32)
    with pytest.raises(ValueError, match="field"):
        tessera.mmwrite(tmp_path / "x.mtx", random_sparse(3, 3, 0.5, 1), field="hex")
    with pytest.raises(ValueError, match="square"):
        tessera.mmwrite(tmp_path / "x.mtx", random_sparse(3, 4, 0.5, 1), symmetry="symmetric")


@pytest.mark.parametrize("path,row", corpus_params(lambda row: row["field"] != "complex"))
def test_corpus_reads_as_scipy_does(path, row):
    got = tessera.mmread(path)
    same_matrix(got, scipy.io.mmread(str(path)))
    rows, cols, entries, fmt, field, symmetry = tessera.mminfo(path)
    assert (rows, cols, entries) == (int(row["rows"]), int(row["cols"]), int(row["nnz"]))
    assert (fmt, field, symmetry) == ("coordinate", row["field"], row["symmetry"])
