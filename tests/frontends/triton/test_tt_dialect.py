"""The `tt` dialect on hand-written TTIR: ops Triton 3.9's Python front end no longer emits (block
pointers, the two-enum cache spelling) or emits only in rare cases, parsed, verified and printed back."""

from __future__ import annotations

import pytest
from xdsl.utils.exceptions import VerifyException

from lowercheck import ir
from lowercheck.dialects import tt

BLOCK_POINTERS = """
"builtin.module"() ({
  "tt.func"() <{function_type = (!tt.ptr<f16>, i64, i32) -> (), sym_name = "k"}> ({
  ^bb0(%base: !tt.ptr<f16>, %n: i64, %o: i32):
    %bp = "tt.make_tensor_ptr"(%base, %n, %n, %n, %n, %o, %o) <{order = array<i32: 1, 0>, operandSegmentSizes = array<i32: 1, 2, 2, 2>}> : (!tt.ptr<f16>, i64, i64, i64, i64, i32, i32) -> !tt.ptr<tensor<16x16xf16>>
    %moved = "tt.advance"(%bp, %o, %o) : (!tt.ptr<tensor<16x16xf16>>, i32, i32) -> !tt.ptr<tensor<16x16xf16>>
    %v = "tt.load"(%moved) <{boundaryCheck = array<i32: 0, 1>, padding = 1 : i32, cache = 1 : i32, evict = 1 : i32, isVolatile = false, operandSegmentSizes = array<i32: 1, 0, 0>}> : (!tt.ptr<tensor<16x16xf16>>) -> tensor<16x16xf16>
    %w = "tt.fp_to_fp"(%v) <{rounding = 0 : i32}> : (tensor<16x16xf16>) -> tensor<16x16xf32>
    %r = "tt.call"(%w) <{callee = @helper}> : (tensor<16x16xf32>) -> tensor<16x16xf32>
    "tt.print"(%r) <{hex = false, isSigned = array<i32: 0>, prefix = "r: "}> : (tensor<16x16xf32>) -> ()
    "tt.store"(%moved, %v) <{boundaryCheck = array<i32: 0>, cachePolicy = #tt.cache_policy<cache_modifier = cs>}> : (!tt.ptr<tensor<16x16xf16>>, tensor<16x16xf16>) -> ()
    "tt.return"() : () -> ()
  }) : () -> ()
  "tt.func"() <{function_type = (tensor<16x16xf32>) -> tensor<16x16xf32>, sym_name = "helper", sym_visibility = "private"}> ({
  ^bb0(%x: tensor<16x16xf32>):
    "tt.return"(%x) : (tensor<16x16xf32>) -> ()
  }) : () -> ()
}) : () -> ()
"""


def test_block_pointers_round_trip() -> None:
    module = ir.parse(BLOCK_POINTERS)
    text = ir.print_ir(module)
    assert ir.print_ir(ir.parse(text)) == text
    load = next(op for op in module.walk() if isinstance(op, tt.LoadOp))
    assert load.padding.value.data == 1 and list(load.boundaryCheck.get_values()) == [0, 1]
    make = next(op for op in module.walk() if isinstance(op, tt.MakeTensorPtrOp))
    assert (len(make.shape), len(make.strides), len(make.offsets)) == (2, 2, 2)
    assert "#tt.cache_policy<cache_modifier = cs>" in text
    assert "!tt.ptr<tensor<16x16xf16>>" in text


def test_pointer_type_address_space() -> None:
    from xdsl.dialects.builtin import f32
    from xdsl.parser import Parser

    for text, space in (("!tt.ptr<f32>", 1), ("!tt.ptr<f32, 3>", 3)):
        parsed = Parser(ir.context(), text).parse_type()
        assert parsed == tt.PtrType(f32, space)
        assert str(parsed) == text


def test_arith_on_tensors_prints_generic_and_scalars_stay_custom() -> None:
    text = """
"builtin.module"() ({
  "tt.func"() <{function_type = (i32, tensor<4xi32>) -> (), sym_name = "k"}> ({
  ^bb0(%s: i32, %t: tensor<4xi32>):
    %c = "arith.cmpi"(%s, %s) <{predicate = 2 : i64}> : (i32, i32) -> i1
    %m = "arith.cmpi"(%t, %t) <{predicate = 2 : i64}> : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %w = "arith.extsi"(%t) : (tensor<4xi32>) -> tensor<4xi64>
    %n = "arith.trunci"(%w) <{overflowFlags = #arith.overflow<none>}> : (tensor<4xi64>) -> tensor<4xi32>
    %f = "arith.sitofp"(%n) : (tensor<4xi32>) -> tensor<4xf32>
    %v = "arith.select"(%m, %t, %n) : (tensor<4xi1>, tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    "tt.return"() : () -> ()
  }) : () -> ()
}) : () -> ()
"""
    printed = ir.print_ir(ir.parse(text))
    assert "arith.cmpi slt, %s, %s : i32" in printed
    assert "arith.cmpi(%t, %t) <{predicate = 2 : i64}> : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>" in printed
    assert "arith.extsi %t : tensor<4xi32> to tensor<4xi64>" in printed
    assert ir.print_ir(ir.parse(printed)) == printed


def test_verifier_rejects_bad_ops() -> None:
    bad_axis = '"builtin.module"() ({\n  %p = "tt.get_program_id"() <{axis = 3 : i32}> : () -> i32\n}) : () -> ()'
    with pytest.raises(VerifyException, match="axis"):
        ir.parse(bad_axis)
    narrowing_ext = """"builtin.module"() ({
  "tt.func"() <{function_type = (tensor<4xi32>) -> (), sym_name = "k"}> ({
  ^bb0(%t: tensor<4xi32>):
    %w = "arith.extsi"(%t) : (tensor<4xi32>) -> tensor<4xi16>
    "tt.return"() : () -> ()
  }) : () -> ()
}) : () -> ()"""
    with pytest.raises(VerifyException, match="larger"):
        ir.parse(narrowing_ext)
