#!/usr/bin/env python3
"""python_compare.py -- packsell from Python next to scipy.sparse (and, on a
GPU, cupyx.scipy.sparse): SpMV times of each storage, a solve with both, and
a PNG with the timings and the residual histories.

    pip install ./python matplotlib
    python examples/python_compare.py [MATRIX.mtx | gen:SPEC] [--out FILE.png]

(without matplotlib it prints the figures and draws nothing).

MATRIX defaults to Dubcova1.mtx of the shared test matrices (PSL_MATRIX_DIR,
else ../shared/matrices beside the repository), or gen:hpcg:5:5:5 when they
are not there. A symmetric matrix is solved with CG, another with BiCGStab.
CPU timings on a loaded machine: OMP_WAIT_POLICY=passive keeps OpenMP's
idle threads from spinning against the other processes.
"""
import argparse
import os
import pathlib
import statistics
import time

import numpy as np
import scipy.sparse.linalg as spla

import packsell


def default_matrix():
    here = pathlib.Path(__file__).resolve().parent
    folder = pathlib.Path(os.environ.get("PSL_MATRIX_DIR", here.parent.parent / "shared" / "matrices"))
    path = folder / "Dubcova1.mtx"
    return str(path) if path.is_file() else "gen:hpcg:5:5:5"


def median_seconds(fn, repeat, sync=lambda: None):
    fn()  # warm-up
    sync()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def label(fmt, values, dtype):
    name = {"csr": "CSR", "sell": "SELL", "packsell": "PackSELL"}[fmt]
    return f"packsell: {name} {values}, {np.dtype(dtype).name} x"


def build(make, S, fmt, values):
    """make(S, format, values), with BF16 (FP32's range) where a value is
    beyond FP16's."""
    try:
        return make(S, format=fmt, values=values), values
    except packsell.CodecOverflowError:
        return make(S, format=fmt, values="bf16"), "bf16"


def cpu_spmv(S, repeat):
    """(label, microseconds) of scipy.sparse and of packsell storages, FP64 x."""
    x = np.random.default_rng(1).uniform(-1, 1, S.shape[1])
    rows = [("scipy csr fp64", median_seconds(lambda: S @ x, repeat))]
    for fmt, values, dtype in [("csr", "fp64", np.float64), ("sell", "fp64", np.float64),
                               ("packsell", "e8m20", np.float32), ("packsell", "fp16", np.float32),
                               ("packsell", "fp16", np.float16)]:
        P, values = build(packsell.Matrix.from_scipy, S, fmt, values)
        xv, out = x.astype(dtype), np.empty(S.shape[0], dtype)
        rows.append((label(fmt, values, dtype), median_seconds(lambda: P.matvec(xv, out=out), repeat)))
    return [(k, 1e6 * t) for k, t in rows]


def gpu_spmv(S, repeat):
    """The same on the GPU: cupyx CSR against packsell device matrices."""
    import cupy as cp
    import cupyx.scipy.sparse as csp

    sync = cp.cuda.get_current_stream().synchronize
    x64 = cp.asarray(np.random.default_rng(1).uniform(-1, 1, S.shape[1]))
    rows = []
    for dtype in (np.float64, np.float32):
        C = csp.csr_matrix(S.astype(dtype))
        xv = x64.astype(dtype)
        rows.append((f"cupyx csr {np.dtype(dtype).name}", median_seconds(lambda: C @ xv, repeat, sync)))
    for fmt, values, dtype in [("sell", "fp64", np.float64), ("packsell", "e8m20", np.float32),
                               ("packsell", "fp16", np.float16)]:
        D, values = build(packsell.Matrix.from_cupy, csp.csr_matrix(S), fmt, values)
        xv, out = x64.astype(dtype), cp.empty(S.shape[0], dtype)
        rows.append((label(fmt, values, dtype),
                     median_seconds(lambda: D.matvec(xv, out=out), repeat, sync)))
    return [("GPU " + k, 1e6 * t) for k, t in rows]


