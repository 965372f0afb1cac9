"""Blocks of 32 summed over two nested loops; `ptrs` advances in the inner loop and carries on
across the outer one."""

import triton
import triton.language as tl


@triton.jit
def sum_blocks(x_ptr, y_ptr, n_outer, n_inner, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    ptrs = x_ptr + offs
    acc = tl.zeros([BLOCK], tl.float32)
    for i in range(n_outer):
        for j in range(n_inner):
            acc += tl.load(ptrs)
            ptrs += BLOCK
    tl.store(y_ptr + offs, acc)


def run(x, y, n_outer, n_inner):
    sum_blocks[(1,)](x, y, n_outer, n_inner, BLOCK=32)
