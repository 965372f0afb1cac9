"""Validity by compiling: the task's code built for its target, as a reviewer would before running it.

- LC642 (does not compile for the target): a CUDA file (`.cu`, or a KernelBench `.py` whose
  `load_inline(cuda_sources=...)` string is the source) compiled with `nvcc -cubin` for the target's
  architecture (H100/H200: `sm_90a`, so that Hopper's arch-specific instructions count as
  available; A100: `sm_80`; L4: `sm_89`), nvcc's first error at its file:line (a ptxas error
  mapped back through the PTX's `.loc` lines); a Triton file's kernels compiled with Triton's own
  compiler for the target's GPU, its error at the kernel's line. CUDA or Triton code for a TPU.
  Without a launch, a Triton kernel's parameter types are guessed (`*fp32` pointers, `i32`
  integers: the runner says how); an error on a line that uses a guessed parameter may be the
  guess's, so it is a note, not a finding.
- LC644 (an autotuning config does not fit): each `triton.Config` of an `@triton.autotune` kernel
  compiled, its shared memory (Triton's `metadata.shared`: what Triton's launcher checks against
  the device) and registers (per thread x threads per block, in the allocation units) against the
  target's per-block limits. A plain kernel that does not fit is LC642: it cannot launch.

Importing a Triton file runs it, so the Triton part runs in a sandboxed child process
(`lowercheck.runners.triton_compile`); a child that times out or crashes is a note, never a finding.
What this cannot check is a note, one line each: no nvcc, a header only the user's machine has
(torch's C++ headers for an extension), a PyTorch or Pallas file (nothing to compile here), a
kernel whose constexprs are set by the wrapper at run time.
"""

from __future__ import annotations

import ast
import math
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from lowercheck import cuda_on_cpu
from lowercheck.errors import SourceLocation, UserError
from lowercheck.findings import Evidence, Finding
from lowercheck.perf.targets import TARGETS, Target, get_target

MEMORY_MB = 4096  # the Triton child's address space: torch, Triton and LLVM with room to spare
# nvcc's architecture per compute capability where the plain one lacks what the device has: Hopper's
# wgmma, setmaxnreg and friends exist only in sm_90a, which every H100 and H200 runs.
_ARCH_SPECIFIC = {"9.0": "sm_90a"}
# Headers that come with PyTorch (`torch.utils.cpp_extension` passes their folders to nvcc).
_TORCH_HEADERS = ("torch/", "ATen/", "c10/", "caffe2/", "pybind11/")
_INCLUDE_TRIES = 8  # nvcc runs, each adding the project include folder of the header the last one missed

Check = Callable[[str, Path, Target, float], tuple[list[Finding], list[str]]]


def check(sources: Sequence[tuple[str, Path]], target: str, timeout_s: float = 120.0) -> tuple[list[Finding], list[str]]:
    """sources: (role, path) pairs, role "reference" or "solution": the task's code files (.cu CUDA,
    .py Triton or PyTorch or Pallas). target: a name of lowercheck.perf.targets.TARGETS ("h100-sxm",
    "a100-80gb", "l4", "h200", "tpu-v5e"). Returns findings (LC642, LC644, side=role, location=the
    file:line the compiler names) and notes: one line per thing not checked and why (e.g. "nvcc not
    found: solution.cu not compiled for sm_80", "reference.py is PyTorch: nothing to compile")."""
    device = get_target(target)
    findings: list[Finding] = []
    notes: list[str] = []
    for role, path in sources:
        path = Path(path)
        language, why = _language(path)
        if language is None:
            notes.append(why)
            continue
        found, said = CHECKS[language](role, path, device, timeout_s)
        findings += found
        notes += said
    return findings, notes


def _language(path: Path) -> tuple[str | None, str]:
    """The file's language as the front ends tell it ("cuda" also for a `load_inline` .py), or None
    and why nothing is compiled."""
    from lowercheck.frontends import language_of

    try:
        language = language_of(str(path))
    except UserError as err:
        return None, f"{path.name} not compiled: {err.message}"
    if language == "cuda" and path.suffix == ".py":
        return "cuda-inline", ""
    return language, ""


def arch_of(device: Target) -> str | None:
    """nvcc's `-arch` for the device ("sm_90a", "sm_80", "sm_89"), or None for a device without CUDA."""
    if device.sm is None:
        return None
    capability = device.sm.compute_capability
    return _ARCH_SPECIFIC.get(capability, "sm_" + capability.replace(".", ""))


def _not_cuda(device: Target) -> str:
    return "a TPU target" if device.tpu_device_kind else f"{device.name}, which runs no CUDA"


# --- CUDA ------------------------------------------------------------------------------------------


