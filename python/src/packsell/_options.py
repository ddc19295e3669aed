"""_options.py -- the keyword arguments of Matrix.from_scipy and friends
(format, values, delta_bits, slice, sigma, ...) turned into a
psl_convert_options, checked in Python with the rules of the packsell
command's format options, and the names and numpy dtypes of stored values."""
import re

import numpy as np

from ._lib import check, cstr, ffi, lib

FORMATS = ("packsell", "sell", "csr", "csrk", "auto")
PRECISIONS = {"fp16": "PSL_PREC_FP16", "fp32": "PSL_PREC_FP32", "fp64": "PSL_PREC_FP64"}
_SCALARS = {"fp64": "PSL_FP64", "fp32": "PSL_FP32", "fp16": "PSL_FP16", "bf16": "PSL_BF16"}
_VALUES_OF = {"csr": ("fp64", "fp32"), "csrk": ("fp64", "fp32", "fp16"),
              "sell": ("fp64", "fp32", "fp16", "bf16")}


def _name(v, what):
    if not isinstance(v, str):
        raise TypeError(f"{what} must be a str, not {type(v).__name__}")
    return v.strip().lower()


def _int(v, what, lo, hi):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{what} must be an int, not {type(v).__name__}")
    if not lo <= int(v) <= hi:
        raise ValueError(f"{what}={v} is out of range ({lo}..{hi})")
    return int(v)


def _codec(values, delta_bits):
    """PackSELL codec from values ("fp16", "bf16", "e8m14", "eXm" with
    delta_bits) and delta_bits D, which must agree with a full codec name."""
    d = None if delta_bits is None else _int(delta_bits, "delta_bits", 1, 29)
    if values is None:
        values = "fp16" if d is None else "e8m"  # E8MY: FP32's exponent, Y = 22 - D
    m = re.fullmatch(r"e(\d+)m", values)
    if m:
        if d is None:
            raise ValueError(f"values={values!r} needs delta_bits (mantissa = {30 - int(m[1])} - D)")
        if 30 - int(m[1]) - d < 0:
            raise ValueError(f"values={values!r} with delta_bits={d} leaves no mantissa bits")
        values = f"e{m[1]}m{30 - int(m[1]) - d}"
    codec = ffi.new("psl_codec *")
    check(lib.psl_codec_parse(values.encode(), codec))
    if d is not None and lib.psl_codec_delta_bits(codec[0]) != d:
        raise ValueError(f"delta_bits={d} does not match values={values!r}, which leaves "
                         f"D = {lib.psl_codec_delta_bits(codec[0])} delta bits")
    return codec[0]


def convert_options(format="packsell", values=None, delta_bits=None, slice=None, sigma=None,
                    csrk_k=None, overflow="error"):
    """(psl_convert_options cdata, precision name or None): the storage asked
    for; the precision is set for format="auto" (values names it then)."""
    f = _name(format, "format")
    if f not in FORMATS:
        raise ValueError(f"format={format!r} (expected one of {', '.join(FORMATS)})")
    v = None if values is None else _name(values, "values")
    o = _name(overflow, "overflow")
    if o not in ("error", "saturate"):
        raise ValueError(f"overflow={overflow!r} (expected 'error' or 'saturate')")
    opt = ffi.new("psl_convert_options *")
    lib.psl_convert_options_init(opt)
    opt.permute = lib.PSL_PERMUTE_IMPLICIT
    opt.overflow = lib.PSL_OVERFLOW_SATURATE if o == "saturate" else lib.PSL_OVERFLOW_ERROR
    sliced = f in ("sell", "packsell")
    for given, what in ((slice, "slice"), (sigma, "sigma")):
        if given is not None and not sliced:
            raise ValueError(f"{what} applies to format 'sell' or 'packsell', not {f!r}")
    if delta_bits is not None and f != "packsell":
        raise ValueError(f"delta_bits applies to format 'packsell', not {f!r}")
    if csrk_k is not None and f != "csrk":
        raise ValueError(f"csrk_k applies to format 'csrk', not {f!r}")
    if f == "auto":
        v = v or "fp16"
        if v not in PRECISIONS:
            raise ValueError(f"format='auto' takes values= a precision (fp16, fp32 or fp64), not {v!r}")
        return opt, v
    if f == "packsell":
        opt.format = lib.PSL_FORMAT_PACKSELL
        opt.codec = _codec(v, delta_bits)
    else:
        opt.format = getattr(lib, "PSL_FORMAT_" + f.upper())
        v = v or "fp64"
        if v not in _VALUES_OF[f]:
            raise ValueError(f"values={v!r} is not available for format {f!r} "
                             f"(expected {', '.join(_VALUES_OF[f])})")
        opt.value_type = getattr(lib, _SCALARS[v])
    if f == "csrk" and csrk_k is not None:
        opt.csrk_k = _int(csrk_k, "csrk_k", 1, 3)
    if sliced:
        if slice is not None:
            opt.slice_height = _int(slice, "slice", 1, lib.PSL_SLICE_HEIGHT_MAX)
            opt.sigma = opt.slice_height * ((256 + opt.slice_height - 1) // opt.slice_height)
        if sigma is not None:
            opt.sigma = _int(sigma, "sigma", 0, 2**31 - 1)
        if opt.sigma % opt.slice_height:
            raise ValueError(f"sigma={opt.sigma} must be 0 or a multiple of slice={opt.slice_height}")
    return opt, None


def is_plain_csr(opt):
    """True for FP64 CSR: the form psl_matrix_create_csr already builds."""
    return opt.format == lib.PSL_FORMAT_CSR and opt.value_type == lib.PSL_FP64


def values_name(info):
    """"fp16", "e8m14", "fp64", ... of a psl_matrix_info."""
    if info.format == lib.PSL_FORMAT_PACKSELL:
        buf = ffi.new("char[32]")
        check(lib.psl_codec_name(info.codec, buf, 32))
        return cstr(buf)
    return cstr(lib.psl_scalar_name(info.value_type))


def values_dtype(info):
    """The smallest numpy float type that holds every stored value exactly:
    float16 for FP16 and ExMy codecs with e <= 5 and m <= 10, float32 for BF16
    and the other codecs (e <= 8, m <= 23), else the storage's own type."""
    if info.format == lib.PSL_FORMAT_PACKSELL:
        c = info.codec
        return np.dtype(np.float16 if c.exp_bits <= 5 and c.man_bits <= 10 else np.float32)
    return np.dtype({lib.PSL_FP64: np.float64, lib.PSL_FP32: np.float32,
                     lib.PSL_FP16: np.float16, lib.PSL_BF16: np.float32}[info.value_type])


VECTOR_TYPES = {np.dtype(np.float64): "PSL_FP64", np.dtype(np.float32): "PSL_FP32",
                np.dtype(np.float16): "PSL_FP16"}


def vector_type(dtype, what="x"):
    """The psl_scalar of a vector dtype; TypeError for any other dtype."""
    name = VECTOR_TYPES.get(np.dtype(dtype))
    if name is None:
        raise TypeError(f"{what} has dtype {np.dtype(dtype)}; packsell vectors are float64, "
                        "float32 or float16")
    return getattr(lib, name)
