"""Malformed input, as `make fuzz` makes it (lowercheck/fuzz.py): each class of failure the fuzzer
found is one test here, an exit 2 with file:line and a hint (3 where lowercheck declines), never an
internal error or a message without a line."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from support import run_lowercheck

from lowercheck import spec
from lowercheck.errors import MAX_INPUT_BYTES, Unsupported, UserError, read_user_text

CORPUS = Path(__file__).parents[2] / "corpus"
VADD_CU = str(CORPUS / "vector_add" / "vadd.cu")
VADD_PY = str(CORPUS / "vector_add" / "vadd.py")


def assert_error_at(done, code: int, where: str, *needles: str) -> None:
    """Exit `code`, `where` (a `path:line`) at the start of an error line, the needles said, no
    internal error."""
    text = done.stdout + done.stderr
    assert done.returncode == code, text
    assert "internal error" not in text and "Traceback" not in text, text
    assert any(line.startswith(f"{where}:") for line in done.stderr.splitlines()), done.stderr
    for needle in needles:
        assert needle in text, text


def test_a_directory_as_a_side_is_named_at_its_first_line(tmp_path: Path) -> None:
    folder = tmp_path / "vadd.cu"
    folder.mkdir()
    assert_error_at(run_lowercheck(["diff", str(folder), VADD_PY, "--no-run"]), 2, f"{folder}:1", "is a directory")


def test_a_directory_as_the_spec_is_named_at_its_first_line(tmp_path: Path) -> None:
    folder = tmp_path / "sizes.toml"
    folder.mkdir()
    assert_error_at(run_lowercheck(["diff", VADD_CU, VADD_PY, "--spec", str(folder), "--no-run"]), 2, f"{folder}:1",
                    "is a directory, not a TOML spec")


def test_a_huge_file_is_declined_with_the_limit_named(tmp_path: Path) -> None:
    big = tmp_path / "vadd.cu"
    big.write_bytes(Path(VADD_CU).read_bytes() + b"// padding\n" * (MAX_INPUT_BYTES // 11 + 1))
    done = run_lowercheck(["diff", str(big), VADD_PY, "--no-run"])
    assert_error_at(done, 3, f"{big}:1", "inconclusive[LC901]", "past lowercheck's limit of 16 MiB")


def test_no_entry_and_a_wrong_entry_are_said_at_the_file(tmp_path: Path) -> None:
    empty = tmp_path / "empty.cu"
    empty.write_text("")
    assert_error_at(run_lowercheck(["diff", str(empty), VADD_PY, "--no-run"]), 2, f"{empty}:1",
                    "no entry point found")
    assert_error_at(run_lowercheck(["diff", VADD_CU, f"{VADD_PY}:no_such_entry", "--no-run"]), 2, f"{VADD_PY}:1",
                    "no entry `no_such_entry`", "entries found: vadd")


def test_a_python_side_that_is_not_utf8_is_named_before_it_is_imported(tmp_path: Path) -> None:
    """A Triton port is imported in a worker: the bytes are checked first (it was "importing the
    file raised UnicodeDecodeError", without a line)."""
    port = tmp_path / "vadd.py"
    lines = Path(VADD_PY).read_bytes().split(b"\n")
    lines[5] += b"  # \xcf\xff"
    port.write_bytes(b"\n".join(lines))
    assert_error_at(run_lowercheck(["diff", VADD_CU, str(port), "--no-run"]), 2, f"{port}:6", "not UTF-8")


def test_a_launch_grid_divided_by_a_negative_constant_is_said_at_the_parameter(tmp_path: Path) -> None:
    """The extent inferred from the guards is negative at the swept sizes: said at the parameter,
    not a tensor of negative size in the other side's capture (an internal error before)."""
    source = tmp_path / "vadd.cu"
    source.write_text(Path(VADD_CU).read_text().replace("(n + block - 1) / block", "(n + block - 1) / -2147483649"))
    assert "-2147483649" in source.read_text()
    done = run_lowercheck(["diff", str(source), VADD_PY, "--no-run"])
    assert_error_at(done, 2, f"{source}:11", "inferred from", "is negative at", "[args.")


@pytest.mark.parametrize("text, needle, line", [
    ("[sizes]\nn = [1000000000000000000000000000000]\n", "past 2^63 - 1", 2),
    ("# a comment\n[sizes]\nn = [" + ", ".join(["7"] * 300) + "]\n", "past lowercheck's limit of 256", 3),
    ("[sizes]\nm = [" + ", ".join(map(str, range(20))) + "]\nn = [" + ", ".join(map(str, range(20))) + "]\n",
     "400 combinations", 1),
    ("sizes = 3\n", "`sizes` must be a table", 1),
    ("[sizes]\nn = [true]\n", "non-negative integer", 2),
    ('[sizes]\n"n" = [1, -1]\n', "non-negative integer", 1),  # a quoted key: the whole file
])
def test_absurd_sizes_are_rejected_at_the_spec_line_with_the_limit(tmp_path: Path, text: str, needle: str,
                                                                   line: int) -> None:
    path = tmp_path / "spec.toml"
    path.write_text(text)
    with pytest.raises(UserError) as err:
        spec.load(str(path))
    assert needle in err.value.message
    assert err.value.location is not None and err.value.location.line == line


def test_absurd_size_options_name_the_option() -> None:
    with pytest.raises(UserError, match=r"--size n=9223372036854775808\) is past 2\^63 - 1"):
        spec.parse_size_option("n=9223372036854775808")
    with pytest.raises(UserError, match="combinations"):
        spec.Spec({"m": [1] * 20}).with_sizes({"n": list(range(20))})
    done = run_lowercheck(["diff", VADD_CU, VADD_PY, "--size", "n=4294967296", "--no-run"])
    assert done.returncode == 2 and "(--size n=4294967296) does not fit the 32-bit parameter `n`" in done.stderr


def test_a_size_the_command_line_gives_is_not_placed_at_a_spec_line(tmp_path: Path) -> None:
    """`--size` over a spec that does not name the size: the error names the option, not `spec:0`."""
    path = tmp_path / "spec.toml"
    path.write_text("[sizes]\nn = [4]\n")
    loaded = spec.load(str(path)).with_sizes({"numel": [3]})
    assert loaded.where("sizes.numel") is None and loaded.where("sizes.n").line == 2
    assert loaded.origin("numel") == "--size numel=3" and loaded.origin("n") == "the spec"


def test_reading_a_user_file_names_what_it_is(tmp_path: Path) -> None:
    crlf = tmp_path / "k.cu"
    crlf.write_bytes(b"\xef\xbb\xbfint x;\r\n")
    assert read_user_text(str(crlf), "CUDA source") == "int x;\r\n"  # clang reads CRLF itself
    binary = tmp_path / "blob.py"
    binary.write_bytes(b"import torch\n\x00\x01")
    with pytest.raises(UserError, match="binary file") as err:
        read_user_text(str(binary), "Python source")
    assert err.value.location.line == 2
    huge = tmp_path / "huge.py"
    with huge.open("wb") as out:
        out.truncate(MAX_INPUT_BYTES + 1)  # sparse: no 16 MiB written
    with pytest.raises(Unsupported, match="past lowercheck's limit") as declined:
        read_user_text(str(huge), "Python source")
    assert declined.value.location.line == 1


def test_an_inferred_extent_the_capture_reads(tmp_path: Path) -> None:
    """The Triton capture reads the extents inferred from the other side's guards, `floor` and
    `ceiling` of a division and a negation included; one it cannot read is inconclusive (it was a
    UserError without a line, about an expression the user never wrote)."""
    from lowercheck.frontends.triton.capture import _extent_value

    sizes = {"n": 10, "rows": 3}.__getitem__
    assert _extent_value("floor((rows + 3)/4)", sizes) == 1
    assert _extent_value("ceiling((n - 1)/4)", sizes) == 3
    assert _extent_value("-n + 2*rows", sizes) == -4
    with pytest.raises(Unsupported, match="beyond what the capture reads"):
        _extent_value("Max(n, rows)", sizes)


def test_bom_and_crlf_keep_a_case_s_verdict(tmp_path: Path) -> None:
    """BOM and CRLF on both sides and the spec: the verdict of the case as it is."""
    names = ("vadd_int64.cu", "vadd.py", "vadd_big.toml")
    for variant in ("plain", "crlf"):
        (tmp_path / variant).mkdir()
        for name in names:
            data = (CORPUS / "vector_add" / name).read_bytes()
            (tmp_path / variant / name).write_bytes(data if variant == "plain"
                                                    else b"\xef\xbb\xbf" + data.replace(b"\n", b"\r\n"))
    plain, crlf = (run_lowercheck(["diff", *(str(tmp_path / variant / name) for name in names[:2]), "--spec",
                                   str(tmp_path / variant / names[2]), "--no-run"]) for variant in ("plain", "crlf"))
    assert plain.returncode == 1 and "LC209" in plain.stdout, plain.stdout + plain.stderr
    assert crlf.returncode == plain.returncode and "LC209" in crlf.stdout, crlf.stdout + crlf.stderr


def test_a_size_of_zero_runs_on_empty_buffers() -> None:
    """`--size n=0` with runs: empty outputs compare as equal (a reshape of an empty array was an
    internal error in the comparison of the runs)."""
    import numpy as np

    from lowercheck.runners.draws import same

    assert same(np.zeros((0, 3), np.float32), np.zeros((0, 3), np.float32)).shape == (0, 3)
    assert same(np.array(1.5, np.float32), np.array(1.5, np.float32))
    done = run_lowercheck(["diff", VADD_CU, VADD_PY, "--size", "n=0,5", "--timeout", "60"])
    assert done.returncode == 0, done.stdout + done.stderr


def test_relative_paths_are_made_absolute_at_the_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Relative FILE[:ENTRY] and --spec arguments mean the caller's folder: the workers and run
    children start elsewhere, where the same relative name may be another file."""
    import argparse

    from lowercheck.cli import _absolute_inputs

    monkeypatch.chdir(tmp_path)
    args = argparse.Namespace(source="k.cu:launch", target="sub/port.py", spec="s.toml", file=None)
    _absolute_inputs(args)
    assert (args.source, args.target, args.spec) == (f"{tmp_path}/k.cu:launch", f"{tmp_path}/sub/port.py",
                                                    f"{tmp_path}/s.toml")
    shutil.copy(VADD_CU, tmp_path / "vadd.cu")
    shutil.copy(CORPUS / "vector_add" / "vadd_sub.py", tmp_path / "vadd.py")  # x - y: not the corpus's vadd.py
    done = run_lowercheck(["diff", "vadd.cu", "vadd.py", "--size", "n=5", "--timeout", "60"])
    assert done.returncode == 1 and "LC301" in done.stdout, done.stdout + done.stderr
    assert f"{tmp_path}/vadd.py" in done.stdout


def test_a_cuda_file_cut_short_shows_clang_s_error_not_no_entry(tmp_path: Path) -> None:
    """The launcher is gone and a kernel template is broken: clang's own error at its line (it was
    "no entry point found", which hid it: only plain functions were searched for errors)."""
    text = (CORPUS / "matmul" / "matmul.cu").read_text()
    cut = tmp_path / "matmul.cu"
    cut.write_text(text[:text.index("int col = blockIdx") + len("int col = blockI")])
    line = cut.read_text().count("\n") + 1
    done = run_lowercheck(["diff", str(cut), str(CORPUS / "matmul" / "matmul.py"), "--no-run"])
    assert_error_at(done, 2, f"{cut}:{line}", "undeclared identifier 'blockI'")
    assert "no entry point" not in done.stderr


def test_a_shift_past_an_integer_s_bits_does_not_hang(tmp_path: Path) -> None:
    """`off >>= 9223372036854775808` (a constant the fuzzer changed): the pass computed 2**(2**63) and
    never ended; such a shift is undefined, not an index operation, and lowering goes on."""
    import subprocess
    import sys

    text = (CORPUS / "cross_entropy" / "cross_entropy.cu").read_text()
    assert "off >>= 1)" in text
    source = tmp_path / "cross_entropy.cu"
    source.write_text(text.replace("off >>= 1)", "off >>= 9223372036854775808)", 1))
    done = subprocess.run([sys.executable, "-m", "lowercheck", "lower", str(source), "--emit", "access"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode in (0, 3), done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr


def test_a_size_of_zero_under_an_index_division_is_inconclusive_not_an_internal_error(tmp_path: Path) -> None:
    """`d = 0` makes the attention reference's `i % d` a modulo by zero at that size (fuzz seed 0 #736):
    the size is left out of the static checks with a note, and with no size left the diff is
    inconclusive (LC901) naming why."""
    folder = CORPUS / "attention"
    spec_text = (folder / "attention_sizes.toml").read_text()
    assert re.search(r"^d = \[.*\]$", spec_text, re.M)
    only_zero = tmp_path / "zero.toml"
    only_zero.write_text(re.sub(r"^d = \[.*\]$", "d = [0]", spec_text, flags=re.M))
    done = run_lowercheck(["diff", str(folder / "attention_ref.py"), str(folder / "attention.py"), "--spec",
                           str(only_zero), "--no-run"])
    assert done.returncode == 3, done.stdout + done.stderr
    said = done.stdout + done.stderr
    assert "divide by zero" in said and "sweep sizes above zero" in said and "internal error" not in said
