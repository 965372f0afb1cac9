"""The fast subset of the real-world suite (`make realworld`, docs/realworld.md): real kernels of the
pinned packages, lowered with `lowercheck lower --emit access` and classified by the suite's own
`classify`. The packages are installed into `.cache/realworld` by the suite's own `install` (the
tests skip, saying why, when PyPI cannot be reached and they are not there yet).

`CLEAN` lowers cleanly today and must stay so. `GAPS` are real kernels that do not lower yet, each with
what stops it: strict expected failures, so the marker goes when a front end closes the gap.
"""

from __future__ import annotations

import zipfile

import pytest
from support import run_lowercheck

from lowercheck import realworld

pytestmark = pytest.mark.xdist_group("realworld")

LIGER = "liger-kernel/liger_kernel/ops"
PALLAS = "jax/experimental/pallas/ops"
DEEPSPEED = "deepspeed/csrc"

# (the file as docs/realworld.md shows it, the entry)
CLEAN = [
    (f"{LIGER}/geglu.py", "geglu_forward"),
    (f"{LIGER}/relu_squared.py", "relu_squared_forward"),
    (f"{LIGER}/softmax.py", "_softmax_forward"),
    (f"{LIGER}/swiglu.py", "swiglu_forward"),
    (f"{LIGER}/swiglu.py", "swiglu_fused_gate_up_forward"),
    (f"{LIGER}/dyt.py", "liger_dyt_fwd"),
    (f"{LIGER}/multi_token_attention.py", "_mask_zero_forward"),
    ("tests/realworld/liger_rms_norm.py", "rms_norm"),  # ours: each launches an installed kernel
    ("tests/realworld/liger_fused_add_rms_norm.py", "fused_add_rms_norm"),
    ("tests/realworld/liger_kl_div.py", "kl_div"),
    ("tests/realworld/liger_group_norm.py", "group_norm"),
    ("tests/realworld/liger_layer_norm.py", "layer_norm"),
    (f"{PALLAS}/tpu/example_kernel.py", "double"),
    (f"{PALLAS}/gpu/softmax.py", "softmax"),  # its defaulted parameters (axis=-1, ...) keep their defaults
    # a host launcher template, instantiated as the file does; its kernels' 16-byte copies in inline PTX
    (f"{DEEPSPEED}/transformer/inference/csrc/gelu.cu", "launch_bias_gelu"),
    (f"{DEEPSPEED}/transformer/general_kernels.cu", "launch_fused_add3"),  # float4 locals, cudaStream_t&
    # a size-dispatching launcher; its block reduction moves data through shared memory in inline PTX
    (f"{DEEPSPEED}/transformer/inference/csrc/layer_norm.cu", "launch_fused_ln"),
    # a loop bound that is a ternary (`i < (tid < rem ? n + 1 : n)`): isl gets its cases as a disjunction
    (f"{DEEPSPEED}/transformer/normalize_kernels.cu", "launch_bias_residual_layer_norm"),
    (f"{LIGER}/rms_norm.py", "rms_norm_forward"),  # a spec of ours: a mode string, None, float values
    (f"{PALLAS}/gpu/layer_norm.py", "layer_norm_forward"),  # a spec of ours; jax.vmap over pallas_call
    ("tests/realworld/liger_rope.py", "rope"),  # TTIR whose names Triton numbers (`%q_tile_1`)
    # host TMA descriptors (the tensor, its shape, its strides), blocks set by the autotune config's pre_hook
    (f"{LIGER}/mlp.py", "gemm_swiglu"),
    (f"{LIGER}/mlp.py", "swiglu_backward_dGU"),  # a spec's `construct = "triton.Config"`, its kwargs a table
    # `AlignedArray<uint8_t, 4>` loaded and stored through reinterpreted pointers, `operator[]` returning T&
    (f"{DEEPSPEED}/quantization/quantize_intX.cu", "launch_dequantize_int4_to_half_experimental"),
    # ternaries on loaded values that choose a load from a local array (`x > max ? x : max`): the
    # thread's own cells, under conditions on data, leave nothing to the runs
    (f"{DEEPSPEED}/transformer/inference/csrc/softmax.cu", "launch_attn_softmax_v2"),
    (f"{DEEPSPEED}/quantization/quantize.cu", "launch_quant"),  # `PackedInt4{hi, lo}`: a struct of bit-fields
    # cuRAND's Philox draws (`curand_init(seed, idx, offset, &state)`, `curand_uniform4(&state)`), a
    # float4's lanes through `float* p = &(rand.x)`
    (f"{DEEPSPEED}/transformer/dropout_kernels.cu", "launch_dropout"),
    # `(uint8_t*)&scale` and `&q_buf` as a `void*`: locals viewed as bytes; `if (total_warps != 1)` of
    # a template's value: the dead branch, calling an undefined `store_shared<2>`, never lowered
    (f"{DEEPSPEED}/fp_quantizer/fp_quantize_impl.cu", "launch_dequantization"),
    # stochastic rounding's Poisson draws: a while loop on drawn values (`_while_unenumerated`) that
    # touches only the generator's state
    (f"{DEEPSPEED}/fp_quantizer/fp_quantize_impl.cu", "launch_quantization"),
    # the last warp's shuffle reduction over `cg::coalesced_threads()`
    (f"{DEEPSPEED}/lamb/fused_lamb_cuda_kernel.cu", "fused_lamb_cuda"),
]

