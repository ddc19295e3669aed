"""test_linalg.py -- packsell.linalg against SciPy's solvers and against the
residual computed here in FP64: (x, info) as SciPy returns them, the result
record (iterations, residual history, times), every method."""
import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import packsell
from conftest import spd_matrix


def scipy_cg_iterations(A, b, tol):
    count = [0]

    def cb(xk):
        count[0] += 1
    try:
        x, info = spla.cg(A, b, rtol=tol, atol=0.0, maxiter=10000, callback=cb)
    except TypeError:  # SciPy before 1.12
        x, info = spla.cg(A, b, tol=tol, atol=0.0, maxiter=10000, callback=cb)
    assert info == 0
    return x, count[0]


def relres(A, x, b):
    return np.linalg.norm(b - A @ x) / np.linalg.norm(b)


def test_cg_against_scipy_cg():
    A = spd_matrix(40)  # n = 1600, condition ~ 660
    b = np.random.default_rng(1).uniform(0, 1, A.shape[0])
    tol = 1e-10
    xs, its_scipy = scipy_cg_iterations(A, b, tol)
    x, info = packsell.linalg.cg(A, b, tol=tol, precond="none", scale=False)
    assert info == 0 and isinstance(x, np.ndarray) and x.dtype == np.float64
    r = info.result
    assert r.converged and r.reason == "converged"
    # the same unpreconditioned CG: the same iterations to within a few (the
    # true-residual confirmation may add one)
    assert abs(r.iterations - its_scipy) <= max(3, 0.03 * its_scipy)
    assert relres(A, x, b) < tol and relres(A, xs, b) < tol * 1.01
    assert r.relres == pytest.approx(relres(A, x, b), rel=1e-6)
    # both solve the same system: their difference is within cond * tol
    assert np.linalg.norm(x - xs) / np.linalg.norm(xs) < 1e-6


def test_result_record_and_callback():
    A = spd_matrix(20)
    b = np.ones(400)
    seen = []
    x, info = packsell.linalg.cg(A, b, tol=1e-9, callback=lambda k, rr: seen.append((k, rr)))
    r = info.result
    assert info == 0 and r.method == "cg" and r.precond == "jacobi" and r.device == "cpu"
    assert len(r.residuals) == len(r.residual_iterations) == r.iterations + 1
    assert r.residual_iterations[0] == 0 and r.residuals[0] == pytest.approx(1.0)
    assert r.residual_iterations[-1] == r.iterations
    assert [k for k, _ in seen] == list(r.residual_iterations)
    assert np.array_equal([rr for _, rr in seen], r.residuals)
    assert r.residuals[-1] < 1e-9 <= r.residuals[0]
    assert r.relres_unscaled == pytest.approx(relres(A, x, b), rel=1e-3)
    for key in ("scale", "convert", "precond", "upload", "solve", "total"):
        assert r.times[key] >= 0
    assert r.times["total"] >= r.times["solve"] > 0


def test_callback_exception_is_raised_after_the_solve():
    A = spd_matrix(10)

    def bad(k, rr):
        if k == 2:
            raise RuntimeError("stop here")
    with pytest.raises(RuntimeError, match="stop here"):
        packsell.linalg.cg(A, np.ones(100), callback=bad)
    x, info = packsell.linalg.cg(A, np.ones(100))  # the next solve is unaffected
    assert info == 0


def test_maxiter_gives_iterations_as_info():
    A = spd_matrix(30)
    b = np.ones(900)
    x, info = packsell.linalg.cg(A, b, tol=1e-12, maxiter=3)
    assert info == 3 and info.result.reason == "max-iters" and not info.result.converged
    assert np.all(np.isfinite(x))
    assert info.result.relres_unscaled == pytest.approx(relres(A, x, b), rel=1e-6)


def test_x0_atol_and_fp32_vectors():
    A = spd_matrix(16)
    rng = np.random.default_rng(2)
    xt = rng.uniform(-1, 1, 256)
    b = A @ xt
    x0 = xt + 1e-6 * rng.uniform(-1, 1, 256)  # starts near the solution
    x, info = packsell.linalg.cg(A, b, x0=x0, tol=1e-8)
    _, cold = packsell.linalg.cg(A, b, tol=1e-8)
    assert info == 0 and info.result.iterations < cold.result.iterations / 2
    x, info = packsell.linalg.cg(A, b, tol=1e-30, atol=1e-6 * np.linalg.norm(b))
    assert info == 0 and relres(A, x, b) < 1.01e-6
    x, info = packsell.linalg.cg(A, b, tol=1e-5, vectors="fp32")
    assert info == 0 and relres(A, x, b) < 1e-5


