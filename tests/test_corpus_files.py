"""The corpus itself: every expected.toml is well formed, every CUDA reference compiles (nvcc) and
parses with clang's CUDA front end without CUDA headers, and every Triton port runs in the Triton
interpreter.

Every tensor a port sees is a view of a larger, padded buffer, so ports that go out of bounds run
safely: their stray accesses land in the padding. Outputs are poisoned (NaN). Correct ports must match
a numpy (float64) reference of the operation at several sizes, leave no poison, change no input and
touch no padding. For seeded-bug ports, what the run shows must agree with the case's codes that a run
can show: LC201 (padding written: an out-of-bounds store), LC301 (a written value is wrong), LC303
(poison survived), LC306 (an input changed).

This checks the corpus, not lowercheck: nothing here runs lowercheck.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path

import pytest

from lowercheck.findings import CODES, Severity

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
OPS = sorted(p.parent.name for p in CORPUS.glob("*/expected.toml"))
CASE_KEYS = {"source", "target", "verdict", "codes", "description"}
VERDICTS = {"equivalent", "different"}
SIZES = (1, 255, 1000, 4099)
# The codes a plain run can show (LC201 only through out-of-bounds stores, which every
# out-of-bounds port here has).
RUN_CODES = {"LC201", "LC301", "LC303", "LC306"}


def load_cases(op: str) -> list[dict]:
    with open(CORPUS / op / "expected.toml", "rb") as f:
        return tomllib.load(f)["case"]


def all_cases() -> list[tuple[str, dict]]:
    return [(op, case) for op in OPS for case in load_cases(op)]


def test_corpus_has_the_four_ops():
    assert set(OPS) >= {"vector_add", "saxpy", "relu", "gelu"}


# ---------------------------------------------------------------------------------------------
# expected.toml


@pytest.mark.parametrize("op", OPS)
def test_expected_toml_is_well_formed(op):
    cases = load_cases(op)
    assert cases, f"{op}: no [[case]]"
    folder = CORPUS / op
    for case in cases:
        where = f"{op}/{case.get('target')}"
        assert set(case) == CASE_KEYS, f"{where}: keys {sorted(case)}"
        assert (folder / case["source"]).is_file(), f"{where}: missing {case['source']}"
        assert (folder / case["target"]).is_file(), f"{where}: missing {case['target']}"
        assert case["source"].endswith(".cu") and case["target"].endswith(".py"), where
        assert case["verdict"] in VERDICTS, where
        assert isinstance(case["codes"], list), where
        assert case["codes"] == sorted(set(case["codes"])), f"{where}: codes unsorted or repeated"
        for code in case["codes"]:
            assert code in CODES, f"{where}: unknown code {code}"
            assert CODES[code].severity == Severity.ERROR, f"{where}: {code} is not error-level"
        if case["verdict"] == "equivalent":
            assert case["codes"] == [], f"{where}: an equivalent case lists codes"
        else:
            assert case["codes"], f"{where}: a different case lists no code"
        assert isinstance(case["description"], str) and case["description"].strip(), where


@pytest.mark.parametrize("op", OPS)
def test_every_file_has_a_case(op):
    cases = load_cases(op)
    folder = CORPUS / op
    targets = [c["target"] for c in cases]
    assert len(targets) == len(set(targets)), f"{op}: a target appears twice"
    assert sorted(targets) == sorted(p.name for p in folder.glob("*.py"))
    assert {c["source"] for c in cases} == {p.name for p in folder.glob("*.cu")}
    verdicts = [c["verdict"] for c in cases]
    assert verdicts.count("different") >= 3, f"{op}: fewer than 3 seeded bugs"
    assert verdicts.count("equivalent") >= 2, f"{op}: needs the port and a different-looking one"


# ---------------------------------------------------------------------------------------------
# CUDA references

CU_FILES = sorted(CORPUS.glob("*/*.cu"))


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")
@pytest.mark.parametrize("path", CU_FILES, ids=lambda p: p.name)
def test_cuda_compiles_with_nvcc(path, tmp_path):
    proc = subprocess.run(
        ["nvcc", "-cubin", "-arch=sm_90", "-o", str(tmp_path / "k.cubin"), str(path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr


# What the corpus may assume of a shim: the CUDA qualifiers, the builtin index variables, dim3, the
# launch configuration call, and the five float math functions. No CUDA header.
CLANG_SHIM = r"""
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
typedef unsigned long size_t;
struct uint3 { unsigned int x, y, z; };
struct dim3 {
    unsigned int x, y, z;
    __host__ __device__ dim3(unsigned int a = 1, unsigned int b = 1, unsigned int c = 1)
        : x(a), y(b), z(c) {}
};
extern const __device__ uint3 threadIdx, blockIdx, blockDim, gridDim;
typedef struct CUstream_st* cudaStream_t;
extern "C" int cudaConfigureCall(dim3, dim3, size_t = 0, cudaStream_t = 0);
extern "C" int __cudaPushCallConfiguration(dim3, dim3, size_t = 0, void* = 0);
__device__ float expf(float);
__device__ float tanhf(float);
__device__ float erff(float);
__device__ float sqrtf(float);
__device__ float fmaxf(float, float);
"""


@pytest.mark.parametrize("path", CU_FILES, ids=lambda p: p.name)
def test_cuda_parses_with_clang_and_a_shim(path, tmp_path):
    try:
        from clang import cindex

        index = cindex.Index.create()
    except Exception as exc:  # libclang missing or unloadable
        pytest.skip(f"libclang unavailable: {exc}")
    shim = tmp_path / "shim.h"
    shim.write_text(CLANG_SHIM)
    args = ["-x", "cuda", "-nocudainc", "-nocudalib", "-std=c++17", "-include", str(shim)]
    tu = index.parse(str(path), args=args)
    errors = [str(d) for d in tu.diagnostics if d.severity >= cindex.Diagnostic.Error]
    assert not errors, errors
    text = path.read_text()
    assert "#include" not in text
    assert text.count("__global__") == 1 and text.count("<<<") == 1


# ---------------------------------------------------------------------------------------------
# Triton ports, run in the interpreter in a child process (TRITON_INTERPRET must be set before
# triton is imported). One child per op; it reports one JSON object per port.

CHILD = r"""
import importlib.util, json, math, sys, traceback
import numpy as np
import torch

