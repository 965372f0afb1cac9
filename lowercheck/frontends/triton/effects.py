"""Which pointer arguments of a tt.func are read, and which written.

A pointer flows forward from the argument through every op that takes it (splat, broadcast,
addptr, expand_dims, select, ...) and through the loop-carried values of scf.for/while/if; an access
(tt.load, tt.store, atomics, descriptor ops) whose pointer operand carries argument `i` reads or
writes argument `i`. An atomic both reads and writes.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import scf
from xdsl.ir import Operation, SSAValue

from lowercheck.dialects import tt

_READS = (tt.LoadOp, tt.DescriptorLoadOp, tt.AtomicRMWOp, tt.AtomicCASOp)
_WRITES = (tt.StoreOp, tt.DescriptorStoreOp, tt.AtomicRMWOp, tt.AtomicCASOp)
# Results of these are data, not pointers (a loaded value does not carry its address).
_VALUE_RESULTS = (tt.LoadOp, tt.DescriptorLoadOp, tt.AtomicRMWOp, tt.AtomicCASOp)


@dataclass(frozen=True)
class Effects:
    read: frozenset[int]
    written: frozenset[int]


def effects(func: tt.FuncOp) -> Effects:
    args = list(func.body.block.args)
    origin: dict[SSAValue, set[int]] = {a: {i} for i, a in enumerate(args)}
    changed = True
    while changed:
        changed = False
        for op in func.walk():
            for target, sources in _flows(op):
                carried = set().union(*(origin.get(s, set()) for s in sources))
                if carried - origin.get(target, set()):
                    origin.setdefault(target, set()).update(carried)
                    changed = True
    read: set[int] = set()
    written: set[int] = set()
    for op in func.walk():
        pointer = _pointer_operand(op)
        if pointer is None:
            continue
        if isinstance(op, _READS):
            read |= origin.get(pointer, set())
        if isinstance(op, _WRITES):
            written |= origin.get(pointer, set())
    return Effects(frozenset(read), frozenset(written))


def _pointer_operand(op: Operation) -> SSAValue | None:
    if isinstance(op, (tt.LoadOp, tt.StoreOp, tt.AtomicRMWOp, tt.AtomicCASOp)):
        return op.ptr
    if isinstance(op, (tt.DescriptorLoadOp, tt.DescriptorStoreOp)):
        return op.desc
    return None


def _flows(op: Operation) -> list[tuple[SSAValue, list[SSAValue]]]:
    """(value, values it may carry a pointer from) edges for one op."""
    edges: list[tuple[SSAValue, list[SSAValue]]] = []
    if isinstance(op, scf.ForOp):
        body = op.body.block
        for init, arg, res in zip(op.iter_args, body.args[1:], op.results, strict=False):
            edges += [(arg, [init]), (res, [init])]
        yielded = body.last_op
        if yielded is not None:
            for value, arg, res in zip(yielded.operands, body.args[1:], op.results, strict=False):
                edges += [(arg, [value]), (res, [value])]
        return edges
    if isinstance(op, scf.WhileOp):
        before, after = op.before_region.block, op.after_region.block
        for init, arg in zip(op.arguments, before.args, strict=False):
            edges.append((arg, [init]))
        cond = before.last_op
        if cond is not None:
            for value, arg, res in zip(cond.operands[1:], after.args, op.results, strict=False):
                edges += [(arg, [value]), (res, [value])]
        yielded = after.last_op
        if yielded is not None:
            for value, arg in zip(yielded.operands, before.args, strict=False):
                edges.append((arg, [value]))
        return edges
    if isinstance(op, scf.IfOp):
        for region in op.regions:
            for block in region.blocks:
                yielded = block.last_op
                if yielded is not None:
                    for value, res in zip(yielded.operands, op.results, strict=False):
                        edges.append((res, [value]))
        return edges
    if isinstance(op, _VALUE_RESULTS) or op.regions:
        return edges
    return [(res, list(op.operands)) for res in op.results]
