"""matrix.py -- packsell.Matrix: one sparse matrix in one storage format
(CSR, SELL-C-sigma, PackSELL, CSR-k) on the CPU or a CUDA device, built from
SciPy or CuPy matrices, multiplied with NumPy or CuPy vectors (FP64, FP32,
FP16), and handed to scipy.sparse.linalg / cupyx as a LinearOperator."""
import math
import os

import numpy as np
import scipy.sparse as sp

from . import _cuda
from ._lib import check, cstr, ffi, lib
from ._options import (PRECISIONS, convert_options, is_plain_csr, values_dtype, values_name,
                       vector_type)

_INT32_MAX = 2**31 - 1


def _new_matrix(fn, *args):
    """A psl_matrix handle made by fn(&A, *args), freed with the Python object."""
    p = ffi.new("psl_matrix **")
    check(fn(p, *args))
    return ffi.gc(p[0], lib.psl_py_matrix_free)


def _new_dmatrix(fn, *args):
    p = ffi.new("psl_dmatrix **")
    check(fn(p, *args))
    return ffi.gc(p[0], lib.psl_py_dmatrix_free)


def _ptr(a):
    """The data of a C-contiguous NumPy array as a C pointer (ffi.from_buffer:
    a tenth of the cost of a.ctypes.data, which matters for small products)."""
    return ffi.from_buffer(a)


def _dptr(a):
    """The device pointer of a CuPy array."""
    return ffi.cast("void *", a.data.ptr)


def _check_shape(shape):
    m, n = shape
    if m > _INT32_MAX or n > _INT32_MAX:
        raise ValueError(f"a {m} x {n} matrix: packsell's rows and columns are int32 "
                         f"(at most {_INT32_MAX})")


def _csr_arrays(indptr, indices, data, xp):
    """indptr (int64), indices (int32), values (float64 or float32) as the
    library takes them; other real dtypes become float64, complex is refused."""
    if data.dtype.kind == "c":
        raise TypeError("complex matrices are not supported (packsell values are real)")
    if data.dtype.kind not in "fiub":
        raise TypeError(f"matrix values of dtype {data.dtype} are not supported")
    if data.dtype not in (np.float64, np.float32):
        data = data.astype(np.float64)
    return (xp.ascontiguousarray(indptr, dtype=np.int64),
            xp.ascontiguousarray(indices, dtype=np.int32), xp.ascontiguousarray(data))


def _host_csr_from_scipy(A):
    """A new FP64 CSR psl_matrix from any scipy.sparse matrix (columns sorted,
    duplicates summed by the library, explicit zeros kept)."""
    if not sp.issparse(A):
        raise TypeError(f"expected a scipy.sparse matrix, got {type(A).__name__}")
    _check_shape(A.shape)
    C = A.tocsr()
    indptr, indices, data = _csr_arrays(C.indptr, C.indices, C.data, np)
    vt = lib.PSL_FP64 if data.dtype == np.float64 else lib.PSL_FP32
    return _new_matrix(lib.psl_matrix_create_csr, C.shape[0], C.shape[1],
                       ffi.from_buffer("int64_t[]", indptr), ffi.from_buffer("int32_t[]", indices),
                       _ptr(data), vt, 0, 0)


def _info(handle, device):
    info = ffi.new("psl_matrix_info *")
    if device < 0:
        check(lib.psl_matrix_get_info(handle, info))
    else:
        check(lib.psl_dmatrix_get_info(handle, info))
    return info


def _omp_threads():
    """The OpenMP threads psl_spmv will use: OMP_NUM_THREADS's first value,
    else the CPUs this process may run on."""
    try:
        n = int(os.environ.get("OMP_NUM_THREADS", "").split(",")[0])
    except ValueError:
        n = 0
    if n < 1:
        n = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, n or 1)


