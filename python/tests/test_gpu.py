"""test_gpu.py -- the CUDA side with CuPy: device matrices from SciPy and
CuPy, A @ x on CuPy arrays (CuPy's current stream), the LinearOperator in
cupyx's cg, and the solvers on the device. Skipped without CuPy and a GPU."""
import numpy as np
import pytest
import scipy.sparse as sp

import packsell
from conftest import product_tolerance, random_matrix, requires_gpu, spd_matrix

pytestmark = requires_gpu

DTYPES = [np.float64, np.float32, np.float16]


def cupyx_cg(A, b, tol):
    """cupyx's cg to the relative tolerance tol (rtol in newer CuPy, tol before)."""
    from cupyx.scipy.sparse.linalg import cg

    try:
        return cg(A, b, rtol=tol, maxiter=10000)
    except TypeError:
        return cg(A, b, tol=tol, maxiter=10000)


@pytest.fixture(scope="module")
def cp():
    import cupy

    return cupy


@pytest.mark.parametrize("fmt,values", [("packsell", "fp16"), ("packsell", "e8m14"),
                                        ("sell", "fp32"), ("csr", "fp64"), ("sell", "fp64")])
def test_from_cupy_builds_what_from_scipy_builds(cp, fmt, values):
    import cupyx.scipy.sparse as csp

    A = random_matrix(3000, 2500, 0.004, 1)
    D = packsell.Matrix.from_cupy(csp.csr_matrix(A), format=fmt, values=values)
    H = packsell.Matrix.from_scipy(A, format=fmt, values=values)
    assert D.device == "cuda:0" and D.info() == dict(H.info(), device="cuda:0")
    assert (D.to_scipy() != H.to_scipy()).nnz == 0
    assert (D.to_cupy().get() != H.to_scipy()).nnz == 0


def test_from_cupy_unsorted_duplicates(cp):
    import cupyx.scipy.sparse as csp

    rows = np.array([0, 0, 1, 2, 2])
    cols = np.array([2, 2, 0, 1, 0])
    vals = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    A = sp.coo_matrix((vals, (rows, cols)), shape=(3, 3))
    D = packsell.Matrix.from_cupy(csp.coo_matrix(A), format="sell", values="fp64")
    assert np.array_equal(D.to_scipy().toarray(), A.toarray())


# GPU CSR is cuSPARSE's: vectors of the values' type (FP32 values: FP64 too)
PRODUCTS = [(f, v, u, d) for f, v, u in [("packsell", "fp16", 2.0**-11), ("sell", "fp32", 2.0**-24),
                                         ("packsell", "e8m20", 2.0**-21), ("csr", "fp64", 0.0)]
            for d in DTYPES if f != "csr" or d == np.float64]


@pytest.mark.parametrize("fmt,values,vunit,dtype", PRODUCTS)
def test_product_on_cupy_arrays(cp, fmt, values, vunit, dtype):
    A = random_matrix(5000, 4000, 0.003, 2)
    D = packsell.Matrix.from_scipy(A, format=fmt, values=values, device="cuda")
    x = np.random.default_rng(3).uniform(-1, 1, 4000).astype(dtype)
    y = D @ cp.asarray(x)
    assert isinstance(y, cp.ndarray) and y.dtype == dtype and y.shape == (5000,)
    yd = cp.asnumpy(y).astype(np.float64)
    S = D.to_scipy()
    assert np.all(np.abs(yd - S @ x.astype(np.float64)) <= product_tolerance(S, x, dtype))
    assert np.all(np.abs(yd - A @ x.astype(np.float64)) <= product_tolerance(A, x, dtype, vunit))


def test_matvec_out_alpha_beta_and_stream(cp):
    A = random_matrix(2000, 2000, 0.005, 4)
    D = packsell.Matrix.from_scipy(A, format="packsell", values="e8m20", device="cuda")
    H = packsell.Matrix.from_scipy(A, format="packsell", values="e8m20")
    rng = np.random.default_rng(5)
    x = rng.uniform(-1, 1, 2000)
    y0 = rng.uniform(-1, 1, 2000)
    ref = H.matvec(x, out=y0.copy(), alpha=2.0, beta=-1.0)
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        out = cp.asarray(y0)
        r = D.matvec(cp.asarray(x), out=out, alpha=2.0, beta=-1.0)
        X = cp.asarray(np.stack([x, 2 * x], axis=1))
        Y = D @ X
    stream.synchronize()
    assert r is out
    assert np.allclose(cp.asnumpy(out), ref, rtol=0, atol=1e-12)
    assert np.allclose(cp.asnumpy(Y[:, 1]), 2 * cp.asnumpy(Y[:, 0]), rtol=0, atol=1e-12)