@pytest.mark.parametrize("method,spec,kwargs", [
    ("fcg", "hpcg:3:3:3", {"mmax": 2}),
    ("iocg", "hpcg:3:3:3", {"inner_iters": 10}),
    ("iocg", "hpcg:3:3:3", {"inner_format": "sell", "inner_values": "fp16", "precond": "sdainv"}),
    ("gmres", "hpgmp:3:3:3", {"restart": 20}),
    ("fgmres", "hpgmp:3:3:3", {}),
    ("bicgstab", "hpgmp:3:3:3", {}),
    ("f3r", "hpgmp:3:3:3", {}),
    ("f3r", "hpgmp:3:3:3", {"variant": "fp64", "restart": 30}),
])
def test_methods_reach_the_true_residual(method, spec, kwargs):
    G = packsell.generate(spec)
    A = G.to_scipy()
    b = np.random.default_rng(3).uniform(0, 1, A.shape[0])
    x, info = getattr(packsell.linalg, method)(G, b, tol=1e-9, **kwargs)
    assert info == 0, info.result
    # relres is of the scaled system; the caller's residual is of the same order
    assert info.result.relres < 1e-9
    assert relres(A, x, b) < 1e-7
    assert info.result.relres_unscaled == pytest.approx(relres(A, x, b), rel=1e-3, abs=1e-15)
    if method in ("iocg", "f3r"):
        assert info.result.inner_iterations > 0


def test_nonsymmetric_against_scipy_gmres_solution():
    G = packsell.generate("hpgmp:3:3:3")
    A = G.to_scipy()
    b = np.random.default_rng(4).uniform(0, 1, A.shape[0])
    x, info = packsell.linalg.gmres(A, b, tol=1e-11, restart=50)
    xs = spla.spsolve(A.tocsc(), b)
    assert info == 0 and np.linalg.norm(x - xs) / np.linalg.norm(xs) < 1e-8


def test_a_stored_matrix_is_solved_as_stored():
    """A packsell.Matrix in PackSELL E8M20 is the system solved: its stored
    values, not the original SciPy ones (scale=False: scaling would round
    the scaled matrix to E8M20 again)."""
    S = spd_matrix(20)
    S = S + sp.diags(np.random.default_rng(5).uniform(0, 1e-3, 400))  # values E8M20 rounds
    P = packsell.Matrix.from_scipy(S, format="packsell", values="e8m20")
    b = np.ones(400)
    x, info = packsell.linalg.cg(P, b, tol=1e-11, scale=False)
    assert info == 0, info.result
    assert relres(P.to_scipy(), x, b) < 1e-10
    assert relres(S, x, b) > 1e-10  # the stored system differs from SciPy's at E8M20 rounding


def test_breakdown_on_indefinite_matrix():
    A = sp.diags([1.0, -1.0, 2.0, -3.0]).tocsr()
    x, info = packsell.linalg.cg(A, np.ones(4), precond="none", scale=False)
    assert info == -1 and info.result.reason == "indefinite"


def test_default_tol_holds_on_the_callers_residual():
    """A badly scaled SPD system (D S D, D over six decades): by default cg
    (Jacobi, unscaled) meets tol on the caller's ||b - A x|| / ||b|| as
    SciPy does; iocg (scaled by default) reports the caller's residual."""
    d = np.logspace(0, 3, 400)
    S = spd_matrix(20)
    A = (sp.diags(d) @ S @ sp.diags(d)).tocsr()
    b = np.random.default_rng(6).uniform(0, 1, 400)
    x, info = packsell.linalg.cg(A, b, tol=1e-9)
    assert info == 0 and relres(A, x, b) < 1e-9
    x, info = packsell.linalg.iocg(A, b, tol=1e-9)
    assert info == 0 and info.result.relres_unscaled == pytest.approx(relres(A, x, b), rel=1e-3)
