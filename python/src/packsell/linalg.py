"""linalg.py -- packsell.linalg: the library's Krylov solvers (psl_solve)
with SciPy's calling habits: cg, fcg, iocg, gmres, fgmres, bicgstab and f3r
take (A, b, x0=None, *, tol, maxiter, precond, callback, ...) and return
(x, info), info being 0 (converged), the iterations run (not converged) or
-1 (breakdown), as scipy.sparse.linalg does; info.result is a SolveResult
with the iterations, the residual history and the times.

psl_solve scales the system symmetrically when asked (scale=True, the
default of iocg and f3r: Gbar^-1 A Gbar^-1, gbar_i = sqrt|a_ii|), builds the
preconditioner, solves on the CPU or a CUDA device and stops on the TRUE
relative residual ||b - A x|| / ||b|| < tol of the solved system, computed
in FP64."""
import dataclasses
import time

import numpy as np
import scipy.sparse as sp

from . import _cuda
from ._lib import check, cstr, ffi, lib
from ._options import convert_options, is_plain_csr
from .matrix import Matrix, _host_csr_from_scipy, _scalar

__all__ = ["cg", "fcg", "iocg", "gmres", "fgmres", "bicgstab", "f3r", "SolveResult", "SolveInfo"]


@dataclasses.dataclass
class SolveResult:
    """What a solve did.

    method, precond   the solver and preconditioner names
    reason            "converged", "max-iters", "indefinite", "nonfinite",
                      "stagnation", "rho-zero", "omega-zero" (psl_reason_name)
    converged         reason == "converged"
    iterations        outer iterations (GMRES, FGMRES, F3R: Arnoldi steps)
    inner_iterations  iterations inside the preconditioner (IOCG, F3R)
    relres            true ||b - A x|| / ||b|| of the solved (scaled) system, FP64
    relres_recursive  the residual the recurrence reached
    relres_unscaled   ||b - A x|| / ||b|| of the caller's A, b, x
    residuals         the relative residual after each outer iteration, from
                      iteration 0 (the recursive one; GMRES: the estimate); the
                      first 2^20 + 2 of them
    residual_iterations  the iteration number of each entry of residuals
    times             seconds: scale, convert, precond, upload (setup parts),
                      solve (the median over `repeat`), solve_min, solve_max,
                      total (the whole call, seen from Python)
    device            "cpu" or "cuda:N" """
    method: str
    precond: str
    reason: str
    converged: bool
    iterations: int
    inner_iterations: int
    relres: float
    relres_recursive: float
    relres_unscaled: float
    residuals: np.ndarray
    residual_iterations: np.ndarray
    times: dict
    device: str


class SolveInfo(int):
    """The `info` of (x, info): an int as SciPy's (0 converged, > 0 the
    iterations when not converged, -1 breakdown) with the SolveResult as
    info.result."""

    def __new__(cls, value, result):
        self = super().__new__(cls, value)
        self.result = result
        return self

    def __repr__(self):
        return f"SolveInfo({int(self)}, reason={self.result.reason!r}, " \
               f"iterations={self.result.iterations})"


# most entries of a residual history (a longer solve keeps its first ones)
_HISTORY_MAX = 1 << 20

_METHODS = {"cg": "PSL_SOLVE_CG", "fcg": "PSL_SOLVE_FCG", "iocg": "PSL_SOLVE_IOCG",
            "gmres": "PSL_SOLVE_GMRES", "fgmres": "PSL_SOLVE_FGMRES",
            "bicgstab": "PSL_SOLVE_BICGSTAB", "f3r": "PSL_SOLVE_F3R"}
_PRECONDS = {"none": "PSL_PRECOND_NONE", "jacobi": "PSL_PRECOND_JACOBI",
             "sdainv": "PSL_PRECOND_SDAINV"}
_F3R_VARIANTS = {"fp64": "PSL_F3R_FP64", "fp16": "PSL_F3R_FP16", "packsell": "PSL_F3R_PACKSELL"}


