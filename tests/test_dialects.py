"""The kernel and access dialects reject what they cannot mean."""

from __future__ import annotations

import pytest
from xdsl.utils.exceptions import VerifyException

from lowercheck import ir

ENTRY = '''builtin.module {{
  kernel.entry @e attributes {{language = "cuda", file = "f.cu"}} {{
    {op}
  }}
}}'''


@pytest.mark.parametrize("op, message", [
    ('kernel.param {name = "a", kind = "pointer", role = "in", element_type = f32, shape = []}', "kind"),
    ('kernel.param {name = "a", kind = "buffer", role = "both", element_type = f32, shape = []}', "role"),
    ('kernel.param {name = "a", kind = "buffer", role = "in", element_type = f32, shape = ["n +* 2"]}', "shape"),
    ('kernel.param {name = "a", kind = "buffer", role = "in", element_type = f32, shape = [], written_by = "host"}',
     "written_by"),
    ('kernel.param {name = "a", kind = "buffer", role = "out", element_type = f32, shape = [], written_by = "gpu"}',
     "written_by"),
    ('kernel.launch @k {grid = ["1", "1"], block = [], args = []}', "three extents"),
    ('kernel.launch @k {grid = ["n", "1", "1"], block = [], args = ["a b"]}', "args"),
])
def test_kernel_ops_verify(op: str, message: str) -> None:
    with pytest.raises(VerifyException, match=message):
        ir.parse(ENTRY.format(op=op))


def test_access_kind_and_space_verify() -> None:
    text = '''builtin.module {
  access.kernel @k attributes {grid = ["1", "1", "1"]} {
    access.access {buffer = "a", kind = "touch", space = "global", element_type = f32, indices = ["LANE0"], domain = [], guard = [], fastest = "LANE0", id = "r0", sources = []}
  }
}'''
    with pytest.raises(VerifyException, match="kind"):
        ir.parse(text)


def test_access_lanes_name_lanes() -> None:
    """A tile access's `lanes` (one per dimension, "" for size 1) are LANE variables."""
    text = '''builtin.module {
  access.kernel @k attributes {grid = ["1", "1", "1"]} {
    access.access {buffer = "a", kind = "write", space = "global", element_type = f32, indices = ["LANE3"], domain = [], guard = [], fastest = "LANE3", id = "w0", sources = [], lanes = [%s]}
  }
}'''
    access = next(o for o in ir.parse(text % '"", "LANE3"').walk() if o.name == "access.access")
    assert access.tile_lanes == ("", "LANE3")
    with pytest.raises(VerifyException, match="lanes"):
        ir.parse(text % '"SEQ0"')
