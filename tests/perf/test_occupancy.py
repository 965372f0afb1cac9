"""Occupancy against known answers (the CUDA occupancy calculator's arithmetic), per target."""

from __future__ import annotations

import pytest

from lowercheck.perf.occupancy import occupancy
from lowercheck.perf.targets import SM_80, SM_89, SM_90, TARGETS


def test_256_threads_32_registers_no_shared_is_full_on_sm90():
    o = occupancy(SM_90, 256, registers=32, shared_bytes=0)
    # 8 warps per block; 64 warps per SM allow 8 blocks; 32 x 32 = 1024 registers per warp allow 64 warps.
    assert (o.blocks_per_sm, o.warps_per_sm, o.fraction) == (8, 64, 1.0)
    assert o.blocks_by == {"threads": 8, "blocks": 32, "registers": 8, "shared memory": 228}
    assert o.limited_by == ("threads", "registers") and not o.upper_bound


def test_registers_limit():
    # 64 registers: 2048 per warp, 32 warps per SM, 4 blocks of 8 warps: half the SM.
    o = occupancy(SM_90, 256, registers=64, shared_bytes=0)
    assert (o.blocks_per_sm, o.fraction, o.limited_by) == (4, 0.5, ("registers",))
    # 80 registers: 2560 per warp, 25 warps fit, but warps get registers in groups of 4: 24 one-warp blocks.
    o = occupancy(SM_90, 32, registers=80, shared_bytes=0)
    assert (o.blocks_per_sm, o.warps_per_sm) == (24, 24) and o.fraction == pytest.approx(24 / 64)
    # 33 registers round up to 1280 per warp (the 256-register unit): 51 -> 48 warps, 6 blocks of 8.
    assert occupancy(SM_90, 256, registers=33, shared_bytes=0).blocks_per_sm == 6
    # More than 255 registers per thread cannot launch.
    assert occupancy(SM_90, 64, registers=256).blocks_per_sm == 0


def test_shared_memory_limit():
    # 48 KiB + 1 KiB reserved per block: 4 blocks in 228 KiB; 4 x 4 warps of 64.
    o = occupancy(SM_90, 128, registers=32, shared_bytes=48 * 1024)
    assert (o.blocks_per_sm, o.fraction, o.limited_by) == (4, 0.25, ("shared memory",))
    # The same kernel on an A100 (164 KiB per SM): 3 blocks.
    assert occupancy(SM_80, 128, registers=32, shared_bytes=48 * 1024).blocks_per_sm == 3
    # More than the per-block maximum cannot launch.
    assert occupancy(SM_90, 128, registers=32, shared_bytes=228 * 1024).blocks_per_sm == 0
    # 4224 bytes (a padded 32 x 33 float tile) + 1 KiB, rounded to 128 B: 5248 B, 44 blocks: not the limit.
    assert occupancy(SM_90, 256, registers=26, shared_bytes=4224).blocks_by["shared memory"] == 44


def test_block_count_and_thread_limits():
    # 32-thread blocks with few registers: at most 32 resident blocks, half of sm_90's 64 warps.
    o = occupancy(SM_90, 32, registers=16, shared_bytes=0)
    assert (o.blocks_per_sm, o.fraction, o.limited_by) == (32, 0.5, ("blocks",))
    # Ada holds 48 warps and 24 blocks: 1024-thread blocks fit once (32 of 48 warps).
    assert occupancy(SM_89, 1024, registers=32, shared_bytes=0).fraction == pytest.approx(32 / 48)
    assert occupancy(SM_89, 256, registers=32, shared_bytes=0).fraction == 1.0
    assert occupancy(SM_90, 1025).blocks_per_sm == 0
    with pytest.raises(ValueError):
        occupancy(SM_90, 0)


def test_unknown_resources_give_an_upper_bound_and_say_why():
    o = occupancy(SM_90, 32, unknown={"registers": "not compiled past TTIR"}, kernel="k")
    assert o.upper_bound and o.fraction == 0.5 and o.limited_by == ("blocks",)  # 32 one-warp blocks
    assert o.unknown == {"registers": "not compiled past TTIR", "shared memory": "not reported"}
    assert "at most 50%" in o.text() and "registers unknown: not compiled past TTIR" in o.text()
    assert o.to_json()["upper_bound"] is True and o.to_json()["registers"] is None


def test_every_gpu_target_has_sm_limits_and_the_tpu_none():
    assert {key: t.sm.compute_capability for key, t in TARGETS.items() if t.sm} == {
        "h100-sxm": "9.0", "h200": "9.0", "a100-80gb": "8.0", "l4": "8.9"}
    assert TARGETS["tpu-v5e"].sm is None
    for key in ("h100-sxm", "a100-80gb", "l4"):
        assert TARGETS[key].sm.smem_per_sm == TARGETS[key].smem_per_sm
