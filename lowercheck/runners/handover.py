"""What a sandboxed child hands over, read without trusting it.

The child that ran user code writes its result as a pickle (a `RunResult` with numpy arrays, a
front end's text or its `LowercheckError`). The user's code ran in that process and could have
written any pickle in its place, and unpickling may call whatever the pickle names: so lowercheck's
own processes read them with `load`/`loads`, which resolve only the classes results are made of
(Python's "restricting globals", `pickle.Unpickler.find_class`). Anything else is `Forged`: the
side handed over something that is no result, a finding like any child that died.
"""

from __future__ import annotations

import io
import pickle
from typing import Any, BinaryIO

# Modules whose every public class (never a function) may appear in a result (dataclasses and exceptions of ours).
MODULES = ("lowercheck.runners.base", "lowercheck.errors", "lowercheck.frontends.base")
# Single names elsewhere: numpy arrays and scalars, ml_dtypes' types, plain containers.
NAMES = {
    ("numpy", "ndarray"), ("numpy", "dtype"),
    ("numpy._core.multiarray", "_reconstruct"), ("numpy.core.multiarray", "_reconstruct"),
    ("numpy._core.multiarray", "scalar"), ("numpy.core.multiarray", "scalar"),
    ("numpy._core.numeric", "_frombuffer"), ("numpy.core.numeric", "_frombuffer"),
    ("copyreg", "_reconstructor"),
    *(("builtins", name) for name in ("complex", "set", "frozenset", "slice", "range", "bytearray", "object",
                                      "tuple", "list", "dict", "int", "float", "str", "bytes", "bool")),
}
NUMPY_DTYPES = "numpy.dtypes"  # numpy 2's dtype classes (`numpy.dtypes.Float32DType`)
ML_DTYPES = "ml_dtypes"  # bfloat16, float8_* arrays


class Forged(pickle.UnpicklingError):
    """The pickle names something no result is made of."""


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in NAMES:
            return super().find_class(module, name)
        if module in (*MODULES, NUMPY_DTYPES, ML_DTYPES) and not name.startswith("_"):
            found = super().find_class(module, name)
            if isinstance(found, type):  # a class (its instances hold data), never a function to call
                return found
        raise Forged(f"a result may not contain {module}.{name}")


def load(handle: BinaryIO) -> Any:
    return _Unpickler(handle).load()


def loads(data: bytes) -> Any:
    return load(io.BytesIO(data))
