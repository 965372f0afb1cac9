"""Shared verification for ops whose attributes hold index expressions as strings."""

from __future__ import annotations

from collections.abc import Iterable

from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, StringAttr
from xdsl.utils.exceptions import VerifyException

from lowercheck import symbolic


def verify_exprs(op_name: str, field: str, exprs: Iterable[StringAttr]) -> None:
    for text in exprs:
        try:
            symbolic.parse(text.data)
        except ValueError as err:
            raise VerifyException(f"{op_name}: `{field}` holds {err}") from None


def expr_array(texts: Iterable[object]) -> ArrayAttr[StringAttr]:
    return ArrayAttr([StringAttr(symbolic.format(t) if not isinstance(t, str) else t) for t in texts])


def strings(array: ArrayAttr[StringAttr]) -> list[str]:
    return [a.data for a in array.data]


def axes(array: ArrayAttr[IntegerAttr] | None) -> frozenset[int]:
    """The grid axes an optional `ordered = [2 : i32]` property lists (none when it is absent)."""
    return frozenset(a.value.data for a in array.data) if array is not None else frozenset()
