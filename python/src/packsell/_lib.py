"""_lib.py -- the compiled cffi module (ffi, lib) and the one status check
that turns a failing libpacksell call into a packsell.Error."""
from ._packsell_cffi import ffi, lib  # noqa: F401  (built by CMake, see build_ffi.py)


def check(status):
    """Raise the packsell.Error of a non-zero psl_status, with the library's
    message of the call that just failed on this thread."""
    if status != lib.PSL_OK:
        from .errors import error_from_status

        raise error_from_status(status)


def cstr(ptr):
    """A C string of the library as a Python str ('' for NULL)."""
    return ffi.string(ptr).decode("utf-8", "replace") if ptr != ffi.NULL else ""
