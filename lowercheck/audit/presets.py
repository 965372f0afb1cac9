"""Named harnesses: what a task's checker and timer do when the task file does not say.

`lowercheck audit problem.py --harness kernelbench` audits a bare problem file as that harness
would judge it; in a task file, `[harness] preset = "..."` fills what the file leaves out. Each
preset cites where its values come from.
"""

from __future__ import annotations

from dataclasses import dataclass

from lowercheck.audit.task import Correctness, Timing


@dataclass(frozen=True)
class Preset:
    name: str
    correctness: Correctness
    timing: Timing | None
    source: str


# KernelBench's evaluator (github.com/ScalingIntelligence/KernelBench, src/kernelbench/eval.py,
# `eval_kernel_against_ref` and `run_and_check_correctness`): 5 correctness trials, each with its
# own seed drawn from the base seed; `set_seed` before building each side's Model; the reference
# runs first, then the solution, on the same (uncloned) inputs; the output's shape is compared,
# then `torch.allclose` with the precision's tolerance (allclose raises on a dtype mismatch: a
# failed trial). Timing: CUDA events on the current stream around each call, a synchronisation
# after each, 3 warm-up calls, 100 timed calls on one set of inputs, no L2 flush; the mean is the
# runtime. Tolerance per precision as the current evaluator gives it (fp32 1e-4; fp16 and bf16
# 1e-2); KernelBench v0 and v0.1 used 1e-2 for fp32 as well (`kernelbench-v0`).
_KB_TIMING = Timing(warmup=3, reps=100, l2_flush=False, statistic="mean", streams="current", sync=True,
                    fresh_inputs=False, baseline_tf32=False)
_KB = Correctness(atol={"float32": 1e-4, "float16": 1e-2, "bfloat16": 1e-2, "default": 1e-4},
                  rtol={"float32": 1e-4, "float16": 1e-2, "bfloat16": 1e-2, "default": 1e-4},
                  trials=5, seed="per-trial", seed_init=True, check_dtype=True, check_layout=False,
                  clone_inputs=False, check_inputs=False, order="reference-first", poison_freed=False,
                  relative_to="solution")

PRESETS: dict[str, Preset] = {
    "kernelbench": Preset("kernelbench", _KB, _KB_TIMING,
                          "KernelBench src/kernelbench/eval.py (run_and_check_correctness, "
                          "time_execution_with_cuda_event)"),
    "kernelbench-v0": Preset("kernelbench-v0",
                             Correctness(**{**_KB.__dict__, "atol": 1e-2, "rtol": 1e-2}), _KB_TIMING,
                             "KernelBench v0 and v0.1: atol = rtol = 1e-2 at every precision"),
    # torch.testing.assert_close: per-dtype defaults (rtol, atol) from its documentation; it checks
    # the dtype (check_dtype=True) but not the strides (check_stride=False) by default. One call.
    "torch-testing": Preset("torch-testing",
                            Correctness(atol={"float16": 1e-5, "bfloat16": 1e-5, "float32": 1e-5, "float64": 1e-7},
                                        rtol={"float16": 1e-3, "bfloat16": 1.6e-2, "float32": 1.3e-6,
                                              "float64": 1e-7},
                                        trials=1, seed="fixed", seed_init=True, check_dtype=True),
                            None, "torch.testing.assert_close documentation (default rtol and atol per dtype)"),
    # triton.testing.do_bench: warm-up and repetitions in milliseconds (25 and 100 by default; the
    # count follows from a first estimate), the L2 cache cleared by writing a 256 MB buffer before
    # each call, events on the current stream, the mean returned by default (`return_mode="mean"`).
    "triton-do-bench": Preset("triton-do-bench", Correctness(),
                              Timing(warmup=25, reps=100, l2_flush=True, statistic="mean", streams="current",
                                     sync=True, fresh_inputs=False),
                              "triton.testing.do_bench documentation and source (python/triton/testing.py)"),
    # What lowercheck recommends, each field the fix of one check (docs/audit.md): a fresh seed per
    # trial, each side's own copy of the inputs checked after the call, freed memory poisoned, the
    # dtype and layout compared; the device synchronised around each timed call, L2 flushed, fresh
    # inputs per call, the median of 100.
    "recommended": Preset("recommended",
                          Correctness(atol=_KB.atol, rtol=_KB.rtol, trials=5, seed="per-trial", seed_init=True,
                                      check_dtype=True, check_layout=True, clone_inputs=True, check_inputs=True,
                                      order="reference-first", poison_freed=True),
                          Timing(warmup=10, reps=100, l2_flush=True, statistic="median", streams="device",
                                 sync=True, fresh_inputs=True, baseline_tf32=False),
                          "lowercheck: the fix of each check of docs/audit.md"),
}
