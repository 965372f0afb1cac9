"""Extents written over the sizes (`2*half`, as a spec may give them): the Triton capture evaluates
them from the sizes' symbols, so the launch and the returned tensor's shape stay symbolic."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("TRITON_CACHE_DIR", str(Path(__file__).parents[3] / ".cache" / "triton"))
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")

from lowercheck import ir  # noqa: E402
from lowercheck.errors import Unsupported  # noqa: E402
from lowercheck.frontends import triton as frontend  # noqa: E402
from lowercheck.frontends.base import Binding, TensorArg  # noqa: E402

VADD = Path(__file__).parent / "inputs" / "vadd.py"


def params_and_launch(shape: tuple[str, ...], sizes: dict[str, int] | None = None) -> list[str]:
    vec = TensorArg(shape, "float32")
    module = frontend.lower(str(VADD), None, Binding(args={"x": vec, "y": vec}, sizes=sizes))
    return [line.strip() for line in ir.print_ir(module).splitlines() if "kernel.param" in line or "kernel.launch" in line]


def test_symbolic_extent_expression() -> None:
    lines = params_and_launch(("2*n",))
    assert any('name = "return0"' in line and 'shape = ["2*n"]' in line for line in lines), lines
    assert any('grid = ["floor((2*n + 1023)/1024)"' in line for line in lines), lines


def test_concrete_extent_expression() -> None:
    lines = params_and_launch(("2*n + 1",), sizes={"n": 600})
    assert any('grid = ["2"' in line for line in lines), lines


def test_unreadable_extent() -> None:
    """A spec's extents are checked when it is read: one the capture cannot read was inferred, and
    is lowercheck's limit (inconclusive), not the user's error."""
    with pytest.raises(Unsupported, match="beyond what the capture reads"):
        params_and_launch(("n ** 2",))