def _check_cuda(role: str, path: Path, device: Target, timeout_s: float) -> tuple[list[Finding], list[str]]:
    return _compile_cuda(role, path, path.read_text(encoding="utf-8", errors="replace"), None, device, timeout_s)


def _check_inline(role: str, path: Path, device: Target, timeout_s: float) -> tuple[list[Finding], list[str]]:
    """A KernelBench `.py`: its `load_inline(cuda_sources=...)` string compiled as a `.cu` file, its
    lines mapped back into the `.py` file."""
    from lowercheck.frontends.cuda.parse import embedded_cuda

    try:
        text, embedded = embedded_cuda(path)
    except UserError as err:
        return [], [f"{path.name} not compiled: {err.message}"]
    return _compile_cuda(role, path, text, embedded.line, device, timeout_s)


def _compile_cuda(role: str, path: Path, text: str, first_line: int | None, device: Target,
                  timeout_s: float) -> tuple[list[Finding], list[str]]:
    """nvcc on `path`, or on `text` (the source embedded at `first_line` of `path`) written to a
    temporary `.cu` file: LC642 at nvcc's first error."""
    arch = arch_of(device)
    if arch is None:
        line = next((n for n, code in enumerate(text.splitlines(), 1) if "__global__" in code), 1)
        line += first_line - 1 if first_line is not None else 0
        return [Finding("LC642", f"CUDA source for {_not_cuda(device)}", side=role,
                        location=SourceLocation(str(path), line), evidence=str(Evidence.MEASURED),
                        hint="a TPU runs JAX, Pallas or XLA code: choose a GPU target, or port the kernel")], []
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        return [], [f"nvcc not found: {path.name} not compiled for {arch}"]
    try:
        output, error = _nvcc(nvcc, arch, path, text, first_line, timeout_s)
    except subprocess.TimeoutExpired:
        return [], [f"not checked: compiling {path.name} for {arch} timed out after {timeout_s:g} s"]
    if output is None:
        return [], []
    if error is None:
        tail = output.strip().splitlines()[-1:] or ["no message"]
        return [], [f"not checked: nvcc failed on {path.name} for {arch} without an error at a line ({tail[0]})"]
    file, line, message = error
    if (header := _missing_header(message)) is not None:
        if header.startswith(_TORCH_HEADERS):
            return [], [f"{path.name} not compiled: needs torch's C++ headers (`{header}`), which lowercheck "
                        "does not pass to nvcc"]
        return [], [f"{path.name} not compiled: needs `{header}`, which nvcc did not find here"]
    if "Unsupported gpu architecture" in message or "is not defined for option 'gpu-name'" in message:
        return [], [f"not checked: this nvcc cannot compile for {arch} ({message})"]
    return [Finding("LC642", f"{path.name} does not compile for {arch} ({device.name}): {message}", side=role,
                    location=SourceLocation(file or str(path), line), evidence=str(Evidence.MEASURED),
                    witness={"arch": arch},
                    hint=f"`nvcc -cubin -arch={arch}` shows the error; change the code, or choose a target "
                         "that has what it uses")], []


def _nvcc(nvcc: str, arch: str, path: Path, text: str, first_line: int | None,
          timeout_s: float) -> tuple[str | None, tuple[str | None, int, str] | None]:
    """(None, None) when nvcc compiles the file; else nvcc's output and its first error as (file,
    line, message), lines of an embedded source mapped into `path`. A header that is not found is
    looked for in the project's include folders (as a build passes them with -I) and nvcc runs again."""
    from lowercheck.frontends.cuda.parse import MODELLED, include_folders

    folders: list[Path] = [path.resolve().parent]
    with tempfile.TemporaryDirectory(prefix="lowercheck-audit-nvcc-") as folder:
        source = path
        if first_line is not None:
            source = Path(folder) / f"{path.stem}.cu"
            source.write_text(text, encoding="utf-8")
        for _ in range(_INCLUDE_TRIES):
            command = [nvcc, "-cubin", f"-arch={arch}", "-lineinfo", "-keep", f"-keep-dir={folder}", f"-I{MODELLED}",
                       *(f"-I{f}" for f in folders), "-o", f"{folder}/out.cubin", str(source)]
            # TMPDIR too: with -keep, a failed compile leaves its front end's `.lgenfe.bc` there
            done = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s,
                                  env={**os.environ, "TMPDIR": folder})
            if done.returncode == 0:
                return None, None
            output = done.stdout + done.stderr
            error = _first_error(output, Path(folder))
            header = _missing_header(error[2]) if error is not None else None
            more = [f for f in include_folders(path.resolve(), [header]) if f not in folders] if header else []
            if not more:
                break
            folders += more
    if error is not None and error[0] is not None and Path(error[0]).resolve() == source.resolve():
        error = (str(path), error[1] + (first_line - 1 if first_line is not None else 0), error[2])
    return output, error


