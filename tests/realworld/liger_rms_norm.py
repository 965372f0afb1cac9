"""Our launcher for liger-kernel's `_rms_norm_forward_kernel` (`liger_kernel/ops/rms_norm.py` of the
pinned wheel that `python -m lowercheck.realworld` unpacks into `.cache/realworld`; nothing of it is
copied here). It launches the kernel as `rms_norm_forward` does for a Llama model, one program per
row: casting mode "llama", offset 0, eps 1e-6, with a weight."""

import sys

import torch
import triton  # noqa: F401 - marks this file as Triton for lowercheck

from lowercheck.realworld import installed

sys.path.insert(0, str(installed("liger-kernel")))
from liger_kernel.ops.rms_norm import _CASTING_MODE_LLAMA, _rms_norm_forward_kernel  # noqa: E402
from liger_kernel.ops.utils import calculate_settings  # noqa: E402


def rms_norm(X, W):
    n_rows, n_cols = X.shape
    BLOCK_SIZE, num_warps = calculate_settings(n_cols)
    Y = torch.empty((n_rows, n_cols), dtype=X.dtype, device=X.device)
    RSTD = torch.empty(n_rows, dtype=torch.float32, device=X.device)
    _rms_norm_forward_kernel[(n_rows,)](
        Y, Y.stride(0), X, X.stride(0), W, W.stride(0), RSTD, RSTD.stride(0), n_cols, 1e-6, 0.0,
        _CASTING_MODE_LLAMA.value, elementwise_affine=True, BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
    return Y
