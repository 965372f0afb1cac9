"""The tolerance policy: how close two outputs must be, and why.

This first policy is torch.testing's per-dtype default (rtol, atol); integer and boolean outputs must
match exactly. Every decision is returned with its rule so the report can show it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# torch.testing.assert_close defaults.
DEFAULTS: dict[str, tuple[float, float]] = {
    "float16": (1e-3, 1e-5),
    "bfloat16": (1.6e-2, 1e-5),
    "float32": (1.3e-6, 1e-5),
    "float64": (1e-7, 1e-7),
}


@dataclass(frozen=True)
class Tolerance:
    rtol: float
    atol: float
    rule: str

    def accepts(self, reference: np.ndarray, actual: np.ndarray) -> np.ndarray:
        """Elementwise: |actual - reference| <= atol + rtol * |reference| (NaN handled by the caller)."""
        ref = reference.astype(np.float64)
        act = actual.astype(np.float64)
        with np.errstate(invalid="ignore", over="ignore"):
            return np.abs(act - ref) <= self.atol + self.rtol * np.abs(ref)


def for_dtype(dtype: str) -> Tolerance:
    if dtype in DEFAULTS:
        rtol, atol = DEFAULTS[dtype]
        return Tolerance(rtol, atol, f"torch.testing default for {dtype}: rtol={rtol:g}, atol={atol:g}")
    return Tolerance(0.0, 0.0, f"exact match for {dtype}")
