"""Bad input: one clear message with file:line and a hint, exit 2 (3 when inconclusive), no traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support import run_lowercheck

CORPUS = Path(__file__).parents[2] / "corpus"
VADD_CU = str(CORPUS / "vector_add" / "vadd.cu")
VADD_PY = str(CORPUS / "vector_add" / "vadd.py")


def lowercheck(*args: str) -> subprocess.CompletedProcess:
    """`lowercheck ARGS` in this test process (`support.run_lowercheck`: the same exit code and output
    as the command's process, without its start and imports); `test_missing_file` runs the process."""
    return run_lowercheck(list(args))


def lowercheck_process(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "lowercheck", *args], capture_output=True, text=True, timeout=300)


def assert_clean_error(done: subprocess.CompletedProcess, code: int, *needles: str) -> None:
    assert done.returncode == code, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    for needle in needles:
        assert needle in done.stderr, done.stderr


def test_missing_file() -> None:
    for run in (lowercheck_process, lowercheck):  # the command's own process, and the same in this one
        assert_clean_error(run("diff", "nope.cu", VADD_PY), 2, f"file not found: {Path.cwd() / 'nope.cu'}", "help:")


def test_unknown_extension(tmp_path: Path) -> None:
    other = tmp_path / "kernel.f90"
    other.write_text("program x\nend program\n")
    assert_clean_error(lowercheck("diff", str(other), VADD_PY), 2, "unknown file type `.f90`", "help:")


def test_cuda_syntax_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.cu"
    bad.write_text("__global__ void k(float* x, int n) {\n  int i = threadIdx.x\n  x[i] = 0;\n}\n")
    done = lowercheck("diff", str(bad), VADD_PY)
    assert_clean_error(done, 2, f"{bad}:2:")


def test_no_kernel(tmp_path: Path) -> None:
    empty = tmp_path / "empty.cu"
    empty.write_text("int add(int a, int b) { return a + b; }\n")
    assert_clean_error(lowercheck("diff", str(empty), VADD_PY), 2, "help:")


def test_several_entries_need_a_name(tmp_path: Path) -> None:
    two = tmp_path / "two.cu"
    kernel = (CORPUS / "vector_add" / "vadd.cu").read_text()
    launcher = kernel[kernel.index("void vadd("):]
    # Two launchers, neither named like the Triton side's entry (`vadd`): ENTRY is needed.
    two.write_text(kernel.replace("void vadd(", "void launch_a(", 1) + "\n"
                   + launcher.replace("void vadd(", "void launch_b(", 1))
    done = lowercheck("diff", str(two), VADD_PY)
    assert_clean_error(done, 2, "launch_a", "launch_b", "help:")
    named = lowercheck("diff", f"{two}:launch_b", VADD_PY, "--no-run")
    assert named.returncode == 0, named.stderr


def test_launcher_named_like_the_other_entry_is_chosen(tmp_path: Path) -> None:
    two = tmp_path / "two.cu"
    kernel = (CORPUS / "vector_add" / "vadd.cu").read_text()
    launcher = kernel[kernel.index("void vadd("):]
    two.write_text(kernel + "\n" + launcher.replace("void vadd(", "void vadd_again(", 1))
    done = lowercheck("diff", str(two), VADD_PY, "--no-run")
    assert done.returncode == 0, done.stderr
    assert "two.cu:vadd " in done.stdout


def test_triton_file_that_raises_on_import(tmp_path: Path) -> None:
    bad = tmp_path / "port.py"
    bad.write_text("import triton\nimport triton.language as tl\n\nraise RuntimeError('boom at import')\n")
    done = lowercheck("diff", VADD_CU, str(bad))
    assert_clean_error(done, 2, "boom at import", "port.py:4")


def test_spec_that_contradicts_the_signature(tmp_path: Path) -> None:
    spec = tmp_path / "spec.toml"
    spec.write_text('[sizes]\nn = [100]\n[args.nope]\nshape = ["n"]\ndtype = "float32"\n')
    done = lowercheck("diff", VADD_CU, VADD_PY, "--spec", str(spec))
    assert_clean_error(done, 2, "nope", "help:")


def test_bad_size_option() -> None:
    assert_clean_error(lowercheck("diff", VADD_CU, VADD_PY, "--size", "n=abc"), 2, "bad --size")


def test_unknown_code() -> None:
    assert_clean_error(lowercheck("codes", "LC999"), 2, "unknown code")


@pytest.mark.parametrize("code", ["LC201", "LC901"])
def test_code_pages(code: str) -> None:
    done = lowercheck("codes", code)
    assert done.returncode == 0 and "What it checks" in done.stdout


def test_two_untyped_sides_are_compared_on_assumed_arguments_said_in_a_note(tmp_path: Path) -> None:
    """Neither side is typed (two Python ports): the first side's arguments are assumed from its
    wrapper, the report says so and how to override it, and the comparison still finds the bug."""
    import json

    report = tmp_path / "r.json"
    done = lowercheck("diff", VADD_PY, VADD_PY.replace("vadd.py", "vadd_sub.py"), "--json", str(report))
    doc = json.loads(report.read_text())
    note = next(n for n in doc["notes"] if "neither side has a typed signature" in n)
    assert "x: float32[n], y: float32[n]" in note and "[args.NAME]" in note
    assert done.returncode == 1 and "LC301" in {f["code"] for f in doc["findings"]}, done.stdout


