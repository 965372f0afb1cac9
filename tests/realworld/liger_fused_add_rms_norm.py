"""Our launcher for liger-kernel's `_fused_add_rms_norm_forward_kernel`
(`liger_kernel/ops/fused_add_rms_norm.py` of the pinned wheel unpacked into `.cache/realworld`):
`fused_add_rms_norm_forward` for a Llama model (casting mode "llama", offset 0, eps 1e-6), which
returns the normalised sum and the sum of X and the residual R."""

import sys

import torch
import triton  # noqa: F401 - marks this file as Triton for lowercheck

from lowercheck.realworld import installed

sys.path.insert(0, str(installed("liger-kernel")))
from liger_kernel.ops.fused_add_rms_norm import (  # noqa: E402
    _CASTING_MODE_LLAMA,
    _fused_add_rms_norm_forward_kernel,
)
from liger_kernel.ops.utils import calculate_settings  # noqa: E402


def fused_add_rms_norm(X, R, W):
    n_rows, n_cols = X.shape
    BLOCK_SIZE, num_warps = calculate_settings(n_cols)
    Y = torch.empty((n_rows, n_cols), dtype=X.dtype, device=X.device)
    S = torch.empty((n_rows, n_cols), dtype=X.dtype, device=X.device)
    RSTD = torch.empty(n_rows, dtype=torch.float32, device=X.device)
    _fused_add_rms_norm_forward_kernel[(n_rows,)](
        Y, Y.stride(0), S, S.stride(0), X, X.stride(0), R, R.stride(0), W, W.stride(0), RSTD, RSTD.stride(0),
        n_cols, 1e-6, 0.0, _CASTING_MODE_LLAMA.value, BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps, num_stages=2)
    return Y, S
