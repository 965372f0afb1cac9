"""C scalar and pointer types as the lowering sees them: IR type plus the signedness C keeps in ops."""

from __future__ import annotations

from dataclasses import dataclass, field

import clang.cindex as ci
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    MemRefType,
    DYNAMIC_INDEX,
)
from xdsl.ir import Attribute


@dataclass(frozen=True)
class CType:
    """kind: int | float | bool | ptr | void | vec. `elem` is a pointer's element type, or a vector
    type's scalar (`float4`: vec with bits = 4 lanes of float), which is also its IR type: vectors
    are scalarised."""

    kind: str
    bits: int = 0
    signed: bool = True
    elem: CType | None = None

    @property
    def is_int(self) -> bool:
        return self.kind in ("int", "bool")

    @property
    def is_float(self) -> bool:
        return self.kind in ("float", "bfloat")

    @property
    def ir(self) -> Attribute:
        if self.kind == "bfloat":
            return BFloat16Type()
        if self.kind == "float":
            return _FLOAT_IR[self.bits]()
        if self.kind == "ptr":
            assert self.elem is not None
            return MemRefType(self.elem.ir, [DYNAMIC_INDEX])
        if self.kind == "vec":
            assert self.elem is not None
            return self.elem.ir
        return IntegerType(self.bits)

    @property
    def width(self) -> int:
        """The type's size in bits (a vector: all its lanes)."""
        if self.kind == "vec":
            assert self.elem is not None
            return self.bits * self.elem.width
        return 64 if self.kind == "ptr" else 8 if self.kind == "bool" else self.bits

    @property
    def lanes(self) -> int:
        return self.bits if self.kind == "vec" else 1

    @property
    def scalar(self) -> CType:
        """A vector type's scalar; any other type itself."""
        return self.elem if self.kind == "vec" and self.elem is not None else self

    @property
    def dtype(self) -> str:
        """The torch-style name (float32, int64, bool, ...)."""
        if self.kind == "bool":
            return "bool"
        if self.kind == "bfloat":
            return "bfloat16"
        if self.kind == "vec":
            assert self.elem is not None
            return self.elem.dtype
        if self.kind == "float":
            return {16: "float16", 32: "float32", 64: "float64"}[self.bits]
        return f"{'' if self.signed else 'u'}int{self.bits}"


_FLOAT_IR = {16: Float16Type, 32: Float32Type, 64: Float64Type}

BOOL = CType("bool", 1, False)
INT = CType("int", 32, True)
UINT = CType("int", 32, False)
INT64 = CType("int", 64, True)
FLOAT = CType("float", 32)
DOUBLE = CType("float", 64)
VOID = CType("void")

# CUDA's vector types (shim.h), lowered lane by lane.
VECTORS = {f"{name}{n}": CType("vec", n, elem=t) for name, t in
           (("float", FLOAT), ("double", DOUBLE), ("int", INT), ("uint", UINT)) for n in (2, 4)}
# Pairs of halves (<cuda_fp16.h>, <cuda_bf16.h>): the packed types of LLM kernels.
VECTORS.update({name: CType("vec", 2, elem=CType("float", 16)) for name in ("__half2", "half2")})
VECTORS.update({name: CType("vec", 2, elem=CType("bfloat", 16)) for name in ("__nv_bfloat162", "nv_bfloat162")})

TK = ci.TypeKind
_SCALARS: dict[ci.TypeKind, CType] = {
    TK.BOOL: BOOL,
    TK.CHAR_S: CType("int", 8, True), TK.SCHAR: CType("int", 8, True),
    TK.CHAR_U: CType("int", 8, False), TK.UCHAR: CType("int", 8, False),
    TK.SHORT: CType("int", 16, True), TK.USHORT: CType("int", 16, False),
    TK.INT: INT, TK.UINT: UINT,
    TK.LONG: INT64, TK.ULONG: CType("int", 64, False),
    TK.LONGLONG: INT64, TK.ULONGLONG: CType("int", 64, False),
    TK.HALF: CType("float", 16), TK.FLOAT16: CType("float", 16), TK.BFLOAT16: CType("bfloat", 16),
    TK.FLOAT: FLOAT, TK.DOUBLE: DOUBLE,
    TK.VOID: VOID,
}


