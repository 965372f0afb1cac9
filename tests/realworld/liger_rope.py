"""Our launcher for liger-kernel's `_triton_rope` (`liger_kernel/ops/rope.py` of the pinned wheel
unpacked into `.cache/realworld`): `rope_forward` on q and k already in the physical layout it
transposes them to ([batch, seq, heads, head_dim], contiguous), cos and sin of shape
[cos_batch, seq, head_dim], the whole head rotated. The kernel rotates q and k in place."""

import sys

import triton

from lowercheck.realworld import installed

sys.path.insert(0, str(installed("liger-kernel")))
from liger_kernel.ops.rope import _triton_rope  # noqa: E402


def rope(q, k, cos, sin):
    batch_size, seq_len, n_q_head, head_dim = q.shape
    k_batch, k_seq, n_kv_head, k_head_dim = k.shape
    cos_batch_size, cos_seq, cos_dim = cos.shape
    sin_batch, sin_seq, sin_dim = sin.shape
    pad_hd = triton.next_power_of_2(head_dim)
    pad_n_q_head = triton.next_power_of_2(n_q_head)
    pad_n_kv_head = triton.next_power_of_2(n_kv_head)
    _triton_rope[(batch_size * seq_len,)](
        q, q.stride(1), k, k.stride(1), cos, cos.stride(-2), sin, sin.stride(-2), seq_len, batch_size,
        cos_batch_size, n_q_head, n_kv_head, head_dim, pad_n_q_head, pad_n_kv_head, pad_hd, pad_hd, head_dim,
        BLOCK_SIZE=max(pad_n_q_head, pad_n_kv_head), BACKWARD_PASS=False)
    return q, k
