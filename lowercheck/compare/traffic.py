"""Memory traffic of each access: its stride class, the sectors a warp touches, and bytes per buffer.

- **Stride class** along the access's fastest lane (CUDA: threadIdx.x; Triton: the last dimension of
  the tile, the one Triton's blocked layouts give consecutive threads): the change of the index when
  that lane steps by one. A constant 1 is `contiguous`, another constant or size `strided(k)`, 0
  `broadcast`; anything that depends on the work item (a lane inside a floor or a modulo, an index
  loaded from memory) is `gather`. Terms without the lane cancel, so a program id split by `//` and
  `%` does not make an access a gather.
- **Sectors per warp request**: the distinct 32-byte sectors that 32 consecutive positions of the
  fastest lane touch, at nominal sizes (every size `NOMINAL`, or the spec's largest): 4 for
  contiguous fp32, 32 for a stride of at least 8 elements. A warp whose lane covers fewer than 32
  positions is scaled up (16 positions touching 2 sectors count as 4).
- **Bytes per buffer**: compulsory = distinct elements touched x element size (what any kernel must
  move); requested = work items executing the access x element size (re-reads included); issued =
  work items / 32 x sectors per request x 32 bytes (what this kernel asks of the memory system
  before any cache, uncoalesced sectors included). Counted with isl at the nominal sizes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import islpy as isl
import sympy

from lowercheck import symbolic
from lowercheck.compare.accesses import Access, Relations

NOMINAL = 128  # every size, when counting traffic (ratios between the sides hardly depend on it)
WARP = 32
SECTOR = 32  # bytes

_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "i1": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8}


def element_bytes(acc: Access) -> int:
    return _BYTES.get(str(acc.op.element_type), 4)


def nominal_sizes(size_names: Sequence[str]) -> dict[str, int]:
    """NOMINAL for every size: large enough for whole warps and several tiles, small enough to count."""
    return {name: NOMINAL for name in size_names}


def stride_class(acc: Access) -> str:
    lane_name = acc.op.fastest.data
    if not lane_name:
        return "scalar"
    lane = symbolic.var(lane_name)
    index = symbolic.parse(acc.op.indices.data[0].data)  # over the sizes, whatever the binding
    if lane not in index.free_symbols:
        return "broadcast"
    step = sympy.simplify(index.xreplace({lane: lane + 1}) - index)
    if any(symbolic.tag_of(s) is not symbolic.Tag.PARAM for s in step.free_symbols) or \
            step.has(sympy.floor, sympy.Mod, sympy.Min, sympy.Max, sympy.Piecewise):
        return "gather"
    if step == 0:
        return "broadcast"
    if not step.is_Integer:
        return f"strided({symbolic.format(step)})"
    return "contiguous" if abs(int(step)) == 1 else f"strided({abs(int(step))})"


def lane_extent(acc: Access, block: Sequence[sympy.Basic], sizes: Mapping[str, int]) -> int | None:
    """How many positions the fastest lane takes: its `LANEk < E` domain bound (Triton tiles), or
    the block's x extent for CUDA's threadIdx.x."""
    name = acc.op.fastest.data
    for text in (d.data for d in acc.op.domain.data):
        relation = symbolic.parse(text)
        if isinstance(relation, sympy.StrictLessThan) and relation.lhs == symbolic.var(name):
            bound = symbolic.substitute(relation.rhs, sizes)
            if bound.is_Integer:
                return int(bound)
    if name == "LANE0" and block:
        bound = symbolic.substitute(block[0], sizes)
        if bound.is_Integer:
            return int(bound)
    return None


def sectors_per_request(acc: Access, block: Sequence[sympy.Basic], sizes: Mapping[str, int]) -> float | None:
    """Distinct 32-byte sectors touched by 32 consecutive positions of the fastest lane (the other
    work-item variables at 0), at `sizes`; None when the access has no lane or its index is opaque."""
    name = acc.op.fastest.data
    if not name:
        return None
    extent = lane_extent(acc, block, sizes)
    count = min(WARP, extent) if extent else WARP
    index = symbolic.substitute(symbolic.parse(acc.op.indices.data[0].data), sizes)
    lane = symbolic.var(name)
    others = {s: sympy.Integer(0) for s in index.free_symbols if s != lane}
    size = element_bytes(acc)
    sectors = set()
    for position in range(count):
        value = index.xreplace({**others, lane: sympy.Integer(position)})
        if not value.is_Integer:
            return None
        sectors.add(int(value) * size // SECTOR)
    return len(sectors) * WARP / count


@dataclass(frozen=True)
class BufferTraffic:
    buffer: str
    compulsory_bytes: int
    requested_bytes: int
    issued_bytes: int
    sectors: float | None  # the worst sectors-per-request of the buffer's accesses

    def to_json(self) -> dict:
        return {"buffer": self.buffer, "compulsory_bytes": self.compulsory_bytes,
                "requested_bytes": self.requested_bytes, "issued_bytes": self.issued_bytes,
                "sectors_per_request": self.sectors}


def buffer_traffic(rel: Relations, buffer: str, block_of) -> BufferTraffic | None:
    """Traffic of one global buffer; `rel` must be built for concrete sizes (`rel.sizes`)."""
    accesses = rel.of(buffer)
    if not accesses or rel.sizes is None:
        return None
    touched = None
    issued = 0.0
    requested = 0
    worst = None
    for acc in accesses:
        size = element_bytes(acc)
        elements = acc.relation.range()
        touched = elements if touched is None else touched.union(elements)
        instances = _count(acc.relation.domain())
        requested += instances * size
        sectors = sectors_per_request(acc, block_of(acc.kernel), rel.sizes)
        if sectors is None:
            issued += instances * size
        else:
            issued += instances / WARP * sectors * SECTOR
            worst = sectors if worst is None else max(worst, sectors)
    compulsory = _count(touched) * element_bytes(accesses[0]) if touched is not None else 0
    return BufferTraffic(buffer, compulsory, requested, int(round(issued)), worst)


def _count(s: isl.Set) -> int:
    value = s.count_val()
    return int(value.to_python()) if value.is_int() else 0


__all__ = ["BufferTraffic", "buffer_traffic", "element_bytes", "nominal_sizes", "sectors_per_request",
           "stride_class"]
