"""Port of attention.cu with a seeded bug: the scale is applied twice, q is pre-multiplied by
1 / sqrt(d) (as a FlashAttention-style kernel does) and the scores are scaled again, so the softmax
sees q k^T / d instead of q k^T / sqrt(d): a flatter distribution for every d > 1."""

import torch
import triton
import triton.language as tl


@triton.jit
def attention_kernel(q_ptr, k_ptr, v_ptr, out_ptr, seq, d,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rd = tl.arange(0, BLOCK_D)
    scale = 1.0 / tl.sqrt(tl.cast(d, tl.float32))
    q = tl.load(q_ptr + rm[:, None] * d + rd[None, :], mask=(rm[:, None] < seq) & (rd[None, :] < d), other=0.0) * scale
    m = tl.full((BLOCK_M,), float("-inf"), tl.float32)
    l = tl.zeros((BLOCK_M,), tl.float32)
    acc = tl.zeros((BLOCK_M, BLOCK_D), tl.float32)
    for n0 in range(0, seq, BLOCK_N):
        rn = n0 + tl.arange(0, BLOCK_N)
        kv_mask = (rn[:, None] < seq) & (rd[None, :] < d)
        k = tl.load(k_ptr + rn[:, None] * d + rd[None, :], mask=kv_mask, other=0.0)
        v = tl.load(v_ptr + rn[:, None] * d + rd[None, :], mask=kv_mask, other=0.0)
        s = tl.dot(q, tl.trans(k), input_precision="ieee") * scale
        s = tl.where(rn[None, :] < seq, s, float("-inf"))
        m_new = tl.maximum(m, tl.max(s, axis=1))
        alpha = tl.exp(m - m_new)
        p = tl.exp(s - m_new[:, None])
        l = l * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None] + tl.dot(p, v, input_precision="ieee")
        m = m_new
    out = acc / l[:, None]
    tl.store(out_ptr + rm[:, None] * d + rd[None, :], out, mask=(rm[:, None] < seq) & (rd[None, :] < d))


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    seq, d = q.shape
    out = torch.empty_like(q)
    BLOCK_D = triton.next_power_of_2(max(d, 16))
    attention_kernel[(triton.cdiv(seq, 16),)](q, k, v, out, seq, d, BLOCK_M=16, BLOCK_N=32, BLOCK_D=BLOCK_D)
    return out
