"""numpy arrays <-> torch tensors for the runners that call torch (bfloat16 through ml_dtypes,
which `torch.from_numpy` does not know). torch is imported inside, at call time."""

from __future__ import annotations

import numpy as np


def to_torch(array: np.ndarray):
    """A new tensor holding `array`'s values."""
    import torch

    if array.dtype.name == "bfloat16":
        return torch.from_numpy(array.view(np.int16).copy()).view(torch.bfloat16)
    return torch.from_numpy(np.array(array, copy=True, order="C"))  # (ascontiguousarray makes a 0-d array 1-d)


def numpy_view(tensor) -> np.ndarray:
    """A numpy array sharing `tensor`'s memory."""
    import torch

    if tensor.dtype == torch.bfloat16:
        import ml_dtypes

        return tensor.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return tensor.numpy()


def to_numpy(tensor) -> np.ndarray:
    """A numpy copy of `tensor` (any device)."""
    return numpy_view(tensor.detach().cpu().contiguous()).copy()