def _system(A, device):
    """(FP64 CSR host handle, storage options or None, device ordinal) of A:
    a packsell.Matrix (solved as stored: its format becomes the outer
    matrix's storage, its values as stored), a scipy.sparse or a
    cupyx.scipy.sparse matrix."""
    if isinstance(A, Matrix):
        ordinal = A._device if device is None else _cuda.parse_device(device)
        storage = None
        if not is_plain_csr(A._i):
            storage = ffi.new("psl_convert_options *")
            lib.psl_convert_options_init(storage)
            i = A._i
            storage.format, storage.value_type, storage.codec = i.format, i.value_type, i.codec
            if i.format in (lib.PSL_FORMAT_SELL, lib.PSL_FORMAT_PACKSELL):
                storage.slice_height, storage.sigma = i.slice_height, i.sigma
        return A._fp64_csr(), storage, ordinal
    if sp.issparse(A):
        return _host_csr_from_scipy(A), None, _cuda.parse_device(device)
    if _cuda.have_cupy():
        import cupyx.scipy.sparse as csp

        if csp.issparse(A):
            own = A.data.device.id
            return (_host_csr_from_scipy(A.get()), None,
                    own if device is None else _cuda.parse_device(device))
    raise TypeError(f"A must be a packsell.Matrix or a scipy.sparse / cupyx.scipy.sparse "
                    f"matrix, not {type(A).__name__} (a LinearOperator cannot be solved by "
                    "packsell: its solvers need the matrix entries)")


def _vector(v, n, what):
    """(host float64 copy, was it a CuPy array) of b or x0, shape (n,) or (n, 1)."""
    gpu = _cuda.is_device_array(v)
    if gpu:
        v = _cuda.as_cupy(v).get()
    elif not isinstance(v, np.ndarray):
        v = np.asarray(v)
    if v.dtype.kind == "c":
        raise TypeError(f"{what} is complex; packsell solves real systems")
    if v.dtype.kind not in "fiub":
        raise TypeError(f"{what} has dtype {v.dtype}; expected a real floating type")
    if v.shape not in ((n,), (n, 1)):
        raise ValueError(f"{what} has shape {v.shape}; the matrix has {n} rows")
    return np.array(v.reshape(n), dtype=np.float64, order="C"), gpu


def _name_of(v, table, what):
    if v is None:
        v = "none"
    if not isinstance(v, str) or v.lower() not in table:
        raise ValueError(f"{what}={v!r} (expected one of {', '.join(table)}; a preconditioner "
                         "operator is not supported)" if what == "precond" else
                         f"{what}={v!r} (expected one of {', '.join(table)})")
    return v.lower()


def _int_arg(v, what, lo, hi):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{what} must be an int, not {type(v).__name__}")
    if not lo <= v <= hi:
        raise ValueError(f"{what}={v} is out of range ({lo}..{hi})")
    return int(v)


@ffi.def_extern()
def psl_py_callback(handle, iteration, relres):
    """The user's callback, called by the C monitor; an exception it raises
    is kept (and raised when psl_solve returns), the callback not called again."""
    state = ffi.from_handle(handle)
    if state["error"] is None:
        try:
            state["fn"](int(iteration), float(relres))
        except BaseException as e:  # noqa: B036 -- KeyboardInterrupt too, raised after the solve
            state["error"] = e


