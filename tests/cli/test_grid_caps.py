"""Sizes from the launch grid ([w2 2/7]): a grid capped by a constant (a persistent kernel's
`min(rows, NUM_SMS)`) gets a size past twice the cap in the default sweep, so that every program
takes a second turn of its loop; a spec's sweep stays the domain, and a cap none of its sizes
passes is said in a note."""

from __future__ import annotations

import json
from pathlib import Path

from support import run_lowercheck

from lowercheck import ir, plan

HERE = Path(__file__).parent
ROWSUM = HERE / "inputs" / "rowsum.cu"
PERSISTENT = HERE / "inputs" / "rowsum_persistent.py"


def _entry(grid: list[str]) -> str:
    quoted = ", ".join(f'"{g}"' for g in grid)
    return f'''builtin.module {{
  kernel.entry @f attributes {{language = "triton", file = "f.py"}} {{
    kernel.param {{name = "m", kind = "scalar", role = "size", element_type = i32, shape = []}}
    kernel.param {{name = "n", kind = "scalar", role = "size", element_type = i32, shape = []}}
    kernel.launch @k {{grid = [{quoted}], block = [], args = [], num_warps = #builtin.int<4>}}
  }}
}}'''


def test_the_size_past_a_cap() -> None:
    module = ir.parse(_entry(["Min(132, m)", "1", "1"]))
    (cap,) = plan.grid_caps([module], ["m", "n"])
    assert (cap.kernel, cap.cap, cap.size, cap.past) == ("k", 132, "m", 265)
    # A capped number of tiles: 65 tiles of 1024 for 32 programs.
    module = ir.parse(_entry(["Min(32, floor((n + 1023)/1024))", "m", "1"]))
    (cap,) = plan.grid_caps([module], ["m", "n"])
    assert (cap.size, cap.past) == ("n", 64 * 1024 + 1)
    # No cap, a cap past what a run here can take, a bound that is not a constant: nothing.
    for grid in (["m", "1", "1"], ["Min(65535, floor((n + 1023)/1024))", "1", "1"], ["Min(m, n)", "1", "1"]):
        assert plan.grid_caps([ir.parse(_entry(grid))], ["m", "n"]) == [], grid


def test_a_persistent_port_that_forgets_its_loop_fails_a_run_past_the_cap(tmp_path: Path) -> None:
    """Without the static checks, only a run at a size past the cap (m = 265 for 132 SMs) shows that
    the programs never take a second row; the correct port is equivalent there."""
    report = tmp_path / "report.json"
    done = run_lowercheck(["diff", str(ROWSUM), f"{PERSISTENT}:rowsum_one_pass", "--no-static", "--json", str(report)])
    assert done.returncode == 1, done.stdout + done.stderr
    doc = json.loads(report.read_text())
    assert any("from m=265 every program takes a second turn" in n for n in doc["notes"]), doc["notes"]
    lc303 = [f for f in doc["findings"] if f["code"] == "LC303"]
    assert lc303 and lc303[0]["witness"]["sizes"]["m"] == 265
    done = run_lowercheck(["diff", str(ROWSUM), f"{PERSISTENT}:rowsum", "--no-static", "--json", str(report)])
    assert done.returncode == 0, done.stdout + done.stderr
    assert any(r["sizes"]["m"] == 265 and r["status"] == "ok" for r in json.loads(report.read_text())["runs"])


def test_a_spec_that_never_passes_the_cap_is_said(tmp_path: Path) -> None:
    spec = tmp_path / "spec.toml"
    spec.write_text('[sizes]\nm = [1, 100]\nn = [7]\n\n[args.x]\nshape = ["m", "n"]\ndtype = "float32"\n\n'
                    '[args.out]\nshape = ["m"]\ndtype = "float32"\n')
    report = tmp_path / "report.json"
    done = run_lowercheck(["diff", str(ROWSUM), f"{PERSISTENT}:rowsum", "--no-static", "--spec", str(spec),
                           "--json", str(report)])
    assert done.returncode == 0, done.stdout + done.stderr
    doc = json.loads(report.read_text())
    assert {r["sizes"]["m"] for r in doc["runs"]} == {1, 100}
    assert any("no program of @rowsum_persistent_kernel takes a second turn" in n and "m >= 265" in n
               for n in doc["notes"]), doc["notes"]