def _choose(csr, precision, device):
    """The chooser's pick for an FP64 CSR host matrix: for a GPU
    (psl_choose_format) with the model of `device`, for the CPU
    (psl_choose_format_cpu) with the default CPU model and this process's
    OpenMP threads (the read bandwidth the default model's)."""
    choice = ffi.new("psl_choice *")
    prec = getattr(lib, PRECISIONS[precision])
    if device >= 0:
        model = ffi.new("psl_device_model *")
        check(lib.psl_device_model_query(model, device, 0))
        check(lib.psl_choose_format(csr, prec, model, choice))
    else:
        model = ffi.new("psl_cpu_model *")
        check(lib.psl_cpu_model_default(model))
        model.threads = _omp_threads()
        check(lib.psl_choose_format_cpu(csr, prec, model, choice))
    opt = ffi.new("psl_convert_options *")
    opt[0] = choice.opt
    return opt


class _on_device:
    """Context: the matrix's CUDA device current (CuPy's), restored after."""

    def __init__(self, ordinal):
        self.ordinal = ordinal
        self.ctx = None

    def __enter__(self):
        if not _cuda.have_cupy():
            if self.ordinal != 0:
                _cuda.cupy()  # the ImportError: without CuPy only device 0 is reachable
            return
        if _cuda.current_device() != self.ordinal:
            self.ctx = _cuda.cupy().cuda.Device(self.ordinal)
            self.ctx.__enter__()

    def __exit__(self, *exc):
        if self.ctx is not None:
            self.ctx.__exit__(*exc)


