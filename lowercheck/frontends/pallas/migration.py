"""What a Pallas entry's kernels would be on a migration target, found without the hardware.

Runs in the Pallas worker process (`IsolatedFrontend.migrate`) and returns plain facts (JSON-able);
`lowercheck.compare.migration` judges them against the target's limits. Per size binding:

- every BlockSpec of every pallas_call: block shape, array shape, dtype, memory space, and the
  `pl.BlockSpec(...)` call in the user's file it came from; the scratch buffers; the kernel's
  `vmem_limit_bytes` when its compiler params set one;
- `tpu`: `jax.export` for the TPU platform under an abstract mesh with the chip's device kind (the
  Pallas TPU lowering asks for one; a CPU-only machine has none), i.e. Mosaic's own lowering: its
  error when it refuses;
- `gpu`: `jax.export` for CUDA through the Pallas-on-Triton lowering (Mosaic GPU off). Its custom
  call carries the kernel as Triton IR (MLIR bytecode); at one size (the largest) that IR is printed
  as text with jaxlib's Triton dialect and compiled by Triton for the target's compute capability
  (shared memory from Triton's metadata) and the PTX assembled by Triton's ptxas (`-v`: registers
  and spills). Everything here runs on the CPU; what could not run says why (`skipped`).

The user's `interpret=True` is overridden (`interpret=False`): the point is the real lowering.
"""

from __future__ import annotations

import ast
import contextlib
import inspect
import math
import os
import re
import subprocess
import tempfile
import traceback
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

from lowercheck.errors import SourceLocation
from lowercheck.frontends.base import Binding, parse_python
from lowercheck.frontends.pallas.capture import Call, capture, import_jax
from lowercheck.frontends.pallas.kernel import kernel_name
from lowercheck.frontends.pallas.lowering import _resolve
from lowercheck.frontends.pallas.source import discover, load

PTXAS_TIMEOUT_S = 120
MAX_COMPILED_BLOCK = 1 << 16  # elements of one block; larger ones are not compiled with Triton (slow)