def _solve(method, A, b, x0, tol, rtol, atol, maxiter, precond, callback, device, vectors,
           scale, recursive_stop, repeat, sdainv_tol, sdainv_acc, tune):
    """Everything the solver functions share: checks (all before any C
    call that could fail on the data), the config, psl_solve, the result."""
    t0 = time.perf_counter()
    csr, storage, ordinal = _system(A, device)
    m, n = int(_lib_info(csr).nrows), int(_lib_info(csr).ncols)
    if m != n:
        raise ValueError(f"the matrix is {m} x {n}; a solve needs a square matrix")
    bh, b_gpu = _vector(b, n, "b")
    xh = np.zeros(n) if x0 is None else _vector(x0, n, "x0")[0]
    if tol is not None and rtol is not None:
        raise TypeError("give tol or rtol (the same thing), not both")
    t = _scalar(1e-5 if tol is None and rtol is None else (tol if tol is not None else rtol),
                "tol")
    a = _scalar(atol, "atol")
    if not t >= 0 or not a >= 0 or (t == 0 and a == 0):
        raise ValueError(f"tol={t}, atol={a}: both >= 0, one of them > 0")
    bnorm = float(np.linalg.norm(bh))
    if bnorm > 0 and a > 0:
        t = max(t, a / bnorm)  # SciPy's ||r|| <= max(rtol ||b||, atol)
    if callback is not None and not callable(callback):
        raise TypeError("callback must be callable: callback(iteration, relres)")
    pname = _name_of(precond, _PRECONDS, "precond")
    vname = _name_of(vectors, {"fp64": 0, "fp32": 0}, "vectors")

    cfg = ffi.new("psl_solve_config *")
    lib.psl_solve_config_init(cfg)
    cfg.method = getattr(lib, _METHODS[method])
    cfg.precond = getattr(lib, _PRECONDS[pname])
    cfg.solver.tol = t
    if maxiter is not None:
        cfg.solver.max_iters = _int_arg(maxiter, "maxiter", 1, 2**31 - 1)
    cfg.solver.vec_type = lib.PSL_FP64 if vname == "fp64" else lib.PSL_FP32
    cfg.scale = 1 if scale else 0
    cfg.solver.recursive_stop = 1 if recursive_stop else 0
    cfg.repeat = _int_arg(repeat, "repeat", 1, 1000)
    cfg.device = ordinal
    if sdainv_tol is not None:
        cfg.sdainv.drop_tol = _scalar(sdainv_tol, "sdainv_tol")
    if sdainv_acc is not None:
        cfg.sdainv.acc = _scalar(sdainv_acc, "sdainv_acc")
    if storage is not None:
        cfg.storage_auto = 0
        cfg.storage = storage[0]
    tune(cfg)

    # the history: one entry per outer iteration and one for iteration 0
    cap = min(int(cfg.solver.max_iters), _HISTORY_MAX) + 2
    its, res = np.empty(cap, dtype=np.int32), np.empty(cap)
    history = ffi.new("psl_py_history *")
    history.iter = ffi.cast("int32_t *", its.ctypes.data)
    history.relres = ffi.cast("double *", res.ctypes.data)
    history.cap = cap
    state = {"fn": callback, "error": None}
    handle = ffi.new_handle(state)
    history.py = handle if callback is not None else ffi.NULL
    cfg.solver.monitor = lib.psl_py_monitor
    cfg.solver.monitor_ctx = history
    rep = ffi.new("psl_solve_report *")
    st = lib.psl_solve(csr, ffi.cast("double *", bh.ctypes.data),
                       ffi.cast("double *", xh.ctypes.data), cfg, rep)
    if st not in (lib.PSL_OK, lib.PSL_ERR_NOT_CONVERGED, lib.PSL_ERR_BREAKDOWN):
        check(st)
    its, res = its[:history.n].copy(), res[:history.n].copy()
    if state["error"] is not None:
        raise state["error"]
    r = rep.result
    reason = cstr(lib.psl_reason_name(r.reason))
    result = SolveResult(
        method=method, precond=pname, reason=reason, converged=st == lib.PSL_OK,
        iterations=int(r.iterations), inner_iterations=int(r.inner_iterations),
        relres=float(r.relres), relres_recursive=float(r.relres_recursive),
        relres_unscaled=float(rep.relres_unscaled), residuals=res, residual_iterations=its,
        times={"scale": rep.scale_seconds, "convert": rep.convert_seconds,
               "precond": rep.precond_seconds, "upload": rep.upload_seconds,
               "solve": rep.solve_seconds, "solve_min": rep.solve_seconds_min,
               "solve_max": rep.solve_seconds_max, "total": time.perf_counter() - t0},
        device=_cuda.device_name(ordinal))
    info = 0 if st == lib.PSL_OK else (int(r.iterations) if st == lib.PSL_ERR_NOT_CONVERGED else -1)
    x = _cuda.cupy().asarray(xh) if b_gpu else xh
    return x, SolveInfo(info, result)


