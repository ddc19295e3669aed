"""bench_gpu.py -- the GPU figures of the Python package on HPCG_7_7_7 (2M
rows): A @ x on CuPy arrays per storage (CUDA events over 200 back-to-back
calls, the kernels `packsell bench --device cuda` times as packsell-fp16,
packsell-e8m20 and sell-fp64), and packsell.linalg.cg against
cupyx.scipy.sparse.linalg.cg (CSR FP64) to 1e-9. Run by run_gpu_tests.sh."""
import time

import cupy as cp
import cupyx.scipy.sparse as csp
import numpy as np
from cupyx.scipy.sparse.linalg import cg as cupyx_cg

import packsell


def spmv_figures(S):
    for fmt, values, dt in [("packsell", "fp16", np.float16), ("packsell", "e8m20", np.float32),
                            ("sell", "fp64", np.float64)]:
        D = packsell.Matrix.from_scipy(S, format=fmt, values=values, device="cuda")
        x = cp.asarray(np.random.default_rng(1).uniform(-1, 1, S.shape[1]).astype(dt))
        out = cp.empty(S.shape[0], dt)
        for _ in range(20):
            D.matvec(x, out=out)
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        for _ in range(200):
            D.matvec(x, out=out)
        stop.record()
        stop.synchronize()
        events_us = cp.cuda.get_elapsed_time(start, stop) / 200 * 1e3
        t0 = time.perf_counter()
        for _ in range(200):
            D @ x
        cp.cuda.get_current_stream().synchronize()
        wall_us = (time.perf_counter() - t0) / 200 * 1e6
        print(f"A @ x  {fmt}-{values} ({np.dtype(dt).name} x): {events_us:8.1f} us per call "
              f"(events, out=), {wall_us:8.1f} us per call (A @ x, new y, host clock)")


def cg_figures(S):
    C = csp.csr_matrix(S)
    b = cp.asarray(np.random.default_rng(2).uniform(0, 1, S.shape[0]))
    x, info = packsell.linalg.cg(C, b, tol=1e-9, repeat=5)
    r = info.result
    setup = sum(r.times[k] for k in ("scale", "convert", "precond", "upload"))
    t0 = time.perf_counter()
    packsell.linalg.cg(C, b, tol=1e-9)
    whole = time.perf_counter() - t0
    print(f"packsell.linalg.cg: {r.reason}, {r.iterations} iterations, solve {r.times['solve']:.4f} s "
          f"(median of 5), setup {setup:.4f} s, whole call {whole:.4f} s (host copies of A and b, "
          f"upload, solve), relres {r.relres:.2e}")

    def run():
        try:
            return cupyx_cg(C, b, rtol=1e-9, maxiter=10000)
        except TypeError:
            return cupyx_cg(C, b, tol=1e-9, maxiter=10000)
    run()
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        xs, infos = run()
        cp.cuda.get_current_stream().synchronize()
        times.append(time.perf_counter() - t0)
    rel = float(cp.linalg.norm(b - C @ xs) / cp.linalg.norm(b))
    t = float(np.median(times))
    print(f"cupyx cg (CSR FP64): info {infos}, {t:.4f} s (median of 3), relres {rel:.2e}")
    print(f"speed-up of packsell.linalg.cg: {t / r.times['solve']:.2f}x on the solve, "
          f"{t / whole:.2f}x on the whole call")


if __name__ == "__main__":
    S = packsell.generate("hpcg:7:7:7").to_scipy()
    print(f"HPCG_7_7_7: {S.shape[0]} rows, {S.nnz} nonzeros; {packsell.library_version()}")
    spmv_figures(S)
    cg_figures(S)
