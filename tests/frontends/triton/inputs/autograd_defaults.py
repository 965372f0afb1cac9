# Two torch.autograd.Functions, each with a `forward`: the entry `ScaleFunction.forward` is the
# second class's, and its defaulted `mode` keeps its default (a string the wrapper compares), as
# with liger's GRPO loss; a tensor there would make `mode == "double"` ambiguous.
import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, factor, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, factor * tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


class OtherFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, mode):
        return x


class ScaleFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, mode="double", repeat=None):
        if mode not in ("double", "triple"):
            raise ValueError(f"unknown mode {mode}")
        out = torch.empty_like(x)
        n = x.numel()
        scale_kernel[(triton.cdiv(n, 128),)](x, out, n, 2.0 if mode == "double" else 3.0, BLOCK=128)
        return out