def _lib_info(handle):
    info = ffi.new("psl_matrix_info *")
    check(lib.psl_matrix_get_info(handle, info))
    return info


_COMMON_DOC = """
    A         packsell.Matrix (solved as stored: its format and values become
              the outer matrix's storage -- with scale=True the scaled matrix is
              rounded to that storage again; a CUDA matrix solves on its
              device), or a scipy.sparse / cupyx.scipy.sparse matrix (FP64:
              CSR on the CPU, SELL FP64 on a GPU)
    b, x0     NumPy or CuPy vectors (x is returned as b is: CuPy for CuPy)
    tol       relative residual to reach (rtol: the same; default 1e-5 as
              SciPy), on the true residual ||b - A x|| / ||b|| (FP64) of the
              solved system (the scaled one with scale=True)
    atol      absolute residual: stop at max(tol ||b||, atol), as SciPy
    maxiter   iteration limit (default 10000)
    precond   "jacobi" (default), "sdainv" or "none"/None
    callback  callback(iteration, relres) after each outer iteration (and
              once at iteration 0); not SciPy's callback(xk): the iterate
              stays on the device. An exception it raises is re-raised when
              the solve has ended.
    device    where to solve: None (A's device when A is on a GPU, else b's),
              "cpu", "cuda", "cuda:N", N
    vectors   "fp64" (default) or "fp32": the outer vectors
    scale     solve the symmetrically scaled system Gbar^-1 A Gbar^-1 y =
              Gbar^-1 b (gbar_i = sqrt|a_ii|), tol then applying to ITS residual
              (result.relres_unscaled is the caller's). Default: True for
              iocg and f3r, whose FP32/FP16 inner matrices need the values
              scaled; False for the others, so that tol holds on the caller's
              ||b - A x|| / ||b|| as in SciPy (Jacobi preconditioning gives
              CG the same iterates as scaling does)
    recursive_stop  stop on the recursive residual without the true check
    repeat    solves after one setup, for timing (the median is reported)
    sdainv_tol, sdainv_acc  SD-AINV drop tolerance (0.1) and diagonal factor (1.0)
    Returns (x, info): info 0 converged, > 0 not converged (its iterations),
    -1 breakdown; info.result is the SolveResult."""


def _make(method, extra_doc, defaults, tune_fn):
    def solver(A, b, x0=None, *, tol=None, rtol=None, atol=0.0, maxiter=None,
               precond="jacobi" if method != "f3r" else "sdainv", callback=None, device=None,
               vectors="fp64", scale=None, recursive_stop=False, repeat=1, sdainv_tol=None,
               sdainv_acc=None, **kwargs):
        unknown = set(kwargs) - set(defaults)
        if unknown:
            raise TypeError(f"{method}() got unexpected keyword argument(s) "
                            f"{', '.join(sorted(unknown))}")
        opts = dict(defaults, **kwargs)
        on_gpu = isinstance(A, Matrix) and A._device >= 0
        if device is None and not on_gpu and _cuda.is_device_array(b):  # b's device
            device = _cuda.as_cupy(b).device.id
        if scale is None:
            scale = method in ("iocg", "f3r")
        return _solve(method, A, b, x0, tol, rtol, atol, maxiter, precond, callback, device,
                      vectors, scale, recursive_stop, repeat, sdainv_tol, sdainv_acc,
                      lambda cfg: tune_fn(cfg, opts))

    solver.__name__ = solver.__qualname__ = method
    solver.__doc__ = extra_doc + _COMMON_DOC
    return solver


def _tune_none(cfg, o):
    pass


def _tune_fcg(cfg, o):
    cfg.solver.fcg_mmax = _int_arg(o["mmax"], "mmax", 1, 64)
    cfg.solver.fcg_restart = 1 if o["truncate_restart"] else 0


