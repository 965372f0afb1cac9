"""Accesses whose index comes from loaded data ([w2 1/7]: an embedding lookup, a gather, a label):
modelled as `access.indirect`, bounds-checked by every run, every other access of the kernel fully
checked; the report says "partly proved". Index inputs are drawn inside the buffer they index in
the typical runs (or in the spec's `range` in all), and a run whose inputs the source itself indexes
out of bounds with judges nothing (`judge.outside_the_domain`)."""

from __future__ import annotations

from pathlib import Path

from support import run_lowercheck

INPUTS = Path(__file__).parent / "inputs" / "embedding"
SPEC = INPUTS / "embed.toml"


def _spec(tmp_path: Path, old: str, new: str) -> Path:
    spec = tmp_path / "spec.toml"
    text = SPEC.read_text()
    assert old in text
    spec.write_text(text.replace(old, new))
    return spec


def test_a_lookup_lowers_partly_proved() -> None:
    done = run_lowercheck(["lower", f"{INPUTS / 'embed.py'}:embed", "--spec", str(SPEC), "--emit", "access", "--no-loc"])
    assert done.returncode == 0, done.stderr
    assert 'access.indirect {buffer = "table", kind = "read", space = "global", element_type = f32, sources = ["r0"]' in done.stdout
    assert '// partly proved: `table`: read at an index computed from loaded data' in done.stdout
    assert "note: partly proved: 1 access(es) take their index from loaded data" in done.stderr
    assert "access.unmodelled" not in done.stdout


def test_a_port_of_a_lookup_is_equivalent_and_its_lookups_are_checked_by_the_runs() -> None:
    done = run_lowercheck(["diff", str(INPUTS / "embed.cu"), f"{INPUTS / 'embed.py'}:embed", "--spec", str(SPEC)])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "partly proved (source): `table`: read at an index computed from loaded data" in done.stdout
    assert "LC201 out-of-bounds access: partly proved (proved for all sizes, except source: `table`; target: `table`" \
        in done.stdout
    assert "LC203 element written twice without atomics: proved for all sizes" in done.stdout


def test_a_port_that_reads_past_the_row_is_different(tmp_path: Path) -> None:
    port = tmp_path / "embed_off.py"
    port.write_text((INPUTS / "embed.py").read_text().replace("row * d + cols, mask=mask)", "row * d + cols + 1, mask=mask)"))
    done = run_lowercheck(["diff", str(INPUTS / "embed.cu"), f"{port}:embed", "--spec", str(SPEC)])
    assert done.returncode == 1, done.stdout + done.stderr
    assert "[target] error[LC201]: out-of-bounds load from `table` observed when run" in done.stdout
    assert "[target] error[LC301]: `out` differs" in done.stdout


def test_index_inputs_are_drawn_inside_what_they_index(tmp_path: Path) -> None:
    spec = _spec(tmp_path, 'range = [0, "v"]\n', "")
    done = run_lowercheck(["diff", str(INPUTS / "embed.cu"), f"{INPUTS / 'embed.py'}:embed", "--spec", str(spec)])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "`ids` holds indices into `table` [v, d]: the normal, uniform, rand01 runs draw its values in " \
        "[0, Min(v, d))" in done.stdout
    # The extreme draws keep their negative and large ids: the source (no guard) indexes out of bounds there.
    assert "[source] warning[LC201]: the source itself indexes `table` out of bounds on the large inputs" in done.stdout
    assert "error[" not in done.stdout


def test_runs_on_inputs_outside_the_source_domain_judge_nothing(tmp_path: Path) -> None:
    spec = _spec(tmp_path, 'range = [0, "v"]', 'range = ["v", "2*v"]')  # every id past the table
    done = run_lowercheck(["diff", str(INPUTS / "embed.cu"), f"{INPUTS / 'embed.py'}:embed", "--spec", str(spec)])
    assert done.returncode == 3, done.stdout + done.stderr
    assert "[source] warning[LC201]: the source itself indexes `table` out of bounds" in done.stdout
    assert "with an index loaded from `ids`: these inputs are outside its domain" in done.stdout
    assert "inconclusive[LC901]: no run's inputs were inside the source's domain" in done.stdout
    assert "error[" not in done.stdout


def test_a_range_is_for_integer_tensors(tmp_path: Path) -> None:
    spec = _spec(tmp_path, 'shape = ["v", "d"]\ndtype = "float32"', 'shape = ["v", "d"]\ndtype = "float32"\nrange = [0, 1]')
    done = run_lowercheck(["diff", str(INPUTS / "embed.cu"), f"{INPUTS / 'embed.py'}:embed", "--spec", str(spec)])
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"{spec}:10: error: [args.table] range is for an integer tensor's values" in done.stderr
    spec = _spec(tmp_path, 'range = [0, "v"]', 'range = [0, "rows"]')
    done = run_lowercheck(["diff", str(INPUTS / "embed.cu"), f"{INPUTS / 'embed.py'}:embed", "--spec", str(spec)])
    assert done.returncode == 2 and "[args.ids] range names `rows`, which is not in [sizes]" in done.stderr