# Lowered with accesses modelled in part: indices or conditions from loaded data (`access.indirect`,
# `data_condition`), bounds-checked by the runs; every other access fully checked.
PARTLY = [
    # an early `return` on a loaded label (`y == ignore_index`), and `X[y]` indexed by it
    ("tests/realworld/liger_cross_entropy.py", "cross_entropy"),
    (f"{DEEPSPEED}/random_ltd/gather_scatter.cu", "launch_gather_tokens"),  # rows gathered by loaded indices
    # a struct of pointers and sizes passed by value (`BatchWrapperCPP`), arrays of descriptors read through it
    ("deepspeed/deepspeed/inference/v2/kernels/ragged_ops/embed/embed_cuda.cu", "launch_ragged_embed_kernel"),
    # `IdxReduceResult res; (int64_t*)&res`: a struct viewed as an integer, reduced through shared
    # memory by `st.shared.v2.u32` (one 64-bit access of two registers)
    ("deepspeed/deepspeed/inference/v2/kernels/ragged_ops/top_k_gating/top_k_gating_cuda.cu", "launch_top_k_gating"),
    # `const T* moe_output_bases[N_TOP_K]`: a local array of pointers into one buffer
    ("deepspeed/deepspeed/inference/v2/kernels/ragged_ops/moe_gather/moe_gather_cuda.cu", "launch_moe_gather"),
    ("deepspeed/deepspeed/inference/v2/kernels/ragged_ops/moe_scatter/moe_scatter_cuda.cu", "launch_moe_scatter"),
    # the routing kernels' tile count read on the host (`.item()`): the capture runs them in the
    # interpreter; the GEMMs gather token rows through loaded indices of loaded tiles
    (f"{LIGER}/fused_moe.py", "compute_routing_metadata"),
    (f"{LIGER}/fused_moe.py", "LigerFusedMoEFunction.forward"),
    # a TPU kernel (run in TPU interpret mode, which checks bounds): pages looked up in a prefetched
    # table, a carried batch index that skips empty sequences
    (f"{PALLAS}/tpu/paged_attention/paged_attention_kernel.py", "paged_attention"),
    # `int32_t** block_lists` in the struct passed by value: the table and the memory it points into;
    # the copy instance's rotary code under `inv_freq != nullptr && ...` (null there) never taken
    ("deepspeed/deepspeed/inference/v2/kernels/ragged_ops/linear_blocked_kv_rotary/blocked_kv_rotary_cuda.cu",
     "launch_kv_rotary_kernel"),
    ("deepspeed/deepspeed/inference/v2/kernels/ragged_ops/linear_blocked_kv_rotary/blocked_kv_rotary_cuda.cu",
     "launch_kv_copy_kernel"),
    # the spec's mask info made by splash attention's own `process_mask` from nested constructs
    # (a MultiHeadMask of FullMasks), its block tables prefetched for the index maps
    (f"{PALLAS}/tpu/splash_attention/splash_attention_kernel.py", "_splash_attention_forward"),
    (f"{PALLAS}/tpu/splash_attention/splash_attention_kernel.py", "_splash_attention_bwd_dkv"),
    # `lax.while_loop` over the sequences, KV buffers read back reshaped, `jnp.sign`
    (f"{PALLAS}/tpu/ragged_paged_attention/kernel.py", "ragged_paged_attention"),
]

