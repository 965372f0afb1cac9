"""The corpus itself: every expected.toml is well formed, every CUDA reference compiles (nvcc) and
parses with clang's CUDA front end without CUDA headers, and every Triton port runs in the Triton
interpreter.

Every tensor a port sees is a view of a larger, padded buffer, so ports that go out of bounds run
safely: their stray accesses land in the padding. Outputs are poisoned (NaN). Correct ports must match
a numpy (float64) reference of the operation at several sizes, leave no poison, change no input and
touch no padding. For seeded-bug ports, what the run shows must agree with the case's codes that a run
can show: LC201 (padding written: an out-of-bounds store), LC301 (a written value is wrong), LC303
(poison survived), LC306 (an input changed). A static case (`mode = "static"`) lists the codes the
static checks must report; its run may show only codes that follow from those, or nothing.

This checks the corpus, not lowercheck: nothing here runs lowercheck.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path

import pytest

from lowercheck.batch import BUG_CLASSES, CLASSES_BEGIN, CLASSES_END, classes_markdown
from lowercheck.findings import CODES, Severity

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
# Kernel folders: a CUDA reference `<op>.cu`, its ports beside it. KernelBench folders (a `problems/`
# folder): problem files and model-written solutions, run whole (`test_kernelbench_layout`).
FOLDERS = sorted(p.parent.name for p in CORPUS.glob("*/expected.toml"))
KERNELBENCH = [f for f in FOLDERS if (CORPUS / f / "problems").is_dir()]
OPS = [f for f in FOLDERS if f not in KERNELBENCH]
CASE_KEYS = {"source", "target", "verdict", "codes", "class", "description"}
# A case lowercheck does not get right yet says why in `known_gap` (tests/test_corpus.py expects it to
# fail); the corpus files themselves are checked the same way.
OPTIONAL_KEYS = {"known_gap", "mode", "spec", "args"}  # args: extra `diff` options (--platform)
# A KernelBench case may name the bug class a correct-for-its-task solution still has beyond the
# task's sizes or inputs (`latent`: reported as warnings, never the verdict), and the warning codes
# the report must carry (`warnings`: a hack no run shows wrong is caught as a warning).
KERNELBENCH_KEYS = {"latent", "warnings"}
# The least a KernelBench folder holds: solutions, wrong ones (verdict different), hacks (a class
# other than none, caught as an error or a warning).
MINIMUM = {"kernelbench": {"solutions": 40, "different": 15},
           "hacks": {"solutions": 30, "hacks": 23}}
VERDICTS = {"equivalent", "different"}
RAISED_BY = {"--custom-kernel": "LC701"}  # a `diff` option that makes a warning code an error
SIZES = (1, 255, 1000, 4099)
# The shaped ops: the sizes of their launchers (tails in every dimension, and whole tiles).
SHAPED_SIZES = {
    "reduce_sum": [[1], [255], [256], [257], [1000], [4099]],  # n
    "transpose": [[1, 1], [1, 40], [33, 17], [32, 32], [45, 70]],  # rows, cols
    "matmul": [[1, 1, 1], [17, 33, 5], [32, 32, 32], [40, 50, 37], [16, 16, 100]],  # m, n, k
    # rows, cols; the last run's inputs are scaled by 100 (|x| up to ~300: exp overflows without the
    # max subtraction).
    "softmax": [[1, 1], [3, 31], [4, 128], [7, 1000], [2, 50, 100.0]],
    "layernorm": [[1, 1], [3, 31], [4, 128], [7, 1000]],  # rows, cols
    "prefix_scan": [[1, 1], [3, 31], [4, 128], [5, 300]],  # rows, cols
    "histogram": [[1, 5], [255, 7], [1000, 16], [4099, 300]],  # n, bins
    # seq, d (d <= 64); the last run's inputs are scaled by 6 (scores up to ~130: exp overflows
    # without the max subtraction).
    "attention": [[1, 8], [17, 8], [40, 33], [33, 64], [40, 33, 6.0]],
    # rows, cols; cols = 1 with rows of small values is where a dropped eps shows.
    "rmsnorm": [[1, 1], [3, 31], [4, 128], [7, 1000], [64, 1]],
    # rows, cols; the last run's logits are scaled by 100 (exp overflows without the max subtraction).
    "cross_entropy": [[1, 1], [3, 31], [4, 128], [7, 1000], [5, 50, 100.0]],
    "rotary": [[1, 1], [3, 31], [13, 33], [4, 64]],  # seq, half (x is seq x 2 * half)
    "rowsum3d": [[1, 1, 1], [3, 7, 7], [2, 9, 33], [1, 17, 100]],  # B, T, C (inp is B x T x C)
    "row_max": [[1, 1], [3, 31], [4, 128], [7, 1000], [5, 65]],  # rows, cols
    "row_cumsum": [[1, 1], [3, 31], [4, 128], [5, 300]],  # rows, cols
}
# The dtype of the outputs (fp32 unless said here).
OUT_DTYPES = {"histogram": "torch.int32"}


def sizes_of(op: str) -> list:
    return SHAPED_SIZES.get(op, list(SIZES))
# The codes a plain run can show. LC201 through out-of-bounds stores (the padding changes) and, for
# the shaped ops, through out-of-bounds reads (the output changes with the input padding's value).
RUN_CODES = {"LC201", "LC301", "LC302", "LC303", "LC306"}
# A static case's codes are what the static checks must report; what its run shows must follow from
# one of them: each run-visible code with the static codes that explain it. A static bug need not show
# in a run at all (a same-valued double store, an index overflow at sizes no run reaches, a stray read
# whose values are discarded).
SHOWN_BY_STATIC = {
    "LC201": {"LC201"},  # an out-of-bounds access
    "LC301": {"LC204", "LC305"},  # other input elements read, or accumulated in a narrower type
    "LC302": {"LC204", "LC305"},
    "LC303": {"LC202"},  # elements never written
    "LC306": {"LC211"},  # an input written
}


def load_cases(op: str) -> list[dict]:
    with open(CORPUS / op / "expected.toml", "rb") as f:
        return tomllib.load(f)["case"]


def cu_stem(op: str) -> str:
    """The CUDA host launcher's name (and the reference file's stem, and every port's wrapper name)."""
    return {"vector_add": "vadd"}.get(op, op)


