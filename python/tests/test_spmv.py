"""test_spmv.py -- A @ x and A.matvec against SciPy in FP64, FP32 and FP16
vectors, with tolerances derived from the precisions (conftest.product_tolerance):
against the stored matrix (to_scipy) and against the caller's matrix."""
import numpy as np
import pytest
from scipy.sparse.linalg import cg as scipy_cg

import packsell
from conftest import UNIT, product_tolerance, random_matrix, spd_matrix

STORAGES = [("csr", "fp64", 0.0), ("csr", "fp32", 2.0**-24), ("sell", "fp64", 0.0),
            ("sell", "fp16", 2.0**-11), ("packsell", "fp16", 2.0**-11),
            ("packsell", "bf16", 2.0**-8), ("packsell", "e8m14", 2.0**-15),
            ("csrk", "fp64", 0.0), ("csrk", "fp16", 2.0**-11)]
DTYPES = [np.float64, np.float32, np.float16]


@pytest.mark.parametrize("fmt,values,vunit", STORAGES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_product_matches_scipy(fmt, values, vunit, dtype):
    A = random_matrix(700, 500, 0.02, 5)
    P = packsell.Matrix.from_scipy(A, format=fmt, values=values)
    x = np.random.default_rng(1).uniform(-1, 1, 500).astype(dtype)
    y = P @ x
    assert y.dtype == dtype and y.shape == (700,)
    yd = y.astype(np.float64)
    S = P.to_scipy()
    stored = S @ x.astype(np.float64)
    assert np.all(np.abs(yd - stored) <= product_tolerance(S, x, dtype))
    exact = A @ x.astype(np.float64)
    assert np.all(np.abs(yd - exact) <= product_tolerance(A, x, dtype, vunit))
    assert y[700 // 3] == 0  # the empty row


def test_tolerance_is_tight_enough_to_fail():
    """The bound rejects a product off by a few units in the last place."""
    A = random_matrix(300, 300, 0.05, 9)
    x = np.random.default_rng(2).uniform(-1, 1, 300).astype(np.float32)
    P = packsell.Matrix.from_scipy(A, format="csr", values="fp64")
    y = (P @ x).astype(np.float64)
    wrong = y * (1 + 64 * UNIT[np.float32])
    tol = product_tolerance(A, x, np.float32)
    assert np.all(np.abs(y - A @ x.astype(np.float64)) <= tol)
    assert not np.all(np.abs(wrong - A @ x.astype(np.float64)) <= tol)


@pytest.mark.parametrize("dtype", DTYPES)
def test_matvec_alpha_beta_out(dtype):
    A = random_matrix(400, 300, 0.03, 4)
    P = packsell.Matrix.from_scipy(A, format="sell", values="fp64")
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, 300).astype(dtype)
    y0 = rng.uniform(-1, 1, 400).astype(dtype)
    out = y0.copy()
    r = P.matvec(x, out=out, alpha=-2.0, beta=0.5)
    assert r is out
    ref = -2.0 * (A @ x.astype(np.float64)) + 0.5 * y0.astype(np.float64)
    bound = product_tolerance(A, x, dtype) * 2 + 2 * UNIT[dtype] * np.abs(y0)
    assert np.all(np.abs(out.astype(np.float64) - ref) <= bound)
    # beta = 0 does not read out: NaN there does not leak
    out[:] = np.nan
    P.matvec(x, out=out)
    assert np.all(np.isfinite(out))


def test_matmat_and_strided_operands():
    A = random_matrix(250, 200, 0.04, 8)
    P = packsell.Matrix.from_scipy(A, format="packsell", values="e8m20")
    X = np.random.default_rng(5).uniform(-1, 1, (200, 3))
    Y = P @ X
    assert Y.shape == (250, 3)
    S = P.to_scipy()
    for j in range(3):
        assert np.allclose(Y[:, j], S @ X[:, j], rtol=0, atol=1e-12)
    Z = P @ X[:, 1]  # a strided column
    assert np.array_equal(Z, Y[:, 1])
    out = np.zeros((3, 250)).T  # Fortran-ordered out
    P.matvec(X, out=out)
    assert np.array_equal(out, Y)


def test_explicitly_permuted_file_gives_original_order(tmp_path):
    """A binary file may hold an explicitly permuted matrix (the packsell
    command writes one with --permute explicit): A @ x is still in the
    original row order."""
    import subprocess, shutil, os

    exe = os.environ.get("PACKSELL_EXE") or shutil.which("packsell")
    if not exe:
        pytest.skip("the packsell command is not on PATH (PACKSELL_EXE)")
    path = tmp_path / "p.psl"
    subprocess.run([exe, "convert", "gen:powerlaw:500:8:2.0", "-o", str(path), "--format",
                    "packsell", "--permute", "explicit"], check=True, capture_output=True)
    P = packsell.load(path)
    assert P.info()["permute"] == "explicit"
    S = packsell.generate("powerlaw:500:8:2.0").to_scipy()
    x = np.random.default_rng(0).uniform(-1, 1, 500)
    assert np.all(np.abs(P @ x - P.to_scipy() @ x) <= product_tolerance(S, x, np.float64))
    assert (P.to_scipy() != packsell.Matrix.from_scipy(S).to_scipy()).nnz == 0


def test_linear_operator_inside_scipy_cg():
    S = spd_matrix(24)
    P = packsell.Matrix.from_scipy(S, format="packsell", values="e8m20")
    op = P.as_linear_operator()
    assert op.shape == S.shape and op.dtype == np.float64
    b = np.random.default_rng(4).uniform(0, 1, S.shape[0])
    try:
        x, info = scipy_cg(op, b, rtol=1e-10, maxiter=2000)
    except TypeError:  # SciPy before 1.12
        x, info = scipy_cg(op, b, tol=1e-10, maxiter=2000)
    assert info == 0
    stored = P.to_scipy()
    assert np.linalg.norm(b - stored @ x) <= 1e-9 * np.linalg.norm(b)
    # the operator is the stored matrix, not SciPy's: different bits, same system to 1e-6
    assert np.linalg.norm(b - S @ x) <= 1e-5 * np.linalg.norm(b)


def test_linear_operator_float32_matmat():
    S = spd_matrix(6)
    op = packsell.Matrix.from_scipy(S, format="csr").as_linear_operator(np.float32)
    X = np.eye(36)[:, :4]
    Y = op.matmat(X)
    assert Y.dtype == np.float32 and np.array_equal(Y, S.toarray()[:, :4].astype(np.float32))
