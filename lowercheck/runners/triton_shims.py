"""Shims that let Triton's CPU interpreter run what Triton's compiler accepts.

Triton 3.9's interpreter has no `create_extern_elementwise`, so every libdevice call
(`libdevice.tanh(x)`, `tl.extra.cuda.libdevice.erf(x)`) fails in it, and the backend-neutral
`triton.language.extra.libdevice` module's functions, which the compiler resolves to the backend's,
return None there. `install()` (in the runner's child, before the user's file is imported):

- points the neutral module's functions, and the CUDA module's, at the CUDA definitions called with
  the interpreter's semantic, as the interpreter itself does for `tl.math`; so Triton's own code does
  the type dispatch and broadcasting;
- gives the interpreter's builder a `create_extern_elementwise` that computes the libdevice symbol
  (`__nv_tanhf`) with numpy: in float64 and rounded once to the result type, which is within the
  documented ulp bounds of libdevice, so the tolerance policy judges it as the real function;
- passes a Python float kernel argument on as an fp32 scalar, as the compiler types it (the
  interpreter keeps it a float, so `alpha.to(tl.float16)` fails there);
- runs block pointers (`tl.make_block_ptr`, `tl.advance`, loads and stores with `boundary_check`),
  which Triton 3.9 removed and Triton 3.6 (the GPU image's) compiles, as the pointer blocks and
  masks they stand for (`BlockPointer`);
- makes `@triton.autotune` run its first config, the one the front end lowers, instead of timing
  every config on the GPU driver, which a CPU has none of ("0 active drivers");
- finds the builtins of `triton.language` (its module, `core`, `math`, `tensor`, the descriptors'
  base) once, not on every call: the interpreter patches the language before each call of a jit
  function, nested ones included (`tl.sum`, `tl.cumsum`, `tl.cdiv` once per program), and its
  `inspect.getmembers` of each package was a third of a reduction kernel's run. The patch is the
  same: each remembered name is patched while it is still a builtin, in the same order.

A symbol without an entry here (the directed-rounding `_rd`/`_ru`/`_rz` variants, Bessel functions)
still fails in the interpreter, and that is reported as the runner's limit (inconclusive), never as
the kernel's fault (`triton_interp.InterpreterLimit`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

import numpy as np

_erf = np.vectorize(math.erf, otypes=[np.float64])
_erfc = np.vectorize(math.erfc, otypes=[np.float64])
_lgamma = np.vectorize(math.lgamma, otypes=[np.float64])
_gamma = np.vectorize(math.gamma, otypes=[np.float64])
_remainder = np.vectorize(math.remainder, otypes=[np.float64])


def _erfinv(y: np.ndarray) -> np.ndarray:
    import torch

    return torch.special.erfinv(torch.from_numpy(np.asarray(y, np.float64))).numpy()


def _c_round(x: np.ndarray) -> np.ndarray:
    """C's round: halfway cases away from zero (numpy's rounds them to even)."""
    return np.copysign(np.floor(np.abs(x) + 0.5), x)


# libdevice name (without `__nv_`, the `f` of float variants and the `fast_` prefix) -> numpy, in float64
FUNCTIONS: dict[str, Callable[..., np.ndarray]] = {
    "tanh": np.tanh, "sinh": np.sinh, "cosh": np.cosh, "asinh": np.arcsinh, "acosh": np.arccosh,
    "atanh": np.arctanh, "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos,
    "atan": np.arctan, "sinpi": lambda x: np.sin(np.pi * x), "cospi": lambda x: np.cos(np.pi * x),
    "exp": np.exp, "exp2": np.exp2, "exp10": lambda x: np.power(10.0, x), "expm1": np.expm1,
    "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p,
    "sqrt": np.sqrt, "sqrt_rn": np.sqrt, "rsqrt": lambda x: 1.0 / np.sqrt(x), "rsqrt_rn": lambda x: 1.0 / np.sqrt(x),
    "cbrt": np.cbrt, "rcbrt": lambda x: 1.0 / np.cbrt(x), "rcp_rn": lambda x: 1.0 / x,
    "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "rint": np.rint, "nearbyint": np.rint,
    "round": _c_round, "abs": np.abs, "fabs": np.abs, "saturate": lambda x: np.clip(x, 0.0, 1.0),
    "erf": _erf, "erfc": _erfc, "erfinv": _erfinv, "erfcinv": lambda y: _erfinv(1.0 - y),
    "normcdf": lambda x: 0.5 * _erfc(-x / math.sqrt(2.0)), "lgamma": _lgamma, "tgamma": _gamma,
    "pow": np.power, "powi": np.power, "atan2": np.arctan2, "fmod": np.fmod, "hypot": np.hypot,
    "copysign": np.copysign, "fmax": np.fmax, "fmin": np.fmin, "fdim": lambda x, y: np.maximum(x - y, 0.0),
    "remainder": _remainder, "nextafter": np.nextafter,
    "add_rn": np.add, "sub_rn": np.subtract, "mul_rn": np.multiply, "div_rn": np.divide, "dividef": np.divide,
    "fma": lambda x, y, z: x * y + z, "fma_rn": lambda x, y, z: x * y + z,
    "isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite, "finite": np.isfinite, "signbit": np.signbit,
}
# Symbols whose name differs from the Python function's: (`__nv_isnanf` -> isnan, `__nv_fsqrt_rn` -> sqrt_rn)
_ALIASES = {"fsqrt_rn": "sqrt_rn", "frsqrt_rn": "rsqrt_rn", "frcp_rn": "rcp_rn", "fadd_rn": "add_rn",
            "fsub_rn": "sub_rn", "fmul_rn": "mul_rn", "fdiv_rn": "div_rn", "dadd_rn": "add_rn",
            "dsub_rn": "sub_rn", "dmul_rn": "mul_rn", "ddiv_rn": "div_rn", "drcp_rn": "rcp_rn",
            "dsqrt_rn": "sqrt_rn", "fmaf_rn": "fma_rn", "llabs": "abs", "finitef": "finite", "isfinited": "finite"}
_INSTALLED = False


def function_of(symbol: str) -> Callable[..., np.ndarray] | None:
    """The numpy function of a libdevice symbol (`__nv_tanhf`, `__nv_fast_expf`, `__nv_isnand`), or None."""
    name = re.sub(r"^__nv_", "", symbol)
    for candidate in (name, name.removeprefix("fast_"), re.sub(r"f$", "", name.removeprefix("fast_")),
                      re.sub(r"d$", "", name), _ALIASES.get(name, "")):
        candidate = _ALIASES.get(candidate, candidate)
        if candidate in FUNCTIONS:
            return FUNCTIONS[candidate]
    return None


def install() -> None:
    """Make libdevice calls run in the interpreter (idempotent; only in a runner's child process)."""
    global _INSTALLED
    if _INSTALLED:
        return
    import triton.language as tl
    from triton.language.extra import libdevice as neutral
    from triton.language.extra.cuda import libdevice as cuda_libdevice
    from triton.runtime import interpreter
    from triton.runtime.autotuner import Autotuner

    def create_extern_elementwise(lib_name, lib_path, symbol, args, ret_type, is_pure):
        function = function_of(symbol)
        if function is None:
            raise NotImplementedError(f"libdevice `{symbol}` has no interpreter shim in lowercheck")
        values = [np.asarray(a.data) for a in args]
        out_dtype = interpreter._get_np_dtype(ret_type)
        with np.errstate(all="ignore"):
            wide = [v.astype(np.float64) if v.dtype.kind == "f" else v for v in values]
            result = np.asarray(function(*wide))
        return interpreter.TensorHandle(result.astype(out_dtype), ret_type.scalar if hasattr(ret_type, "scalar")
                                        else ret_type)

    interpreter.InterpreterBuilder.create_extern_elementwise = (
        lambda self, *a: create_extern_elementwise(*a))
    for name in dir(cuda_libdevice):
        member = getattr(cuda_libdevice, name)
        if not tl.core.is_builtin(member):
            continue

        def call(*args, _member=member, **kwargs):
            kwargs.pop("_semantic", None)
            return _member(*args, **kwargs, _semantic=interpreter.interpreter_semantic)

        setattr(neutral, name, call)
        setattr(cuda_libdevice, name, call)
    interpreter._implicit_cvt = _float_scalars_as_fp32(interpreter._implicit_cvt, interpreter, tl)
    _block_pointers(tl)
    find_builtins_once()
    Autotuner.prune_configs = _first_config
    _INSTALLED = True


def find_builtins_once() -> None:
    """Give the interpreter a `_patch_builtin` with each language package's builtin names found here,
    before any launch has patched them (so none is missed), instead of by `inspect.getmembers` on
    every call; a package not listed here goes to the interpreter's own. Idempotent; the speed shim
    alone (a harness that runs Triton's interpreter without the others calls it too)."""
    import inspect

    import triton.language as tl
    from triton.runtime import interpreter

    patch_builtin = interpreter._patch_builtin
    if getattr(patch_builtin, "builtins_found_once", False):
        return
    packages = (tl, tl.core, tl.math, tl.tensor, tl.core.tensor_descriptor_base)
    names = {package: [name for name, member in inspect.getmembers(package) if tl.core.is_builtin(member)]
             for package in packages}

    def patch(package, builder, scope):
        found = names.get(package)
        if found is None:
            return patch_builtin(package, builder, scope)
        for name in found:
            member = getattr(package, name, None)
            if tl.core.is_builtin(member):  # not patched already (a nested call's patch stays in place)
                interpreter._patch_attr(package, name, member, builder, scope)

    patch.builtins_found_once = True
    interpreter._patch_builtin = patch


class BlockPointer:
    """`tl.make_block_ptr`'s value in the interpreter: a base pointer and, per dimension, the
    tensor's extent, its stride, the block's offset and its extent (`order` says nothing of the
    values)."""

    def __init__(self, base, shape, strides, offsets, block_shape) -> None:
        self.base, self.shape, self.strides = base, list(shape), list(strides)
        self.offsets, self.block_shape = list(offsets), [int(getattr(b, "value", b)) for b in block_shape]

    def advance(self, by, _semantic=None) -> BlockPointer:  # `ptr.advance(...)`, the member form
        return self.advanced(by)

    def advanced(self, by) -> BlockPointer:
        return BlockPointer(self.base, self.shape, self.strides, [o + d for o, d in zip(self.offsets, by, strict=True)],
                            self.block_shape)

    def addresses(self, boundary_check, tl, semantic):
        """The block's pointers, and the mask of the dimensions `boundary_check` names (None without)."""
        rank = len(self.block_shape)
        pointers, mask = self.base, None
        for d in range(rank):
            index = tl.core.arange(0, self.block_shape[d], _semantic=semantic) + self.offsets[d]
            others = [a for a in range(rank) if a != d]
            if others:
                index = tl.core.expand_dims(index, others, _semantic=semantic)
            pointers = pointers + index * self.strides[d]
            if d in tuple(getattr(boundary_check, "value", boundary_check) or ()):
                inside = (index >= 0) & (index < self.shape[d])
                mask = inside if mask is None else mask & inside
        return pointers, mask


def _block_pointers(tl) -> None:
    """Block pointers (`tl.make_block_ptr`, `tl.advance`, `tl.load`/`tl.store` with `boundary_check`
    and `padding_option`), which Triton 3.6 compiles and models write, and which Triton 3.9 removed
    (its interpreter raises): each block pointer becomes the pointer block and mask it stands for, so
    its loads and stores are bounds-checked as any other."""
    load, store = tl.core.load, tl.core.store

    @tl.core.builtin
    def make_block_ptr(base, shape, strides, offsets, block_shape, order, _semantic=None):
        return BlockPointer(base, shape, strides, offsets, block_shape)

    @tl.core.builtin
    def advance(base, offsets, _semantic=None):
        return base.advanced(offsets)

    @tl.core.builtin
    def load_any(pointer, mask=None, other=None, boundary_check=(), padding_option="", cache_modifier="",
                 eviction_policy="", volatile=False, _semantic=None):
        if isinstance(pointer, BlockPointer):
            pointer, mask = pointer.addresses(boundary_check, tl, _semantic)
            padding = getattr(padding_option, "value", padding_option)
            other = float("nan") if padding == "nan" else 0.0 if mask is not None else None
        return load(pointer, mask, other, cache_modifier=cache_modifier, eviction_policy=eviction_policy,
                    volatile=volatile, _semantic=_semantic)

    @tl.core.builtin
    def store_any(pointer, value, mask=None, boundary_check=(), cache_modifier="", eviction_policy="",
                  _semantic=None):
        if isinstance(pointer, BlockPointer):
            pointer, mask = pointer.addresses(boundary_check, tl, _semantic)
        return store(pointer, value, mask, cache_modifier=cache_modifier, eviction_policy=eviction_policy,
                     _semantic=_semantic)

    for package in (tl, tl.core):  # `tl.advance` is gone from 3.9's language module: here again
        for name, shim in zip(BLOCK_POINTER_NAMES, (make_block_ptr, advance, load_any, store_any), strict=True):
            setattr(package, name, shim)


BLOCK_POINTER_NAMES = ("make_block_ptr", "advance", "load", "store")  # what `_block_pointers` sets


def _first_config(autotuner, kwargs):
    """`Autotuner.prune_configs` keeping the first config only (the one the front end lowers): with
    one config left, Triton's autotuner runs it without benchmarking on a GPU."""
    return autotuner.configs[:1]


def _float_scalars_as_fp32(convert, interpreter, tl):
    """The interpreter passes a Python float argument on as a float, where the compiler makes it an
    fp32 scalar (`alpha.to(tl.float16)` then fails): convert it as the compiler types it."""
    from triton.runtime.jit import mangle_type

    def converted(arg):
        if isinstance(arg, float):
            ty = tl.str_to_ty(mangle_type(arg), None)
            return tl.tensor(interpreter.TensorHandle(np.array([arg], dtype=interpreter._get_np_dtype(ty)), ty), ty)
        return convert(arg)

    return converted
