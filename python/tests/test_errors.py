"""test_errors.py -- bad input: rejected in Python before any C call for
dtypes, shapes and devices; library failures as packsell.Error subclasses
carrying the library's message, status and line/row/column."""
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.linalg import aslinearoperator

import packsell
from packsell._lib import lib
from conftest import random_matrix, spd_matrix


@pytest.fixture
def P():
    return packsell.Matrix.from_scipy(random_matrix(50, 40, 0.1, 1), format="packsell")


class FakeDeviceArray:
    """An object that says it lives in GPU memory."""
    __cuda_array_interface__ = {"shape": (40,), "typestr": "<f8", "data": (0, False),
                                "version": 3}


def test_every_status_has_its_class():
    codes = [getattr(lib, n) for n in dir(lib) if n.startswith("PSL_ERR_")]
    assert len(codes) >= 19
    for c in codes:
        cls = packsell.errors.error_class(c)
        assert issubclass(cls, packsell.Error) and cls is not packsell.Error
    assert len({packsell.errors.error_class(c) for c in codes}) >= 17


def test_x_dtype_shape_and_kind(P):
    with pytest.raises(TypeError, match="float64, float32 or float16"):
        P @ np.ones(40, dtype=np.int64)
    with pytest.raises(TypeError):
        P @ np.ones(40, dtype=np.complex128)
    with pytest.raises(ValueError, match=r"shape \(40,\)"):
        P @ np.ones(41)
    with pytest.raises(ValueError):
        P @ np.ones((40, 2, 2))
    with pytest.raises(ValueError, match="CUDA device array"):
        P @ FakeDeviceArray()
    with pytest.raises(TypeError):
        P @ sp.eye(40)


def test_out_checks(P):
    x = np.ones(40)
    with pytest.raises(TypeError, match="dtype"):
        P.matvec(x, out=np.zeros(50, dtype=np.float32))
    with pytest.raises(ValueError, match="shape"):
        P.matvec(x, out=np.zeros(49))
    with pytest.raises(ValueError, match="beta"):
        P.matvec(x, beta=1.0)
    with pytest.raises(ValueError, match="not finite"):
        P.matvec(x, alpha=np.nan)
    ro = np.zeros(50)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        P.matvec(x, out=ro)
    Q = packsell.Matrix.from_scipy(random_matrix(40, 40, 0.1, 2), format="csr")
    buf = np.ones(40)
    with pytest.raises(ValueError, match="overlaps"):
        Q.matvec(buf, out=buf)


def test_matrix_input_checks():
    with pytest.raises(TypeError, match="scipy.sparse"):
        packsell.Matrix.from_scipy(np.eye(3))
    with pytest.raises(TypeError, match="complex"):
        packsell.Matrix.from_scipy(sp.eye(3, dtype=np.complex128))
    with pytest.raises(TypeError):
        packsell.Matrix()
    A = sp.eye(4, format="csr")
    with pytest.raises(ValueError, match="format"):
        packsell.Matrix.from_scipy(A, format="coo")
    with pytest.raises(ValueError, match="not available"):
        packsell.Matrix.from_scipy(A, format="csr", values="fp16")
    with pytest.raises(ValueError, match="delta_bits"):
        packsell.Matrix.from_scipy(A, format="packsell", values="fp16", delta_bits=8)
    with pytest.raises(ValueError, match="needs delta_bits"):
        packsell.Matrix.from_scipy(A, format="packsell", values="e8m")
    with pytest.raises(ValueError, match="multiple"):
        packsell.Matrix.from_scipy(A, format="sell", slice=32, sigma=48)
    with pytest.raises(ValueError, match="slice"):
        packsell.Matrix.from_scipy(A, format="csr", slice=8)
    with pytest.raises(ValueError, match="out of range"):
        packsell.Matrix.from_scipy(A, format="sell", slice=10**6)
    with pytest.raises(ValueError, match="device"):
        packsell.Matrix.from_scipy(A, device="gpu")
    with pytest.raises(packsell.InvalidArgumentError) as e:  # the library's codec parser
        packsell.Matrix.from_scipy(A, format="packsell", values="e9m99")
    assert "e9m99" in str(e.value) and e.value.status == lib.PSL_ERR_INVALID_VALUE


def test_cuda_device_in_a_cpu_build_or_without_gpu():
    A = sp.eye(4, format="csr")
    if packsell.cuda_available():
        pytest.skip("a GPU is present")
    with pytest.raises((packsell.NotSupportedError, ValueError)) as e:
        packsell.Matrix.from_scipy(A, device="cuda")
    if isinstance(e.value, packsell.NotSupportedError):
        assert "CUDA" in e.value.message and isinstance(e.value, NotImplementedError)


