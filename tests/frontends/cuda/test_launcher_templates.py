"""Host launchers written as function templates ([w2 1/7]): instantiated as the file instantiates
them (explicitly, from a macro, with deduced arguments), else with float; the entry `launch` is the
float instance, `launch<__half>` another. Each instance is lowered and run by the emulator, so an
instance that is listed but lowered with the wrong element type fails too."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from lowercheck import ir
from lowercheck.errors import UserError
from lowercheck.frontends import cuda, split_entry
from lowercheck.frontends.cuda.instances import explicit_instantiations
from lowercheck.lowering import resolve_entry
from lowercheck.runners import simt
from lowercheck.runners.base import RunRequest

KERNEL = """#include <cuda_runtime.h>
#include <cuda_fp16.h>
namespace ops {
template <typename T>
__global__ void twice(T* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] + x[i];
}
"""

MACRO = KERNEL + """
#define LAUNCH_TWICE(T)  twice<T><<<(n + 127) / 128, 128, 0, stream>>>(x, n)

template <typename T>
void launch_twice(T* x, int n, cudaStream_t stream) {
  LAUNCH_TWICE(T);
}

#define INSTANTIATE_TWICE(T) \\
  template void launch_twice<T>(T*, int, cudaStream_t);
INSTANTIATE_TWICE(__half)
INSTANTIATE_TWICE(float)
}  // namespace ops
"""


def _write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "k.cu"
    path.write_text(text)
    return str(path)


def _element_types(module) -> set[str]:
    return {str(p.element_type) for p in module.walk() if getattr(p, "pname", None) == "x"}


def _run(path: str, entry: str, x: np.ndarray) -> np.ndarray:
    module = cuda.lower(path, entry)
    result = simt.run(RunRequest(language="cuda", path=path, entry=module.ops.first.sym_name.data,
                                 ir=ir.print_ir(module), args={"x": x, "n": x.size}, seed=0, options={}))
    assert result.error is None, result.error
    return result.outputs["x"]


def test_a_macro_instantiated_template_is_an_entry_per_instance(tmp_path: Path) -> None:
    path = _write(tmp_path, MACRO)
    found = cuda.entries(path)
    assert [(c.name, c.instance_of) for c in found] == [("launch_twice", None),
                                                       ("launch_twice<__half>", "launch_twice")]
    assert resolve_entry(path, None, found) == "launch_twice"  # unnamed: the float instance, the only default
    assert _element_types(cuda.lower(path, "launch_twice")) == {"f32"}
    assert _element_types(cuda.lower(path, "launch_twice<__half>")) == {"f16"}
    x = np.arange(300, dtype=np.float32)
    assert np.array_equal(_run(path, "launch_twice", x.copy()), 2 * x)
    h = np.arange(300, dtype=np.float16)
    assert np.array_equal(_run(path, "launch_twice<__half>", h.copy()), 2 * h)


def test_deduced_instantiations_and_the_float_default(tmp_path: Path) -> None:
    """`template void launch(double*, int);` deduces T; a template the file never instantiates is
    instantiated with float; one with a value parameter and no instantiation is no entry."""
    path = _write(tmp_path, KERNEL + """
template <typename T> void deduced(T* x, int n) { twice<<<(n + 63) / 64, 64>>>(x, n); }
template void deduced(double*, int);
template <typename T> void never_instantiated(T* x, int n) { twice<<<(n + 63) / 64, 64>>>(x, n); }
template <typename T, int BLOCK> void valued(T* x, int n) { twice<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(x, n); }
}
""")
    names = [c.name for c in cuda.entries(path)]
    assert names == ["deduced", "never_instantiated"]
    assert _element_types(cuda.lower(path, "deduced")) == {"f64"}
    assert _element_types(cuda.lower(path, "never_instantiated")) == {"f32"}
    x = np.arange(100, dtype=np.float64)
    assert np.array_equal(_run(path, "deduced", x.copy()), 2 * x)


def test_an_instance_that_does_not_compile_is_left_out(tmp_path: Path) -> None:
    """Instantiating with float where the body needs a member float lacks: no error of the file, and
    the template is no entry; the plain launcher beside it still is."""
    path = _write(tmp_path, KERNEL + """
template <typename T> void needs_member(T* x, int n) { twice<<<T::blocks, 64>>>(x, n); }
void plain(float* x, int n) { twice<<<(n + 63) / 64, 64>>>(x, n); }
}
""")
    assert [c.name for c in cuda.entries(path)] == ["plain"]


def test_an_unknown_instance_names_the_others(tmp_path: Path) -> None:
    path = _write(tmp_path, MACRO)
    with pytest.raises(UserError) as err:
        resolve_entry(path, "launch_twice<int>", cuda.entries(path))
    assert "launch_twice<__half>" in (err.value.hint or "")
    assert split_entry(f"{path}:launch_twice<__half>") == (path, "launch_twice<__half>")


def test_macro_expansion_finds_each_instantiation() -> None:
    found = explicit_instantiations(
        "#define INST(T, N) template __host__ void run<T, N>(T*, int); \\\n  template void other(T*);\n"
        "INST(float, 4)\nINST(__half, 8)\ntemplate void run<double, 2>(double*, int);\n")
    assert [i.shown for i in found["run"]] == ["run<double, 2>", "run<float, 4>", "run<__half, 8>"]
    assert [(i.args, i.params) for i in found["other"]] == [(None, "float*"), (None, "__half*")]
