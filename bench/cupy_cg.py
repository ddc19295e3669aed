#!/usr/bin/env python3
"""cupy_cg.py -- the CuPy peer of the solver benchmark: time
cupyx.scipy.sparse.linalg.cg (cuSPARSE CSR SpMV, FP64) with a Jacobi
preconditioner on the matrix and right-hand side that `packsell solve` gets.

  python3 bench/cupy_cg.py MATRIX [--rhs FILE] [--tol 1e-9] [--maxiter N]
                           [--repeat 5] [--warmup 1] [--json FILE] [--history FILE]

MATRIX: gen:hpcg:X:Y:Z or gen:lap3d:NX[:NY:NZ], built on the GPU as
ALGORITHMS.md 5 defines HPCG (row = iz*nx*ny + iy*nx + ix; the 27 neighbours
inside the grid, columns ascending; 26 on the diagonal, -1 off it) and as
`packsell gen` builds lap3d (6 and -1, the same row order); or a Matrix Market
file (scipy.io.mmread). A is not scaled: Jacobi on A is what PCG + Jacobi
on the unscaled system does (`packsell solve --precond jacobi --no-scale`).
b: the Matrix Market array in --rhs (solver_bench.py writes it, so both get
identical doubles), else uniform [0,1) from numpy's default_rng(1). x0 = 0.

CuPy's stopping rule (cupyx/scipy/sparse/linalg/_iterative.py, cg): after
each iteration it stops when the recursively updated residual satisfies
||r_k||_2 <= max(rtol * ||b||_2, atol): relative to ||b|| (not to ||r_0||;
the same here, x0 = 0), and on the recurrence, not on b - A x_k. The current
documentation's signature is cg(A, b, x0=None, *, rtol=1e-5, atol=0.0, ...),
as SciPy's since 1.12; older CuPy (the v10 documentation) take `tol`, with
atol=None meaning tol * ||b||. The script reads the signature, passes
rtol (or tol) = --tol and atol = 0, so either reads ||r_k|| <= tol * ||b||,
and then checks the true residual ||b - A x||_2 / ||b||_2 itself (reported
as relres and true_residual_below_tol). Iterations are counted by the
callback, which cg calls once per iteration before its test; the callback
adds no synchronisation, while cg reads ||r_k|| on the host every iteration
(one synchronisation per iteration, as our solver's check).

Timing: CUDA events around each cg call (the call's own setup of the cuSPARSE
descriptors included, A's transfer excluded), after --warmup untimed solves;
the median of --repeat solves is reported. --history solves once more
(untimed) with a callback that records the true relative residual of x_k.
--allow-cpu runs with NumPy/SciPy when CuPy is missing (to test the script).
"""
import argparse
import inspect
import json
import os
import statistics
import sys
import time


def load_backend(allow_cpu):
    try:
        import cupy as xp
        import cupyx.scipy.sparse as sp
        import cupyx.scipy.sparse.linalg as spla
        return xp, sp, spla, "cupy " + xp.__version__
    except ImportError:
        if not allow_cpu:
            raise
    import numpy as xp
    import scipy
    import scipy.sparse as sp
    import scipy.sparse.linalg as spla
    return xp, sp, spla, "scipy " + scipy.__version__ + " (CPU, --allow-cpu)"