def from_clang(t: ci.Type) -> CType | None:
    """The CType of a clang type; None for what lowercheck does not model (structs, arrays, ...)."""
    canon = t.get_canonical()
    if canon.kind == TK.ENUM:
        return INT
    if canon.kind == TK.POINTER:
        elem = from_clang(canon.get_pointee())
        if elem is None and (layout := record_layout(canon.get_pointee())) is not None:
            elem = layout.elem  # a pointer to structs of one scalar type: a buffer of that scalar
        if elem is None or elem.kind == "ptr":
            return None
        return CType("ptr", 64, False, elem)  # `void*` too: the memory behind it keeps its type
    if canon.kind in (TK.LVALUEREFERENCE, TK.RVALUEREFERENCE):
        return None
    if canon.kind == TK.RECORD:
        return VECTORS.get(canon.get_declaration().spelling) or bit_fields(canon)
    if canon.kind == TK.UNEXPOSED and canon.spelling.removeprefix("const ") == "__bf16":
        return _SCALARS[TK.BFLOAT16]  # libclang does not expose __bf16 on every target
    return _SCALARS.get(canon.kind)


@dataclass(frozen=True)
class RecordLayout:
    """A struct in memory whose members are all of one scalar type (`struct { int32_t start, count,
    seen, pad; }`, `AlignedArray<half, 8>`): a buffer of that scalar, `size` of them per struct,
    each member `offsets[name]` of them from the struct's start (an array member: its first)."""

    elem: CType
    size: int
    offsets: dict[str, int] = field(default_factory=dict)


