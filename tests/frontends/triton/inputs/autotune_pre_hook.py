# An autotuned kernel whose config has a `pre_hook` (liger's MLP sets its tensor descriptors' block
# shapes in one): the hook records what it received in the file $PRE_HOOK_RECORD.
import os

import torch
import triton
import triton.language as tl


def _hook(nargs):
    with open(os.environ["PRE_HOOK_RECORD"], "w") as out:
        out.write(f"{nargs['BLOCK']} {tuple(nargs['x_ptr'].shape)}")


@triton.autotune(configs=[triton.Config({"BLOCK": 128}, pre_hook=_hook)], key=["n"])
@triton.jit
def double_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, 2 * tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def double(x):
    out = torch.empty_like(x)
    double_kernel[lambda meta: (triton.cdiv(x.shape[0], meta["BLOCK"]),)](x, out, x.shape[0])
    return out
