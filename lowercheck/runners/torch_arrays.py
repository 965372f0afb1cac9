"""numpy arrays <-> torch tensors for the runners that call torch (bfloat16 through ml_dtypes,
which `torch.from_numpy` does not know). torch is imported inside, at call time."""

from __future__ import annotations

import numpy as np


# ml_dtypes' formats -> (the numpy integer of their width, torch's dtype name)
_VIEWED = {"bfloat16": (np.int16, "bfloat16"), "float8_e4m3fn": (np.uint8, "float8_e4m3fn"),
           "float8_e5m2": (np.uint8, "float8_e5m2")}


def to_torch(array: np.ndarray):
    """A new tensor holding `array`'s values."""
    import torch

    if array.dtype.name in _VIEWED:  # numpy dtypes torch does not know: their bits, viewed as torch's dtype
        bits, dtype = _VIEWED[array.dtype.name]
        return torch.from_numpy(np.array(array, order="C").view(bits).copy()).view(getattr(torch, dtype))
    return torch.from_numpy(np.array(array, copy=True, order="C"))  # (ascontiguousarray makes a 0-d array 1-d)


def numpy_view(tensor) -> np.ndarray:
    """A numpy array sharing `tensor`'s memory."""
    import torch

    name = str(tensor.dtype).removeprefix("torch.")
    if name in _VIEWED:
        import ml_dtypes

        bits, _ = _VIEWED[name]
        return tensor.view(getattr(torch, np.dtype(bits).name)).numpy().view(getattr(ml_dtypes, name))
    return tensor.numpy()


def to_numpy(tensor) -> np.ndarray:
    """A numpy copy of `tensor` (any device)."""
    return numpy_view(tensor.detach().cpu().contiguous()).copy()