def all_cases() -> list[tuple[str, dict]]:
    return [(op, case) for op in OPS for case in load_cases(op)]


def test_corpus_has_the_four_ops():
    assert set(OPS) >= {"vector_add", "saxpy", "relu", "gelu"}


# ---------------------------------------------------------------------------------------------
# expected.toml


@pytest.mark.parametrize("op", FOLDERS)
def test_expected_toml_is_well_formed(op):
    cases = load_cases(op)
    assert cases, f"{op}: no [[case]]"
    folder = CORPUS / op
    kernelbench = op in KERNELBENCH
    for case in cases:
        where = f"{op}/{case.get('target')}"
        extra = KERNELBENCH_KEYS if kernelbench else set()
        assert CASE_KEYS <= set(case) <= CASE_KEYS | OPTIONAL_KEYS | extra, f"{where}: keys {sorted(case)}"
        if "latent" in case:
            assert case["latent"] in BUG_CLASSES and case["latent"] != "none" and case["verdict"] == "equivalent", where
        if "warnings" in case:
            assert case["warnings"] and case["warnings"] == sorted(set(case["warnings"])), f"{where}: warnings"
            assert all(code in CODES for code in case["warnings"]), f"{where}: unknown code in warnings"
        if "known_gap" in case:
            assert isinstance(case["known_gap"], str) and case["known_gap"].strip(), f"{where}: known_gap"
        assert (folder / case["source"]).is_file(), f"{where}: missing {case['source']}"
        assert (folder / case["target"]).is_file(), f"{where}: missing {case['target']}"
        if kernelbench:
            assert case["source"].startswith("problems/") and case["target"].startswith("solutions/"), where
        else:
            assert case["source"].endswith((".cu", "_ref.py")) and case["target"].endswith(".py"), where
        assert case["verdict"] in VERDICTS, where
        assert isinstance(case["codes"], list), where
        assert case["codes"] == sorted(set(case["codes"])), f"{where}: codes unsorted or repeated"
        # A static case (`mode = "static"`) lists every error and warning it must report, exactly;
        # an equivalent static case may list warnings (a coalescing difference is no bug).
        static = case.get("mode") == "static"
        assert case.get("mode", "static") == "static", f"{where}: unknown mode {case['mode']}"
        # An option of the case's `args` may make a warning code an error (`--custom-kernel required`).
        raised = {code for option, code in RAISED_BY.items() if option in case.get("args", [])}
        allowed = {Severity.ERROR, Severity.WARNING} if static else {Severity.ERROR}
        for code in case["codes"]:
            assert code in CODES, f"{where}: unknown code {code}"
            assert CODES[code].severity in allowed or code in raised, f"{where}: {code} is {CODES[code].severity}"
        errors = [c for c in case["codes"] if CODES[c].severity == Severity.ERROR or c in raised]
        if case["verdict"] == "equivalent":
            assert errors == [], f"{where}: an equivalent case lists error codes"
        else:
            assert errors, f"{where}: a different case lists no error code"
        if "spec" in case:
            assert (folder / case["spec"]).is_file(), f"{where}: missing spec {case['spec']}"
        assert isinstance(case["description"], str) and case["description"].strip(), where
        # The bug class: one of the documented list; `none` exactly for the correct ports.
        assert case["class"] in BUG_CLASSES, f"{where}: class {case['class']!r} is not in lowercheck.batch.BUG_CLASSES"
        # A correct case is class none, unless a warning names what it does (a hack no run shows wrong).
        if case["class"] == "none":
            assert case["verdict"] == "equivalent", f"{where}: class `none` goes with verdict equivalent"
        elif case["verdict"] == "equivalent":  # a hack no run shows wrong: caught as a warning
            assert case.get("warnings"), f"{where}: an equivalent case of class {case['class']} lists its warnings"


