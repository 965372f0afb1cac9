"""A baseline timed elsewhere is refused: the recorded environment must be this device's, field by field."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from lowercheck.errors import UserError
from lowercheck.perf.device import FakeDevice
from lowercheck.perf.environment import Environment, check_baseline, differences, load_baseline


def _write(tmp_path: Path, environment: dict | None, result: dict | None = None) -> str:
    path = tmp_path / "baseline.json"
    bench = {"result": result if result is not None else {"ratio": 0.5}}
    if environment is not None:
        bench["environment"] = environment
    path.write_text(json.dumps({"lowercheck": "0.1.0", "bench": bench}))
    return str(path)


def test_the_same_device_is_accepted(tmp_path):
    here = FakeDevice(name="NVIDIA H200").environment()
    path = _write(tmp_path, here.to_json())
    recorded, result = load_baseline(path)
    assert recorded == here and result == {"ratio": 0.5}
    check_baseline(path, recorded, FakeDevice(name="NVIDIA H200").environment())  # no error


@pytest.mark.parametrize("change, named", [
    ({"name": "NVIDIA A100-SXM4-80GB"}, "device"),
    ({"driver": "fake driver 2.0"}, "driver"),
    ({"max_sm_mhz": 1410.0}, "max_sm_mhz"),
    ({"sm_count": 8}, "sm_count"),
])
def test_other_hardware_driver_or_clocks_are_refused(tmp_path, change, named):
    recorded = FakeDevice(**{"name": "NVIDIA H200", **change}).environment()
    path = _write(tmp_path, recorded.to_json())
    with pytest.raises(UserError, match=rf"refused baseline .*timed elsewhere .*{named}") as refused:
        check_baseline(path, load_baseline(path)[0], FakeDevice(name="NVIDIA H200").environment())
    assert refused.value.exit_code == 2


def test_other_software_is_refused_and_unknown_clocks_cannot_be_checked():
    here = FakeDevice().environment()
    older = dataclasses.replace(here, software={**here.software, "triton": "3.1.0"})
    assert differences(older, here) == [f"triton: recorded 3.1.0, here {here.software['triton']}"]
    no_clocks = FakeDevice(has_clocks=False).environment()
    assert differences(here, no_clocks) == ["max_sm_mhz: not readable here, so it cannot be checked",
                                            "application_sm_mhz: not readable here, so it cannot be checked"]


def test_no_device_here_refuses_any_baseline(tmp_path):
    path = _write(tmp_path, FakeDevice(name="NVIDIA H200").environment().to_json())
    with pytest.raises(UserError, match="this machine has no CUDA device, so nothing here can be matched"):
        check_baseline(path, load_baseline(path)[0], None)


def test_a_baseline_without_environment_or_timing_is_refused(tmp_path):
    with pytest.raises(UserError, match="lacks device"):
        load_baseline(_write(tmp_path, None))
    partial = {k: v for k, v in FakeDevice().environment().to_json().items() if k != "driver"}
    with pytest.raises(UserError, match="lacks driver"):
        load_baseline(_write(tmp_path, partial))
    (tmp_path / "static.json").write_text(json.dumps({"lowercheck": "0.1.0", "cost": {}}))
    with pytest.raises(UserError, match="holds no timing"):
        load_baseline(str(tmp_path / "static.json"))
    with pytest.raises(UserError, match="cannot read"):
        load_baseline(str(tmp_path / "missing.json"))


def test_environment_round_trips_through_json():
    here = FakeDevice().environment()
    assert Environment.from_json(json.loads(json.dumps(here.to_json()))) == here
