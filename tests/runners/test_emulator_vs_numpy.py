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
