"""Our launcher for liger-kernel's `liger_cross_entropy_kernel` (`liger_kernel/ops/cross_entropy.py`
of the pinned wheel unpacked into `.cache/realworld`): `cross_entropy_forward` for the common
training call (no class weights, ignore_index -100, no label smoothing, no z-loss, no softcap,
reduction "mean", gradients written in place into the logits). `cross_entropy_forward` counts the
targets that are not ignored with `.item()` before it launches; here every target counts (n = BT).
The target's dtype (int64) is in `liger_cross_entropy.toml` beside this file."""

import sys

import torch
import triton

from lowercheck.realworld import installed

sys.path.insert(0, str(installed("liger-kernel")))
from liger_kernel.ops.cross_entropy import MAX_FUSED_SIZE, liger_cross_entropy_kernel  # noqa: E402


def cross_entropy(logits, target):
    BT, V = logits.shape
    BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(V))
    loss_1d = torch.zeros(BT, dtype=logits.dtype, device=logits.device)
    liger_cross_entropy_kernel[(BT,)](
        X_ptr=logits, X_stride=logits.stride(-2), Y_ptr=target, Y_stride=target.stride(-1), weight_ptr=None,
        loss_ptr=loss_1d, z_loss_ptr=None, loss_stride=loss_1d.stride(-1), token_accuracy_ptr=None,
        token_accuracy_stride=0, predicted_tokens_ptr=None, predicted_tokens_stride=0, n_cols=V,
        n_non_ignore=BT, sum_non_ignore_weight=BT, ignore_index=-100, weight_sum=0.0, lse_square_scale=0.0,
        label_smoothing=0.0, reduction="mean", softcap=None, RETURN_Z_LOSS=False, RETURN_TOKEN_ACCURACY=False,
        RETURN_PREDICTED_TOKENS=False, BLOCK_SIZE=BLOCK_SIZE, HAS_WEIGHT=False, HAS_SOFTCAPPING=False,
        HAS_GRADIENTS=True, num_warps=32)
    return torch.sum(loss_1d), logits
