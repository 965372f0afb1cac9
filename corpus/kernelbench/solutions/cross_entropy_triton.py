import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def ce_row_kernel(logits_ptr, targets_ptr, losses_ptr, n_classes, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_classes
    x = tl.load(logits_ptr + row * stride + cols, mask=mask, other=-float("inf"))
    m = tl.max(x, axis=0)
    lse = m + tl.log(tl.sum(tl.exp(x - m), axis=0))
    t = tl.load(targets_ptr + row)
    xt = tl.load(logits_ptr + row * stride + t)
    tl.store(losses_ptr + row, lse - xt)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions, targets):
        predictions = predictions.contiguous()
        B, C = predictions.shape
        losses = torch.empty(B, device=predictions.device, dtype=torch.float32)
        ce_row_kernel[(B,)](predictions, targets, losses, C, predictions.stride(0), BLOCK=triton.next_power_of_2(C))
        return losses.mean()