# Every tensor is a view of the first n elements of a buffer with PAD elements of padding after it,
# so out-of-bounds accesses (at most one tile past the end) land in the padding instead of foreign
# memory, and out-of-bounds writes show as changed padding. Inputs are padded with a finite
# sentinel; outputs the wrappers allocate (torch.empty_like) are poisoned with NaN, padding included.
PAD = 4096
_buffers = []


def _padded(n, fill, dtype=torch.float32):
    buf = torch.full((n + PAD,), fill, dtype=dtype)
    _buffers.append((buf, buf[n:].clone()))
    return buf[:n]


def _poisoned_empty_like(t, *a, **k):
    assert t.dim() == 1 and t.is_contiguous() and not a and not k, "the corpus allocates 1-D outputs"
    return _padded(t.numel(), float("nan"), t.dtype)


torch.empty_like = _poisoned_empty_like


def _padding_written():
    return any(not torch.equal(buf[-PAD:].view(torch.int32), pad.view(torch.int32)) for buf, pad in _buffers)


_erf = np.vectorize(math.erf)
REFS = {
    "vector_add": (2, lambda x, y: x + y),
    "saxpy": (2, lambda x, y: 1.5 * x + y),
    "relu": (1, lambda x: np.maximum(x, 0.0)),
    "gelu": (1, lambda x: 0.5 * x * (1.0 + _erf(x / np.sqrt(2.0)))),
}
op, sizes, jobs = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
n_inputs, ref = REFS[op]
results = {}
for path in jobs:
    res = {"imported": False, "error": None, "runs": []}
    results[path] = res
    try:
        spec = importlib.util.spec_from_file_location("corpus_port", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        # @triton.jit gives a JITFunction, or an InterpretedFunction under TRITON_INTERPRET=1.
        from triton.runtime import JITFunction
        from triton.runtime.interpreter import InterpretedFunction
        jit_types = (JITFunction, InterpretedFunction)
        kernels = [v for v in vars(mod).values() if isinstance(v, jit_types)]
        wrappers = [
            v for k, v in vars(mod).items()
            if callable(v) and not k.startswith("_") and getattr(v, "__module__", None) == mod.__name__
            and not isinstance(v, (type, *jit_types))
        ]
        res["kernels"] = len(kernels)
        res["wrappers"] = [w.__name__ for w in wrappers]
        res["imported"] = True
        (wrapper,) = wrappers
        for n in sizes:
            g = torch.Generator().manual_seed(1000 + n)
            _buffers.clear()
            inputs = []
            for _ in range(n_inputs):
                t = _padded(n, 12345.0)
                t.copy_(torch.randn(n, generator=g, dtype=torch.float32))
                inputs.append(t)
            before = [t.clone() for t in inputs]
            args = ([1.5] if op == "saxpy" else []) + inputs
            out = wrapper(*args)
            expect = ref(*[t.double().numpy() for t in before])
            got = out.detach().double().numpy()
            written = ~np.isnan(got)
            # torch.testing.assert_close's fp32 tolerance, against a float64 reference.
            close = np.abs(got - expect) <= 1e-5 + 1.3e-6 * np.abs(expect)
            res["runs"].append({
                "n": n,
                "dtype": str(out.dtype),
                "shape": list(out.shape),
                "poison_left": int((~written).sum()),
                "wrong_written": int((written & ~close).sum()),
                "inputs_changed": any(not torch.equal(a, b) for a, b in zip(inputs, before)),
                "padding_written": _padding_written(),
            })
    except BaseException:
        res["error"] = traceback.format_exc()
print("@@RESULTS@@" + json.dumps(results))
"""


def _port_cases() -> dict[str, tuple[str, dict]]:
    return {f"{op}/{case['target']}": (op, case) for op, case in all_cases()}


def _run_child(op: str, jobs: list[str]) -> dict:
    env = dict(os.environ)
    env.update(
        TRITON_INTERPRET="1",
        TRITON_CACHE_DIR=str(ROOT / ".cache" / "triton"),
        TRITON_HOME=str(ROOT / ".cache" / "triton-home"),
        XDG_CACHE_HOME=str(ROOT / ".cache" / "xdg"),
    )
    env.setdefault("TRITON_DEFAULT_FP_FUSION", "1")  # as the Makefile sets it
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, op, json.dumps(SIZES), json.dumps(jobs)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=600,
    )
    marker = "@@RESULTS@@"
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith(marker)), None)
    if line is None:
        raise RuntimeError(f"child for {op} failed (rc {proc.returncode}):\n{proc.stderr[-4000:]}")
    return json.loads(line[len(marker):])


@cache
def interpreter_results() -> dict:
    by_op: dict[str, list[str]] = {}
    for key, (op, _case) in _port_cases().items():
        by_op.setdefault(op, []).append(str(CORPUS / key))
    results: dict = {}
    with ThreadPoolExecutor(max_workers=len(by_op) or 1) as pool:
        for part in pool.map(lambda item: _run_child(*item), by_op.items()):
            results.update(part)
    return {str(Path(k).relative_to(CORPUS)): v for k, v in results.items()}


PORTS = sorted(_port_cases())


@pytest.mark.parametrize("key", PORTS)
def test_port_imports_and_has_one_kernel_and_one_wrapper(key):
    res = interpreter_results()[key]
    assert res["imported"], res["error"]
    assert res["kernels"] == 1, key
    assert len(res["wrappers"]) == 1, res["wrappers"]
    op, _ = _port_cases()[key]
    cu_stem = {"vector_add": "vadd"}.get(op, op)
    assert res["wrappers"] == [cu_stem], "the wrapper is named like the CUDA host launcher"


@pytest.mark.parametrize("key", PORTS)
def test_port_runs_in_the_interpreter(key):
    op, case = _port_cases()[key]
    res = interpreter_results()[key]
    assert res["error"] is None, res["error"]
    runs = res["runs"]
    assert [r["n"] for r in runs] == list(SIZES)
    for r in runs:
        assert r["dtype"] == "torch.float32" and r["shape"] == [r["n"]], r
    if case["verdict"] == "equivalent":
        for r in runs:
            assert r["poison_left"] == 0 and r["wrong_written"] == 0, r
            assert not r["inputs_changed"] and not r["padding_written"], r
    else:
        shown = set()
        if any(r["padding_written"] for r in runs):
            shown.add("LC201")
        if any(r["wrong_written"] for r in runs):
            shown.add("LC301")
        if any(r["poison_left"] for r in runs):
            shown.add("LC303")
        if any(r["inputs_changed"] for r in runs):
            shown.add("LC306")
        assert shown, f"{key}: the seeded bug does not show at sizes {SIZES}"
        claimed = set(case["codes"]) & RUN_CODES
        assert shown == claimed, f"{key}: the run shows {sorted(shown)}, the case lists {sorted(claimed)}"