def test_nonfinite_value_names_row_and_column():
    A = sp.lil_array((5, 5))
    A[1, 1] = 1.0
    A[3, 2] = np.nan
    with pytest.raises(packsell.NonFiniteError) as e:
        packsell.Matrix.from_scipy(A.tocsr(), format="csr")
    assert (e.value.row, e.value.col) == (3, 2) and isinstance(e.value, ValueError)
    assert e.value.status == lib.PSL_ERR_NONFINITE and e.value.message


def test_codec_overflow_and_saturate():
    A = sp.csr_array(np.array([[1.0, 0], [0, 1e6]]))
    with pytest.raises(packsell.CodecOverflowError) as e:
        packsell.Matrix.from_scipy(A, format="packsell", values="fp16")
    assert e.value.row == 1
    P = packsell.Matrix.from_scipy(A, format="packsell", values="fp16", overflow="saturate")
    assert P.to_scipy()[1, 1] == 65504.0


def test_files(tmp_path):
    with pytest.raises(packsell.FileIOError) as e:
        packsell.load(tmp_path / "missing.mtx")
    assert "missing.mtx" in str(e.value) and isinstance(e.value, OSError)
    bad = tmp_path / "bad.mtx"
    bad.write_text("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n3 1 2.0\n")
    with pytest.raises(packsell.Error) as e:
        packsell.load(bad)
    assert e.value.line == 4
    P = packsell.generate("lap2d:10", format="packsell")
    good = tmp_path / "m.psl"
    packsell.save(good, P)
    data = good.read_bytes()
    cut = tmp_path / "cut.psl"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(packsell.FileCorruptError):
        packsell.load(cut)
    flipped = bytearray(data)
    flipped[len(data) // 2] ^= 0x40
    (tmp_path / "flip.psl").write_bytes(bytes(flipped))
    with pytest.raises(packsell.Error):
        packsell.load(tmp_path / "flip.psl")
    with pytest.raises(TypeError):
        packsell.save(good, sp.eye(3))
    with pytest.raises(ValueError):
        packsell.save(good, P, kind="csv")
    assert good.read_bytes() == data  # failed calls left the file alone
    with pytest.raises(packsell.ParseError):
        packsell.generate("hpcg:1")
    with pytest.raises(packsell.InvalidArgumentError):
        packsell.generate("random:10:11")  # K > N is refused, not capped


def test_solver_input_checks():
    S = spd_matrix(5)
    b = np.ones(25)
    with pytest.raises(ValueError, match="square"):
        packsell.linalg.cg(sp.random(5, 4, 0.5, format="csr"), np.ones(5))
    with pytest.raises(ValueError, match="rows"):
        packsell.linalg.cg(S, np.ones(24))
    with pytest.raises(TypeError, match="LinearOperator"):
        packsell.linalg.cg(aslinearoperator(S), b)
    with pytest.raises(ValueError, match="precond"):
        packsell.linalg.cg(S, b, precond="ilu")
    with pytest.raises(TypeError):
        packsell.linalg.cg(S, b, restart=5)  # a GMRES option
    with pytest.raises(TypeError):
        packsell.linalg.cg(S, b.astype(np.complex128))
    with pytest.raises(ValueError):
        packsell.linalg.cg(S, b, tol=-1.0)
    with pytest.raises(TypeError):
        packsell.linalg.cg(S, b, callback=3)
    bn = b.copy()
    bn[3] = np.inf
    with pytest.raises(packsell.NonFiniteError):
        packsell.linalg.cg(S, bn)
    Z = sp.csr_array((np.array([1.0, 1.0]), np.array([1, 0]), np.array([0, 1, 2])), shape=(2, 2))
    with pytest.raises(packsell.InvalidMatrixError):  # Jacobi needs a positive diagonal
        packsell.linalg.cg(Z, np.ones(2), scale=False)


class _Span:
    """What packsell._cuda.may_overlap reads of a CuPy array."""

    def __init__(self, ptr, shape, strides, itemsize=8):
        self.data = type("P", (), {"ptr": ptr})()
        self.shape, self.strides, self.itemsize = shape, strides, itemsize


def test_device_overlap_check():
    from packsell._cuda import may_overlap

    a = _Span(1000, (10,), (8,))
    assert may_overlap(a, _Span(1072, (4,), (8,)))       # starts at a's last entry
    assert not may_overlap(a, _Span(1080, (4,), (8,)))   # starts right after it
    assert may_overlap(a, _Span(1100, (3,), (-16,)))     # reversed view reaching back into a
    assert not may_overlap(a, _Span(900, (0,), (8,)))    # empty
    assert may_overlap(_Span(0, (4, 3), (24, 8)), _Span(88, (1,), (8,)))
