"""_cuda.py -- CuPy, imported only when asked for: recognising device
arrays (__cuda_array_interface__), their device, CuPy's current stream, and
the device argument ("cpu", "cuda", "cuda:N", N)."""
from ._lib import check, ffi, lib

_cupy = None


def cupy():
    """The cupy module, or an ImportError saying what needs it."""
    global _cupy
    if _cupy is None:
        try:
            import cupy as cp
        except ImportError as e:
            raise ImportError("packsell on a GPU needs CuPy (pip install cupy-cuda12x)") from e
        _cupy = cp
    return _cupy


def have_cupy():
    """True when CuPy can be imported."""
    try:
        cupy()
        return True
    except ImportError:
        return False


def is_device_array(x):
    """True for an array in GPU memory (CuPy, or anything with __cuda_array_interface__)."""
    if _cupy is not None and isinstance(x, _cupy.ndarray):
        return True
    return hasattr(x, "__cuda_array_interface__")


def may_overlap(a, b):
    """True when the memory spans of two CuPy arrays intersect."""
    def span(v):
        lo = hi = v.data.ptr
        for n, st in zip(v.shape, v.strides):
            if n == 0:
                return (0, 0)
            lo, hi = (lo + (n - 1) * st, hi) if st < 0 else (lo, hi + (n - 1) * st)
        return (lo, hi + v.itemsize)
    (a0, a1), (b0, b1) = span(a), span(b)
    return a0 < b1 and b0 < a1


def as_cupy(x):
    """x as a CuPy array without a copy (CuPy arrays are returned as they are)."""
    cp = cupy()
    return x if isinstance(x, cp.ndarray) else cp.asarray(x)


def stream_ptr():
    """CuPy's current stream as the void* the library takes (0: the legacy
    default stream, also without CuPy)."""
    return cupy().cuda.get_current_stream().ptr if have_cupy() else 0


def current_device():
    return cupy().cuda.runtime.getDevice()


def device_count():
    """CUDA devices libpacksell sees (NotSupportedError in a CPU-only build)."""
    n = ffi.new("int *")
    check(lib.psl_cuda_device_count(n))
    return n[0]


def parse_device(device):
    """-1 for the CPU, else a CUDA device ordinal that exists."""
    if device is None or (isinstance(device, str) and device.strip().lower() == "cpu"):
        return -1
    if isinstance(device, bool):
        raise TypeError("device must be 'cpu', 'cuda', 'cuda:N' or an int")
    if isinstance(device, int):
        if device == -1:  # the CPU, as parse_device returns it
            return -1
        ordinal = device
    elif isinstance(device, str) and device.strip().lower().startswith("cuda"):
        rest = device.strip().lower()[4:]
        if rest == "":
            ordinal = None
        elif rest.startswith(":") and rest[1:].isdigit():
            ordinal = int(rest[1:])
        else:
            raise ValueError(f"device={device!r} (expected 'cpu', 'cuda' or 'cuda:N')")
    else:
        raise ValueError(f"device={device!r} (expected 'cpu', 'cuda', 'cuda:N' or an int)")
    n = device_count()
    if n == 0:
        raise ValueError(f"device={device!r}: no CUDA device is present")
    if ordinal is None:  # "cuda": CuPy's current device, else 0
        try:
            ordinal = current_device()
        except ImportError:
            ordinal = 0
    if not 0 <= ordinal < n:
        raise ValueError(f"device={device!r}: there are {n} CUDA devices")
    return ordinal


def device_name(ordinal):
    return "cpu" if ordinal < 0 else f"cuda:{ordinal}"


def available():
    """True when libpacksell was built with CUDA and a device is present."""
    try:
        return device_count() > 0
    except Exception:
        return False
