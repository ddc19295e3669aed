"""errors.py -- the packsell.Error hierarchy: one exception class per
libpacksell status code, each carrying the library's message
(psl_last_error) and, where the library gave them, the 1-based line of a
text file and the 0-based row and column.

Each class also derives from the built-in exception Python code would catch
for it (ValueError, OSError, MemoryError, ...), so `except ValueError` keeps
working around packsell calls."""
from ._lib import cstr, ffi, lib


class Error(Exception):
    """A libpacksell call failed. Attributes: status (the psl_status code),
    status_name (its psl_status_string), message (the library's message),
    line, row, col (None where they do not apply)."""

    def __init__(self, message, status=None, line=None, row=None, col=None):
        super().__init__(message)
        self.message = message
        self.status = status
        self.status_name = cstr(lib.psl_status_string(status)) if status is not None else ""
        self.line, self.row, self.col = line, row, col


class InvalidArgumentError(Error, ValueError):
    """An argument outside its documented range (PSL_ERR_INVALID_VALUE,
    PSL_ERR_NULL_POINTER, PSL_ERR_INVALID_HANDLE)."""


class WrongFormatError(Error, ValueError):
    """The operation is not defined for this matrix format (PSL_ERR_WRONG_FORMAT)."""


class InvalidMatrixError(Error, ValueError):
    """Inconsistent CSR arrays, or a diagonal a preconditioner cannot use
    (PSL_ERR_INVALID_MATRIX)."""


class NonFiniteError(Error, ValueError):
    """NaN or Inf among matrix values or a right-hand side (PSL_ERR_NONFINITE)."""


class CodecOverflowError(Error, OverflowError):
    """A value beyond the codec's largest finite value (PSL_ERR_CODEC_OVERFLOW)."""


class ParseError(Error, ValueError):
    """Malformed Matrix Market or generator spec text (PSL_ERR_PARSE)."""


class UnsupportedError(Error, ValueError):
    """Valid input of a kind the library does not handle, e.g. complex
    (PSL_ERR_UNSUPPORTED)."""


class FileCorruptError(Error, ValueError):
    """A binary file truncated, inconsistent or with a bad checksum (PSL_ERR_FILE_CORRUPT)."""


class FileVersionError(Error, ValueError):
    """A binary file written by an incompatible version (PSL_ERR_FILE_VERSION)."""


class FileIOError(Error, OSError):
    """Open, read or write failed (PSL_ERR_IO); the message has the errno text."""


class OutOfMemoryError(Error, MemoryError):
    """An allocation failed, or a matrix would not fit (PSL_ERR_OUT_OF_MEMORY)."""


class SizeOverflowError(Error, OverflowError):
    """A size beyond the index types: int32 rows, int64 words (PSL_ERR_SIZE_OVERFLOW)."""


class NotSupportedError(Error, NotImplementedError):
    """A feature not compiled in, e.g. CUDA in a CPU build (PSL_ERR_NOT_SUPPORTED)."""


class CudaError(Error, RuntimeError):
    """A CUDA runtime or cuSPARSE call failed (PSL_ERR_CUDA)."""


class NotConvergedError(Error, RuntimeError):
    """A solve stopped at its iteration limit (PSL_ERR_NOT_CONVERGED). The
    packsell.linalg functions report it through `info` instead."""


class BreakdownError(Error, RuntimeError):
    """A solve broke down (PSL_ERR_BREAKDOWN). The packsell.linalg functions
    report it through `info` instead."""


class InternalError(Error, RuntimeError):
    """A bug in libpacksell (PSL_ERR_INTERNAL): please report it."""


_CLASSES = {
    lib.PSL_ERR_NULL_POINTER: InvalidArgumentError,
    lib.PSL_ERR_INVALID_VALUE: InvalidArgumentError,
    lib.PSL_ERR_INVALID_HANDLE: InvalidArgumentError,
    lib.PSL_ERR_WRONG_FORMAT: WrongFormatError,
    lib.PSL_ERR_INVALID_MATRIX: InvalidMatrixError,
    lib.PSL_ERR_NONFINITE: NonFiniteError,
    lib.PSL_ERR_CODEC_OVERFLOW: CodecOverflowError,
    lib.PSL_ERR_PARSE: ParseError,
    lib.PSL_ERR_UNSUPPORTED: UnsupportedError,
    lib.PSL_ERR_FILE_CORRUPT: FileCorruptError,
    lib.PSL_ERR_FILE_VERSION: FileVersionError,
    lib.PSL_ERR_IO: FileIOError,
    lib.PSL_ERR_OUT_OF_MEMORY: OutOfMemoryError,
    lib.PSL_ERR_SIZE_OVERFLOW: SizeOverflowError,
    lib.PSL_ERR_NOT_SUPPORTED: NotSupportedError,
    lib.PSL_ERR_CUDA: CudaError,
    lib.PSL_ERR_NOT_CONVERGED: NotConvergedError,
    lib.PSL_ERR_BREAKDOWN: BreakdownError,
    lib.PSL_ERR_INTERNAL: InternalError,
}


def error_class(status):
    """The packsell.Error subclass of a psl_status code (Error itself for a
    code this version does not know)."""
    return _CLASSES.get(int(status), Error)


def error_from_status(status):
    """The exception of a failed call: read psl_last_error on this thread
    right after the call."""
    info = ffi.new("psl_error_info *")
    lib.psl_last_error(info)
    message = cstr(info.message) or cstr(lib.psl_status_string(status))

    def field(v):
        return None if v < 0 else int(v)

    return error_class(status)(message, status=int(status), line=field(info.line),
                               row=field(info.row), col=field(info.col))
