"""A persistent Triton port of rowsum.cu: one program per SM, each taking every `step`-th row. The
wrapper asks the device how many SMs it has, as real wrappers do: through torch (`rowsum`) or through
Triton's driver (`rowsum_by_driver`). `rowsum_one_pass` forgets to loop: each program takes one row."""

import torch
import triton
import triton.language as tl
from triton.runtime import driver


@triton.jit
def rowsum_persistent_kernel(x_ptr, out_ptr, m, n, BLOCK: tl.constexpr):
    start = tl.program_id(0)
    step = tl.num_programs(0)
    for row in tl.range(start, m, step):
        acc = tl.zeros((BLOCK,), dtype=tl.float32)
        for col in range(0, n, BLOCK):
            cols = col + tl.arange(0, BLOCK)
            acc += tl.load(x_ptr + row * n + cols, mask=cols < n, other=0.0)
        tl.store(out_ptr + row, tl.sum(acc, axis=0))


@triton.jit
def rowsum_one_row_kernel(x_ptr, out_ptr, m, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for col in range(0, n, BLOCK):
        cols = col + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * n + cols, mask=cols < n, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


def rowsum(x):
    m, n = x.shape
    out = torch.empty((m,), dtype=x.dtype, device=x.device)
    sms = torch.cuda.get_device_properties(x.device).multi_processor_count
    rowsum_persistent_kernel[(min(m, sms),)](x, out, m, n, BLOCK=128)
    return out


def rowsum_by_driver(x):
    m, n = x.shape
    out = torch.empty((m,), dtype=x.dtype, device=x.device)
    sms = driver.active.utils.get_device_properties(torch.cuda.current_device())["multiprocessor_count"]
    rowsum_persistent_kernel[(min(m, sms),)](x, out, m, n, BLOCK=128)
    return out


def rowsum_one_pass(x):
    m, n = x.shape
    out = torch.empty((m,), dtype=x.dtype, device=x.device)
    sms = torch.cuda.get_device_properties(x.device).multi_processor_count
    rowsum_one_row_kernel[(min(m, sms),)](x, out, m, n, BLOCK=128)
    return out
