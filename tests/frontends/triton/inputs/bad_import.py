# Raises while the file is imported (line 6).
import triton
import triton.language as tl

SIZES = {"small": 16}
BLOCK = SIZES["large"]


@triton.jit
def k(x_ptr):
    pass


def run(x):
    k[(1,)](x)