def test_readme_lists_the_bug_classes():
    """corpus/README.md shows BUG_CLASSES (the one list), as `--write-classes` writes it."""
    text = (CORPUS / "README.md").read_text()
    start, end = text.find(CLASSES_BEGIN), text.find(CLASSES_END)
    assert 0 <= start < end, "corpus/README.md lacks the bug-class markers"
    assert text[start:end + len(CLASSES_END)] == classes_markdown(), \
        "the bug-class table is stale: python -m lowercheck.batch --write-classes corpus/README.md"


@pytest.mark.parametrize("op", OPS)
def test_every_file_has_a_case(op):
    cases = load_cases(op)
    folder = CORPUS / op
    # A port is the target of one case against the reference `<launcher>.cu`; it may be the target
    # of more cases against other CUDA sources (a CUDA-side bug, or a different correct CUDA kernel).
    pairs = [(c["source"], c["target"]) for c in cases]
    assert len(pairs) == len(set(pairs)), f"{op}: a (source, target) pair appears twice"
    # `<launcher>_ref.py` is the PyTorch reference (KernelBench format): a source, never a target.
    ports = sorted(p.name for p in folder.glob("*.py") if not p.name.endswith("_ref.py"))
    references = {p.name for p in folder.glob("*_ref.py")}
    assert references == {f"{cu_stem(op)}_ref.py"}, f"{op}: one PyTorch reference, {cu_stem(op)}_ref.py"
    assert sorted(set(c["target"] for c in cases)) == ports
    reference = f"{cu_stem(op)}.cu"
    assert (folder / reference).is_file(), f"{op}: no reference {reference}"
    against_reference = [c["target"] for c in cases if c["source"] == reference]
    assert sorted(against_reference) == ports, f"{op}: every port needs exactly one case against {reference}"
    assert {c["source"] for c in cases} == {p.name for p in folder.glob("*.cu")} | references
    assert any(c["source"] in references and c["verdict"] == "equivalent" for c in cases), \
        f"{op}: the PyTorch reference against a correct port"
    verdicts = [c["verdict"] for c in cases]
    assert verdicts.count("different") >= 3, f"{op}: fewer than 3 seeded bugs"
    assert verdicts.count("equivalent") >= 2, f"{op}: needs the port and a different-looking one"


