"""Our launcher for liger-kernel's `_kldiv_kernel_forward` (`liger_kernel/ops/kl_div.py` of the pinned
wheel unpacked into `.cache/realworld`): `kldiv_forward_triton` with reduction "none" (one loss per
element), targets given as probabilities (log_target False), eps 1e-10."""

import sys

import torch
import triton

from lowercheck.realworld import installed

sys.path.insert(0, str(installed("liger-kernel")))
from liger_kernel.ops.kl_div import (  # noqa: E402
    _REDUCTION_MODE_NONE,
    MAX_FUSED_SIZE,
    _kldiv_kernel_forward,
    get_num_warps,
)


def kl_div(y_pred, y_true):
    BT, V = y_pred.shape
    BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(V))
    output = torch.zeros((BT, V), device=y_pred.device, dtype=torch.float32)
    _kldiv_kernel_forward[(BT,)](
        y_pred, y_pred.stride(0), y_true, y_true.stride(0), output, output.stride(0), V, eps=1e-10,
        BLOCK_SIZE=BLOCK_SIZE, num_warps=get_num_warps(BLOCK_SIZE), log_target=False,
        reduction=_REDUCTION_MODE_NONE.value)
    return output