def test_unsupported_construct_is_inconclusive_lc901(tmp_path: Path) -> None:
    kernel = tmp_path / "switch.cu"
    kernel.write_text("__global__ void k(const float* x, float* y, int n) {\n    int i = threadIdx.x;\n"
                      "    switch (i) { case 0: y[0] = x[0]; break; default: break; }\n}\n"
                      "void launch(const float* x, float* y, int n) { k<<<1, 32>>>(x, y, n); }\n")
    report = tmp_path / "r.json"
    done = lowercheck("diff", str(kernel), VADD_PY, "--json", str(report))
    assert_clean_error(done, 3, f"{kernel}:3:", "inconclusive[LC901]", "switch")
    import json

    doc = json.loads(report.read_text())
    assert doc["verdict"] == "inconclusive"
    assert [f["code"] for f in doc["findings"]] == ["LC901"] and doc["findings"][0]["location"]["line"] == 3


def test_a_size_no_side_has_is_bad_input() -> None:
    done = lowercheck("diff", VADD_CU, VADD_PY, "--size", "numel=10,20", "--no-run")
    assert_clean_error(done, 2, "the size `numel` to sweep is not a size of either side", "n")


def test_baseline_without_runs_is_bad_input() -> None:
    done = lowercheck("diff", VADD_CU, VADD_PY, "--baseline", "kernelbench", "--no-run")
    assert_clean_error(done, 2, "--baseline judges by running both sides")


def test_a_bom_and_crlf_are_accepted_as_compilers_accept_them(tmp_path: Path) -> None:
    port = tmp_path / "vadd_bom.py"
    port.write_bytes(b"\xef\xbb\xbf" + Path(VADD_PY).read_bytes().replace(b"\n", b"\r\n"))
    source = tmp_path / "vadd_bom.cu"
    source.write_bytes(b"\xef\xbb\xbf" + Path(VADD_CU).read_bytes().replace(b"\n", b"\r\n"))
    done = lowercheck("diff", str(source), str(port), "--no-run")
    assert done.returncode == 0, done.stdout + done.stderr
    # A mark right before the first import: the file is still a reference.
    reference = tmp_path / "vadd_ref_bom.py"
    reference.write_bytes(b"\xef\xbb\xbfimport torch\n\n\ndef vadd(x, y):\n    return x + y\n")
    done = lowercheck("diff", str(reference), str(port), "--no-run")
    assert done.returncode == 0, done.stdout + done.stderr


def test_non_utf8_and_binary_files_are_named_as_such(tmp_path: Path) -> None:
    latin = tmp_path / "latin.py"
    latin.write_bytes(b"import torch\nx = '\xff\xfe'\n")
    assert_clean_error(lowercheck("lower", str(latin)), 2, f"{latin}:2", "not UTF-8")
    binary = tmp_path / "blob.cu"
    binary.write_bytes(bytes(range(256)) * 4)
    assert_clean_error(lowercheck("lower", str(binary)), 2, f"{binary}:1", "binary file")


def test_absurd_sizes_are_rejected_or_left_to_the_static_checks(tmp_path: Path) -> None:
    spec = tmp_path / "huge.toml"
    spec.write_text("# far past int\n[sizes]\nn = [9223372036854775807]\n")
    assert_clean_error(lowercheck("diff", VADD_CU, VADD_PY, "--spec", str(spec), "--no-run"), 2,
                       f"{spec}:3", "does not fit the 32-bit parameter `n`")
    # 2^40 fits vadd_int64.cu's `long long n`; its buffers (24 TiB) are not made: a note, no run
    done = lowercheck("diff", str(CORPUS / "vector_add" / "vadd_int64.cu"), VADD_PY, "--size", "n=1099511627776,100")
    assert done.returncode in (0, 1), done.stderr
    assert "not run at n=1099511627776" in done.stdout and "Traceback" not in done.stderr + done.stdout
    assert "internal error" not in done.stderr


def test_a_binary_spec_is_named_as_such(tmp_path: Path) -> None:
    spec = tmp_path / "spec.toml"
    spec.write_bytes(b"[sizes]\nn = [1]\n\x82\xff\x00\x01")
    assert_clean_error(lowercheck("diff", VADD_CU, VADD_PY, "--spec", str(spec)), 2, f"{spec}:3", "not UTF-8")


def test_an_extent_that_cannot_be_inferred_is_said_at_the_parameter(tmp_path: Path) -> None:
    source = tmp_path / "unguarded.cu"
    source.write_text("__global__ void k(const float* x, const float* y, float* out, int n) {\n"
                      "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    out[i] = x[i] + y[i];\n}\n"
                      "void vadd(const float* x, const float* y, float* out, int n) {\n"
                      "    k<<<n / 256, 256>>>(x, y, out, n);\n}\n")
    assert_clean_error(lowercheck("diff", str(source), VADD_PY, "--no-run"), 2, f"{source}:5:", "extent of `x`")