@pytest.mark.parametrize("folder", KERNELBENCH)
def test_kernelbench_layout(folder):
    """Every solution is the target of exactly one case, against a problem of the folder; every
    problem has a correct solution (of class none); the issues' minimums (`MINIMUM`)."""
    cases = load_cases(folder)
    root = CORPUS / folder
    solutions = sorted(str(p.relative_to(root)) for p in (root / "solutions").glob("*.py"))
    problems = sorted(str(p.relative_to(root)) for p in (root / "problems").glob("*.py"))
    assert sorted(c["target"] for c in cases) == solutions, f"{folder}: each solution, one case"
    assert {c["source"] for c in cases} == set(problems), f"{folder}: each problem in a case"
    for problem in problems:
        assert any(c["verdict"] == "equivalent" and c["class"] == "none" for c in cases if c["source"] == problem), \
            f"{folder}/{problem}: no correct solution"
    counts = {"solutions": len(solutions), "different": sum(c["verdict"] == "different" for c in cases),
              "hacks": sum(c["class"] != "none" for c in cases)}
    for what, least in MINIMUM.get(folder, MINIMUM["kernelbench"]).items():
        assert counts[what] >= least, f"{folder}: {counts[what]} {what}, at least {least}"


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
# launch configuration call, the float math functions, barriers, shuffles and atomicAdd. No CUDA header
# but cooperative groups' (`CG_HEADERS`, declared as far as the corpus uses them).
CLANG_SHIM = r"""
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
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
__device__ float logf(float);
__device__ float tanhf(float);
__device__ float erff(float);
__device__ float sqrtf(float);
__device__ float fmaxf(float, float);
__device__ void __syncthreads();
__device__ float __shfl_down_sync(unsigned int, float, unsigned int, int = 32);
__device__ float __shfl_xor_sync(unsigned int, float, int, int = 32);
__device__ float __shfl_up_sync(unsigned int, float, unsigned int, int = 32);
__device__ int atomicAdd(int*, int);
__device__ float atomicAdd(float*, float);
#define INFINITY __builtin_inff()
"""
CG_HEADERS = {
    "cooperative_groups.h": r"""
namespace cooperative_groups {
struct thread_block { __device__ void sync() const; };
template <unsigned int N> struct thread_block_tile {
    __device__ unsigned int thread_rank() const;
    __device__ unsigned int size() const;
    __device__ unsigned int meta_group_rank() const;
    __device__ unsigned int meta_group_size() const;
    __device__ void sync() const;
};
__device__ thread_block this_thread_block();
template <unsigned int N> __device__ thread_block_tile<N> tiled_partition(const thread_block&);
}
""",
    "cooperative_groups/reduce.h": r"""
namespace cooperative_groups {
template <class T> struct plus { __device__ T operator()(T a, T b) const; };
template <class T> struct greater { __device__ T operator()(T a, T b) const; };
template <class Group, class T, class Op> __device__ T reduce(const Group&, T, Op);
}
""",
}


