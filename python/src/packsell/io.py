"""io.py -- packsell.load, packsell.save and packsell.generate: Matrix Market
files (.mtx, .mtx.gz), libpacksell's binary format and the generators
(hpcg:X:Y:Z, lap2d:N, random:N:K, ...), through the library's readers and
writers (an interrupted write leaves the target as it was)."""
import os

from ._lib import check, lib
from .matrix import Matrix, _new_matrix


def _path(path, what="path"):
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{what} must be a str or os.PathLike, not {type(path).__name__}")
    return os.fsencode(path)


def load(path, format=None, device="cpu", **options):
    """A Matrix from a Matrix Market file (FP64 CSR), a packsell binary file
    (the format it was saved in) or a "gen:SPEC" generator spec. With
    format= (and the other options of Matrix.from_scipy) it is converted."""
    return Matrix._from_csr(_open(path), format, device=device, **options)


def generate(spec, format=None, device="cpu", **options):
    """A Matrix from a generator spec ("gen:" optional), as FP64 CSR unless
    format= (and the options of Matrix.from_scipy) say otherwise:
      hpcg:X:Y:Z  hpgmp:X:Y:Z[:BETA]  lap2d:NX[:NY]  lap3d:NX[:NY:NZ]
      banded:N:BW:K[:SEED]  powerlaw:N:AVG:ALPHA[:SEED]  random:N:K[:SEED]"""
    if not isinstance(spec, str):
        raise TypeError(f"spec must be a str, not {type(spec).__name__}")
    h = _new_matrix(lib.psl_generate, spec.encode())
    return Matrix._from_csr(h, format, device=device, **options)


def _open(path):
    return _new_matrix(lib.psl_matrix_open, _path(path))


def save(path, A, kind=None):
    """Write Matrix A: kind "mtx" (Matrix Market coordinate real general, the
    values as stored, original row order) or "binary" (libpacksell's
    versioned format with CRC-32, the stored format itself). kind=None: "mtx"
    for a path ending in .mtx, else "binary"."""
    if not isinstance(A, Matrix):
        raise TypeError(f"save writes a packsell.Matrix, not {type(A).__name__} "
                        "(Matrix.from_scipy makes one)")
    p = _path(path)
    if kind is None:
        kind = "mtx" if p.lower().endswith(b".mtx") else "binary"
    if kind not in ("mtx", "binary"):
        raise ValueError(f"kind={kind!r} (expected 'mtx' or 'binary')")
    host = A._host()
    check((lib.psl_mm_write if kind == "mtx" else lib.psl_matrix_save)(host, p))