def test_gpu_csr_takes_vectors_of_its_value_type(cp):
    D = packsell.generate("lap2d:10", format="csr", device="cuda")
    with pytest.raises(packsell.InvalidArgumentError) as e:
        D @ cp.ones(100, dtype=cp.float32)
    assert "fp32" in str(e.value)


def test_device_checks(cp):
    D = packsell.generate("lap2d:10", format="packsell", device="cuda")
    with pytest.raises(ValueError, match="host array"):
        D @ np.ones(100)
    with pytest.raises(TypeError):
        D @ cp.ones(100, dtype=cp.int32)
    with pytest.raises(ValueError, match="shape"):
        D @ cp.ones(99)
    with pytest.raises(TypeError):
        D.matvec(cp.ones(100), out=np.zeros(100))
    H = packsell.generate("lap2d:10")
    with pytest.raises(ValueError, match="CUDA device array"):
        H @ cp.ones(100)
    with pytest.raises(ValueError, match="CUDA devices"):
        packsell.generate("lap2d:10", device=5)


def test_csrk_on_device_matches_host(cp):
    H = packsell.generate("lap2d:12", format="csr")
    D = packsell.generate("lap2d:12", format="csrk", device="cuda")
    x = np.random.default_rng(3).uniform(-1, 1, 144)
    want = H.to_scipy() @ x
    got = cp.asnumpy(D @ cp.asarray(x))
    assert np.max(np.abs(got - want)) <= 1e-13 * np.max(np.abs(want))


def test_to_and_save(cp, tmp_path):
    H = packsell.generate("hpcg:4:4:4", format="packsell")
    D = H.to("cuda")
    assert D.device == "cuda:0" and D.info() == dict(H.info(), device="cuda:0")
    packsell.save(tmp_path / "d.psl", D)
    assert packsell.load(tmp_path / "d.psl").info() == H.info()
    assert (D.to("cpu").to_scipy() != H.to_scipy()).nnz == 0


def test_linear_operator_in_cupyx_cg(cp):
    S = spd_matrix(30)
    D = packsell.Matrix.from_scipy(S, format="sell", values="fp64", device="cuda")
    b = cp.asarray(np.random.default_rng(6).uniform(0, 1, 900))
    x, info = cupyx_cg(D.as_linear_operator(), b, 1e-10)
    assert info == 0
    assert np.linalg.norm(cp.asnumpy(b) - S @ cp.asnumpy(x)) < 1e-9 * float(cp.linalg.norm(b))


@pytest.mark.parametrize("method", ["cg", "iocg", "gmres", "bicgstab", "f3r"])
def test_solvers_on_the_device(cp, method):
    spec = "hpcg:4:4:4" if method in ("cg", "iocg") else "hpgmp:4:4:4"
    G = packsell.generate(spec)
    A = G.to_scipy()
    b = np.random.default_rng(7).uniform(0, 1, A.shape[0])
    x, info = getattr(packsell.linalg, method)(G, cp.asarray(b), tol=1e-9)
    assert isinstance(x, cp.ndarray) and info == 0, info.result
    assert info.result.device == "cuda:0" and info.result.times["upload"] > 0
    assert np.linalg.norm(b - A @ cp.asnumpy(x)) / np.linalg.norm(b) < 1e-7
    xc, ic = getattr(packsell.linalg, method)(G, b, tol=1e-9, device="cpu")
    assert ic == 0 and abs(ic.result.iterations - info.result.iterations) <= \
        max(3, 0.1 * ic.result.iterations)


def test_cg_against_cupyx_cg(cp):
    """The same system to the same tolerance: packsell's CG (Jacobi after
    scaling) and cupyx's CG reach solutions that agree to cond * tol."""
    import cupyx.scipy.sparse as csp

    G = packsell.generate("hpcg:5:5:5")
    A = G.to_scipy()
    b = np.random.default_rng(8).uniform(0, 1, A.shape[0])
    x, info = packsell.linalg.cg(csp.csr_matrix(A), cp.asarray(b), tol=1e-9)
    xs, infos = cupyx_cg(csp.csr_matrix(A), cp.asarray(b), 1e-9)
    assert info == 0 and infos == 0
    xs = cp.asnumpy(xs)
    assert np.linalg.norm(cp.asnumpy(x) - xs) / np.linalg.norm(xs) < 1e-6