@pytest.mark.parametrize("path", CU_FILES, ids=lambda p: p.name)
def test_cuda_parses_with_clang_and_a_shim(path, tmp_path):
    try:
        from clang import cindex

        index = cindex.Index.create()
    except Exception as exc:  # libclang missing or unloadable
        pytest.skip(f"libclang unavailable: {exc}")
    shim = tmp_path / "shim.h"
    shim.write_text(CLANG_SHIM)
    for name, text in CG_HEADERS.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    args = ["-x", "cuda", "-nocudainc", "-nocudalib", "-std=c++17", "-include", str(shim), f"-I{tmp_path}"]
    tu = index.parse(str(path), args=args)
    errors = [str(d) for d in tu.diagnostics if d.severity >= cindex.Diagnostic.Error]
    assert not errors, errors
    text = path.read_text()
    includes = re.findall(r"#\s*include\s*[<\"]([^>\"]+)[>\"]", text)
    assert set(includes) <= set(CG_HEADERS), f"{path.name} includes {includes}: the corpus is plain CUDA"
    assert text.count("__global__") == 1 and text.count("<<<") == 1
    op = path.parent.name
    assert f"void {cu_stem(op)}(" in text, f"the host launcher is named {cu_stem(op)}"


# ---------------------------------------------------------------------------------------------
# Triton ports, run in the interpreter in a child process (TRITON_INTERPRET must be set before
# triton is imported). One child per op; it reports one JSON object per port.