def migrate(path: str, entry: str, binding: Binding, sweep: Sequence[Mapping[str, int]],
            platforms: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Facts for every size of `sweep` and every platform (`{"name", "kind": "tpu"|"gpu",
    "device_kind"|"capability"}`): `{"sizes": [{"sizes", "calls", "lowered": {platform: ...}}],
    "compiled": {platform: ...}}`."""
    target = _resolve(path, entry, discover(path))
    fn = getattr(load(path), target.name)
    sites = blockspec_sites(path)
    out: dict[str, Any] = {"sizes": [], "compiled": {}}
    # Triton compiles once, at the largest size (the largest blocks where they follow the sizes).
    largest = max(range(len(sweep)), key=lambda i: (math.prod(sweep[i].values()), i)) if sweep else -1
    for index, sizes in enumerate(sweep):
        bound = replace(binding, sizes=dict(sizes))
        captured = capture(fn, path, bound)
        record: dict[str, Any] = {"sizes": dict(sizes), "calls": [_call_facts(c, path, sites) for c in captured.calls],
                                  "lowered": {}}
        last = index == largest
        for platform in platforms:
            exported, error, where = _export(fn, captured, platform, path)
            record["lowered"][platform["name"]] = {"ok": error is None, "error": error,
                                                   "location": where.to_json() if where is not None else None}
            if platform["kind"] == "gpu" and last:
                biggest = max((math.prod(b["block"]) for c in record["calls"] for b in c["blocks"]), default=0)
                if exported is None:
                    compiled = {"skipped": "the Triton lowering failed (see above)"}
                elif biggest > MAX_COMPILED_BLOCK:
                    compiled = {"skipped": f"a block of {biggest} elements (over {MAX_COMPILED_BLOCK}) was not "
                                           "compiled: Triton takes minutes on blocks this large"}
                else:
                    compiled = _compile_all(exported, platform)
                out["compiled"][platform["name"]] = {**compiled, "sizes": dict(sizes)}
        out["sizes"].append(record)
    return out


# ---------------------------------------------------------------------------------------------
# BlockSpecs and where they are written


def blockspec_sites(path: str) -> list[dict[str, Any]]:
    """Every `BlockSpec(...)` call in the file: its position and what its index_map is (the line of
    a lambda written inside it, or the name of a function)."""
    tree = parse_python(path)
    sites = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and _callee(node.func) == "BlockSpec"):
            continue
        index_map = node.args[1] if len(node.args) > 1 else next(
            (k.value for k in node.keywords if k.arg == "index_map"), None)
        lambdas = [index_map.lineno] if isinstance(index_map, ast.Lambda) else []  # JAX names its first line
        if isinstance(index_map, ast.Call) and _callee(index_map.func) == "partial" and index_map.args:
            index_map = index_map.args[0]
        name = _callee(index_map) if index_map is not None and not isinstance(index_map, ast.Lambda) else None
        sites.append({"line": node.lineno, "column": node.col_offset + 1, "end_line": node.end_lineno or node.lineno,
                      "lambda_lines": sorted(set(lambdas)), "name": name})
    return sorted(sites, key=lambda s: (s["line"], s["column"]))


def _callee(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None


_SRC_INFO = re.compile(r"^(?P<name>\S+) at (?P<file>.+):(?P<line>\d+)$")


def _site_of(mapping: Any, path: str, sites: list[dict[str, Any]], call: Call) -> SourceLocation | None:
    """The `pl.BlockSpec(...)` that made `mapping`: the one whose index_map is the lambda (or the
    function) JAX traced; else the pallas_call itself."""
    info = getattr(getattr(mapping.index_map_jaxpr.jaxpr, "debug_info", None), "func_src_info", None) or ""
    found = _SRC_INFO.match(info)
    if found and os.path.realpath(found["file"]) == os.path.realpath(path):
        line, name = int(found["line"]), found["name"]
        if name == "<lambda>":
            candidates = [s for s in sites if line in s["lambda_lines"]]
        else:
            candidates = [s for s in sites if s["name"] == name]
        if call.location is not None and len(candidates) > 1:  # the nearest before the pallas_call
            before = [s for s in candidates if s["line"] <= call.location.line] or candidates
            candidates = [max(before, key=lambda s: s["line"])]
        if candidates:
            return SourceLocation(path, candidates[0]["line"], candidates[0]["column"])
    return call.location


def _call_facts(call: Call, path: str, sites: list[dict[str, Any]]) -> dict[str, Any]:
    from jax._src.pallas import core as pallas_core  # the block-shape helper the lowerings use

    grid_mapping = call.eqn.params["grid_mapping"]
    buffers = [*call.operands, *call.results]
    mappings = list(grid_mapping.block_mappings)
    first = len(mappings) - len(buffers)  # scalar-prefetch operands come first and have no buffer
    blocks = []
    for index, mapping in enumerate(mappings):
        if index < first:
            continue
        aval = mapping.array_aval
        space = getattr(mapping.block_aval, "memory_space", None) if hasattr(mapping, "block_aval") else None
        location = _site_of(mapping, path, sites, call)
        blocks.append({
            "buffer": buffers[index - first], "origin": str(mapping.origin),
            "role": "in" if index - first < len(call.operands) else "out",
            "block": [int(d) for d in pallas_core._get_block_shape(mapping.block_shape)],
            "array": [int(d) for d in aval.shape], "dtype": str(aval.dtype), "itemsize": int(aval.dtype.itemsize),
            "memory_space": str(space) if space is not None else "default",
            "location": location.to_json() if location is not None else None,
        })
    scratch = [{"shape": [int(d) for d in a.shape], "dtype": str(a.dtype),
                "bytes": int(math.prod(a.shape)) * _itemsize(a.dtype)}
               for a in getattr(grid_mapping, "scratch_avals", ()) if hasattr(a, "shape") and hasattr(a, "dtype")]
    return {"kernel": kernel_name(call),
            "location": call.location.to_json() if call.location is not None else None,
            "grid": [int(g) if isinstance(g, int) else str(g) for g in grid_mapping.grid],
            "blocks": blocks, "scratch": scratch, "vmem_limit_bytes": _vmem_limit(call.eqn.params)}


def _itemsize(dtype: Any) -> int:
    """Bytes per element; 0 for what holds no array data (a DMA semaphore)."""
    try:
        return int(dtype.itemsize)
    except (AttributeError, TypeError, NotImplementedError):
        return 0


def _vmem_limit(params: Mapping[str, Any]) -> int | None:
    """`pltpu.CompilerParams(vmem_limit_bytes=...)` when the pallas_call sets it."""
    given = params.get("compiler_params")
    found = []
    for value in (given.values() if isinstance(given, Mapping) else [given]):
        if isinstance(value, Mapping):
            found.append(value.get("vmem_limit_bytes"))
        else:
            found.append(getattr(value, "vmem_limit_bytes", None))
    return next((int(v) for v in found if v is not None), None)


# ---------------------------------------------------------------------------------------------
# Lowering with jax.export


@contextlib.contextmanager
def _compiled_pallas(platform: Mapping[str, Any]) -> Iterator[None]:
    """pallas_call with `interpret=False`; for a GPU, the Triton lowering (not Mosaic GPU); for a
    TPU, an abstract mesh whose device is the chip (the TPU lowering reads its tiling from it)."""
    jax = import_jax()
    from jax.experimental import pallas

    real = pallas.pallas_call

    def compiled(*args, **kwargs):
        kwargs["interpret"] = False
        return real(*args, **kwargs)

    previous = jax.config.jax_pallas_use_mosaic_gpu
    pallas.pallas_call = compiled
    try:
        if platform["kind"] == "gpu":
            jax.config.update("jax_pallas_use_mosaic_gpu", False)
            yield
        else:
            from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh

            device = AbstractDevice(device_kind=platform["device_kind"], num_cores=1, platform="tpu")
            with use_abstract_mesh(AbstractMesh((1,), ("x",), (AxisType.Explicit,), abstract_device=device)):
                yield
    finally:
        pallas.pallas_call = real
        jax.config.update("jax_pallas_use_mosaic_gpu", previous)


def _export(fn, captured, platform: Mapping[str, Any], path: str) -> tuple[Any, str | None, SourceLocation | None]:
    """(the exported module, None, None), or (None, the lowering's error message, the user's line)."""
    jax = import_jax()
    from jax import export

    names = list(captured.arrays)
    values = captured.values
    accepted = set(inspect.signature(fn).parameters)

    def traced(*given):
        return fn(**{k: v for k, v in {**values, **dict(zip(names, given, strict=True))}.items() if k in accepted})

    checks = [export.DisabledSafetyCheck.custom_call("__gpu$xla.gpu.triton")] if platform["kind"] == "gpu" else []
    try:
        with _compiled_pallas(platform):
            exported = export.export(jax.jit(traced), platforms=["cuda" if platform["kind"] == "gpu" else "tpu"],
                                     disabled_checks=checks)(*captured.arrays.values())
    except Exception as err:  # noqa: BLE001 - the lowering refused the kernel: that is the fact reported
        return None, _message(err), _user_line(err, path)
    return exported, None, None


def _message(err: BaseException) -> str:
    """The lowering's message; for one raised without a message (an op with no lowering rule), the
    exception type and the lowering function that raised it."""
    text = str(err).strip()
    if not text:
        frames = traceback.extract_tb(err.__traceback__)
        text = type(err).__name__ + (f" in the lowering's `{frames[-1].name}` (no message)" if frames else "")
    return text.split("\nSee details at")[0].strip()


def _user_line(err: BaseException, path: str) -> SourceLocation | None:
    """The user's line the failing JAX operation came from (JAX keeps it as the error's cause)."""
    real = os.path.realpath(path)
    for cause in (err.__cause__, err):
        frames = traceback.extract_tb(cause.__traceback__) if cause is not None else []
        for frame in reversed(frames):
            if os.path.realpath(frame.filename) == real:
                return SourceLocation(path, frame.lineno or 1, (frame.colno or 0) + 1 if frame.colno is not None else 0)
    return None


# ---------------------------------------------------------------------------------------------
# Triton: shared memory and registers


def _compile_all(exported, platform: Mapping[str, Any]) -> dict[str, Any]:
    """Each Triton custom call compiled for the platform's compute capability."""
    try:
        kernels = _triton_calls(exported)
    except Exception as err:  # noqa: BLE001 - a jaxlib without the Triton dialect: say so
        return {"skipped": f"the Triton IR could not be read ({type(err).__name__}: {_message(err)[:200]})"}
    if not kernels:
        return {"skipped": "the export holds no Triton kernel"}
    return {"kernels": [_compile_one(k, int(platform["capability"])) for k in kernels]}


