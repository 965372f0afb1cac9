"""Our launcher for liger-kernel's `_layer_norm_forward_kernel` (`liger_kernel/ops/layer_norm.py` of
the pinned wheel unpacked into `.cache/realworld`): `layer_norm_forward` with eps 1e-6, one program
per row."""

import sys

import torch
import triton  # noqa: F401 - marks this file as Triton for lowercheck

from lowercheck.realworld import installed

sys.path.insert(0, str(installed("liger-kernel")))
from liger_kernel.ops.layer_norm import _layer_norm_forward_kernel  # noqa: E402
from liger_kernel.ops.utils import calculate_settings  # noqa: E402


def layer_norm(X, weight, bias):
    n_rows, n_cols = X.shape
    BLOCK_SIZE, num_warps = calculate_settings(n_cols)
    Y = torch.empty((n_rows, n_cols), dtype=X.dtype, device=X.device)
    Mean = torch.empty(n_rows, dtype=torch.float32, device=X.device)
    RSTD = torch.empty(n_rows, dtype=torch.float32, device=X.device)
    _layer_norm_forward_kernel[(n_rows,)](
        Y, Y.stride(0), X, X.stride(0), weight, weight.stride(0), bias, bias.stride(0), Mean, Mean.stride(0),
        RSTD, RSTD.stride(0), n_cols, 1e-6, BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
    return Y