CHILD = r"""
import importlib.util, json, math, sys, traceback
import numpy as np
import torch
from lowercheck.runners.triton_shims import find_builtins_once

find_builtins_once()  # the runner's speed shim alone: the interpreter's own patches, found once

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
    assert t.is_contiguous() and not a and not k, "the corpus allocates contiguous outputs"
    return _padded(t.numel(), float("nan"), t.dtype).view(t.shape)


torch.empty_like = _poisoned_empty_like
_real_empty = torch.empty


# The shaped ops' outputs are poisoned with a NaN of a payload no arithmetic produces, so a NaN a
# kernel computes (a non-finite mismatch, LC302) is told apart from poison left (LC303).
POISON_BITS = 0x7FC5A5A5


def _poisoned_empty(*size, dtype=None, device=None):
    # torch.empty(shape, dtype=..., device=...) as the wrappers of the shaped ops call it.
    if len(size) == 1 and isinstance(size[0], (tuple, list, torch.Size)):
        size = tuple(size[0])
    shape = tuple(int(d) for d in size)
    assert dtype in (None, torch.float32), "the shaped ops allocate fp32 outputs"
    t = _padded(math.prod(shape), float("nan"))
    t.view(torch.int32).fill_(POISON_BITS)
    _buffers[-1] = (_buffers[-1][0], _buffers[-1][0][t.numel():].clone())
    return t.view(shape)


def _poisoned_empty_like_shaped(t, *a, **k):
    assert t.is_contiguous() and t.dtype == torch.float32 and not a and not k
    return _poisoned_empty(tuple(t.shape))


def _padding_written():
    return any(not torch.equal(buf[-PAD:].view(torch.int32), pad.view(torch.int32)) for buf, pad in _buffers)


_erf = np.vectorize(math.erf)
REFS = {
    "vector_add": (2, lambda x, y: x + y),
    "saxpy": (2, lambda x, y: 1.5 * x + y),
    "relu": (1, lambda x: np.maximum(x, 0.0)),
    "gelu": (1, lambda x: 0.5 * x * (1.0 + _erf(x / np.sqrt(2.0)))),
}
U = 2.0 ** -24  # fp32 unit roundoff


def _reduce_sum(x):
    tiles = -(-x.size // 256)
    return np.concatenate([x, np.zeros(tiles * 256 - x.size)]).reshape(tiles, 256).sum(axis=1)


def _softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _layernorm(x):
    mean = x.mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-5)


def _histogram(x, counts):
    v = x.astype(np.int64)
    v = v[(v >= 0) & (v < counts.size)]
    return counts + np.bincount(v, minlength=counts.size)


def _rmsnorm(x, w):
    return x * w / np.sqrt((x * x).mean(axis=1, keepdims=True) + 1e-6)


def _cross_entropy(x, target):
    m = x.max(axis=1)
    lse = m + np.log(np.exp(x - m[:, None]).sum(axis=1))
    return lse - x[np.arange(x.shape[0]), target.astype(np.int64)]


def _rotary(x, c, s):
    half = c.shape[1]
    a, b = x[:, :half], x[:, half:]
    return np.concatenate([a * c - b * s, b * c + a * s], axis=1)


def _attention(q, k, v):
    s = q @ k.T / np.sqrt(q.shape[1])
    p = np.exp(s - s.max(axis=1, keepdims=True))
    return (p @ v) / p.sum(axis=1, keepdims=True)


def _attention_allowance(q, k, v):
    # A score off by ds moves the weights by about ds (relative), the output by up to 2 ds max|v|;
    # ds: the dot's typical-case fp32 error sqrt(d) u (|q| |k|) / sqrt(d); then the weighted sum's
    # and exp's roundings (seq + 8) u max|v|.
    seq, d = q.shape
    ds = np.sqrt(d) * U * (np.abs(q) @ np.abs(k).T) / np.sqrt(d)
    return (2 * ds.max(axis=1, keepdims=True) + (seq + 8) * U) * np.abs(v).max()


# The shaped ops: sizes -> input shapes; the float64 reference; and an error allowance beyond
# assert_close's fp32 tolerance for reductions (the worst-case fp32 bound gamma_K * (|a| |b| summed)
# for a reduction of length K: a fixed tolerance is too tight for long sums, see REVIEW-FACTS.md).
SHAPED = {
    "reduce_sum": (lambda n: [(n,)], _reduce_sum, lambda x: 256 * U * _reduce_sum(np.abs(x))),
    "transpose": (lambda rows, cols: [(rows, cols)], lambda x: x.T, lambda x: 0.0),
    "matmul": (lambda m, n, k: [(m, k), (k, n)], lambda a, b: a @ b,
               lambda a, b: a.shape[1] * U * (np.abs(a) @ np.abs(b))),
    "softmax": (lambda rows, cols: [(rows, cols)], _softmax, lambda x: 0.0),
    "layernorm": (lambda rows, cols: [(rows, cols)], _layernorm, lambda x: 0.0),
    "prefix_scan": (lambda rows, cols: [(rows, cols)], lambda x: np.cumsum(x, axis=1),
                    lambda x: x.shape[1] * U * np.cumsum(np.abs(x), axis=1)),
    "histogram": (lambda n, bins: [(n,), (bins,)], _histogram, lambda x, counts: 0.0),
    "attention": (lambda seq, d: [(seq, d)] * 3, _attention, _attention_allowance),
    "rmsnorm": (lambda rows, cols: [(rows, cols), (cols,)], _rmsnorm,
                lambda x, w: x.shape[1] * U * np.abs(_rmsnorm(x, w))),
    "cross_entropy": (lambda rows, cols: [(rows, cols), (rows,)], _cross_entropy,
                      lambda x, target: x.shape[1] * U * (1.0 + np.abs(_cross_entropy(x, target)))),
    "rotary": (lambda seq, half: [(seq, 2 * half), (seq, half), (seq, half)], _rotary, lambda x, c, s: 0.0),
    "rowsum3d": (lambda B, T, C: [(B, T, C)], lambda x: x.sum(axis=2),
                 lambda x: x.shape[2] * U * np.abs(x).sum(axis=2)),
    "row_max": (lambda rows, cols: [(rows, cols)], lambda x: x.max(axis=1), lambda x: 0.0),
    "row_cumsum": (lambda rows, cols: [(rows, cols)], lambda x: np.cumsum(x, axis=1),
                   lambda x: x.shape[1] * U * np.cumsum(np.abs(x), axis=1)),
}
# Inputs other than standard normal fp32: histogram's x holds int32 values in [-2, bins + 2] (some
# outside the bins), and its counts (destination passing: accumulated into) start at small counts.
MAKERS = {
    # cross_entropy's targets: int64 class indices in [0, cols).
    "cross_entropy": lambda g, rows, cols: [None, torch.randint(0, cols, (rows,), generator=g, dtype=torch.int64)],
    "histogram": lambda g, n, bins: [torch.randint(-2, bins + 3, (n,), generator=g, dtype=torch.int32),
                                     torch.randint(0, 5, (bins,), generator=g, dtype=torch.int32)],
}
# Inputs the operation is meant to change (destination passing): not an LC306 when they do.
INOUT = {"histogram": {1}}


def _run_shaped(wrapper, dims, res):
    # Twice on the same inputs, the input padding 0.0 then 12345.0: an output that changes with the
    # padding came from an out-of-bounds read (LC201 even when no store goes out of bounds). The
    # values are judged on the first run, where an out-of-bounds read gives 0.0.
    # A float among the sizes scales the inputs (standard normal times it).
    shapes_of, ref_of, allowance_of = SHAPED[op]
    scale = next((d for d in dims if isinstance(d, float)), 1.0)
    ints = [d for d in dims if isinstance(d, int)]
    outs = []
    for fill in (0.0, 12345.0):
        g = torch.Generator().manual_seed(1000 + sum(ints))
        _buffers.clear()
        inputs = []
        made = MAKERS[op](g, *ints) if op in MAKERS else [None] * len(shapes_of(*ints))
        for shape, value in zip(shapes_of(*ints), made):
            if value is None:
                value = torch.randn(shape, generator=g, dtype=torch.float32) * scale
            t = _padded(math.prod(shape), fill, value.dtype).view(shape)
            t.copy_(value)
            inputs.append(t)
        before = [t.clone() for t in inputs]
        torch.empty, torch.empty_like = _poisoned_empty, _poisoned_empty_like_shaped
        try:
            out = wrapper(*inputs)
        finally:
            torch.empty, torch.empty_like = _real_empty, _poisoned_empty_like
        outs.append((out.detach().clone(), inputs, before, _padding_written()))
    (out, inputs, before, padding0), (out1, inputs1, before1, padding1) = outs
    arrays = [t.double().numpy() for t in before]
    expect = ref_of(*arrays)
    got = out.double().numpy()
    written = (out.contiguous().view(torch.int32) != POISON_BITS).numpy()
    same_shape = list(out.shape) == list(expect.shape)
    if not same_shape:
        expect = np.full(got.shape, np.inf)
    finite = np.isfinite(got)
    close = np.abs(got - expect) <= 1e-5 + 1.3e-6 * np.abs(expect) + allowance_of(*arrays)
    res["runs"].append({
        "n": list(dims),
        "dtype": str(out.dtype),
        "shape": list(out.shape),
        "expected_shape": list(expect.shape),
        "poison_left": int((~written).sum()),
        "wrong_written": int((written & finite & ~close).sum()) if same_shape else int(written.sum()),
        "nonfinite_mismatch": int((written & (finite != np.isfinite(expect))).sum()),
        "inputs_changed": any(not torch.equal(a, b) for i, (a, b) in enumerate(zip(inputs + inputs1, before + before1))
                              if i % len(inputs) not in INOUT.get(op, ())),
        "padding_written": padding0 or padding1,
        "reads_padding": not torch.equal(out.view(torch.int32), out1.view(torch.int32)),
    })
results = {}
# Each op with its sizes and ports: [[op, sizes, [path, ...]], ...]; `op` is the global
# `_run_shaped` reads.
for op, sizes, jobs in json.loads(sys.argv[1]):
    n_inputs, ref = REFS.get(op, (None, None))
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
            if op in SHAPED:
                for dims in sizes:
                    _run_shaped(wrapper, dims, res)
                continue
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
    """Each port with its case against the reference CUDA source (what its own run must show)."""
    return {f"{op}/{case['target']}": (op, case) for op, case in all_cases()
            if case["source"] == f"{cu_stem(op)}.cu" and "pallas_call" not in (CORPUS / op / case["target"]).read_text()}


def _run_child(groups: list[tuple[str, list[str]]]) -> dict:
    """The ports of `groups` (each an op and its ports' paths) in one interpreter process."""
    env = dict(os.environ)
    env.update(
        TRITON_INTERPRET="1",
        TRITON_CACHE_DIR=str(ROOT / ".cache" / "triton"),
        TRITON_HOME=str(ROOT / ".cache" / "triton-home"),
        XDG_CACHE_HOME=str(ROOT / ".cache" / "xdg"),
    )
    env.setdefault("TRITON_DEFAULT_FP_FUSION", "1")  # as the Makefile sets it
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps([[op, sizes_of(op), jobs] for op, jobs in groups])],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=600,
    )
    marker = "@@RESULTS@@"
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith(marker)), None)
    if line is None:
        raise RuntimeError(f"child for {[op for op, _ in groups]} failed (rc {proc.returncode}):\n{proc.stderr[-4000:]}")
    return json.loads(line[len(marker):])


