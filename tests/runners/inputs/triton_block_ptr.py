"""A 2-D copy through block pointers (Triton 3.6's make_block_ptr and advance, which Triton 3.9
removed): `copy` checks both dimensions, `copy_unchecked` neither."""
import torch
import triton
import triton.language as tl


@triton.jit
def _copy(x_ptr, y_ptr, M, N, CHECK: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    src = tl.make_block_ptr(x_ptr, shape=(M, N), strides=(N, 1), offsets=(tl.program_id(0) * BM, 0),
                            block_shape=(BM, BN), order=(1, 0))
    dst = tl.make_block_ptr(y_ptr, shape=(M, N), strides=(N, 1), offsets=(tl.program_id(0) * BM, 0),
                            block_shape=(BM, BN), order=(1, 0))
    for _ in range(0, tl.cdiv(N, BN)):
        if CHECK:
            tl.store(dst, tl.load(src, boundary_check=(0, 1), padding_option="zero"), boundary_check=(0, 1))
        else:
            tl.store(dst, tl.load(src))
        src = tl.advance(src, (0, BN))
        dst = dst.advance((0, BN))


def copy(x):
    y = torch.empty_like(x)
    _copy[(triton.cdiv(x.shape[0], 16),)](x, y, x.shape[0], x.shape[1], CHECK=True, BM=16, BN=32)
    return y


def copy_unchecked(x):
    y = torch.empty_like(x)
    _copy[(triton.cdiv(x.shape[0], 16),)](x, y, x.shape[0], x.shape[1], CHECK=False, BM=16, BN=32)
    return y