# (file, entry or None for the whole file, what stops it today)
GAPS = [
    (f"{DEEPSPEED}/adam/multi_tensor_adam.cu", "multi_tensor_adam_cuda", "LC901: the launcher parameter "
     "`tensor_lists` of type `std::vector<std::vector<at::Tensor>>` (multi_tensor_apply's lists of tensors)"),
]


@pytest.fixture(scope="module")
def kernel_files() -> dict[str, realworld.KernelFile]:
    try:
        realworld.install()
    except realworld.Unreachable as err:
        pytest.skip(f"the pinned real-world packages are not in .cache/realworld and could not be fetched from PyPI: {err}")
    return {file.shown: file for file in realworld.kernel_files()}


def _lower(kernel_files: dict[str, realworld.KernelFile], shown: str, entry: str | None) -> tuple[str, str, str]:
    assert shown in kernel_files, f"{shown} is no longer a kernel file of the suite"
    done = run_lowercheck(realworld.lower_arguments(kernel_files[shown], entry, observe=False))
    return realworld.classify(done.returncode, done.stdout, done.stderr)


@pytest.mark.parametrize(("shown", "entry"), CLEAN, ids=[f"{s.rsplit('/', 1)[-1]}:{e}" for s, e in CLEAN])
def test_lowers_cleanly(kernel_files, shown: str, entry: str) -> None:
    result, construct, where = _lower(kernel_files, shown, entry)
    assert result == "clean", f"{result}: {construct} ({where})"


@pytest.mark.parametrize(("shown", "entry"), PARTLY, ids=[f"{s.rsplit('/', 1)[-1]}:{e}" for s, e in PARTLY])
def test_lowers_partly_proved(kernel_files, shown: str, entry: str) -> None:
    result, construct, where = _lower(kernel_files, shown, entry)
    assert result == "partly proved", f"{result}: {construct} ({where})"


@pytest.mark.parametrize(("shown", "entry", "gap"), [
    pytest.param(s, e, g, marks=pytest.mark.xfail(strict=True, reason=g)) for s, e, g in GAPS
], ids=[f"{s.rsplit('/', 1)[-1]}:{e or 'file'}" for s, e, _ in GAPS])
def test_known_gap(kernel_files, shown: str, entry: str | None, gap: str) -> None:
    result, construct, where = _lower(kernel_files, shown, entry)
    assert result == "clean", f"{result}: {construct} ({where})"


def test_an_instance_the_build_leaves_out_is_rejected_over_several_rounds(kernel_files) -> None:
    """fp_quantizer's bf16 instance (not built without BF16_AVAILABLE) fails inside a header's
    template only once an earlier failing probe is gone: the probes are rejected over several rounds,
    so the launcher reaches its kernels and lowers them, instead of clang's `no matching function for
    call to 'to'`. (Its quantised values are gathered by loaded indices: partly proved.)"""
    result, construct, where = _lower(kernel_files, f"{DEEPSPEED}/fp_quantizer/fp_quantize_impl.cu",
                                      "launch_selective_dequantization")
    assert result == "partly proved", (result, construct, where)