@cache
def interpreter_results() -> dict:
    by_op: dict[str, list[str]] = {}
    for key, (op, _case) in _port_cases().items():
        by_op.setdefault(op, []).append(str(CORPUS / key))
    # Two children, the ops dealt out by their number of ports (largest first), so that torch and
    # Triton are imported twice, not once per op.
    shares: list[list[tuple[str, list[str]]]] = [[], []]
    for op, jobs in sorted(by_op.items(), key=lambda item: -len(item[1])):
        min(shares, key=lambda share: sum(len(j) for _, j in share)).append((op, jobs))
    results: dict = {}
    with ThreadPoolExecutor(max_workers=len(shares)) as pool:
        for part in pool.map(_run_child, [share for share in shares if share]):
            results.update(part)
    return {str(Path(k).relative_to(CORPUS)): v for k, v in results.items()}


PORTS = sorted(_port_cases())


# The interpreter runs every port once per test process: one xdist worker takes all of them.
@pytest.mark.xdist_group("corpus-interpreter")
@pytest.mark.parametrize("key", PORTS)
def test_port_imports_and_has_one_kernel_and_one_wrapper(key):
    res = interpreter_results()[key]
    assert res["imported"], res["error"]
    assert res["kernels"] == 1, key
    assert len(res["wrappers"]) == 1, res["wrappers"]
    op, _ = _port_cases()[key]
    assert res["wrappers"] == [cu_stem(op)], "the wrapper is named like the CUDA host launcher"


