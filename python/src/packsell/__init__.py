"""packsell -- PackSELL, SELL-C-sigma, CSR and CSR-k sparse matrix-vector
products and Krylov solvers (libpacksell) for SciPy and CuPy users.

    import packsell, scipy.sparse as sp
    A = packsell.Matrix.from_scipy(sp.random(1000, 1000, 0.01, format="csr"))
    y = A @ x                                   # NumPy or CuPy x
    x, info = packsell.linalg.cg(S, b, tol=1e-9)  # S: SPD, scipy or packsell
"""
from . import linalg
from ._cuda import available as cuda_available
from ._lib import cstr as _cstr
from ._lib import lib as _lib
from .errors import (BreakdownError, CodecOverflowError, CudaError, Error, FileCorruptError,
                     FileIOError, FileVersionError, InternalError, InvalidArgumentError,
                     InvalidMatrixError, NonFiniteError, NotConvergedError, NotSupportedError,
                     OutOfMemoryError, ParseError, SizeOverflowError, UnsupportedError,
                     WrongFormatError)
from .io import generate, load, save
from .matrix import Matrix

__version__ = "0.1.0"


def library_version():
    """libpacksell's version string, e.g. "0.1.0 (openmp, cuda)"."""
    return _cstr(_lib.psl_version())


__all__ = ["Matrix", "load", "save", "generate", "linalg", "cuda_available", "library_version",
           "Error", "InvalidArgumentError", "WrongFormatError", "InvalidMatrixError",
           "NonFiniteError", "CodecOverflowError", "ParseError", "UnsupportedError",
           "FileCorruptError", "FileVersionError", "FileIOError", "OutOfMemoryError",
           "SizeOverflowError", "NotSupportedError", "CudaError", "NotConvergedError",
           "BreakdownError", "InternalError"]
