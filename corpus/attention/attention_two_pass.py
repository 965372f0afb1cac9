"""Correct port of attention.cu that looks different: 32 query rows and 32-key blocks per step, q
pre-multiplied by scale * log2(e) so the weights are exp2 of the scores, and two passes over k like
the CUDA kernel's loops: the first finds each row's maximum and the sum of its weights, the second
accumulates the normalised weights times v (no rescaling)."""

import torch
import triton
import triton.language as tl


@triton.jit
def attention_kernel(q_ptr, k_ptr, v_ptr, out_ptr, seq, d, BLOCK: tl.constexpr, BLOCK_D: tl.constexpr):
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    cols = tl.arange(0, BLOCK_D)
    row_ok = rows < seq
    col_ok = cols < d
    log2e_scale = 1.4426950408889634 / tl.sqrt(tl.cast(d, tl.float32))
    q = tl.load(q_ptr + rows[:, None] * d + cols[None, :], mask=row_ok[:, None] & col_ok[None, :], other=0.0)
    q = q * log2e_scale
    row_max = tl.full((BLOCK,), float("-inf"), tl.float32)
    total = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, seq, BLOCK):
        keys = start + tl.arange(0, BLOCK)
        k = tl.load(k_ptr + keys[:, None] * d + cols[None, :], mask=(keys[:, None] < seq) & col_ok[None, :], other=0.0)
        t = tl.dot(q, tl.trans(k), input_precision="ieee")
        t = tl.where(keys[None, :] < seq, t, float("-inf"))
        new_max = tl.maximum(row_max, tl.max(t, axis=1))
        total = total * tl.exp2(row_max - new_max) + tl.sum(tl.exp2(t - new_max[:, None]), axis=1)
        row_max = new_max
    acc = tl.zeros((BLOCK, BLOCK_D), tl.float32)
    for start in range(0, seq, BLOCK):
        keys = start + tl.arange(0, BLOCK)
        kv_ok = (keys[:, None] < seq) & col_ok[None, :]
        k = tl.load(k_ptr + keys[:, None] * d + cols[None, :], mask=kv_ok, other=0.0)
        v = tl.load(v_ptr + keys[:, None] * d + cols[None, :], mask=kv_ok, other=0.0)
        t = tl.dot(q, tl.trans(k), input_precision="ieee")
        t = tl.where(keys[None, :] < seq, t, float("-inf"))
        w = tl.exp2(t - row_max[:, None]) / total[:, None]
        acc += tl.dot(w, v, input_precision="ieee")
    tl.store(out_ptr + rows[:, None] * d + cols[None, :], acc, mask=row_ok[:, None] & col_ok[None, :])


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    seq, d = q.shape
    out = torch.empty_like(q)
    BLOCK_D = max(16, triton.next_power_of_2(d))
    attention_kernel[(triton.cdiv(seq, 32),)](q, k, v, out, seq, d, BLOCK=32, BLOCK_D=BLOCK_D)
    return out
