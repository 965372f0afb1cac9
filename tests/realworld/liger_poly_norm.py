"""Our launcher for liger-kernel's `_poly_norm_forward_kernel` (`liger_kernel/ops/poly_norm.py` of the
pinned wheel unpacked into `.cache/realworld`): `poly_norm_forward` with its default eps 1e-6, a
weight of 3 elements and a bias of one."""

import sys

import torch
import triton  # noqa: F401 - marks this file as Triton for lowercheck

from lowercheck.realworld import installed

sys.path.insert(0, str(installed("liger-kernel")))
from liger_kernel.ops.poly_norm import _poly_norm_forward_kernel  # noqa: E402
from liger_kernel.ops.utils import calculate_settings  # noqa: E402


def poly_norm(X, weight, bias):
    n_rows, n_cols = X.shape
    BLOCK_SIZE, num_warps = calculate_settings(n_cols)
    Y = torch.empty((n_rows, n_cols), dtype=X.dtype, device=X.device)
    RSTD = torch.empty((n_rows, 3), dtype=torch.float32, device=X.device)
    _poly_norm_forward_kernel[(n_rows,)](
        Y, Y.stride(0), X, X.stride(0), weight, bias, RSTD, RSTD.stride(0), n_cols, 1e-6,
        BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
    return Y