# nvcc's front end: `file(12): error: ...`; the host compiler: `file:12:3: fatal error: ...`; ptxas:
# `ptxas /tmp/.../x.ptx, line 28; error   : ...`.
_NVCC_ERROR = re.compile(r"^(?P<file>.+?)\((?P<line>\d+)\): (?:catastrophic )?error: (?P<msg>.*)$", re.M)
_HOST_ERROR = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:\d+:)? (?:fatal )?error: (?P<msg>.*)$", re.M)
_PTXAS_ERROR = re.compile(r"^ptxas (?P<file>.+?), line (?P<line>\d+); error\s*: (?P<msg>.*)$", re.M)
_NVCC_FATAL = re.compile(r"^(?:nvcc|ptxas) fatal\s*: (?P<msg>.*)$", re.M)
_LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+\d+")
_FILE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]+)"', re.M)


def _first_error(output: str, keep: Path) -> tuple[str | None, int, str] | None:
    """(file, line, message) of the first error nvcc printed; a ptxas error is mapped from the PTX
    line to the source line of the `.loc` before it (the PTX is kept in `keep`)."""
    found = [m for pattern in (_NVCC_ERROR, _HOST_ERROR, _PTXAS_ERROR) if (m := pattern.search(output))]
    if not found:
        fatal = _NVCC_FATAL.search(output)
        return (None, 1, fatal["msg"].strip()) if fatal else None
    first = min(found, key=lambda m: m.start())
    message = first["msg"].strip()
    if first.re is not _PTXAS_ERROR:
        return first["file"], int(first["line"]), message
    ptx = Path(first["file"])
    ptx = ptx if ptx.is_file() else keep / ptx.name
    try:
        lines = ptx.read_text(errors="replace").splitlines()
    except OSError:
        return None, 1, message
    files = dict(_FILE.findall("\n".join(lines)))
    for text in reversed(lines[:int(first["line"])]):
        if (loc := _LOC.match(text)) and loc.group(1) in files:
            return files[loc.group(1)], int(loc.group(2)), message
    return None, 1, message


def _missing_header(message: str) -> str | None:
    found = re.search(r'cannot open source file "([^"]+)"|^([^:]+): No such file or directory', message)
    return (found.group(1) or found.group(2)).strip() if found else None


# --- Triton ----------------------------------------------------------------------------------------