def test_classify_reads_each_kind_of_outcome() -> None:
    """The classification of the suite, on the shapes of output `lowercheck lower` gives."""
    unmodelled = 'access.unmodelled {buffer = "a", reason = "an index computed from a loaded value"} loc("k.cu":6:3)'
    assert realworld.classify(0, "access.kernel @k {\n access.access ...", "") == ("clean", "", "")
    # an entry that launches nothing checks nothing: never clean
    assert realworld.classify(0, "kernel.entry @f {\n}", "") == ("unmodelled", "the entry as lowered launches no kernel", "")
    partly = "note: partly proved: 1 access(es) take their index from loaded data (`access.indirect`) ...\n"
    assert realworld.classify(0, 'access.kernel @k {\n access.indirect {buffer = "t"} ...', partly) == ("partly proved", "", "")
    assert realworld.classify(0, unmodelled, "") == ("unmodelled", "an index computed from a loaded value", "k.cu:6")
    assert realworld.classify(3, "", "k.cu:7:3: inconclusive[LC901]: `__shfl_xor_sync` is not supported\n") == (
        "LC901", "`__shfl_xor_sync` is not supported", "k.cu:7")
    assert realworld.classify(2, "", "k.cu:6:10: error: 'x.h' file not found\n  help: ...") == (
        "error", "'x.h' file not found", "k.cu:6")
    assert realworld.classify(2, "", "error: internal error in lowercheck: KeyError: 'x'\n")[0] == "crash"
    assert realworld.classify(-9, "", "")[0] == "crash"
    assert realworld.classify(None, "", "")[0] == "timeout"


def test_dependence_counts_read_the_words_of_lower() -> None:
    """Per output: a dependence map in words on every input, or "not exact" on one of them (then the
    output counts as not exact once, whatever its other inputs)."""
    stdout = "\n".join([
        "// access relations, for all sizes",
        "//   w0 write out (k.cu:3:5): block p writes out[p]",
        "// dependences: the input elements each output element's stored value is computed from (LC204)",
        "//   out[i0] reads x[256i0 .. 255 + 256i0] for i0 >= 0; combined by sum",
        "//   y[i0, i1] reads w[i1] for 0 <= i0 <= 3",
        "//   y on x: not exact (a value stored in `s` feeds itself): `diff` does not compare it",
        "//   z on x: not exact (a shuffle whose offset varies): `diff` does not compare it",
        "//   z on w: not exact (the same): `diff` does not compare it",
        "//   v on its inputs: not exact (composing it took more than 10 s): `diff` may not compare it",
        "note: after the block",
        "//   q[i0] reads x[i0]",
    ])
    assert realworld.dependence_counts(stdout) == (4, 3)
    assert realworld.dependence_gaps(stdout) == [
        "a value stored in `...` feeds itself", "a shuffle whose offset varies",
        "composing it took more than 10 s"]
    assert realworld.dependence_counts("access.kernel @k {\n}") == (0, 0)


def test_observed_outputs_are_read_from_lower_observe() -> None:
    """`lower --observe` adds the maps it observed in runs: an output not exact statically and
    observed counts as observed (what `diff` compares, "observed"); one not observed stays not
    compared; the table gives both and the share of the latter."""
    stdout = "\n".join([
        "// dependences: the input elements each output element's stored value is computed from (LC204)",
        "//   y on x: not exact (a tl.reshape): `diff` does not compare it",
        "//   z on x: not exact (a shuffle whose offset varies): `diff` does not compare it",
        "//   q[i0] reads x[i0]",
        "// dependences observed in runs (what `diff` compares where the maps above are not exact)",
        "//   observed: y[i0, i1] changes with x[i0, *] (observed at rows=17, cols=97)",
        "//   observed: q does not change with w (observed at rows=17, cols=97)",
        "//   compared: v (the diff's static checks composed its maps)",
        "//   not observed: z: a run of the source failed (timeout: ...)",
    ])
    assert realworld.inexact_outputs(stdout) == ["y", "z"]
    assert realworld.observed_outputs(stdout) == {"y", "q", "v"}
    row = realworld.Row(package="liger-kernel", language="triton", file="f.py", line=1, entry="e", launches=[],
                        template_library=False, wrapper=False, result="clean", dependences=3,
                        dependence_gaps=["a", "b"], observed=1)
    table = realworld.markdown([row], 1.0, 1, 60, 1024)
    assert "| triton | 3 | 1 | 2 | 1 | 1 | 33.3% |" in table