def _triton_calls(exported) -> list[dict[str, Any]]:
    """The Triton kernels of an exported module: name, warps, stages, grid and TTIR as text."""
    from jax._src.interpreters import mlir
    from jax._src.lib.mlir import ir
    from jaxlib.triton import dialect as triton_dialect

    found = []
    with mlir.make_ir_context() as context:
        triton_dialect.register_dialect(context)
        module = ir.Module.parse(exported.mlir_module())
        for op in _walk(module.operation):
            if op.name != "stablehlo.custom_call" or "mhlo.backend_config" not in op.attributes:
                continue
            config = op.attributes["mhlo.backend_config"]
            if not isinstance(config, ir.DictAttr) or "ir" not in config:
                continue
            ttir = ir.Module.parse(ir.StringAttr(config["ir"]).value_bytes)
            found.append({"name": ir.StringAttr(config["name"]).value,
                          "num_warps": ir.IntegerAttr(config["num_warps"]).value,
                          "num_stages": ir.IntegerAttr(config["num_stages"]).value,
                          "grid": [ir.IntegerAttr(config[f"grid_{a}"]).value for a in "xyz"],
                          "ttir": ttir.operation.get_asm(enable_debug_info=False)})
    return found


def _walk(op) -> Iterator[Any]:
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                yield inner
                yield from _walk(inner)


