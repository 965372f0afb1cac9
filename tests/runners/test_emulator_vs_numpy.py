"""Trust in the emulator: every corpus CUDA kernel, lowered by the front end and run by the SIMT
emulator, matches an independent numpy reference (computed in float64) at sizes that break tiling."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from lowercheck import ir
from lowercheck.frontends import cuda
from lowercheck.runners import poison, simt
from lowercheck.runners.base import RunRequest

CORPUS = Path(__file__).parents[2] / "corpus"
_erf = np.vectorize(math.erf)
A = 1.75  # saxpy's scalar
# op -> (source file, inputs, reference in float64)
REFERENCES = {
    "vector_add": ("vadd.cu", 2, lambda x, y: x + y),
    "saxpy": ("saxpy.cu", 2, lambda x, y: A * x + y),
    "relu": ("relu.cu", 1, lambda x: np.maximum(x, 0.0)),
    "gelu": ("gelu.cu", 1, lambda x: 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))),
}
SIZES = [1, 63, 64, 65, 97, 255, 257, 1023, 1025, 4099]


@pytest.mark.parametrize("op", sorted(REFERENCES))
def test_emulator_matches_numpy(op: str) -> None:
    name, n_inputs, reference = REFERENCES[op]
    module = cuda.lower(str(CORPUS / op / name))
    text = ir.print_ir(module)
    entry = next(o for o in module.ops if o.name == "kernel.entry")
    rng = np.random.default_rng(7)
    for n in SIZES:
        inputs = [rng.standard_normal(n).astype(np.float32) for _ in range(n_inputs)]
        args: dict = {}
        pending = list(inputs)
        for param in entry.params:
            if param.role.data == "size":
                args[param.pname] = n
            elif param.kind.data == "scalar":
                args[param.pname] = A
            elif param.role.data == "out":
                args[param.pname] = poison.fill(np.empty(n, np.float32))
            else:
                args[param.pname] = pending.pop(0).copy()
        result = simt.run(RunRequest("cuda", str(CORPUS / op / name), entry.sym_name.data, text, args))
        assert result.error is None and not result.oob, (n, result.error, result.oob)
        out = next(result.outputs[p.pname] for p in entry.params if p.role.data == "out")
        expected = reference(*(x.astype(np.float64) for x in inputs))
        np.testing.assert_allclose(out, expected, rtol=2e-6, atol=1e-6, err_msg=f"{op} at n={n}")


# The issue-3 kernels: shared memory, barriers, warp shuffles, templates. Each builds its inputs
# from its sizes and returns (args by parameter name, name of the output, float64 reference).
def _reduce_sum(rng, n):
    x = rng.standard_normal(n).astype(np.float32)
    blocks = (n + 255) // 256
    padded = np.zeros(blocks * 256)
    padded[:n] = x
    return {"x": x, "out": np.empty(blocks, np.float32), "n": n}, "out", padded.reshape(blocks, 256).sum(1)


def _transpose(rng, rows, cols):
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    return ({"x": x.ravel(), "out": np.empty(rows * cols, np.float32), "rows": rows, "cols": cols}, "out",
            x.astype(np.float64).T.ravel())


def _matmul(rng, m, n, k):
    a, b = rng.standard_normal((m, k)).astype(np.float32), rng.standard_normal((k, n)).astype(np.float32)
    return ({"a": a.ravel(), "b": b.ravel(), "out": np.empty(m * n, np.float32), "m": m, "n": n, "k": k}, "out",
            (a.astype(np.float64) @ b.astype(np.float64)).ravel())


def _softmax(rng, rows, cols):
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    return ({"x": x.ravel(), "out": np.empty(rows * cols, np.float32), "rows": rows, "cols": cols}, "out",
            (e / e.sum(1, keepdims=True)).ravel())


def _layernorm(rng, rows, cols):
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    d = x.astype(np.float64)
    mean = d.mean(1, keepdims=True)
    var = ((d - mean) ** 2).mean(1, keepdims=True)
    return ({"x": x.ravel(), "out": np.empty(rows * cols, np.float32), "rows": rows, "cols": cols}, "out",
            ((d - mean) / np.sqrt(var + 1e-5)).ravel())


KERNELS = {
    "reduce_sum/reduce_sum.cu": (_reduce_sum, [(1,), (255,), (256,), (257,), (4099,)], 1e-5),
    "transpose/transpose.cu": (_transpose, [(1, 1), (31, 33), (64, 17)], 0),
    "transpose/transpose_tiled.cu": (_transpose, [(1, 1), (31, 33), (64, 17)], 0),
    "transpose/transpose_tiled_nopad.cu": (_transpose, [(1, 1), (31, 33), (64, 17)], 0),
    "matmul/matmul.cu": (_matmul, [(1, 1, 1), (17, 15, 33), (32, 32, 32)], 1e-5),
    "softmax/softmax.cu": (_softmax, [(1, 1), (3, 31), (5, 257)], 1e-6),
    "layernorm/layernorm.cu": (_layernorm, [(1, 1), (3, 31), (5, 257)], 1e-5),
}


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_shared_memory_kernels_match_numpy(name: str) -> None:
    build, sizes, tolerance = KERNELS[name]
    module = cuda.lower(str(CORPUS / name))
    text = ir.print_ir(module)
    entry = next(o for o in module.ops if o.name == "kernel.entry")
    rng = np.random.default_rng(11)
    for size in sizes:
        args, output, expected = build(rng, *size)
        poison.fill(args[output])
        result = simt.run(RunRequest("cuda", str(CORPUS / name), entry.sym_name.data, text, args, seed=3))
        assert result.error is None and not result.oob and not result.events, (size, result.error, result.events)
        np.testing.assert_allclose(result.outputs[output], expected, rtol=max(tolerance, 1e-6),
                                   atol=tolerance * np.sqrt(expected.size) + 1e-6, err_msg=f"{name} at {size}")