def test_a_group_of_tests_is_sent_to_one_worker(request) -> None:
    """`make test` runs `--dist loadgroup`: the tests of an `xdist_group` share one worker (and its
    set-up: the installed packages here, the interpreter's runs of the corpus ports). With pytest
    9.2 and xdist 3.8 the group was silently dropped (xdist renames a node's `_nodeid`, which
    pytest 9 no longer reads), and each worker paid for every group's set-up."""
    if not hasattr(request.config, "workerinput") or not request.config.getvalue("loadgroup"):
        pytest.skip("not run by xdist with --dist loadgroup")
    assert request.node.nodeid.endswith("@realworld"), request.node.nodeid


def test_a_kernel_file_whose_kernels_other_rows_launch_has_no_row_of_its_own() -> None:
    """liger's `utils.py` defines `element_mul_kernel`, which the cross-entropy launchers launch:
    its "no launcher" row goes; a kernel file whose kernels no row launches keeps it."""
    def row(file: str, result: str = "", launches=(), defined=()) -> realworld.Row:
        return realworld.Row(package="liger-kernel", language="triton", file=file, line=1, entry=None,
                             launches=list(launches), template_library=False, wrapper=False, result=result,
                             defined=list(defined))

    listed = [[row("utils.py", "no launcher", defined=["element_mul_kernel"])],
              [row("cross_entropy.py", launches=["liger_cross_entropy_kernel", "element_mul_kernel"])],
              [row("orphan.py", "no launcher", defined=["lonely_kernel"])]]
    kept = realworld._launched_elsewhere(listed)
    assert [[r.file for r in rows] for rows in kept] == [[], ["cross_entropy.py"], ["orphan.py"]]


def test_the_launcher_files_of_a_package_are_rows() -> None:
    """Files that define no kernel but launch the package's kernels (`_jsd_kernel[(BT,)](...)` in
    liger's Triton backend) are files of the suite; a helper with neither is not."""
    import re

    assert realworld._LAUNCH.search("    _jsd_kernel[(BT,)](\n")
    assert not realworld._LAUNCH.search("x = table[key]\n")
    liger = next(p for p in realworld.PACKAGES if p.name == "liger-kernel")
    assert any(re.search("backends/_triton", pattern) for pattern in liger.launchers)


def test_an_unpacked_wheel_is_byte_compiled(tmp_path, monkeypatch) -> None:
    """A wheel's modules are imported in sandboxed children, which may not write __pycache__: the
    install compiles them once, as pip does for a wheel it installs."""
    monkeypatch.setattr(realworld, "CACHE", tmp_path)
    (tmp_path / "downloads").mkdir()
    with zipfile.ZipFile(tmp_path / "downloads" / "tiny_kernels-1.0-py3-none-any.whl", "w") as wheel:
        wheel.writestr("tiny_kernels/__init__.py", "")
        wheel.writestr("tiny_kernels/ops.py", "def add(x, y):\n    return x + y\n")
    package = realworld.Package("tiny-kernels", "1.0", "wheel", "triton", ("tiny_kernels/*.py",), "def")
    realworld.install((package,))
    cached = package.folder / "tiny_kernels" / "__pycache__"
    assert sorted(p.name.split(".")[0] for p in cached.iterdir()) == ["__init__", "ops"]
