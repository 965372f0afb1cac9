"""The table of device ceilings: lookups, device names, measured overrides."""

from __future__ import annotations

import pytest

from lowercheck.errors import UserError
from lowercheck.perf.targets import TARGETS, get_target, target_for_device


def test_every_gpu_has_its_figures_and_the_tpu_its_own():
    for key in ("h100-sxm", "h200", "a100-80gb", "l4"):
        t = TARGETS[key]
        assert None not in (t.fp32_flops, t.fp16_flops, t.bf16_flops, t.l2_bytes, t.sm_count, t.smem_per_sm,
                            t.registers_per_sm), key
        assert t.source
    tpu = get_target("tpu-v5e")
    assert (tpu.bf16_flops, tpu.hbm_bytes_per_s, tpu.vmem_bytes) == (197e12, 819e9, 128 * 2**20)
    assert tpu.peak_flops("fp32") is None


def test_fp32_ceiling_allows_tf32_tensor_cores():
    h100 = get_target("h100-sxm")
    assert h100.peak_flops("fp32") == h100.tf32_flops > h100.fp32_flops
    assert h100.peak_flops("bf16") == 989.4e12
    with pytest.raises(UserError):
        h100.peak_flops("int3")


@pytest.mark.parametrize("name, key", [
    ("NVIDIA H200", "h200"), ("NVIDIA H100 80GB HBM3", "h100-sxm"), ("NVIDIA A100-SXM4-80GB", "a100-80gb"),
    ("NVIDIA L4", "l4"), ("NVIDIA H100 PCIe", None), ("NVIDIA L40S", None), ("NVIDIA A100-SXM4-40GB", None)])
def test_device_names(name, key):
    found = target_for_device(name)
    assert (found and found.name) == (TARGETS[key].name if key else None)


def test_measured_ceilings_override_the_datasheet():
    measured = get_target("h200", {"hbm_bytes_per_s": 4.1e12})
    assert measured.hbm_bytes_per_s == 4.1e12
    assert measured.bf16_flops == TARGETS["h200"].bf16_flops
    assert "measured: hbm_bytes_per_s" in measured.source
    assert target_for_device("NVIDIA H200", {"l2_bytes": 1}).l2_bytes == 1
    with pytest.raises(UserError, match="unknown ceiling"):
        get_target("h200", {"hbm_bandwidth": 1.0})
    with pytest.raises(UserError, match="unknown target"):
        get_target("b200")
