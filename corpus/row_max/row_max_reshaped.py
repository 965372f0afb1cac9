"""Triton port of row_max.cu in two stages: the row's tile of BLOCK = next_power_of_2(cols) columns
(masked lanes load -inf, BLOCK at least 16) is reshaped to [BLOCK // 16, 16]; tl.max over the 16
columns of each piece, then over the pieces. Correct. The reshape moves values between lanes in a
way the static dependence map does not follow: the map is observed in runs."""

import torch
import triton
import triton.language as tl


@triton.jit
def row_max_kernel(x_ptr, out_ptr, rows, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * cols + c, mask=c < cols, other=float("-inf"))
    pieces = tl.reshape(x, (BLOCK // 16, 16))
    tl.store(out_ptr + row, tl.max(tl.max(pieces, axis=1), axis=0))


def row_max(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty(rows, dtype=x.dtype, device=x.device)
    row_max_kernel[(rows,)](x, out, rows, cols, BLOCK=max(16, triton.next_power_of_2(cols)))
    return out