def stencil_csr(xp, sp, dims, offsets, diag_value, off_value):
    """CSR of a stencil on an nx x ny x nz grid, ix fastest; offsets
    (sz, sy, sx) in ascending column order, (0, 0, 0) among them,
    neighbours outside the grid left out (no wrap)."""
    nx, ny, nz = dims
    n = nx * ny * nz
    idx = xp.arange(n, dtype=xp.int64)
    ix = idx % nx
    iy = (idx // nx) % ny
    iz = idx // (nx * ny)
    k = len(offsets)
    centre = offsets.index((0, 0, 0))
    cols = xp.empty((n, k), dtype=xp.int32)
    keep = xp.empty((n, k), dtype=xp.bool_)
    for j, (sz, sy, sx) in enumerate(offsets):
        keep[:, j] = ((ix + sx >= 0) & (ix + sx < nx) & (iy + sy >= 0) & (iy + sy < ny)
                      & (iz + sz >= 0) & (iz + sz < nz))
        cols[:, j] = (idx + (sz * nx * ny + sy * nx + sx)).astype(xp.int32)
    del idx, ix, iy, iz
    indptr = xp.zeros(n + 1, dtype=xp.int64)
    indptr[1:] = xp.cumsum(keep.sum(axis=1, dtype=xp.int64))
    # the diagonal's place in its row: the kept neighbours before it
    diag_pos = indptr[:-1] + keep[:, :centre].sum(axis=1, dtype=xp.int64)
    indices = cols[keep]          # row-major: row by row, columns ascending
    del cols, keep
    nnz = int(indptr[-1])
    data = xp.full(nnz, off_value, dtype=xp.float64)
    data[diag_pos] = diag_value
    del diag_pos
    if nnz >= 2 ** 31:
        raise SystemExit(f"cupy_cg: {nnz} nonzeros do not fit 32-bit CSR indices")
    return sp.csr_matrix((data, indices, indptr.astype(xp.int32)), shape=(n, n))


def hpcg(xp, sp, x, y, z):
    offs = [(sz, sy, sx) for sz in (-1, 0, 1) for sy in (-1, 0, 1) for sx in (-1, 0, 1)]
    nx, ny, nz = 2 ** x, 2 ** y, 2 ** z
    A = stencil_csr(xp, sp, (nx, ny, nz), offs, 26.0, -1.0)
    expect = (3 * nx - 2) * (3 * ny - 2) * (3 * nz - 2)
    if A.nnz != expect:
        raise RuntimeError(f"HPCG build: {A.nnz} nonzeros, expected {expect}")
    return A


def lap3d(xp, sp, nx, ny, nz):
    offs = [(-1, 0, 0), (0, -1, 0), (0, 0, -1), (0, 0, 0), (0, 0, 1), (0, 1, 0), (1, 0, 0)]
    return stencil_csr(xp, sp, (nx, ny, nz), offs, 6.0, -1.0)


def build_matrix(xp, sp, source):
    if source.startswith("gen:"):
        f = source[4:].split(":")
        if f[0] == "hpcg" and len(f) == 4:
            return hpcg(xp, sp, int(f[1]), int(f[2]), int(f[3]))
        if f[0] == "lap3d" and len(f) in (2, 4):
            nx = int(f[1])
            return lap3d(xp, sp, nx, int(f[2]) if len(f) == 4 else nx, int(f[3]) if len(f) == 4 else nx)
        raise SystemExit(f"cupy_cg: unsupported generator {source} (hpcg:X:Y:Z, lap3d:N[:NY:NZ])")
    import scipy.io
    import scipy.sparse
    A = scipy.sparse.csr_matrix(scipy.io.mmread(source), dtype="float64")
    A.sum_duplicates()
    A.sort_indices()
    return sp.csr_matrix(A) if sp.__name__.startswith("cupyx") else A


def read_rhs(path):
    """A Matrix Market array (one column) or coordinate n x 1 vector."""
    import numpy as np
    with open(path) as f:
        header = f.readline().lower().split()
        line = f.readline()
        while line.startswith("%"):
            line = f.readline()
        size = [int(v) for v in line.split()]
        if len(header) > 2 and header[2] == "coordinate":
            b = np.zeros(size[0])
            t = np.loadtxt(f, ndmin=2)
            b[t[:, 0].astype(np.int64) - 1] = t[:, 1]
            return b
        b = np.loadtxt(f, dtype=np.float64, ndmin=1)
    if b.shape[0] != size[0]:
        raise SystemExit(f"cupy_cg: {path} holds {b.shape[0]} values, its header says {size[0]}")
    return b


def main():
    ap = argparse.ArgumentParser(description="CuPy cg + Jacobi, timed (see the module text)")
    ap.add_argument("matrix")
    ap.add_argument("--rhs")
    ap.add_argument("--tol", type=float, default=1e-9)
    ap.add_argument("--maxiter", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--json")
    ap.add_argument("--history")
    ap.add_argument("--allow-cpu", action="store_true")
    args = ap.parse_args()

    xp, sp, spla, backend = load_backend(args.allow_cpu)
    on_gpu = xp.__name__ == "cupy"

    def sync():
        if on_gpu:
            xp.cuda.Device().synchronize()

    t0 = time.perf_counter()
    A = build_matrix(xp, sp, args.matrix)
    sync()
    t_build = time.perf_counter() - t0
    n = A.shape[0]
    import numpy as np
    if args.rhs:
        b_host = read_rhs(args.rhs)
        if b_host.shape[0] != n:
            raise SystemExit(f"cupy_cg: b has {b_host.shape[0]} values, A has {n} rows")
    else:
        b_host = np.random.default_rng(1).random(n)
    t0 = time.perf_counter()
    b = xp.asarray(b_host)
    diag = A.diagonal()
    if not bool((diag > 0).all()):
        raise SystemExit("cupy_cg: Jacobi needs a positive diagonal")
    dinv = 1.0 / diag
    sync()
    t_upload = time.perf_counter() - t0
    M = spla.LinearOperator((n, n), matvec=lambda v: dinv * v, dtype=np.float64)

    params = inspect.signature(spla.cg).parameters
    tol_kw = {"rtol": args.tol} if "rtol" in params else {"tol": args.tol}
    tol_kw["atol"] = 0.0
    count = [0]

    def counter(xk):
        count[0] += 1

    def solve(callback):
        count[0] = 0
        return spla.cg(A, b, x0=None, maxiter=args.maxiter, M=M, callback=callback, **tol_kw)

    for _ in range(args.warmup):
        solve(counter)
    sync()
    times, walls = [], []
    x = info = None
    for _ in range(args.repeat):
        if on_gpu:
            start, end = xp.cuda.Event(), xp.cuda.Event()
            sync()
            w0 = time.perf_counter()
            start.record()
            x, info = solve(counter)
            end.record()
            end.synchronize()
            walls.append(time.perf_counter() - w0)
            times.append(xp.cuda.get_elapsed_time(start, end) / 1e3)
        else:
            w0 = time.perf_counter()
            x, info = solve(counter)
            walls.append(time.perf_counter() - w0)
            times.append(walls[-1])
    iters = count[0]
    bnorm = float(xp.linalg.norm(b))
    relres = float(xp.linalg.norm(b - A @ x)) / bnorm
    hist = None
    if args.history:
        hist = [(0, 1.0)]

        def record(xk):
            hist.append((len(hist), float(xp.linalg.norm(b - A @ xk)) / bnorm))
        solve(record)
        with open(args.history, "w") as f:
            f.write("iteration,relres\n")
            for i, r in hist:
                f.write(f"{i},{r:.6e}\n")
    med = statistics.median(times)
    status = "converged" if int(info) == 0 else ("max-iters" if int(info) > 0 else "breakdown")
    out = {
        "command": " ".join([os.path.basename(sys.argv[0])] + sys.argv[1:]),
        "peer": backend,
        "cg_tolerance_keyword": "rtol" if "rtol" in params else "tol",
        "stopping_rule": "recursive ||r_k||_2 <= max(tol*||b||_2, atol), atol = 0",
        "matrix": args.matrix, "nrows": n, "nnz": int(A.nnz),
        "method": "cg", "precond": "jacobi", "vectors": "fp64", "format": "csr-fp64",
        "device": "cuda" if on_gpu else "cpu", "scale": "none", "tol": args.tol,
        "max_iters": args.maxiter, "status": status, "info": int(info),
        "iterations": iters, "inner_iterations": 0, "relres": relres,
        "relres_unscaled": relres, "true_residual_below_tol": relres < args.tol,
        "setup_s": {"scale": 0.0, "convert": t_build, "precond": 0.0, "upload": t_upload},
        "solve_s": med, "solve_s_all": times, "wall_s_all": walls,
        "time_per_iteration_s": med / iters if iters else None,
        "warmup": args.warmup, "repeat": args.repeat,
    }
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    print(f"{args.matrix}: {backend} cg+Jacobi {status}, {iters} iterations, true relres "
          f"{relres:.3e}, solve {med:.4f} s (median of {args.repeat}), build {t_build:.2f} s")
    return 0 if status == "converged" else 1


if __name__ == "__main__":
    sys.exit(main())
