"""The poison pattern written into outputs before a run: a NaN whose payload no arithmetic produces.

A computed NaN is the canonical quiet NaN; an element still holding this exact bit pattern after
the run was never written (LC303). Integer outputs use a sentinel value instead.
"""

from __future__ import annotations

import numpy as np

# fp8 e4m3fn has one NaN (0x7F): its poison is that NaN, which a computed NaN cannot be told from.
_FLOAT_BITS = {"float16": (np.uint16, 0x7D5A), "bfloat16": (np.uint16, 0x7FA5), "float8_e4m3fn": (np.uint8, 0x7F),
               "float8_e5m2": (np.uint8, 0x7D),
               "float32": (np.uint32, 0x7FA5A5A5), "float64": (np.uint64, 0x7FF4A5A5A5A5A5A5)}
INT_SENTINEL = -0x5A5A5A5B


def _dtype_name(array: np.ndarray) -> str:
    return array.dtype.name


def fill(array: np.ndarray) -> np.ndarray:
    """Fill `array` in place with the poison pattern of its dtype; returns it."""
    name = _dtype_name(array)
    if name in _FLOAT_BITS:
        uint, bits = _FLOAT_BITS[name]
        array.view(uint)[...] = bits
    elif array.dtype.kind in "iu":
        info = np.iinfo(array.dtype)
        array[...] = max(min(INT_SENTINEL, info.max), info.min)
    elif array.dtype.kind == "b":
        array[...] = True
    return array


def mask(array: np.ndarray) -> np.ndarray:
    """True where `array` still holds the poison pattern."""
    name = _dtype_name(array)
    if name in _FLOAT_BITS:
        uint, bits = _FLOAT_BITS[name]
        return array.view(uint) == bits
    if array.dtype.kind in "iu":
        info = np.iinfo(array.dtype)
        return array == max(min(INT_SENTINEL, info.max), info.min)
    return np.zeros(array.shape, dtype=bool)
