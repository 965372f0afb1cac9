"""A pointer advanced inside an inner loop and carried across the outer one (liger's int2 matmul
walks `a_ptrs` so): the inner loop ends at init + trips * step, so the outer loop's step is
known and every load is an index expression (no `access.unmodelled`), proved in bounds; a port
that advances once more per outer trip reads past the end, statically (LC201)."""

from __future__ import annotations

from pathlib import Path

from support import run_lowercheck

INPUTS = Path(__file__).parent / "inputs" / "nested_carry"
SPEC = str(INPUTS / "sum_blocks.toml")


def test_the_carried_pointer_is_an_index_expression() -> None:
    done = run_lowercheck(["lower", f"{INPUTS / 'sum_blocks.py'}:run", "--spec", SPEC, "--emit", "access", "--no-loc"])
    assert done.returncode == 0, done.stderr
    assert 'indices = ["LANE3 + 32*SEQ0*Max(0, n_inner) + 32*SEQ2"]' in done.stdout
    assert "access.unmodelled" not in done.stdout


def test_in_bounds_and_equivalent_and_one_step_too_many_is_out_of_bounds(tmp_path: Path) -> None:
    done = run_lowercheck(["diff", str(INPUTS / "ref.py"), f"{INPUTS / 'sum_blocks.py'}:run", "--spec", SPEC])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "LC201 out-of-bounds access: proved for the swept sizes" in done.stdout
    skip = tmp_path / "sum_blocks_skip.py"
    skip.write_text((INPUTS / "sum_blocks.py").read_text().replace(
        "            ptrs += BLOCK\n", "            ptrs += BLOCK\n        ptrs += BLOCK\n"))
    done = run_lowercheck(["diff", str(INPUTS / "ref.py"), f"{skip}:run", "--spec", SPEC, "--no-run"])
    assert done.returncode == 1, done.stdout + done.stderr
    assert "error[LC201]: out-of-bounds load from `x` (index 192, extent 192)" in done.stdout
