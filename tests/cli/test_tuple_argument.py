"""A tuple argument ([w2 1/7]: jax's Pallas backward passes take their forward's residuals as one
tuple `res`, and so do Triton autograd backward passes): the spec gives it item by item (`[args.res] items = [{ shape = ..., dtype = ... }, {
none = true }]`), its arrays are the entry's parameters `res_0`, `res_1`, ..., they pair with the
other side's arrays in order, and the runs pass the tuple rebuilt; a wrong port is still
different, and a malformed `items` is bad input at its line."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import run_lowercheck

HERE = Path(__file__).parent / "inputs" / "tuple_arg"


@pytest.mark.parametrize("port", ["bwd.py", "bwd_triton.py"])
def test_a_tuple_of_arrays_binds_item_by_item(port: str, tmp_path: Path) -> None:
    done = run_lowercheck(["diff", str(HERE / "ref.py"), str(HERE / port), "--spec", str(HERE / "spec.toml")])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "res_0:in[n], res_1:in[n], g:in[n]" in done.stdout
    wrong = tmp_path / port
    wrong.write_text((HERE / port).read_text().replace("x, w, unused = res", "w, x, unused = res"))
    done = run_lowercheck(["diff", str(HERE / "ref.py"), str(wrong), "--spec", str(HERE / "spec.toml"), "--no-static"])
    assert done.returncode == 1, done.stdout + done.stderr


def test_malformed_items_are_bad_input(tmp_path: Path) -> None:
    spec = tmp_path / "spec.toml"
    spec.write_text((HERE / "spec.toml").read_text().replace('{ none = true }', '{ none = true, shape = ["n"] }'))
    done = run_lowercheck(["diff", str(HERE / "ref.py"), str(HERE / "bwd.py"), "--spec", str(spec)])
    assert done.returncode == 2 and "item 2 needs a shape or a value, not both" in done.stderr, done.stderr
    assert f"{spec}:" in done.stderr