def _tune_iocg(cfg, o):
    _tune_fcg(cfg, o)
    cfg.inner_iters = _int_arg(o["inner_iters"], "inner_iters", 1, 100000)
    fmt = o["inner_format"]
    if fmt not in ("packsell", "sell"):
        raise ValueError(f"inner_format={fmt!r} (expected 'packsell' or 'sell')")
    values = o["inner_values"] or ("e8m14" if fmt == "packsell" else "fp32")
    if fmt == "sell" and values not in ("fp32", "fp16"):
        raise ValueError(f"inner_values={values!r} for sell (expected 'fp32' or 'fp16')")
    opt, _ = convert_options(fmt, values)
    cfg.inner_storage = opt[0]


def _tune_gmres(cfg, o):
    cfg.solver.restart = _int_arg(o["restart"], "restart", 1, lib.PSL_GMRES_RESTART_MAX)


def _tune_f3r(cfg, o):
    if cfg.solver.vec_type != lib.PSL_FP64:
        raise ValueError("f3r: vectors must be 'fp64' (its inner layers are set by variant)")
    v = o["variant"]
    if v not in _F3R_VARIANTS:
        raise ValueError(f"variant={v!r} (expected one of {', '.join(_F3R_VARIANTS)})")
    cfg.f3r.variant = getattr(lib, _F3R_VARIANTS[v])
    cfg.f3r.m1 = _int_arg(o["restart"], "restart", 1, lib.PSL_GMRES_RESTART_MAX)
    cfg.f3r.m2 = _int_arg(o["m2"], "m2", 1, lib.PSL_GMRES_RESTART_MAX)
    cfg.f3r.m3 = _int_arg(o["m3"], "m3", 1, lib.PSL_GMRES_RESTART_MAX)
    cfg.f3r.m4 = _int_arg(o["m4"], "m4", 1, 1000)
    cfg.f3r.c = _int_arg(o["richardson_c"], "richardson_c", 1, 2**31 - 1)


cg = _make("cg", "Preconditioned conjugate gradients for a symmetric positive definite A.\n",
           {}, _tune_none)
fcg = _make("fcg", "Flexible CG (Notay): mmax directions kept (default 1); "
            "truncate_restart=True: Notay's truncate-and-restart schedule.\n",
            {"mmax": 1, "truncate_restart": False}, _tune_fcg)
iocg = _make("iocg", "Inner-outer CG: FCG outside, inner_iters (50) iterations of FP32 PCG "
             "inside on the matrix stored as inner_format ('packsell', default, or 'sell') "
             "with inner_values (packsell: 'e8m14' default, fp16, bf16, e8mY; sell: fp32, "
             "fp16). A symmetric positive definite.\n",
             {"inner_iters": 50, "inner_format": "packsell", "inner_values": None, "mmax": 1,
              "truncate_restart": False}, _tune_iocg)
gmres = _make("gmres", "GMRES(restart), right preconditioned; restart=30 Arnoldi steps per "
              "cycle (maxiter counts Arnoldi steps).\n", {"restart": 30}, _tune_gmres)
fgmres = _make("fgmres", "Flexible GMRES(restart).\n", {"restart": 30}, _tune_gmres)
bicgstab = _make("bicgstab", "BiCGStab, right preconditioned, for a nonsymmetric A.\n", {},
                 _tune_none)
f3r = _make("f3r", "F3R (Suzuki and Iwashita): FGMRES FP64 (restart = m1, default 100) over "
            "FGMRES FP32 (m2 = 8) over FGMRES FP32 with an FP16 matrix (m3 = 4) over "
            "adaptive Richardson FP16 (m4 = 2, richardson_c = 64); variant 'packsell' "
            "(default), 'fp16' or 'fp64'; precond (default 'sdainv') is layer 4's.\n",
            {"restart": 100, "m2": 8, "m3": 4, "m4": 2, "richardson_c": 64,
             "variant": "packsell"}, _tune_f3r)
