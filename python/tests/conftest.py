"""conftest.py -- shared helpers of the packsell tests: random test matrices
with values away from the codecs' subnormals, the FP64 reference product
|A| |x|, and the marker that skips GPU tests without CuPy or a device."""
import numpy as np
import pytest
import scipy.sparse as sp

import packsell


def random_matrix(m, n, density, seed, lo=0.5, hi=1.5, empty_rows=True):
    """A scipy CSR matrix with random pattern and values of random sign in
    [lo, hi) (normal numbers of every 16-bit codec), some empty rows."""
    rng = np.random.default_rng(seed)
    A = sp.random(m, n, density=density, format="csr", random_state=rng,
                  data_rvs=lambda k: rng.uniform(lo, hi, k) * rng.choice([-1.0, 1.0], k))
    if empty_rows and m > 3:
        A = A.tolil()
        A[m // 3, :] = 0  # an empty row
        A = A.tocsr()
        A.eliminate_zeros()
    return A


def spd_matrix(n_side):
    """The 2D 5-point Laplacian (SPD) of an n_side x n_side grid, from SciPy."""
    T = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n_side, n_side))
    I = sp.identity(n_side)
    return (sp.kron(T, I) + sp.kron(I, T)).tocsr()


def gpu_ready():
    try:
        import cupy  # noqa: F401
    except ImportError:
        return False
    return packsell.cuda_available()


requires_gpu = pytest.mark.skipif(not gpu_ready(), reason="needs CuPy and a CUDA build with a GPU")

# unit roundoff of each vector type, and of each accumulation
UNIT = {np.float64: 2.0**-53, np.float32: 2.0**-24, np.float16: 2.0**-11}


def product_tolerance(A_ref, x, dtype, values_unit=0.0):
    """Per-row bound of |y - A_ref x| for y computed in vectors of dtype:
    the output rounding, the accumulation (FP64 for float64, FP32 else) over
    the row's entries, and values_unit for values rounded by the storage;
    twice the first-order bound."""
    absAx = abs(A_ref) @ np.abs(x.astype(np.float64))
    k = np.diff(A_ref.tocsr().indptr).astype(np.float64)
    acc = UNIT[np.float64] if dtype == np.float64 else UNIT[np.float32]
    out = UNIT[dtype]
    return 2.0 * ((out + values_unit) * absAx + (k + 1) * acc * absAx) + 1e-300
