"""test_roundtrip.py -- Matrix.from_scipy / to_scipy, load / save and
generate against SciPy: exact for FP64 storage, the values rounded as an
independent rounding routine says for FP16, BF16 and E8MY codecs."""
import numpy as np
import pytest
import scipy.sparse as sp

import packsell
from conftest import random_matrix


def round_mantissa(v, man_bits):
    """v rounded to man_bits mantissa bits, to nearest even (normal range)."""
    v = np.asarray(v, dtype=np.float64)
    e = np.floor(np.log2(np.abs(v)))
    q = np.exp2(e - man_bits)
    return np.round(v / q) * q  # np.round: half to even


def same_pattern(A, B):
    A, B = sp.csr_array(A), sp.csr_array(B)
    A.sort_indices()
    B.sort_indices()
    return A.shape == B.shape and np.array_equal(A.indptr, B.indptr) and \
        np.array_equal(A.indices, B.indices)


@pytest.mark.parametrize("fmt,values", [("csr", "fp64"), ("sell", "fp64"), ("csrk", "fp64"),
                                        ("csr", "fp32"), ("sell", "fp32")])
@pytest.mark.parametrize("seed", [1, 2])
def test_exact_formats_round_trip(fmt, values, seed):
    A = random_matrix(300, 250, 0.03, seed)
    P = packsell.Matrix.from_scipy(A, format=fmt, values=values)
    B = P.to_scipy()
    assert same_pattern(A, B)
    expect = A.data if values == "fp64" else A.data.astype(np.float32).astype(np.float64)
    A.sort_indices()
    assert np.array_equal(B.data, expect)
    assert P.shape == A.shape and P.nnz == A.nnz and P.format == fmt and P.values == values


@pytest.mark.parametrize("fmt,values,man_bits", [("packsell", "fp16", 10), ("sell", "fp16", 10),
                                                 ("sell", "bf16", 7), ("packsell", "bf16", 7),
                                                 ("packsell", "e8m14", 14),
                                                 ("packsell", "e8m20", 20), ("csrk", "fp16", 10)])
def test_rounded_values(fmt, values, man_bits):
    A = random_matrix(400, 400, 0.02, 7)
    A.sort_indices()
    P = packsell.Matrix.from_scipy(A, format=fmt, values=values)
    B = P.to_scipy()
    assert same_pattern(A, B)
    assert np.array_equal(B.data, round_mantissa(A.data, man_bits))
    # dtype: the smallest numpy type holding the stored values exactly
    assert np.array_equal(B.data.astype(P.dtype).astype(np.float64), B.data)


def test_packsell_info_fields():
    A = random_matrix(500, 500, 0.01, 3)
    P = packsell.Matrix.from_scipy(A, format="packsell", values="e8m", delta_bits=8, slice=16,
                                   sigma=64)
    i = P.info()
    assert (i["rows"], i["cols"], i["nnz"]) == (500, 500, A.nnz)
    assert (i["format"], i["values"], i["D"], i["C"], i["sigma"]) == ("packsell", "e8m14", 8, 16, 64)
    assert i["permute"] == "implicit" and i["device"] == "cpu"
    assert i["words"] == i["stored"] >= A.nnz
    assert 4 * i["words"] < i["bytes"] < i["sell_bytes"]  # words + slice offsets + perm
    lengths = np.diff(A.indptr)
    assert i["max_row_nnz"] == lengths.max()
    assert i["mean_row_nnz"] == pytest.approx(lengths.mean())
    assert P.dtype == np.float32 and P.values == "e8m14"
    c = packsell.Matrix.from_scipy(A, format="csr").info()
    assert c["C"] is None and c["D"] is None and c["bytes"] == 12 * A.nnz + 8 * 501


def test_duplicates_summed_and_zeros_kept():
    rows = np.array([0, 0, 1, 2, 2, 2])
    cols = np.array([3, 3, 0, 2, 1, 2])
    vals = np.array([1.0, 2.0, 0.0, 4.0, 5.0, 6.0])
    A = sp.coo_array((vals, (rows, cols)), shape=(3, 4))
    B = packsell.Matrix.from_scipy(A, format="csr").to_scipy()
    assert B.nnz == 4  # (0,3) summed; (1,0) an explicit zero, kept
    assert B[0, 3] == 3.0 and B[2, 2] == 10.0 and B[2, 1] == 5.0
    assert np.array_equal(B.toarray(), A.toarray())


def test_empty_and_tiny_matrices():
    for shape in [(0, 0), (5, 0), (0, 5), (4, 4)]:
        A = sp.csr_array(shape)
        P = packsell.Matrix.from_scipy(A, format="packsell")
        assert P.shape == shape and P.nnz == 0
        assert P.to_scipy().shape == shape
        y = P @ np.ones(shape[1])
        assert y.shape == (shape[0],) and not y.any()


def test_generated_hpcg_is_the_27_point_stencil():
    G = packsell.generate("hpcg:3:3:3")
    S = G.to_scipy()
    assert G.shape == (512, 512) and G.format == "csr" and G.values == "fp64"
    assert abs(S - S.T).max() == 0
    assert np.all(S.diagonal() == 26.0)
    off = S - sp.diags(S.diagonal())
    assert set(np.unique(off.data)) == {-1.0}
    lengths = np.diff(S.indptr)
    assert lengths.min() == 8 and lengths.max() == 27  # a corner and an inner point
    P = packsell.Matrix.from_scipy(S, format="packsell")  # 26 and -1 are exact in FP16
    assert (P.to_scipy() != S).nnz == 0


def test_generate_with_format_and_auto():
    P = packsell.generate("lap2d:20", format="packsell", values="fp16")
    assert P.format == "packsell" and P.shape == (400, 400)
    Q = packsell.generate("lap2d:20", format="auto", values="fp64")
    assert Q.format in ("sell", "csr") and Q.values == "fp64"
    assert (Q.to_scipy() != packsell.generate("lap2d:20").to_scipy()).nnz == 0


@pytest.mark.parametrize("suffix,kind", [(".psl", None), (".mtx", None), (".bin", "binary")])
def test_save_load_round_trip(tmp_path, suffix, kind):
    A = random_matrix(200, 150, 0.05, 11)
    P = packsell.Matrix.from_scipy(A, format="packsell", values="e8m14")
    path = tmp_path / ("m" + suffix)
    packsell.save(path, P, kind=kind)
    Q = packsell.load(path)
    assert (Q.to_scipy() != P.to_scipy()).nnz == 0
    if suffix == ".mtx":
        assert Q.format == "csr"  # Matrix Market holds the decoded values
    else:
        assert Q.format == "packsell" and Q.info() == P.info()
    R = packsell.load(path, format="sell", values="fp64")
    assert R.format == "sell" and (R.to_scipy() != P.to_scipy()).nnz == 0


def test_load_generator_source():
    assert packsell.load("gen:lap3d:5").shape == (125, 125)


def test_to_moves_nothing_on_cpu():
    P = packsell.generate("lap2d:8")
    assert P.to("cpu") is P