class Matrix:
    """A sparse matrix stored by libpacksell in one format, on the CPU or on
    one CUDA device. Make one with Matrix.from_scipy, Matrix.from_cupy,
    packsell.load or packsell.generate.

    Attributes: shape, nnz, ndim, dtype (the smallest NumPy type holding the
    stored values exactly: float64, float32 or float16), format ("csr",
    "sell", "packsell", "csrk"), values ("fp64", "fp32", "fp16", "bf16",
    "e8m14", ...), device ("cpu" or "cuda:N").
    `A @ x` and A.matvec(x, out, alpha, beta) compute alpha*A*x + beta*out."""

    ndim = 2
    __array_priority__ = 20  # numpy defers `x @ A`-style mixing to us (refused below)

    def __init__(self, *args, **kwargs):
        raise TypeError("make a packsell.Matrix with Matrix.from_scipy, Matrix.from_cupy, "
                        "packsell.load or packsell.generate")

    @classmethod
    def _wrap(cls, handle, device=-1):
        self = object.__new__(cls)
        self._h = handle        # psl_matrix (CPU) or psl_dmatrix (CUDA)
        self._device = device   # -1: CPU; else the CUDA ordinal
        self._i = _info(handle, device)
        self._ws = {}           # GPU workspaces by (vector type, stream)
        self._order = None      # explicit sigma permutation: stored row -> original row
        if self._i.permute == lib.PSL_PERMUTE_EXPLICIT and self._i.format in (
                lib.PSL_FORMAT_SELL, lib.PSL_FORMAT_PACKSELL):
            host = handle if device < 0 else _download(handle, device)
            order = np.empty(self._i.nrows, dtype=np.int32)
            check(lib.psl_matrix_row_order(host, ffi.cast("int32_t *", order.ctypes.data)))
            self._order = order if device < 0 else _cuda.cupy().asarray(order)
        return self

    @classmethod
    def _from_csr(cls, csr, format=None, values=None, delta_bits=None, slice=None, sigma=None,
                  device="cpu", csrk_k=None, overflow="error"):
        """csr (an FP64 CSR host handle, or any host handle when format is
        None) converted as asked and moved to `device`."""
        ordinal = _cuda.parse_device(device)
        if format is not None:
            opt, precision = convert_options(format, values, delta_bits, slice, sigma, csrk_k,
                                             overflow)
            if not is_plain_csr(_info(csr, -1)):  # e.g. a binary file of another format
                csr = _new_matrix(lib.psl_matrix_to_csr, csr)
            if precision is not None:
                opt = _choose(csr, precision, ordinal)
            if not is_plain_csr(opt):
                csr = _new_matrix(lib.psl_matrix_convert, csr, opt)
        elif any(a is not None for a in (values, delta_bits, slice, sigma, csrk_k)):
            raise ValueError("values, delta_bits, slice, sigma and csrk_k need format=")
        if ordinal < 0:
            return cls._wrap(csr, -1)
        with _on_device(ordinal):
            return cls._wrap(_new_dmatrix(lib.psl_dmatrix_upload, csr,
                                          ffi.cast("void *", _cuda.stream_ptr())), ordinal)

    @classmethod
    def from_scipy(cls, A, format="packsell", values=None, delta_bits=None, slice=None,
                   sigma=None, device="cpu", csrk_k=None, overflow="error"):
        """A packsell.Matrix from any scipy.sparse matrix or array.

        format      "packsell" (default), "sell", "csr", "csrk", or "auto": the
                    chooser's pick for SpMV on `device` (psl_choose_format on
                    a GPU, psl_choose_format_cpu on the CPU) at the precision
                    `values` names (fp16 default, fp32, fp64)
        values      packsell: "fp16" (default), "bf16", "e8mY", "eXmY", or "eXm"
                    with delta_bits; sell: fp64 (default), fp32, fp16, bf16;
                    csr: fp64 (default), fp32; csrk: fp64 (default), fp32, fp16
        delta_bits  packsell: the delta bits D (must agree with values)
        slice       sell, packsell: the slice height C (default 32)
        sigma       sell, packsell: the sorting window (default 256; 0: none);
                    the sorting is implicit: A @ x is in the original row order
        device      "cpu" (default), "cuda", "cuda:N" or N
        csrk_k      csrk: levels 1, 2 or 3 (default 3)
        overflow    "error" (default) or "saturate": a value beyond the codec's
                    range fails (CodecOverflowError) or is stored as +-max
        Columns are sorted and duplicates summed; explicit zeros are kept."""
        _validate_format_args(format, device)
        return cls._from_csr(_host_csr_from_scipy(A), format, values, delta_bits, slice, sigma,
                             device, csrk_k, overflow)

    @classmethod
    def from_cupy(cls, A, format="packsell", values=None, delta_bits=None, slice=None,
                  sigma=None, device=None, csrk_k=None, overflow="error"):
        """A packsell.Matrix from a cupyx.scipy.sparse matrix, built on its GPU
        (psl_dmatrix_convert on CuPy's current stream; no host copy except for
        format="auto", whose chooser reads the matrix on the host). Arguments
        as from_scipy; device defaults to the matrix's device ("cpu" builds it
        on the host instead)."""
        cp = _cuda.cupy()
        import cupyx.scipy.sparse as csp

        if not csp.issparse(A):
            raise TypeError(f"expected a cupyx.scipy.sparse matrix, got {type(A).__name__}")
        _check_shape(A.shape)
        own = A.data.device.id
        ordinal = own if device is None else _cuda.parse_device(device)
        if ordinal < 0 or format == "auto" or format == "csrk":
            # the chooser reads the matrix on the host; CSR-k has no device build
            return cls.from_scipy(A.get(), format, values, delta_bits, slice, sigma,
                                  "cpu" if ordinal < 0 else ordinal, csrk_k, overflow)
        if ordinal != own:
            raise ValueError(f"the matrix is on cuda:{own}; device={device!r} asks for another "
                             "device (move it with CuPy first)")
        opt, _ = convert_options(format, values, delta_bits, slice, sigma, csrk_k, overflow)
        with _on_device(own):
            C = A.tocsr()
            if not C.has_canonical_format:
                C = C.copy()
                C.sum_duplicates()  # sorted columns, no duplicates: what the device build needs
            if not C.has_sorted_indices:
                C = C.copy()
                C.sort_indices()
            indptr, indices, data = _csr_arrays(C.indptr, C.indices, C.data, cp)
            d = ffi.new("psl_dcsr *")
            d.nrows, d.ncols, d.nnz = C.shape[0], C.shape[1], int(data.size)
            d.row_ptr = ffi.cast("int64_t *", indptr.data.ptr)
            d.col_idx = ffi.cast("int32_t *", indices.data.ptr)
            d.values = _dptr(data)
            d.value_type = lib.PSL_FP64 if data.dtype == np.float64 else lib.PSL_FP32
            handle = _new_dmatrix(lib.psl_dmatrix_convert, d, opt,
                                  ffi.cast("void *", _cuda.stream_ptr()))
            return cls._wrap(handle, own)

    # ---- properties

    @property
    def shape(self):
        return (int(self._i.nrows), int(self._i.ncols))

    @property
    def nnz(self):
        return int(self._i.nnz)

    @property
    def dtype(self):
        return values_dtype(self._i)

    @property
    def format(self):
        return cstr(lib.psl_format_name(self._i.format))

    @property
    def values(self):
        return values_name(self._i)

    @property
    def device(self):
        return _cuda.device_name(self._device)

    def info(self):
        """The statistics of `packsell info --json` as a dict: rows, cols,
        nnz, max_row_nnz, mean_row_nnz, rsd, kleft, format, values, C, sigma,
        permute, nslices, D, words, dummies, stored, padding, underflows,
        bytes, sell_bytes, csr_bytes, ratio_sell, ratio_csr (None where a
        field does not apply), the csrk_* fields for CSR-k, and device."""
        i = self._i
        sliced = i.format in (lib.PSL_FORMAT_SELL, lib.PSL_FORMAT_PACKSELL)
        packed = i.format == lib.PSL_FORMAT_PACKSELL
        d = {"rows": int(i.nrows), "cols": int(i.ncols), "nnz": int(i.nnz),
             "max_row_nnz": int(i.max_row_nnz), "mean_row_nnz": float(i.mean_row_nnz),
             "rsd": float(i.rsd), "kleft": int(i.kleft), "format": self.format,
             "values": self.values,
             "C": int(i.slice_height) if sliced else None,
             "sigma": int(i.sigma) if sliced else None,
             "permute": ("explicit" if i.permute == lib.PSL_PERMUTE_EXPLICIT else "implicit")
             if sliced else None,
             "nslices": int(i.nslices) if sliced else None,
             "D": int(i.delta_bits) if packed else None,
             "words": int(i.stored) if packed else None,
             "dummies": int(i.dummies) if packed else None}
        if i.format == lib.PSL_FORMAT_CSRK:
            d.update(csrk_k=int(i.csrk_k), csrk_super_rows=int(i.csrk_super_rows),
                     csrk_super_super_rows=int(i.csrk_super_super_rows),
                     csrk_overhead_bytes=int(i.csrk_overhead_bytes),
                     csrk_perm_bytes=int(i.csrk_perm_bytes),
                     csrk_overhead_share=i.csrk_overhead_bytes / i.csr_bytes
                     if i.csr_bytes > 0 else 0.0)
        d.update(stored=int(i.stored) if sliced else int(i.nnz),
                 padding=int(i.padding) if sliced else 0, underflows=int(i.underflows),
                 bytes=int(i.bytes), sell_bytes=int(i.sell_bytes), csr_bytes=int(i.csr_bytes),
                 ratio_sell=i.bytes / i.sell_bytes if i.sell_bytes > 0 else None,
                 ratio_csr=i.bytes / i.csr_bytes if i.csr_bytes > 0 else None,
                 device=self.device)
        return d

    def __repr__(self):
        m, n = self.shape
        slicing = ""
        if self._i.format in (lib.PSL_FORMAT_SELL, lib.PSL_FORMAT_PACKSELL):
            slicing = f", C={self._i.slice_height}, sigma={self._i.sigma}"
        return (f"<packsell.Matrix {m}x{n}, {self.nnz} nonzeros, {self.format} {self.values}"
                f"{slicing}, {self.device}>")

    # ---- conversions

    def _host(self):
        """The host handle (downloaded for a device matrix)."""
        return self._h if self._device < 0 else _download(self._h, self._device)

    def _fp64_csr(self):
        """An FP64 CSR host handle of the values as stored, original row order."""
        if self._device < 0 and is_plain_csr(self._i):
            return self._h
        return _new_matrix(lib.psl_matrix_to_csr, self._host())

    def to_scipy(self):
        """The matrix as a scipy.sparse.csr_array of float64: the values as
        stored (rounded to the codec), original row order, explicit zeros
        kept, padding and dummy words dropped."""
        csr = self._fp64_csr()
        rp = ffi.new("int64_t **")
        ci = ffi.new("int32_t **")
        va = ffi.new("double **")
        check(lib.psl_matrix_csr_view(csr, rp, ci, va))
        m, n = self.shape
        nnz = self.nnz

        def copy(ptr, count, dtype):
            if count == 0:
                return np.zeros(0, dtype=dtype)
            return np.frombuffer(ffi.buffer(ptr, count * np.dtype(dtype).itemsize),
                                 dtype=dtype).copy()

        indptr = copy(rp[0], m + 1, np.int64)
        return sp.csr_array((copy(va[0], nnz, np.float64), copy(ci[0], nnz, np.int32), indptr),
                            shape=(m, n))

    def to_cupy(self):
        """The matrix as a cupyx.scipy.sparse.csr_matrix of float64 on the
        current CuPy device (the values as stored, as to_scipy)."""
        import cupyx.scipy.sparse as csp

        return csp.csr_matrix(self.to_scipy())

    def to(self, device):
        """The same matrix on `device` ("cpu", "cuda", "cuda:N", N): self when
        it is there already, else a copy."""
        ordinal = _cuda.parse_device(device)
        if ordinal == self._device:
            return self
        return Matrix._from_csr(self._host(), None, device=ordinal)

    # ---- products

    def __matmul__(self, x):
        return self.matvec(x)

    def __rmatmul__(self, x):
        return NotImplemented

    def dot(self, x):
        return self.matvec(x)

    def matvec(self, x, out=None, alpha=1.0, beta=0.0):
        """out = alpha * A @ x + beta * out, returned.

        x     NumPy array (CPU matrix) or CuPy array (CUDA matrix, on its
              device; computed on CuPy's current stream, asynchronously, no
              host copy) of shape (ncols,) or (ncols, k), dtype float64, float32
              or float16 (accumulation in FP64 for float64, FP32 otherwise; a
              CSR matrix on a GPU, cuSPARSE's, takes vectors of its value type
              only, FP32 values FP64 vectors too)
        out   None (a new array; beta must then be 0) or an array of x's kind
              and dtype, shape (nrows,) or (nrows, k), not overlapping x
        beta  0: out is not read."""
        alpha, beta = _scalar(alpha, "alpha"), _scalar(beta, "beta")
        on_gpu = _cuda.is_device_array(x)
        if on_gpu != (self._device >= 0):
            where = "a CUDA device array" if on_gpu else f"a host array ({type(x).__name__})"
            raise ValueError(f"x is {where} but the matrix is on {self.device} "
                             "(A.to(device) moves the matrix)")
        if on_gpu:
            return self._matvec_gpu(_cuda.as_cupy(x), out, alpha, beta)
        if not isinstance(x, np.ndarray):
            if sp.issparse(x):
                raise TypeError("A @ B with a sparse B is not supported; B must be a dense array")
            x = np.asarray(x)
        vt = vector_type(x.dtype)
        shape = self._check_operands(x, out, beta, np.ndarray)
        if out is None:
            out = np.empty(shape, dtype=x.dtype)
        elif not out.flags.writeable:
            raise ValueError("out is read-only")
        if np.may_share_memory(x, out):
            raise ValueError("out overlaps x (it may not)")
        if x.ndim == 1 and out.flags.c_contiguous and self._order is None:
            x = np.ascontiguousarray(x)
            check(lib.psl_spmv(alpha, self._h, _ptr(x), beta, _ptr(out), vt))
            return out
        for xc, yc in _columns(x, out):  # each column contiguous, y in stored order
            xc = np.ascontiguousarray(xc)
            yt = np.ascontiguousarray(yc if self._order is None else yc[self._order])
            check(lib.psl_spmv(alpha, self._h, _ptr(xc), beta, _ptr(yt), vt))
            if self._order is None:
                yc[...] = yt
            else:
                yc[self._order] = yt
        return out

    def _check_operands(self, x, out, beta, kind):
        m, n = self.shape
        if x.ndim not in (1, 2) or x.shape[0] != n:
            raise ValueError(f"x has shape {x.shape}; the matrix is {m} x {n}, so x needs "
                             f"shape ({n},) or ({n}, k)")
        shape = (m,) + x.shape[1:]
        if out is None:
            if beta != 0.0:
                raise ValueError("beta != 0 reads out: pass out=")
            return shape
        if not isinstance(out, kind):
            raise TypeError(f"out must be a {kind.__module__}.{kind.__name__} like x, "
                            f"not {type(out).__name__}")
        if out.shape != shape:
            raise ValueError(f"out has shape {out.shape}; expected {shape}")
        if out.dtype != x.dtype:
            raise TypeError(f"out has dtype {out.dtype} but x has {x.dtype}: they must agree")
        return shape

    def _workspace(self, vt, stream):
        key = (int(vt), stream)
        ws = self._ws.get(key)
        if ws is None:
            size = ffi.new("size_t *")
            check(lib.psl_dspmv_workspace_size(self._h, vt, size))
            cp = _cuda.cupy()
            ws = (cp.empty(max(int(size[0]), 1), dtype=cp.uint8), int(size[0]))
            self._ws[key] = ws
        return ws

    def _matvec_gpu(self, x, out, alpha, beta):
        cp = _cuda.cupy()
        vt = vector_type(x.dtype)
        if x.device.id != self._device:
            raise ValueError(f"x is on cuda:{x.device.id} but the matrix is on {self.device}")
        shape = self._check_operands(x, out, beta, cp.ndarray)
        with _on_device(self._device):
            if out is None:
                out = cp.empty(shape, dtype=x.dtype)
            elif out.device.id != self._device:
                raise ValueError(f"out is on cuda:{out.device.id} but the matrix is on {self.device}")
            if _cuda.may_overlap(x, out):
                raise ValueError("out overlaps x (it may not)")
            stream = _cuda.stream_ptr()
            ws, wsize = self._workspace(vt, stream)
            s = ffi.cast("void *", stream)
            if x.ndim == 1 and out.flags.c_contiguous and self._order is None:
                if not x.flags.c_contiguous:
                    x = cp.ascontiguousarray(x)
                check(lib.psl_dspmv(alpha, self._h, _dptr(x), beta, _dptr(out), vt, _dptr(ws),
                                    wsize, s))
                return out
            for xc, yc in _columns(x, out):
                xc = cp.ascontiguousarray(xc)
                yt = cp.ascontiguousarray(yc if self._order is None else yc[self._order])
                check(lib.psl_dspmv(alpha, self._h, _dptr(xc), beta, _dptr(yt), vt, _dptr(ws),
                                    wsize, s))
                if self._order is None:
                    yc[...] = yt
                else:
                    yc[self._order] = yt
            return out

    def as_linear_operator(self, dtype=np.float64):
        """A scipy.sparse.linalg.LinearOperator (CPU matrix) or a
        cupyx.scipy.sparse.linalg.LinearOperator (CUDA matrix) applying this
        matrix to vectors of `dtype` (float64, float32 or float16; inputs of
        another dtype are converted)."""
        dt = np.dtype(dtype)
        vector_type(dt, "dtype")
        if self._device < 0:
            from scipy.sparse.linalg import LinearOperator

            def mv(v):
                return self.matvec(np.asarray(v, dtype=dt))
        else:
            from cupyx.scipy.sparse.linalg import LinearOperator

            cp = _cuda.cupy()

            def mv(v):
                return self.matvec(cp.asarray(v, dtype=dt))
        return LinearOperator(self.shape, matvec=mv, matmat=mv, dtype=dt)


def _download(dhandle, device):
    with _on_device(device):
        return _new_matrix(lib.psl_dmatrix_download, dhandle,
                           ffi.cast("void *", _cuda.stream_ptr()))


def _columns(x, out):
    """(x column, out column) pairs of 1-D views."""
    if x.ndim == 1:
        return [(x, out)]
    return [(x[:, j], out[:, j]) for j in range(x.shape[1])]


def _scalar(v, what):
    try:
        f = float(v)
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be a real number, not {type(v).__name__}") from None
    if not math.isfinite(f):
        raise ValueError(f"{what}={v} is not finite")
    return f


def _validate_format_args(format, device):
    if format is not None and not isinstance(format, str):
        raise TypeError(f"format must be a str, not {type(format).__name__}")
    if isinstance(device, str) and device.strip().lower() not in ("cpu",) and \
            not device.strip().lower().startswith("cuda"):
        raise ValueError(f"device={device!r} (expected 'cpu', 'cuda', 'cuda:N' or an int)")
