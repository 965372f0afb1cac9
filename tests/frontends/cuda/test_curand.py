"""cuRAND's device API as DeepSpeed's dropout and stochastic-rounding kernels use it: the Philox
generator modelled with bodies (include/curand_kernel.h), lowered like any device code and run by the
emulator. The block function is checked against Triton's own `tl.philox` (an independent
implementation, in its interpreter); the stream layout (draws, offsets, skipahead) against itself."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from support import run_emulator, run_in_child

from lowercheck.errors import Unsupported
from lowercheck.frontends import cuda
from lowercheck.lowering import extract_accesses
from lowercheck.dialects.access import UnmodelledOp
from lowercheck.runners import poison

INPUTS = Path(__file__).parent / "programs"  # run by the tests, not FileCheck inputs
DRAWS = INPUTS / "curand_draws.cu"
SEED = 0x1234_5678_9ABC_DEF0
N = 96


def _draws(offset: int) -> dict[str, np.ndarray]:
    module = cuda.lower(str(DRAWS), "launch_draw")
    assert not [op for op in extract_accesses(module).walk() if isinstance(op, UnmodelledOp)]
    result = run_emulator(str(DRAWS), module, {
        "out4": poison.fill(np.empty(4 * N, np.uint32)), "out1": poison.fill(np.empty(4 * N, np.uint32)),
        "uniform": poison.fill(np.empty(4 * N, np.float32)), "normal": poison.fill(np.empty(2 * N, np.float32)),
        "seed": SEED, "offset": offset, "n": N})
    assert result.error is None, result.error
    return result.outputs


def _philox(tmp_path: Path, c0: int, c1: int) -> np.ndarray:
    """Triton's Philox output for the counters (c0, c1, i, 0), i < N, under the key SEED."""
    result = run_in_child(tmp_path, INPUTS / "philox_triton.py", "philox_blocks",
                          {"out": np.zeros(4 * N, np.int32), "seed": SEED, "c0": c0, "c1": c1, "n": N})
    assert result.error is None, result.error
    return result.outputs["out"].view(np.uint32).reshape(N, 4)


def test_curand4_is_the_philox_block_of_the_threads_subsequence(tmp_path: Path) -> None:
    """curand_init(seed, i, 0): the counter's high half is the subsequence i; the first curand4 is
    the Philox block of counter (0, 0, i, 0), the next four draws that of (1, 0, i, 0)."""
    out = _draws(offset=0)
    np.testing.assert_array_equal(out["out4"].reshape(N, 4), _philox(tmp_path, 0, 0))
    np.testing.assert_array_equal(out["out1"].reshape(N, 4), _philox(tmp_path, 1, 0))


def test_an_offset_inside_a_block_shifts_the_draws(tmp_path: Path) -> None:
    """offset 4k + 2: k blocks skipped and two draws into the next, so curand4 gives the last two
    words of block k and the first two of block k + 1."""
    k = (1 << 32) + 5  # past the counter's low word: the carry into its second word
    out = _draws(offset=4 * k + 2)
    block_k, block_next = _philox(tmp_path, 5, 1), _philox(tmp_path, 6, 1)
    np.testing.assert_array_equal(out["out4"].reshape(N, 4), np.concatenate([block_k[:, 2:], block_next[:, :2]], 1))


def test_uniform_and_normal_draws_are_in_range() -> None:
    out = _draws(offset=0)
    u, z = out["uniform"], out["normal"]
    assert np.all((u > 0) & (u <= 1)), "curand_uniform is in (0, 1]"
    assert abs(float(u.mean()) - 0.5) < 0.05
    assert np.all(np.isfinite(z)) and abs(float(z.mean())) < 0.25 and 0.7 < float(z.std()) < 1.3


def test_offset_and_skipahead_skip_the_same_draws() -> None:
    module = cuda.lower(str(DRAWS), "launch_skip")
    result = run_emulator(str(DRAWS), module, {"first": poison.fill(np.empty(N, np.uint32)),
                                               "skipped": poison.fill(np.empty(N, np.uint32)),
                                               "seed": SEED, "n": N})
    assert result.error is None, result.error
    first = result.outputs["first"]
    np.testing.assert_array_equal(first, result.outputs["skipped"])
    assert len(set(first.tolist())) == N  # draw i of one stream, for each i: all different


def test_poisson_draws_have_the_mean_lambda() -> None:
    module = cuda.lower(str(DRAWS), "launch_poisson")
    n = 512
    result = run_emulator(str(DRAWS), module, {"out": poison.fill(np.empty(n, np.uint32)),
                                               "seed": SEED, "lambda": 10.0, "n": n})
    assert result.error is None, result.error
    draws = result.outputs["out"].astype(np.float64)
    assert abs(draws.mean() - 10.0) < 0.6 and 6.0 < draws.var() < 14.0


def test_xorwow_is_not_modelled(tmp_path: Path) -> None:
    path = tmp_path / "xorwow.cu"
    path.write_text("#include <curand_kernel.h>\n"
                    "__global__ void k(float* out, int n) {\n"
                    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                    "  curandState s;\n"
                    "  curand_init(7, i, 0, &s);\n"
                    "  if (i < n) out[i] = curand_uniform(&s);\n"
                    "}\n"
                    "void launch(float* out, int n) { k<<<(n + 63) / 64, 64>>>(out, n); }\n")
    with pytest.raises(Unsupported) as caught:
        cuda.lower(str(path), "launch")
    assert "curand_init" in caught.value.message and caught.value.location.line == 5