_REGISTERS = re.compile(r"Used (\d+) registers")
_SPILLS = re.compile(r"(\d+) bytes spill stores, (\d+) bytes spill loads")


def _compile_one(kernel: Mapping[str, Any], capability: int) -> dict[str, Any]:
    facts: dict[str, Any] = {"name": kernel["name"], "num_warps": kernel["num_warps"],
                             "num_stages": kernel["num_stages"], "grid": kernel["grid"]}
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")  # as the CLI sets it (Triton 3.9 warns when unset)
    try:
        import triton
        from triton.backends.compiler import GPUTarget
    except ImportError as err:
        return {**facts, "skipped": f"Triton is not installed ({err})"}
    with tempfile.TemporaryDirectory(prefix="lowercheck-pallas-") as folder:
        source = Path(folder) / f"{kernel['name']}.ttir"
        source.write_text(kernel["ttir"])
        try:
            compiled = triton.compile(str(source), target=GPUTarget("cuda", capability, 32),
                                      options={"num_warps": kernel["num_warps"], "num_stages": kernel["num_stages"]})
        except Exception as err:  # noqa: BLE001 - Triton refused the IR: reported, not raised
            return {**facts, "skipped": f"Triton could not compile it for sm_{capability} "
                                        f"({type(err).__name__}: {_message(err).splitlines()[0][:200]})"}
        facts["shared_bytes"] = int(compiled.metadata.shared or 0)
        facts["num_warps"] = int(compiled.metadata.num_warps)
        facts.update(_ptxas(compiled.asm.get("ptx", ""), capability, Path(folder)))
    return facts


def _ptxas(ptx: str, capability: int, folder: Path) -> dict[str, Any]:
    """Registers per thread and spill bytes from Triton's own ptxas (`-v`), or why not."""
    if not ptx:
        return {"registers_skipped": "Triton produced no PTX"}
    try:
        tool = _ptxas_path(capability)
    except Exception as err:  # noqa: BLE001 - no usable ptxas: say so
        return {"registers_skipped": f"no ptxas ({err})"}
    file = folder / "kernel.ptx"
    file.write_text(ptx)
    arch = f"sm_{capability}a" if capability >= 90 else f"sm_{capability}"
    try:
        done = subprocess.run([tool, "-v", f"-arch={arch}", str(file), "-o", str(folder / "kernel.cubin")],
                              capture_output=True, text=True, timeout=PTXAS_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as err:
        return {"registers_skipped": f"ptxas did not run ({type(err).__name__})"}
    used, spills = _REGISTERS.search(done.stderr), _SPILLS.search(done.stderr)
    if done.returncode != 0 or used is None:
        first = (done.stderr.strip().splitlines() or ["no output"])[0][:200]
        return {"registers_skipped": f"ptxas failed: {first}"}
    spilled = int(spills.group(1)) + int(spills.group(2)) if spills else 0
    return {"registers": int(used.group(1)), "spill_bytes": spilled}


@cache
def _ptxas_path(capability: int) -> str:
    from triton.backends.nvidia.compiler import get_ptxas

    return get_ptxas(capability).path
