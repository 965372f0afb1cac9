"""Migration checks of a Pallas side (lowercheck/frontends/pallas/migration.py for the facts,
lowercheck/compare/migration.py for the findings): each rule passing and failing, with the real
lowerings (jax.export for a TPU and for Triton, Triton's compiler and ptxas) on small kernels in
inputs/migrate/, and the CLI's `--platform`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support import run_lowercheck

from lowercheck.compare import migration
from lowercheck.compare.migration import gpu_block_problem, judge, tpu_block_problem
from lowercheck.findings import Evidence, Severity
from lowercheck.frontends.base import Binding, TensorArg
from lowercheck.frontends.pallas.migration import blockspec_sites, migrate

ROOT = Path(__file__).parents[3]
INPUTS = Path(__file__).parent / "inputs" / "migrate"
TPU = migration.platforms(["tpu-v5e"], "h100-sxm")
GPU = migration.platforms(["h100-sxm"], "h100-sxm")
MIB = 2**20


def facts(name: str, entry: str, shapes: dict[str, tuple], sweep: list[dict[str, int]], chosen) -> dict:
    args = {k: TensorArg(v, "float32") for k, v in shapes.items()}
    return migrate(str(INPUTS / name), entry, Binding(args=args), sweep, [p.for_worker() for p in chosen])


# --- the rules themselves ------------------------------------------------------------------------


@pytest.mark.parametrize("block, array, ok", [
    ((8, 128), (64, 256), True),
    ((16, 256), (64, 1024), True),
    ((8, 100), (64, 100), True),  # the whole last dim
    ((3, 100), (3, 100), True),  # the whole array
    ((8, 100), (64, 200), False),
    ((4, 128), (64, 256), False),
    ((2, 8, 128), (4, 64, 256), True),
    ((1024,), (4096,), True),  # a multiple of 8 x 128
    ((256,), (1000,), True),  # a power of two >= 128
    ((1000,), (1000,), True),
    ((100,), (1000,), False),
    ((64,), (1000,), False),  # a power of two below 128
])
def test_tpu_block_rule(block, array, ok):
    assert (tpu_block_problem(block, array, 4) is None) == ok


@pytest.mark.parametrize("block, ok", [((8, 128), True), ((1024,), True), ((8, 100), False), ((3,), False)])
def test_gpu_block_rule(block, ok):
    assert (gpu_block_problem(block) is None) == ok


def test_blockspec_sites_name_the_call_of_a_named_index_map(tmp_path: Path):
    source = tmp_path / "k.py"
    source.write_text("import functools\nfrom jax.experimental import pallas as pl\n\n"
                      "def imap(i, j):\n    return (i, j)\n\n"
                      "a = pl.BlockSpec((8, 128), imap)\n"
                      "b = pl.BlockSpec((8, 128),\n                 lambda i, j: (j, i))\n"
                      "c = pl.BlockSpec(block_shape=(8, 128), index_map=functools.partial(imap))\n")
    sites = blockspec_sites(str(source))
    assert [(s["line"], s["name"], s["lambda_lines"]) for s in sites] == \
        [(7, "imap", []), (8, None, [9]), (10, "imap", [])]


# --- TPU: block shapes (our rule and Mosaic's), other lowering failures, VMEM ---------------------


def test_tpu_8x100_block_is_lc103_at_each_blockspec():
    found = judge("target", facts("tiles_8x100.py", "scale", {"x": ("r", "c")}, [{"r": 16, "c": 200}], TPU), TPU)
    lc103 = [f for f in found.findings if f.code == "LC103"]
    assert sorted((f.buffer, f.location.line) for f in lc103) == [("return0", 22), ("x", 20)]
    x = next(f for f in lc103 if f.buffer == "x")
    assert x.level == Severity.ERROR and x.witness["block"] == "(8, 100)" and x.witness["array"] == "(16, 200)"
    assert "divisible by 8 and 128" in x.witness["lowering"]  # Mosaic's own refusal, from jax.export
    check = next(c for c in found.checks if c.code == "LC103")
    assert check.status == str(Evidence.REFUTED) and "tpu-v5e" in check.title and "Mosaic" in check.title


def test_tpu_8x128_block_lowers():
    found = judge("target", facts("tiles_8x128.py", "scale", {"x": ("r", "c")}, [{"r": 16, "c": 256}], TPU), TPU)
    assert found.findings == []
    assert {c.code: c.status for c in found.checks} == {"LC103": str(Evidence.SWEPT), "LC102": str(Evidence.SWEPT)}
    assert any("lowers for tpu-v5e" in n for n in found.notes)


def test_block_rule_is_checked_at_every_swept_size():
    # (8, 100) is legal where the array has 100 columns, not where it has 200.
    found = judge("target", facts("tiles_8x100.py", "scale", {"x": ("r", "c")},
                                  [{"r": 16, "c": 100}, {"r": 16, "c": 200}], TPU), TPU)
    x = next(f for f in found.findings if f.code == "LC103" and f.buffer == "x")
    assert x.witness["sizes"] == {"r": 16, "c": 200}


def test_tpu_op_without_a_lowering_is_lc103_at_the_user_line():
    found = judge("target", facts("triton_only_op.py", "masked", {"x": ("r", "c")}, [{"r": 16, "c": 128}], TPU), TPU)
    [f] = [f for f in found.findings if f.code == "LC103"]
    assert f.location.line == 12 and f.level == Severity.ERROR  # the plgpu.load line
    assert "_load_lowering_rule" in f.message
    default = migration.platforms([], "tpu-v5e")  # not asked for: a warning, the verdict unchanged
    [g] = [g for g in judge("target", facts("triton_only_op.py", "masked", {"x": ("r", "c")},
                                             [{"r": 16, "c": 128}], default), default).findings if g.code == "LC103"]
    assert g.level == Severity.WARNING


def test_vmem_overrun_is_lc102_with_the_footprint():
    found = judge("target", facts("vmem_big.py", "add", {"x": ("n",), "y": ("n",)}, [{"n": 1000}], TPU), TPU)
    [f] = [f for f in found.findings if f.code == "LC102"]
    assert f.witness["vmem_bytes"] == 2 * 3 * 4 * MIB and f.witness["budget_bytes"] == 16 * MIB
    assert f.location.line == 15 and "vmem_limit_bytes" in f.hint


def test_vmem_counts_the_scratch_buffers():
    found = judge("target", facts("vmem_scratch.py", "staged", {"x": ("r", "c")}, [{"r": 16, "c": 128}], TPU), TPU)
    [f] = [f for f in found.findings if f.code == "LC102"]
    assert f.witness["vmem_bytes"] == 2 * 2 * 8 * 128 * 4 + 2048 * 2048 * 4  # blocks twice, scratch once
    assert "scratch" in f.message


def test_vmem_limit_raised_by_the_kernel_fits():
    found = judge("target", facts("vmem_big_raised.py", "add", {"x": ("n",), "y": ("n",)}, [{"n": 1000}], TPU), TPU)
    assert [f for f in found.findings if f.code == "LC102"] == []
    check = next(c for c in found.checks if c.code == "LC102")
    assert check.status == str(Evidence.SWEPT) and "24 MiB of 64 MiB" in check.detail


# --- GPU: power-of-two blocks, Triton's shared memory and registers -----------------------------


def test_gpu_non_power_of_two_block_is_lc103():
    found = judge("target", facts("tiles_8x100.py", "scale", {"x": ("r", "c")}, [{"r": 16, "c": 200}], GPU), GPU)
    lc103 = [f for f in found.findings if f.code == "LC103"]
    assert {f.buffer for f in lc103} == {"x", "return0"}
    assert all("power of 2" in f.witness["lowering"] for f in lc103)  # Pallas-on-Triton's own refusal
    resources = next(c for c in found.checks if c.code == "LC102")
    assert resources.status == str(Evidence.UNSUPPORTED)  # nothing to compile: said so


def test_default_platform_findings_are_warnings():
    default = migration.platforms([], "h100-sxm")
    found = judge("target", facts("tiles_8x100.py", "scale", {"x": ("r", "c")}, [{"r": 16, "c": 200}], default),
                  default)
    assert found.findings and all(f.level == Severity.WARNING for f in found.findings)


def test_gpu_power_of_two_block_compiles_with_triton():
    got = facts("tiles_8x128.py", "scale", {"x": ("r", "c")}, [{"r": 16, "c": 256}], GPU)
    [kernel] = got["compiled"]["h100-sxm"]["kernels"]
    assert kernel["name"] == "scale_kernel" and kernel["shared_bytes"] >= 0 and kernel["num_warps"] >= 1
    assert kernel.get("registers", 0) > 0 or "registers_skipped" in kernel
    found = judge("target", got, GPU)
    assert found.findings == []
    assert {c.code: c.status for c in found.checks} == {"LC103": str(Evidence.SWEPT), "LC102": str(Evidence.MEASURED)}


def _gpu_facts(**kernel) -> dict:
    return {"sizes": [{"sizes": {"n": 8}, "calls": [{"kernel": "k", "location": {"file": "k.py", "line": 3},
                                                      "blocks": [], "scratch": [], "vmem_limit_bytes": None}],
                       "lowered": {"h100-sxm": {"ok": True, "error": None}}}],
            "compiled": {"h100-sxm": {"sizes": {"n": 8}, "kernels": [{"name": "k", "num_warps": 4, "num_stages": 3,
                                                                       "grid": [1, 1, 1], **kernel}]}}}


@pytest.mark.parametrize("kernel, codes", [
    ({"shared_bytes": 64 * 1024, "registers": 64, "spill_bytes": 0}, []),
    ({"shared_bytes": 300 * 1024, "registers": 64, "spill_bytes": 0}, ["LC102"]),  # > 227 KiB per block
    ({"shared_bytes": 0, "registers": 255, "spill_bytes": 0, "num_warps": 32}, ["LC102"]),  # 255 x 1024 > 65536
])
def test_gpu_shared_memory_and_register_limits(kernel, codes):
    found = judge("target", _gpu_facts(**kernel), GPU)
    assert [f.code for f in found.findings] == codes
    assert all(f.location.line == 3 for f in found.findings)


def test_gpu_compile_that_could_not_run_says_why():
    got = _gpu_facts()
    got["compiled"]["h100-sxm"] = {"skipped": "Triton is not installed"}
    found = judge("target", got, GPU)
    check = next(c for c in found.checks if c.code == "LC102")
    assert check.status == str(Evidence.UNSUPPORTED) and "not installed" in check.detail
    assert any("not checked" in n for n in found.notes)


# --- the CLI -----------------------------------------------------------------------------------


def test_cli_platform_tpu_reports_the_vmem_overrun(tmp_path: Path):
    out = tmp_path / "report.json"
    done = run_lowercheck(["diff", str(ROOT / "corpus/vector_add/vadd.cu"), str(INPUTS / "vmem_big.py"), "--no-run",
                           "--platform", "tpu-v5e", "--json", str(out)])
    assert done.returncode == 1, done.stdout + done.stderr
    doc = json.loads(out.read_text())
    [f] = [f for f in doc["findings"] if f["code"] == "LC102"]
    assert f["side"] == "target" and f["location"]["line"] == 15 and f["witness"]["platform"] == "tpu-v5e"
    titles = [c["title"] for c in doc["static_checks"] if c["title"].startswith("migration")]
    assert any("tpu-v5e" in t for t in titles) and not any("h100" in t for t in titles)
    assert "vmem_big.py:15" in done.stdout


def test_cli_unknown_platform_is_bad_input():
    done = subprocess.run([sys.executable, "-m", "lowercheck", "diff", str(ROOT / "corpus/vector_add/vadd.cu"),
                           str(INPUTS / "vmem_big.py"), "--platform", "tpu-v9"], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    assert done.returncode == 2 and "unknown target 'tpu-v9'" in done.stderr and "Traceback" not in done.stderr
