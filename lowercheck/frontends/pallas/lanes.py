"""Which dimensions of a kernel's values are the same lane (one union-find over (value, dimension)).

The access IR gives every tile dimension a LANE variable, and a store's dependence on a load is
exact only when the two name the same lane for the same element: `o_ref[...] = x_ref[...] +
y_ref[...]` must store at the lanes it loaded at. Triton ports say so by reusing one `tl.arange`;
a Pallas kernel says it by data flow, so lanes are inferred from the jaxpr before any IR is written:

- elementwise ops (the default): every operand of the result's shape shares its lanes;
- `broadcast_in_dim`: operand dimension i is result dimension `broadcast_dimensions[i]`;
  `broadcast_to`: the operand's dimensions are the result's trailing ones;
- reductions: the kept dimensions; `squeeze`: the dimensions not removed; `transpose`: permuted;
  a reshape that only adds or drops unit dimensions: the others, in order;
- `dot_general`: the two contracting dimensions are one lane (the K of a matmul), the result's
  dimensions are the free ones of each side;
- a store: the stored value's lanes are the store's; a masked access: the mask's are the access's;
- an access through index arrays (`x_ref.at[idx]`, a gather): each array's dimensions are the
  leading dimensions of the accessed tile (NDIndexer puts the arrays' broadcast shape first);
- `cond`, `scan` and `while` bodies: their inputs and outputs are the operands' and results'
  dimensions.

Dimensions of size 1 never get a lane (they are broadcast). Every class becomes one
`tt.make_range` in the kernel (see `kernel.py`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

_NOT_ELEMENTWISE = {"reshape", "iota", "slice", "dynamic_slice", "concatenate", "pad", "rev", "cumsum",
                    "cumprod", "cummax", "cummin", "argmax", "argmin", "sort", "gather", "scatter", "get",
                    "masked_load", "program_id", "num_programs"}


class Lanes:
    def __init__(self) -> None:
        self.parent: dict[tuple[Any, int], tuple[Any, int]] = {}

    def find(self, key: tuple[Any, int]) -> tuple[Any, int]:
        self.parent.setdefault(key, key)
        while self.parent[key] != key:
            self.parent[key] = self.parent[self.parent[key]]
            key = self.parent[key]
        return key

    def union(self, a: tuple[Any, int], b: tuple[Any, int]) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[ra] = rb

    def same(self, a: Any, b: Any, pairs: Iterable[tuple[int, int]]) -> None:
        """Dimensions i of `a` and j of `b` are one lane, for each (i, j) of equal size > 1."""
        if not (_is_var(a) and _is_var(b)):
            return
        sa, sb = _shape(a), _shape(b)
        for i, j in pairs:
            if i < len(sa) and j < len(sb) and sa[i] == sb[j] and sa[i] > 1:
                self.union((a, i), (b, j))

    def alike(self, a: Any, b: Any) -> None:
        """Values of one rank share their lanes dimension by dimension (a size-1 dimension is
        broadcast: jaxprs combine (8, 1) with (8, 100) directly)."""
        if _is_var(a) and _is_var(b) and len(_shape(a)) == len(_shape(b)):
            self.same(a, b, [(i, i) for i in range(len(_shape(a)))])

    # --- the jaxpr walk ---------------------------------------------------------------------

    def walk(self, jaxpr) -> None:
        for eqn in jaxpr.eqns:
            rule = _RULES.get(eqn.primitive.name)
            if rule is not None:
                rule(self, eqn)
            elif eqn.primitive.name not in _NOT_ELEMENTWISE:
                for out in eqn.outvars:
                    for var in eqn.invars:
                        self.alike(var, out)


def _is_var(v: Any) -> bool:
    return type(v).__name__ != "Literal" and hasattr(getattr(v, "aval", None), "shape") \
        and not type(v.aval).__name__.endswith("Ref")


def _shape(v: Any) -> tuple[int, ...]:
    return tuple(v.aval.shape)


def _broadcast(lanes: Lanes, eqn) -> None:
    dims = eqn.params["broadcast_dimensions"]
    lanes.same(eqn.invars[0], eqn.outvars[0], list(enumerate(dims)))


def _broadcast_to(lanes: Lanes, eqn) -> None:
    src, out = eqn.invars[0], eqn.outvars[0]
    if _is_var(src):
        offset = len(_shape(out)) - len(_shape(src))
        lanes.same(src, out, [(i, i + offset) for i in range(len(_shape(src)))])


def _kept(lanes: Lanes, eqn, removed: Iterable[int]) -> None:
    src = eqn.invars[0]
    if not _is_var(src):
        return
    kept = [i for i in range(len(_shape(src))) if i not in set(removed)]
    lanes.same(src, eqn.outvars[0], [(i, j) for j, i in enumerate(kept)])


def _reduce(lanes: Lanes, eqn) -> None:
    _kept(lanes, eqn, eqn.params["axes"])


def _squeeze(lanes: Lanes, eqn) -> None:
    _kept(lanes, eqn, eqn.params["dimensions"])


def _reshape(lanes: Lanes, eqn) -> None:
    from lowercheck.frontends.pallas.kernel import is_unit_reshape

    src, out = eqn.invars[0], eqn.outvars[0]
    if not (_is_var(src) and is_unit_reshape(_shape(src), _shape(out))):
        return  # elements move between lanes
    kept_src = [i for i, size in enumerate(_shape(src)) if size != 1]
    kept_out = [i for i, size in enumerate(_shape(out)) if size != 1]
    lanes.same(src, out, list(zip(kept_src, kept_out, strict=True)))


def _transpose(lanes: Lanes, eqn) -> None:
    perm = eqn.params["permutation"]
    lanes.same(eqn.invars[0], eqn.outvars[0], [(src, dst) for dst, src in enumerate(perm)])


def _dot(lanes: Lanes, eqn) -> None:
    a, b = eqn.invars[:2]
    out = eqn.outvars[0]
    (ca, cb), (ba, bb) = eqn.params["dimension_numbers"]
    lanes.same(a, b, list(zip(ca, cb, strict=True)) + list(zip(ba, bb, strict=True)))
    if not (_is_var(a) and _is_var(b)):
        return
    free_a = [i for i in range(len(_shape(a))) if i not in ca and i not in ba]
    free_b = [i for i in range(len(_shape(b))) if i not in cb and i not in bb]
    lanes.same(a, out, [(i, k) for k, i in enumerate(list(ba) + free_a)])
    lanes.same(b, out, [(i, len(ba) + len(free_a) + k) for k, i in enumerate(free_b)])


def _store(lanes: Lanes, eqn) -> None:
    # swap: (ref, value, *indexers) -> old value; masked_swap: (ref, indexers, value, mask) -> old
    from lowercheck.frontends.pallas.kernel import access_transforms, store_operands

    value, mask = store_operands(eqn)
    for out in eqn.outvars:
        lanes.alike(value, out)
    if mask is not None:
        lanes.alike(value, mask)
    _gathered(lanes, access_transforms(eqn), value)


def _load(lanes: Lanes, eqn) -> None:
    from lowercheck.frontends.pallas.kernel import access_transforms, load_operands

    if eqn.primitive.name == "masked_load":
        for extra in load_operands(eqn):
            if extra is not None:
                lanes.alike(extra, eqn.outvars[0])
    _gathered(lanes, access_transforms(eqn), eqn.outvars[0])


def _gathered(lanes: Lanes, transforms, tile: Any) -> None:
    """The index arrays of an access are the leading dimensions of the tile it moves."""
    for transform in transforms:
        rank = len(getattr(transform, "int_indexer_shape", ()))
        for index in getattr(transform, "indices", ()):
            if _is_var(index) and len(_shape(index)) == rank:
                lanes.same(index, tile, [(i, i) for i in range(rank)])


def _inline(lanes: Lanes, inner, operands, results) -> None:
    inner = getattr(inner, "jaxpr", inner)
    for iv, ov in zip(inner.invars, operands, strict=False):
        lanes.alike(iv, ov)
    lanes.walk(inner)
    for iv, ov in zip(inner.outvars, results, strict=False):
        lanes.alike(iv, ov)


def _call(lanes: Lanes, eqn) -> None:
    inner = eqn.params.get("jaxpr", eqn.params.get("call_jaxpr"))
    _inline(lanes, inner, eqn.invars, eqn.outvars)


def _cond(lanes: Lanes, eqn) -> None:
    for branch in eqn.params["branches"]:
        _inline(lanes, branch, eqn.invars[1:], eqn.outvars)


def _scan(lanes: Lanes, eqn) -> None:
    body = eqn.params["jaxpr"].jaxpr
    n_consts, n_carry = eqn.params["num_consts"], eqn.params["num_carry"]
    operands = eqn.invars
    for iv, ov in zip(body.invars[:n_consts + n_carry], operands, strict=False):
        lanes.alike(iv, ov)
    lanes.walk(body)
    carried_in = body.invars[n_consts:n_consts + n_carry]
    for out, carried, result in zip(body.outvars[:n_carry], carried_in, eqn.outvars, strict=False):
        lanes.alike(out, carried)
        lanes.alike(out, result)


def _while(lanes: Lanes, eqn) -> None:
    body = eqn.params["body_jaxpr"].jaxpr
    operands = eqn.invars[eqn.params["cond_nconsts"]:]  # the body's constants, then the carry
    for iv, ov in zip(body.invars, operands, strict=False):
        lanes.alike(iv, ov)
    lanes.walk(body)
    carried_in = body.invars[eqn.params["body_nconsts"]:]
    for out, carried, result in zip(body.outvars, carried_in, eqn.outvars, strict=False):
        lanes.alike(out, carried)
        lanes.alike(out, result)


_RULES = {
    "broadcast_in_dim": _broadcast,
    "broadcast_to": _broadcast_to,
    "reduce_sum": _reduce, "reduce_max": _reduce, "reduce_min": _reduce, "reduce_prod": _reduce,
    "reduce_and": _reduce, "reduce_or": _reduce, "argmax": _reduce, "argmin": _reduce,
    "squeeze": _squeeze,
    "reshape": _reshape,
    "transpose": _transpose,
    "dot_general": _dot,
    "swap": _store, "masked_swap": _store, "addupdate": _store,
    "get": _load, "masked_load": _load,
    "jit": _call, "pjit": _call, "closed_call": _call, "custom_jvp_call": _call, "custom_vjp_call": _call,
    "cond": _cond,
    "scan": _scan,
    "while": _while,
}
