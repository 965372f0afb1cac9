"""Our launcher for liger-kernel's `_group_norm_forward_kernel` (`liger_kernel/ops/group_norm.py` of
the pinned wheel unpacked into `.cache/realworld`): `group_norm_forward` for X of shape
[batch, channels, hidden] with 4 groups of channels, eps 1e-6. (`bias`, not `B`: lowercheck takes a parameter named B
for a size.)"""

import sys

import torch
import triton

from lowercheck.realworld import installed

sys.path.insert(0, str(installed("liger-kernel")))
from liger_kernel.ops.group_norm import MAX_FUSED_SIZE, _group_norm_forward_kernel  # noqa: E402

NUM_GROUPS = 4


def group_norm(X, weight, bias):
    batch_size, num_channels, hidden = X.shape
    channels_per_group = num_channels // NUM_GROUPS
    X = X.view(batch_size, NUM_GROUPS, -1).contiguous()
    hidden_size = X.shape[-1]
    BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(hidden_size))
    Y = torch.empty((batch_size, NUM_GROUPS, hidden_size), dtype=X.dtype, device=X.device)
    Mean = torch.zeros((batch_size, NUM_GROUPS), dtype=X.dtype, device=X.device)
    RSTD = torch.zeros((batch_size, NUM_GROUPS), dtype=X.dtype, device=X.device)
    _group_norm_forward_kernel[(batch_size, NUM_GROUPS)](
        Y, Y.stride(0), Y.stride(1), X, X.stride(0), X.stride(1), Mean, Mean.stride(0), Mean.stride(1),
        RSTD, RSTD.stride(0), RSTD.stride(1), weight, bias, hidden_size, channels_per_group, 1e-6, BLOCK_SIZE=BLOCK_SIZE)
    return Y