def _check_triton(role: str, path: Path, device: Target, timeout_s: float) -> tuple[list[Finding], list[str]]:
    """Every kernel of the file compiled for the device in a sandboxed child: LC642 for a compile
    error, LC644 (LC642 for a plain kernel) for one that needs more than a block may use."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8-sig"), filename=str(path))
    except SyntaxError as err:
        return [Finding("LC642", f"{path.name} is not valid Python: {err.msg}", side=role,
                        location=SourceLocation(str(path), err.lineno or 1, err.offset or 0),
                        evidence=str(Evidence.MEASURED))], []
    if device.sm is None:
        return [Finding("LC642", f"Triton source for {_not_cuda(device)}", side=role,
                        location=SourceLocation(str(path), _first_kernel_line(tree)), evidence=str(Evidence.MEASURED),
                        hint="Triton compiles for NVIDIA and AMD GPUs: choose a GPU target, or port the "
                             "kernel to Pallas")], []
    from lowercheck.runners.base import RunRequest
    from lowercheck.runners.sandbox import run_isolated

    name = next(key for key, value in TARGETS.items() if value.name == device.name)
    request = RunRequest(language="triton-compile", path=str(path), entry="", ir=None, args={},
                         options={"capability": int(device.sm.compute_capability.replace(".", "")),
                                  "env": {"TRITON_INTERPRET": "0", cuda_on_cpu.TARGET_ENV: name}})
    result = run_isolated(request, timeout_s, MEMORY_MB)
    if result.error_kind == "timeout":
        return [], [f"not checked: compiling {path.name} timed out after {timeout_s:g} s"]
    if result.error is not None:
        reason = (result.error.strip().splitlines() or ["no message"])[-1 if result.error_kind == "crash" else 0]
        return [], [f"not checked: compiling {path.name} failed before any kernel was judged "
                     f"({result.error_kind}: {reason})"]
    compilations = result.facts.get("compilations", [])
    if not compilations:
        return [], [f"{path.name}: no Triton kernel defined in the file: nothing to compile"]
    findings: list[Finding] = []
    notes: list[str] = []
    for fact in compilations:
        finding, note = _JUDGES[fact["kind"]](fact, role, path, device)
        findings += [finding] if finding else []
        notes += [note] if note else []
    return findings, notes


def _first_kernel_line(tree: ast.Module) -> int:
    """The line of the first jit function that no other one calls (a kernel, not a helper)."""
    jitted = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)
              and any("jit" in ast.unparse(d) for d in node.decorator_list)]
    called = {call.func.id for node in jitted for call in ast.walk(node)
              if isinstance(call, ast.Call) and isinstance(call.func, ast.Name)}
    kernel = next((node for node in jitted if node.name not in called), jitted[0] if jitted else None)
    return kernel.lineno if kernel else 1


# Each compilation the `triton-compile` runner reports (its docstring lists the facts) -> (a finding,
# a note), either may be None.
Fact = dict[str, Any]
Judged = tuple[Finding | None, str | None]


def _alike(fact: Fact) -> str:
    """" (and N more configs alike)" for the configs that failed the same way."""
    same = fact.get("same", 0)
    return f" (and {same} more config{'s' if same > 1 else ''} alike)" if same else ""


def _judge_error(fact: Fact, role: str, path: Path, device: Target) -> Judged:
    location = SourceLocation(*fact["location"])
    if fact.get("guessed"):
        return None, (f"not judged: Triton cannot compile {fact['kernel']}{_alike(fact)} at {location} "
                      f"({fact['reason']}), a line that uses `{fact['guessed']}`, whose type lowercheck guessed "
                      "without a launch")
    return Finding("LC642", f"Triton cannot compile {fact['kernel']}{_alike(fact)} for the {device.name} (compute "
                   f"capability {device.sm.compute_capability}): {fact['reason']}", side=role, location=location,
                   evidence=str(Evidence.MEASURED),
                   hint="the message is Triton's own; fix the kernel, or remove the config"), None


def _judge_not_checked(fact: Fact, role: str, path: Path, device: Target) -> Judged:
    return None, f"not checked: {path.name}: {fact['kernel']}: {fact['reason']}{_alike(fact)}"


def _judge_compiled(fact: Fact, role: str, path: Path, device: Target) -> Judged:
    problems = _exceeds(fact, device)
    if not problems:
        return None, None
    message = f"{fact['kernel']} needs {'; and '.join(problems)}"
    if fact.get("pruned"):
        return None, (f"not judged: {path.name}: {message}, but the autotuner prunes its configs at run time "
                      "(prune_configs_by), which may drop it")
    tuned = fact.get("config", -1) >= 0  # a plain kernel that does not fit cannot launch: LC642
    return Finding("LC644" if tuned else "LC642", message, side=role, location=SourceLocation(*fact["location"]),
                   evidence=str(Evidence.MEASURED),
                   witness={k: fact[k] for k in ("shared", "registers", "threads", "config")},
                   hint="prune configs by the target's limits (prune_configs_by) or remove this one" if tuned
                   else "use smaller tiles or fewer stages"), None


_JUDGES: dict[str, Callable[[Fact, str, Path, Target], Judged]] = {
    "compile-error": _judge_error,
    "not-checked": _judge_not_checked,
    "compiled": _judge_compiled,
}


def _exceeds(figures: Fact, device: Target) -> list[str]:
    """What a compiled kernel needs beyond a block's limits on `device`, in words."""
    sm = device.sm
    problems = []
    shared = figures.get("shared", 0)
    if shared > sm.max_smem_per_block:
        problems.append(f"{shared} bytes of shared memory; a block on the {device.name} may use at most "
                        f"{sm.max_smem_per_block}")
    registers, threads = figures.get("registers", -1), figures.get("threads", 0)
    if registers > 0 and threads > 0:
        # registers go to each warp in units of 256 (the CUDA occupancy calculator's rule)
        per_warp = math.ceil(registers * sm.warp_size / sm.register_allocation_unit) * sm.register_allocation_unit
        needed = per_warp * math.ceil(threads / sm.warp_size)
        if needed > sm.registers_per_sm:
            problems.append(f"{registers} registers x {threads} threads ({needed} allocated); a block on the "
                            f"{device.name} may use at most {sm.registers_per_sm}")
    return problems


# --- nothing to compile here ---------------------------------------------------------------------------


def _note_torch(role: str, path: Path, device: Target, timeout_s: float) -> tuple[list[Finding], list[str]]:
    return [], [f"{path.name} is PyTorch: nothing to compile"]


def _note_pallas(role: str, path: Path, device: Target, timeout_s: float) -> tuple[list[Finding], list[str]]:
    return [], [f"{path.name} is Pallas: not compiled by this check"]


CHECKS: dict[str, Check] = {
    "cuda": _check_cuda,
    "cuda-inline": _check_inline,
    "triton": _check_triton,
    "torch": _note_torch,
    "pallas": _note_pallas,
}