def scipy_solve(solver, A, b, tol, xp=np, **extra):
    """(seconds, relative residual history) of a SciPy-style solver: timed
    without a callback, then run again with one that records ||b - A x||."""
    kw = dict(extra, maxiter=20000)
    try:
        solver(A, b, rtol=tol, **kw)
        kw["rtol"] = tol
    except TypeError:  # older SciPy and cupyx spell it tol
        kw["tol"] = tol
    t0 = time.perf_counter()
    solver(A, b, **kw)
    if xp is not np:
        xp.cuda.get_current_stream().synchronize()
    seconds = time.perf_counter() - t0
    bn = float(xp.linalg.norm(b))
    hist = [1.0]
    solver(A, b, callback=lambda xk: hist.append(float(xp.linalg.norm(b - A @ xk)) / bn),
           **kw)
    return seconds, hist


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("matrix", nargs="?", default=default_matrix())
    ap.add_argument("--tol", type=float, default=1e-9)
    ap.add_argument("--repeat", type=int, default=20, help="timed SpMV runs (median)")
    ap.add_argument("--out", default="python_compare.png")
    ap.add_argument("--no-gpu", action="store_true", help="skip the GPU even when there is one")
    a = ap.parse_args()

    M = packsell.load(a.matrix)
    S = M.to_scipy()
    print(f"{a.matrix}: {S.shape[0]} x {S.shape[1]}, {S.nnz} nonzeros; {packsell.library_version()}")
    gpu = not a.no_gpu and packsell.cuda_available()
    if gpu:
        try:
            import cupy  # noqa: F401
        except ImportError:
            gpu = False
    timings = cpu_spmv(S, a.repeat) + (gpu_spmv(S, a.repeat) if gpu else [])
    for k, us in timings:
        print(f"  SpMV {k:42s} {us:10.1f} us")

    symmetric = S.shape[0] == S.shape[1] and abs(S - S.T).max() == 0
    b = np.random.default_rng(2).uniform(0, 1, S.shape[0])
    ours, theirs = (packsell.linalg.cg, spla.cg) if symmetric else \
        (packsell.linalg.bicgstab, spla.bicgstab)
    name = "CG" if symmetric else "BiCGStab"
    histories = {}
    x, info = ours(M, b, tol=a.tol)
    r = info.result
    print(f"  packsell {name} (Jacobi) cpu: {r.reason}, {r.iterations} iterations, "
          f"solve {r.times['solve']:.4f} s, setup {r.times['total'] - r.times['solve']:.4f} s, "
          f"relres {r.relres_unscaled:.2e}")
    histories[f"packsell {name} cpu"] = r.residuals
    t, h = scipy_solve(theirs, S, b, a.tol)
    print(f"  scipy {name} (no preconditioner) cpu: {len(h) - 1} iterations, {t:.4f} s")
    histories[f"scipy {name}"] = h
    solves = [(f"packsell {name} cpu", r.times["solve"]), (f"scipy {name}", t)]
    if gpu:
        import cupy as cp
        import cupyx.scipy.sparse as csp
        import cupyx.scipy.sparse.linalg as cla

        C = csp.csr_matrix(S)
        bd = cp.asarray(b)
        x, info = ours(C, bd, tol=a.tol)
        r = info.result
        print(f"  packsell {name} gpu: {r.reason}, {r.iterations} iterations, "
              f"solve {r.times['solve']:.4f} s")
        histories[f"packsell {name} gpu"] = r.residuals
        solves.append((f"packsell {name} gpu", r.times["solve"]))
        # cupyx has CG and GMRES (no BiCGStab)
        cname = "CG" if symmetric else "GMRES"
        t, h = scipy_solve(cla.cg, C, bd, a.tol, cp) if symmetric else \
            scipy_solve(cla.gmres, C, bd, a.tol, cp, callback_type="x")
        print(f"  cupyx {cname} gpu: {len(h) - 1} iterations, {t:.4f} s")
        histories[f"cupyx {cname}"] = h
        solves.append((f"cupyx {cname}", t))

    try:
        import matplotlib
    except ImportError:
        print("matplotlib is not installed: no plot (pip install matplotlib)")
        return
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(1, 3, figsize=(17, 5.5), gridspec_kw={"width_ratios": [2, 1, 1.4]})
    ax[0].barh([k for k, _ in timings], [us for _, us in timings], color="tab:blue")
    ax[0].invert_yaxis()
    ax[0].set_xlabel("SpMV time (us, median)")
    ax[0].set_title(f"y = A x, {pathlib.Path(a.matrix).name}")
    ax[1].barh([k for k, _ in solves], [s for _, s in solves], color="tab:green")
    ax[1].invert_yaxis()
    ax[1].set_xlabel("solve time (s)")
    ax[1].set_title(f"{name} to {a.tol:g}")
    for (name_, h), style in zip(histories.items(), ["-", "--", "-.", ":"]):
        ax[2].semilogy(np.arange(len(h)), np.maximum(h, 1e-17), style, label=name_)
    ax[2].axhline(a.tol, color="gray", lw=0.8, ls="--")
    ax[2].set_xlabel("iteration")
    ax[2].set_ylabel("relative residual")
    ax[2].legend()
    ax[2].set_title("residual history")
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
