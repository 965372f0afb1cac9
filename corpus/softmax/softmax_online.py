"""Triton port of softmax.cu, correct with another reduction order: online softmax. One pass over
the row keeps a running maximum m and a running sum s of exp(x - m), rescaling s by exp(m_old - m_new)
whenever the maximum grows; a second pass stores exp(x - m) / s. The sum is accumulated in a
different order (and with the rescaling roundings) than the source's max-then-sum, so results differ
in the last bits only."""

import torch
import triton
import triton.language as tl


@triton.jit
def softmax_online_kernel(x_ptr, out_ptr, rows, cols, CHUNK: tl.constexpr):
    row = tl.program_id(0)
    base = x_ptr + row * cols
    m = tl.full((CHUNK,), float("-inf"), tl.float32)
    s = tl.zeros((CHUNK,), tl.float32)
    for c0 in range(0, cols, CHUNK):
        c = c0 + tl.arange(0, CHUNK)
        x = tl.load(base + c, mask=c < cols, other=float("-inf"))
        m_new = tl.maximum(m, x, propagate_nan=tl.PropagateNan.ALL)  # a NaN row stays NaN, as in the source
        # lanes that have seen nothing yet keep m = -inf: exp(-inf - -inf) would be NaN
        scale = tl.where(m_new == float("-inf"), 0.0, tl.exp(m - m_new))
        s = s * scale + tl.where(m_new == float("-inf"), 0.0, tl.exp(x - m_new))
        m = m_new
    row_max = tl.max(m, axis=0)
    total = tl.sum(s * tl.where(m == float("-inf"), 0.0, tl.exp(m - row_max)), axis=0)
    for c0 in range(0, cols, CHUNK):
        c = c0 + tl.arange(0, CHUNK)
        x = tl.load(base + c, mask=c < cols, other=0.0)
        tl.store(out_ptr + row * cols + c, tl.exp(x - row_max) / total, mask=c < cols)


def softmax(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty_like(x)
    softmax_online_kernel[(rows,)](x, out, rows, cols, CHUNK=64)
    return out