@pytest.mark.xdist_group("corpus-interpreter")
@pytest.mark.parametrize("key", PORTS)
def test_port_runs_in_the_interpreter(key):
    op, case = _port_cases()[key]
    res = interpreter_results()[key]
    assert res["error"] is None, res["error"]
    runs = res["runs"]
    assert [r["n"] for r in runs] == sizes_of(op)
    for r in runs:
        assert r["dtype"] == OUT_DTYPES.get(op, "torch.float32"), r
        assert r["shape"] == r.get("expected_shape", [r["n"]]), r
    if case["verdict"] == "equivalent":
        for r in runs:
            assert r["poison_left"] == 0 and r["wrong_written"] == 0, r
            assert not r.get("nonfinite_mismatch"), r
            assert not r["inputs_changed"] and not r["padding_written"], r
            assert not r.get("reads_padding"), r
    else:
        shown = set()
        if any(r["padding_written"] or r.get("reads_padding") for r in runs):
            shown.add("LC201")
        if any(r["wrong_written"] for r in runs):
            shown.add("LC301")
        if any(r.get("nonfinite_mismatch") for r in runs):
            shown.add("LC302")
        if any(r["poison_left"] for r in runs):
            shown.add("LC303")
        if any(r["inputs_changed"] for r in runs):
            shown.add("LC306")
        if case.get("mode") == "static":
            unexplained = sorted(c for c in shown if not SHOWN_BY_STATIC[c] & set(case["codes"]))
            assert not unexplained, f"{key}: the run shows {unexplained}, which none of {case['codes']} explains"
            return
        assert shown, f"{key}: the seeded bug does not show at sizes {sizes_of(op)}"
        claimed = set(case["codes"]) & RUN_CODES
        assert shown == claimed, f"{key}: the run shows {sorted(shown)}, the case lists {sorted(claimed)}"
