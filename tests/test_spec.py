"""The spec file: sweeps, argument shapes, and clear errors with file:line for bad specs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lowercheck import spec
from lowercheck.errors import UserError


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "spec.toml"
    path.write_text(text)
    return str(path)


def test_sweep_is_the_cartesian_product(tmp_path: Path) -> None:
    s = spec.load(write(tmp_path, '[sizes]\nm = [1, 2]\nn = [3, 5]\n[args.x]\nshape = ["m", "n"]\ndtype = "float16"\n'))
    assert s.sweep() == [{"m": 1, "n": 3}, {"m": 1, "n": 5}, {"m": 2, "n": 3}, {"m": 2, "n": 5}]
    assert s.args["x"].shape == ("m", "n") and s.args["x"].dtype == "float16"


@pytest.mark.parametrize("text, message, line", [
    ("[sizes]\nn = [1, -2]\n", "non-negative", 2),
    ('[sizes]\nn = [4]\n[args.x]\nshape = ["m"]\n', "not in [sizes]", 3),
    ('[args.x]\ndtype = "float8"\n', "dtype", 1),
    ('[sizes]\nn = [1\n', "not valid TOML", 2),
    ("[launcher]\ngrid = 1\n", "unknown section", 1),
    ("[launch]\ngrid = 1\n", "one to three extents", 1),
    ('[sizes]\nn = [4]\n[args.x]\nshape = ["2*m"]\n', "`m`, which is not in [sizes]", 3),
    ('[sizes]\nn = [4]\n[args.x]\nshape = ["n ** 2"]\n', "not a size, an integer", 3),
    ('[args.mode]\nvalue = [[1], 2]\n', "a number, a boolean, a string or a list of them", 1),
    ('[args.bias]\nnone = false\n', "none must be `true`", 1),
    ('[sizes]\nn = [4]\n[args.x]\nshape = ["n"]\nvalue = 2\n', "both a value and a tensor", 3),
    ('[args.x]\nshap = ["n"]\n', "unknown key(s) shap", 1),
])
def test_bad_specs_name_the_line(tmp_path: Path, text: str, message: str, line: int) -> None:
    with pytest.raises(UserError) as err:
        spec.load(write(tmp_path, text))
    assert message in err.value.message
    assert err.value.location is not None and err.value.location.line == line


def test_shape_entries_may_be_expressions_of_sizes(tmp_path: Path) -> None:
    s = spec.load(write(tmp_path, '[sizes]\nseq = [3]\nhalf = [4]\n[args.x]\nshape = ["seq", "2*half"]\n'))
    assert s.args["x"].shape == ("seq", "2*half")


def test_size_option() -> None:
    assert spec.parse_size_option("n=1,1000") == ("n", [1, 1000])
    with pytest.raises(UserError):
        spec.parse_size_option("n=")


def test_values_are_passed_as_given(tmp_path: Path) -> None:
    """`value = ...` and `none = true`: a scalar, a flag, a mode string or None the entry receives
    as is; a float stays a scalar parameter, the others are no parameter of the IR."""
    from lowercheck.frontends.base import ScalarArg, ValueArg
    from lowercheck.lowering import spec_binding

    s = spec.load(write(tmp_path, '[args.eps]\nvalue = 1e-6\n[args.mode]\nvalue = "llama"\n'
                                  '[args.flag]\nvalue = true\n[args.groups]\nvalue = 4\n[args.bias]\nnone = true\n'
                                  '[args.block]\nvalue = [128, 64]\n'))
    assert [(n, a.fixed, a.value) for n, a in s.args.items()] == [
        ("eps", True, 1e-6), ("mode", True, "llama"), ("flag", True, True), ("groups", True, 4), ("bias", True, None),
        ("block", True, (128, 64))]
    args = spec_binding(s).args
    assert args["eps"] == ScalarArg("float32", 1e-6)
    assert [args[n] for n in ("mode", "flag", "groups", "bias")] == [
        ValueArg("llama"), ValueArg(True), ValueArg(4), ValueArg(None)]


def test_unsigned_dtypes(tmp_path: Path) -> None:
    """A PRNG key or a hash is unsigned 32-bit (jax's Pallas PRNG ops take uint32 keys)."""
    assert spec.load(write(tmp_path, '[args.key]\nshape = [1, 2]\ndtype = "uint32"\n')).args["key"].dtype == "uint32"


def test_a_launch_grid_is_read_and_checked(tmp_path) -> None:
    from lowercheck import spec as spec_module

    good = tmp_path / "good.toml"
    good.write_text('[sizes]\nn = [10]\nm = [3]\n[launch]\ngrid = ["(n + 127) // 128", "m", 2]\n')
    assert spec_module.load(str(good)).grid == ("floor((n + 127)/128)", "m", "2")
    assert spec_module.load(str(good)).with_sizes({"n": [5]}).grid == ("floor((n + 127)/128)", "m", "2")
    for text, message in (('[launch]\ngrid = ["k"]\n', "names k, not in [sizes]"),
                          ('[launch]\ngrid = []\n', "one to three extents"),
                          ('[launch]\nblocks = [1]\n', "one key, `grid`"),
                          ('[sizes]\nn = [1]\n[launch]\ngrid = ["n +"]\n', "not an expression")):
        bad = tmp_path / "bad.toml"
        bad.write_text(text)
        with pytest.raises(UserError, match=re.escape(message)) as caught:
            spec_module.load(str(bad))
        assert caught.value.location is not None and caught.value.location.line >= 1


def test_a_construct_takes_tables_as_dicts(tmp_path) -> None:
    """`construct = "triton.Config"` with `kwargs = { kwargs = { BLOCK_M = 64 }, num_warps = 4 }`:
    a table is passed as a dict (Triton's config takes its meta-parameters so)."""
    from lowercheck import spec as spec_module

    path = tmp_path / "c.toml"
    path.write_text('[args.cfg]\nconstruct = "Config"\nkwargs = { kwargs = { BLOCK_M = 64 }, num_warps = 4 }\n')
    made = spec_module.load(str(path)).args["cfg"].value.make({"Config": lambda kwargs, num_warps: (kwargs, num_warps)})
    assert made == ({"BLOCK_M": 64}, 4)
    path.write_text('[args.cfg]\nconstruct = "Config"\nkwargs = { kwargs = { when = 1979-05-27 } }\n')
    with pytest.raises(UserError, match="numbers, booleans, strings, lists, tables and constructs"):
        spec_module.load(str(path))


def test_a_construct_makes_its_nested_constructs_first_and_takes_an_item(tmp_path) -> None:
    """`mask = { construct = "lib.Causal", kwargs = { shape = [8, 8] } }` among the kwargs is made
    first (a list of them too); `item = 0` takes the first of a returned pair (splash attention's
    `process_mask` returns the mask info and a mask function)."""
    import types

    from lowercheck import spec as spec_module

    path = tmp_path / "c.toml"
    path.write_text('[args.info]\nconstruct = "process"\nitem = 0\n'
                    '[args.info.kwargs]\nblock = [4, 4]\n'
                    'mask = { construct = "lib.Heads", kwargs = { masks = [{ construct = "lib.Causal", kwargs = '
                    '{ shape = [8, 8] } }, { construct = "lib.Causal", kwargs = { shape = [8, 8] } }] } }\n')
    lib = types.SimpleNamespace(Causal=lambda shape: ("causal", shape), Heads=lambda masks: ("heads", masks))
    made = spec_module.load(str(path)).args["info"].value.make(
        {"lib": lib, "process": lambda mask, block: ((mask, block), "function")})
    assert made == (("heads", (("causal", (8, 8)), ("causal", (8, 8)))), (4, 4))
    path.write_text('[args.info]\nconstruct = "process"\nitem = -1\n')
    with pytest.raises(UserError, match="item is the index"):
        spec_module.load(str(path))


def test_a_construct_naming_a_constant_is_that_value(tmp_path) -> None:
    """`construct = "QKVLayout.HEAD_DIM_MINOR"` (no kwargs): an enum member is passed as itself."""
    import enum

    from lowercheck import spec as spec_module

    class Layout(enum.Enum):
        HEAD_DIM_MINOR = 0
        SEQ_MINOR = 1

    path = tmp_path / "c.toml"
    path.write_text('[args.layout]\nconstruct = "Layout.SEQ_MINOR"\n')
    assert spec_module.load(str(path)).args["layout"].value.make({"Layout": Layout}) is Layout.SEQ_MINOR
    path.write_text('[args.layout]\nconstruct = "Layout.MISSING"\n')
    with pytest.raises(UserError, match="does not define"):
        spec_module.load(str(path)).args["layout"].value.make({"Layout": Layout})