def record_layout(t: ci.Type) -> RecordLayout | None:
    """The layout of a struct type as a buffer of one scalar; None for anything else (mixed member
    types, nested structs, bit-fields, vectors: those are not modelled in memory)."""
    record = t.get_canonical()
    if record.kind != TK.RECORD or from_clang(record) is not None:
        return None
    fields = list(record.get_fields())
    elem: CType | None = None
    offsets: dict[str, int] = {}
    for f in fields:
        ft = f.type.get_canonical()
        while ft.kind == TK.CONSTANTARRAY:
            ft = ft.element_type.get_canonical()
        scalar = from_clang(ft)
        if f.is_bitfield() or scalar is None or scalar.kind in ("ptr", "vec", "void") or \
                (elem is not None and scalar.ir != elem.ir):
            return None
        elem = scalar if elem is None else elem
        offsets[f.spelling] = record.get_offset(f.spelling) // elem.width
    if elem is None or (record.get_size() * 8) % elem.width:
        return None
    return RecordLayout(elem, record.get_size() * 8 // elem.width, offsets)


def by_value(t: ci.Type) -> ci.Type:
    """The canonical type a reference refers to; any other type's canonical type."""
    canon = t.get_canonical()
    if canon.kind in (TK.LVALUEREFERENCE, TK.RVALUEREFERENCE):
        return canon.get_pointee().get_canonical()
    return canon


def struct_of_members(t: ci.Type) -> bool:
    """A struct with members and no value of its own here: not one of CUDA's vector types, not a
    struct of bit-fields (a member struct of a bundle is flattened into it, `struct_leaves`)."""
    canon = t.get_canonical()
    return canon.kind == TK.RECORD and from_clang(canon) is None and bool(list(canon.get_fields()))


# Structs of libraries (containers, tensors, options, groups) are not bundles of kernel values.
_LIBRARY_NAMESPACES = frozenset({"std", "at", "c10", "torch", "thrust", "cub", "cutlass", "cute", "cooperative_groups"})
_NOT_BUNDLES = frozenset({"dim3", "cudaDeviceProp"})


def is_bundle(t: ci.Type) -> bool:
    """A struct of pointers and values passed whole, by value (or, by a launcher, by const
    reference): DeepSpeed's `BatchWrapperCPP`, a `std::pair` seed. Kernel and launcher alike pass
    it as its members (`struct_leaves`)."""
    inner = by_value(t)
    if not struct_of_members(inner):
        return False
    decl = inner.get_declaration()
    namespaces, parent = set(), decl.semantic_parent
    while parent is not None and parent.kind != ci.CursorKind.TRANSLATION_UNIT:
        if parent.kind == ci.CursorKind.NAMESPACE:
            namespaces.add(parent.spelling)
        parent = parent.semantic_parent
    if namespaces & _LIBRARY_NAMESPACES:
        return decl.spelling == "pair"
    return decl.spelling not in _NOT_BUNDLES


ROWS = "*rows"  # the path step of a pointer-to-pointers member's memory (`struct_leaves`)


def pointer_rows(t: ci.Type) -> CType | None:
    """For `T**` (a pointer to pointers to a scalar T, a table of device pointers: the KV cache's
    block lists per sequence, a batch of matrices), the pointer type `T*` its entries have."""
    canon = t.get_canonical()
    if canon.kind != TK.POINTER or canon.get_pointee().get_canonical().kind != TK.POINTER:
        return None
    inner = from_clang(canon.get_pointee())
    return inner if inner is not None and inner.elem is not None and inner.elem.kind not in ("void", "ptr") else None


def struct_leaves(t: ci.Type, name: str) -> list[tuple[str, tuple[str, ...], CType | None]]:
    """A struct parameter as the values it bundles, nested structs flattened: (the value's name,
    its path of members, its type), `batch_desc_kv_desc_block_size` for `batch_desc.kv_desc.block_size`.
    A pointer to pointers (`int32_t** block_lists`) is two values: its table, as element offsets
    (int64), and the memory they point into (`..._block_lists_rows`, path step `ROWS`). A member
    lowercheck does not model (an array) has type None: it is passed to nobody, and a kernel that
    reads it is not lowered."""
    found: list[tuple[str, tuple[str, ...], CType | None]] = []

    def walk(record: ci.Type, path: tuple[str, ...]) -> None:
        for f in record.get_canonical().get_fields():
            ft = f.type.get_canonical()
            here = (*path, f.spelling)
            if struct_of_members(ft):
                walk(ft, here)
                continue
            rows = pointer_rows(ft)
            if rows is not None:  # `int32_t** block_lists`: the pointers (as offsets), and what they point into
                found.append(("_".join((name, *here)), here, CType("ptr", 64, False, INT64)))
                found.append(("_".join((name, *here)) + "_rows", (*here, ROWS), rows))
                continue
            found.append(("_".join((name, *here)), here, from_clang(ft) if not f.is_bitfield() else None))

    walk(by_value(t), ())
    return found


def bit_fields(record: ci.Type) -> CType | None:
    """A struct of integer bit-fields only, no wider than 64 bits (`struct { int8_t high : 4; int8_t
    low : 4; }`, the packed int4 pairs of quantisation kernels), is the unsigned integer that stores
    them: the hardware's view, so that reinterpreting it as bytes and back keeps every bit. Its
    members are extracted where they are read (offsets and widths as clang lays them out)."""
    fields = list(record.get_fields())
    size = record.get_size()
    if not fields or size not in (1, 2, 4, 8) or not all(
            f.is_bitfield() and (from_clang(f.type) or VOID).kind == "int" for f in fields):
        return None
    return CType("int", 8 * size, False)


def from_dtype(name: str) -> CType | None:
    """The CType of a torch-style dtype name (`float16`, `int64`): `CType.dtype` read back."""
    for t in (*_SCALARS.values(), CType("int", 64, False)):
        if t.kind not in ("void", "ptr") and t.dtype == name:
            return t
    return None


def promote(t: CType) -> CType:
    """C's integer promotion: anything narrower than int becomes int."""
    if t.is_int and t.bits < 32:
        return INT
    return t


def common(a: CType, b: CType) -> CType:
    """C's usual arithmetic conversions (ranks follow widths: long and long long are both 64-bit)."""
    if a.is_float or b.is_float:
        floats = [t for t in (a, b) if t.is_float]
        return max(floats, key=lambda t: t.bits)
    a, b = promote(a), promote(b)
    if a.signed == b.signed:
        return a if a.bits >= b.bits else b
    unsigned, signed = (a, b) if not a.signed else (b, a)
    if unsigned.bits >= signed.bits:
        return unsigned
    return signed
