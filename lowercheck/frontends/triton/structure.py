"""Early returns as structured control flow: a tt.func body of several blocks (`cf.cond_br`,
`cf.br`) rewritten as one block of nested `scf.if`s.

Triton writes `if cond: return` at the top level of a function as unstructured control flow
(`visit_if_top_level`): the condition branches to a block that returns and to the rest of the
function, and an `if` whose branches merge again passes its values to a join block as arguments.
Nothing else in lowercheck reads blocks and branches: the access pass, the effects and the IR's
round trip all see one block per region.

The blocks form an acyclic graph (Triton rejects a `return` inside a loop). Each conditional branch
becomes an `scf.if` that runs up to the branch's immediate post-dominator: when that is a block, the
`scf.if` yields the values the branches pass to it and the walk continues there; when every path
returns on its own (the post-dominator is the function's exit), the `scf.if` yields the returned
values and the function returns its results. A join that an early return bypasses (an `if` whose
branches merge again, one of them returning first) post-dominates nothing, so the blocks from it
on are copied onto each path that reaches them, each copy with its path's values.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import cf, scf
from xdsl.ir import Block, Operation, Region, SSAValue

from lowercheck.dialects import tt
from lowercheck.errors import SourceLocation, Unsupported

_EXIT = None  # the function's exit, the post-dominator of every returning block

Where = Callable[[Operation], SourceLocation | None]


def structure(func: tt.FuncOp, where: Where) -> None:
    """Rewrite `func`'s body as a single block, in place (`where(op)` is an op's line, for errors).
    Raises Unsupported for control flow that is not an acyclic graph of branches and returns."""
    blocks = list(func.body.blocks)
    if len(blocks) == 1:
        return
    entry = blocks[0]
    successors, post_order = _graph(entry, where)
    walk = _Walk(_immediate_post_dominators(successors, post_order), list(func.function_type.outputs))
    body = Block(arg_types=[arg.type for arg in entry.args])
    values: dict[SSAValue, SSAValue] = {}
    for old, new in zip(entry.args, body.args, strict=True):
        new.name_hint, new.location = old.name_hint, old.location
        values[old] = new
    returned = walk.emit(entry, _EXIT, values, body)
    body.add_op(tt.ReturnOp.create(operands=returned))
    body.last_op.location = [b.last_op for b in blocks if isinstance(b.last_op, tt.ReturnOp)][-1].location
    for block in blocks:
        func.body.detach_block(block)
    func.body.add_block(body)


def _graph(entry: Block, where: Where) -> tuple[dict[Block, tuple[Block | None, ...]], list[Block]]:
    """The successors of each block reachable from `entry` (`_EXIT` after a return), and the blocks
    in post-order (each after all its successors)."""
    successors: dict[Block, tuple[Block | None, ...]] = {}
    post_order: list[Block] = []
    open_blocks: set[Block] = set()

    def visit(block: Block) -> None:
        last = block.last_op
        if isinstance(last, tt.ReturnOp):
            successors[block] = (_EXIT,)
        elif isinstance(last, (cf.BranchOp, cf.ConditionalBranchOp)):
            successors[block] = tuple(last.successors)
        else:
            raise Unsupported(f"a Triton function whose block ends with `{last.name if last else 'nothing'}`",
                              where(last) if last else None,
                              hint="lowercheck reads early returns (`if cond: return`) as branches, nothing else")
        open_blocks.add(block)
        for succ in successors[block]:
            if succ in open_blocks:
                raise Unsupported("a Triton function whose blocks branch back to an earlier block (a loop "
                                  "outside scf.for/scf.while)", where(last))
            if succ is not _EXIT and succ not in successors:
                visit(succ)
        open_blocks.discard(block)
        post_order.append(block)

    visit(entry)
    return successors, post_order


def _immediate_post_dominators(successors: dict, post_order: list[Block]) -> dict[Block, Block | None]:
    """Each block's immediate post-dominator (`_EXIT` when only the exit is on every path from it)."""
    post_dominators: dict[Block | None, frozenset] = {_EXIT: frozenset([_EXIT])}
    for block in post_order:  # successors first: exact in one pass on an acyclic graph
        common = frozenset.intersection(*(post_dominators[s] for s in successors[block]))
        post_dominators[block] = common | {block}
    immediate: dict[Block, Block | None] = {}
    for block in post_order:
        strict = post_dominators[block] - {block}
        immediate[block] = next(p for p in strict if post_dominators[p] == strict)
    return immediate


class _Walk:
    """The copy of a function's blocks into nested scf.if, given each block's join (its immediate
    post-dominator) and the function's result types."""

    def __init__(self, joins: dict[Block, Block | None], result_types: list):
        self.joins = joins
        self.result_types = result_types

    def emit(self, block: Block, stop: Block | None, values: dict[SSAValue, SSAValue], into: Block) -> list[SSAValue]:
        """Copy `block` and the blocks after it up to `stop` into `into`; the values passed to `stop`
        (its block arguments), or returned when `stop` is the exit. `values` maps the original
        values to their copies on this path."""
        for op in list(block.ops)[:-1]:
            into.add_op(op.clone(value_mapper=values))
        last = block.last_op
        if isinstance(last, tt.ReturnOp):
            return [values.get(v, v) for v in last.operands]
        if isinstance(last, cf.BranchOp):
            return self._follow(last.successor, last.arguments, stop, values, into)
        join = self.joins[block]
        types = self.result_types if join is _EXIT else [arg.type for arg in join.args]
        regions = []
        for target, arguments in ((last.then_block, last.then_arguments), (last.else_block, last.else_arguments)):
            branch = Block()
            branch.add_op(scf.YieldOp(*self._follow(target, arguments, join, dict(values), branch)))
            regions.append(Region(branch))
        chosen = scf.IfOp(values.get(last.cond, last.cond), types, *regions)
        chosen.location = last.location
        into.add_op(chosen)
        if join is _EXIT:
            return list(chosen.results)
        for result, arg in zip(chosen.results, join.args, strict=True):
            result.name_hint = arg.name_hint
        return self._follow(join, chosen.results, stop, values, into)

    def _follow(self, target: Block | None, arguments: Sequence[SSAValue], stop: Block | None,
                values: dict[SSAValue, SSAValue], into: Block) -> list[SSAValue]:
        passed = [values.get(a, a) for a in arguments]
        if target is stop:
            return passed
        for arg, value in zip(target.args, passed, strict=True):
            values[arg] = value
        return self.emit(target, stop, values, into)
