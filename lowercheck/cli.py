"""The `lowercheck` command line.

    lowercheck diff SOURCE[:ENTRY] TARGET[:ENTRY] [--spec FILE.toml] [--size NAME=V1,V2,...]
                    [--json FILE] [--device auto|cpu|cuda] [--seed N] [--no-run] [--no-static]
                    [--platform NAME ...]
    lowercheck lower FILE[:ENTRY] --emit ir|access [--spec FILE.toml]
    lowercheck corpus DIR [-j N] [--json FILE] [--baseline kernelbench] [--markdown FILE] [--ray ADDRESS]
    lowercheck bench SOURCE TARGET [--spec FILE.toml] [--size ...] [--gpu NAME] [--json FILE]
                     [--baseline-json FILE] [--budget SECONDS]
    lowercheck audit TASK [--harness PRESET] [--gpu NAME] [--json FILE] [--timeout SECONDS]
    lowercheck codes [CODE]

Exit codes: 0 equivalent, 1 different, 2 unusable input or tool error, 3 inconclusive.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback

from lowercheck import __version__, report_cache
from lowercheck.report import json_report

EXIT_ERROR = 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="lowercheck", description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", action="version", version=f"lowercheck {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    d = sub.add_parser("diff", help="compare a kernel with its translation",
                       description="Lower both sides, compare their accesses statically, run both on the "
                                   "same inputs, and report findings. Exit 0 equivalent, 1 different, "
                                   "2 bad input, 3 inconclusive.")
    d.add_argument("source", help="reference side: FILE or FILE:ENTRY")
    d.add_argument("target", nargs="+", help="port under review: FILE or FILE:ENTRY; several solutions of one "
                   "problem: each diffed against SOURCE, a table of their verdicts at the end")
    d.add_argument("-j", "--jobs", type=int, default=1, help="with several targets: diffs at once (default 1)")
    d.add_argument("--spec", help="TOML file with [sizes] and [args.NAME] (shape, dtype, role)")
    d.add_argument("--size", action="append", default=[], metavar="NAME=V1,V2,...",
                   help="sizes to sweep (overrides the spec); repeat for several sizes")
    d.add_argument("--json", metavar="FILE", help="also write the report as JSON")
    d.add_argument("--html", metavar="FILE", help="also write the report as one self-contained HTML page (sources "
                                                  "with findings, access pictures, runs, roofline)")
    _output_options(d)
    d.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto",
                   help="where kernels run; without a GPU everything runs on the CPU")
    d.add_argument("--seed", type=int, help="seed of the random inputs and run orders (default 0, or the configuration's)")
    d.add_argument("--no-run", action="store_true", help="static checks only")
    d.add_argument("--no-reuse", action="store_true",
                   help="compute a static report again even when nothing it depends on changed (the report "
                        "cache; also `reuse_reports = false` or LOWERCHECK_REUSE_REPORTS=0)")
    d.add_argument("--no-static", action="store_true", help="differential run only")
    d.add_argument("--baseline", choices=("kernelbench",),
                   help="judge as a KernelBench-style harness does instead (one size, torch.rand inputs, "
                        "allclose with atol = rtol = 1e-2, no static checks): to compare with lowercheck's verdict")
    d.add_argument("--timeout", type=float, help="seconds for the whole diff: every import, capture and run within it (default 120, or the configuration's)")
    d.add_argument("--integrity", choices=("on", "off"),
                   help="probe a KernelBench solution for reward hacks (repeated calls, in-place inputs, no-op "
                        "kernels, changed flags and timers: LC7xx; default on, or the configuration's)")
    d.add_argument("--custom-kernel", choices=("optional", "required"),
                   help="required: a solution that runs no kernel of its own is an error (LC701), not a warning "
                        "(default optional, or the configuration's)")
    d.add_argument("--python", metavar="PATH", help="the reviewer's Python: user code also imports what it has "
                   "installed (einops, a benchmark's own package), after lowercheck's own torch and Triton")
    d.add_argument("--gpu", help="the device of the cost model's roofline, and what the files' "
                                                    "device queries (SM count, capability) answer without a GPU: "
                                                    "h100-sxm, h200, a100-80gb, l4, tpu-v5e (default h100-sxm, or the "
                                                    "configuration's)")
    d.add_argument("--platform", action="append", default=[], metavar="NAME",
                   help="migration target of a Pallas side, checked by lowering it there without the hardware "
                        "(block shapes, VMEM or shared memory and registers): tpu-v5e, h100-sxm, ...; repeatable "
                        "(default: the --gpu target)")

    lo = sub.add_parser("lower", help="print a stage of the IR",
                        description="Print a file's kernel IR (--emit ir) or its access IR (--emit access).")
    lo.add_argument("file", help="FILE or FILE:ENTRY")
    lo.add_argument("--emit", choices=("ir", "access"), default="ir")
    lo.add_argument("--spec", help="TOML spec (sizes, argument shapes and dtypes)")
    lo.add_argument("--no-loc", action="store_true", help="omit source locations")
    lo.add_argument("--observe", action="store_true",
                    help="with --emit access: observe in runs the dependence maps that are not exact statically "
                         "(one small swept size, a slice of each input replaced per run), as `diff` does")
    lo.add_argument("--gpu", default="h100-sxm", help="what the file's device queries (SM count, capability) answer "
                                                     "without a GPU: h100-sxm, h200, a100-80gb, l4 (default h100-sxm)")

    o = sub.add_parser("opt", help="run passes on an MLIR file (for pass tests)",
                       description="Parse MLIR text, run the named passes in order, print the result.")
    o.add_argument("file", help="an .mlir file, or - for standard input")
    o.add_argument("-p", "--passes", default="", help="comma-separated pass names")

    be = sub.add_parser("bench", help="compare the two sides' performance",
                        description="The static cost model of both sides (bytes, FLOPs, roofline floor on --gpu) "
                                    "and, on a machine with a CUDA device, a timed comparison; without one, says so.")
    be.add_argument("source", help="reference side: FILE or FILE:ENTRY")
    be.add_argument("target", help="port under review: FILE or FILE:ENTRY")
    be.add_argument("--spec", help="TOML file with [sizes] and [args.NAME]")
    be.add_argument("--size", action="append", default=[], metavar="NAME=V1,V2,...")
    be.add_argument("--gpu", default="h100-sxm", help="the device of the roofline (default h100-sxm)")
    be.add_argument("--json", metavar="FILE", help="also write the report as JSON: the static report, and the "
                                                  "timing with its environment under `bench`")
    be.add_argument("--baseline-json", metavar="FILE", help="a `bench --json` file timed earlier: refused (exit 2) "
                    "unless its device, driver, clocks and software are this machine's")
    be.add_argument("--budget", type=float, default=10.0, help="seconds of measurement at most (default 10)")

    b = sub.add_parser("corpus", help="run every case of a corpus and summarise detection",
                       description="Run every [[case]] of every expected.toml under DIR (N at a time, each in "
                                   "its own process with a time limit), appending results as they finish: a run "
                                   "started again skips the cases already done.")
    b.add_argument("dir", help="a corpus folder (cases in expected.toml files below it)")
    b.add_argument("-j", "--jobs", type=int, default=2, help="cases run at once (default 2); with `--ray local`, "
                                                            "the local cluster's CPUs")
    # dest `results`, not `json`: the error handler writes an error report to `args.json`, which
    # here is the results file of earlier runs, never to be overwritten
    b.add_argument("--json", metavar="FILE", dest="results",
                   help="results as JSON lines (default: in lowercheck's cache, per folder and lowercheck "
                        "version); delete it to start over")
    b.add_argument("--baseline", choices=("kernelbench",), help="also judge each run case as KernelBench does")
    b.add_argument("--markdown", metavar="FILE", help="also write the summary as Markdown")
    b.add_argument("--html", metavar="DIR", help="write each case's HTML report and DIR/index.html, the detection "
                                                 "table linking them (cases whose results are reused have no page)")
    b.add_argument("--case-timeout", type=float, default=600.0, help="seconds per case (default 600)")
    b.add_argument("--ray", metavar="ADDRESS", help="run the cases as Ray tasks (same time limit and results file; "
                                                    "the summary gives each worker's throughput): `local` starts a "
                                                    "cluster of -j CPUs for this command, `auto` joins the running "
                                                    "one, HOST:PORT or ray://HOST:PORT that one; needs "
                                                    "pip install 'lowercheck[ray]'")

    a = sub.add_parser("audit", help="review a kernel task: tolerance, benchmark fairness, scoping, validity",
                       description="Review the task itself, not one solution: wrong solutions its checker accepts, "
                                   "correct ones it rejects, a reference off the float64 oracle, inputs and timing "
                                   "a measurement artefact can win, loose scoping, and whether it fits and compiles "
                                   "for its target. TASK is a task file (TOML) or a KernelBench problem (.py). "
                                   "Exit 0 sound, 1 flawed, 2 bad input, 3 inconclusive. See docs/audit.md.")
    a.add_argument("task", help="a task .toml file, or a KernelBench-style problem .py (then --harness applies)")
    a.add_argument("--harness", help="a named harness filling what the task leaves out: kernelbench, kernelbench-v0, "
                                     "torch-testing, triton-do-bench, recommended (default for a .py: kernelbench)")
    a.add_argument("--gpu", help="the target hardware, replacing the task's: h100-sxm, h200, a100-80gb, l4, tpu-v5e")
    a.add_argument("--json", metavar="FILE", help="also write the report as JSON")
    _output_options(a)
    a.add_argument("--timeout", type=float, default=300.0, help="seconds for the reference's runs (default 300)")
    a.add_argument("--python", metavar="PATH", help="as diff's --python")

    cf = sub.add_parser("config", help="print the effective configuration and where each value comes from",
                        description="The configuration ([tool.lowercheck] in the nearest pyproject.toml, or a "
                                    "lowercheck.toml; LOWERCHECK_* environment variables over it; the command "
                                    "line over both): every value and its origin.")
    cf.add_argument("--gpu", help="as diff's --gpu: shown as the command line's")
    cf.add_argument("--seed", type=int, help="as diff's --seed")
    cf.add_argument("--timeout", type=float, help="as diff's --timeout")
    cf.add_argument("--python", metavar="PATH", help="as diff's --python")

    c = sub.add_parser("codes", help="list the finding codes, or show one code's documentation")
    c.add_argument("code", nargs="?")
    return parser


def _output_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=("text", "json", "sarif", "github"), default="text",
                        help="what stdout shows: the terminal report (colours only on a terminal and without "
                             "NO_COLOR), the JSON report, a SARIF 2.1.0 log, or GitHub Actions annotations")
    parser.add_argument("--sarif", metavar="FILE", help="also write the findings as SARIF 2.1.0")


def main(argv: list[str] | None = None, keep_workers: bool = False) -> int:
    """The command line. `keep_workers`: leave the front ends' worker processes running for the next
    call in this process (a caller that runs many diffs, such as the corpus tests, then pays for
    importing torch, Triton and JAX once instead of once per diff)."""
    args = _parser().parse_args(argv)
    if args.command == "diff":  # several solutions of one problem (lowercheck/solutions.py), or one
        args.targets = args.target
        args.target = args.target[0]
    _absolute_inputs(args)
    if argv is None:  # the command is this process: --timeout counts from its start
        from lowercheck.runners import deadline

        deadline.from_process_start()
        deadline.stop_on_signals()
    if keep_workers:
        return _run(args)
    try:
        return _run(args)
    finally:
        _stop_workers()
        if argv is None:
            _skip_final_collection()


def _skip_final_collection() -> None:
    """The process ends next: move every object to the collector's permanent generation, so the
    interpreter's shutdown does not walk xDSL's, sympy's and isl's objects once more (0.2 s of a
    command's time, `make profile`). atexit handlers, threads' joins and the streams' flushes run
    as before; only cyclic garbage left at exit goes without its finalizers, as with os._exit."""
    import gc

    gc.freeze()


def _absolute_inputs(args) -> None:
    """The input paths made absolute, once, here (`frontends.absolute`): a relative path means
    this process's folder, not the folder a worker or a run child starts in."""
    from lowercheck.frontends import absolute

    for name in ("source", "target", "file", "task"):
        value = getattr(args, name, None)
        if isinstance(value, str) and value != "-":  # `opt -` reads standard input
            setattr(args, name, absolute(value))
    if getattr(args, "targets", None):
        args.targets = [absolute(t) for t in args.targets]
    if getattr(args, "spec", None):
        args.spec = os.path.abspath(args.spec)


def _run(args) -> int:
    # Triton 3.9 warns when this is unset; 1 keeps its current (and CUDA's default) behaviour.
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    from lowercheck.errors import LowercheckError

    try:
        return {"diff": _diff, "lower": _lower, "opt": _opt, "codes": _codes, "corpus": _corpus,
                "bench": _bench, "audit": _audit, "config": _config}[args.command](args)
    except LowercheckError as err:
        from lowercheck.errors import UserCodeStopped

        if isinstance(err, UserCodeStopped):  # a finding about one side: the report says so on stdout
            print(err.render())
            print(f"verdict: different (the {err.side or 'user'}'s code stopped the process that ran it)")
        else:
            print(err.render(), file=sys.stderr)
        if getattr(args, "json", None):
            _write_error_json(args.json, err)
        return err.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_ERROR
    except Exception as err:  # a bug in lowercheck: say so plainly, the traceback only on request
        if os.environ.get("LOWERCHECK_DEBUG"):
            traceback.print_exc()
        print(f"error: internal error in lowercheck: {type(err).__name__}: {err}\n"
              "  help: set LOWERCHECK_DEBUG=1 for the traceback and report it", file=sys.stderr)
        return EXIT_ERROR


def _stop_workers() -> None:
    if "lowercheck.frontends" in sys.modules:
        sys.modules["lowercheck.frontends"].stop_workers()
    if "lowercheck.runners.sandbox" in sys.modules:
        sys.modules["lowercheck.runners.sandbox"].stop_servers()


def _write_error_json(path: str, err) -> None:
    import json

    from lowercheck.report.json_report import error_document

    verdict = {1: "different", 3: "inconclusive"}.get(err.exit_code, "error")
    doc = error_document(err.message, err.location.to_json() if err.location else None, err.hint, verdict)
    if getattr(err, "code", None):  # an unsupported construct (LC901), a side that stopped its worker (LC902)
        from lowercheck.findings import Finding

        doc["findings"].append(Finding(err.code, err.message, side=getattr(err, "side", None),
                                       location=err.location, hint=err.hint).to_json())
    with open(path, "w") as out:
        json.dump(doc, out, indent=2)


def _spec(args):
    from lowercheck import spec

    loaded = spec.load(args.spec)
    overrides = dict(spec.parse_size_option(s) for s in getattr(args, "size", []) or [])
    return loaded.with_sizes(overrides) if overrides else loaded


def _diff(args) -> int:
    from lowercheck.errors import UserError

    if len(args.targets) > 1:
        from lowercheck import solutions

        return solutions.run(args)
    if args.no_run and args.no_static:
        raise UserError("--no-run and --no-static leave nothing to check", hint="drop one of them")
    if args.device == "cuda":
        raise UserError("--device cuda: native GPU runs are not available yet",
                        hint="use --device cpu (the emulator and the Triton interpreter)")
    if args.baseline is not None and args.no_run:
        raise UserError("--baseline judges by running both sides: it cannot go with --no-run")
    config = _configuration(args)
    cached = _report_key(args, config)
    data = report_cache.lookup(cached) if cached and not args.html else None
    report = None
    if data is None:
        report = _run_diff(args, config)
        data = json.loads(json_report.text(report))
        if cached:
            report_cache.store(cached, data, report_cache.dependencies(data) + ([args.spec] if args.spec else []))
    from lowercheck.frontends import split_entry
    from lowercheck.report import terminal
    from lowercheck.report.document import DiffDocument
    from lowercheck.report.policy import apply_codes

    document = DiffDocument.of(data)
    apply_codes(document, config.codes_for([split_entry(args.source)[0], split_entry(args.target)[0]]))
    _output(args, document, "diff", lambda doc: terminal.render(doc.to_json()))
    if args.json:
        json_report.write(document, args.json)
    if args.html:
        from lowercheck.report import html

        html.write(report, args.html)
    return document.exit_code


def _report_key(args, config) -> str | None:
    """The report cache's key of a static-only diff (`report_cache`); None for one that runs."""
    if not args.no_run or args.baseline is not None or not config["reuse_reports"]:
        return None
    from lowercheck.frontends import split_entry

    def side(text: str) -> str:
        path, entry = split_entry(text)
        return f"{os.path.realpath(path)}::{entry or ''}"

    options = {"spec": os.path.realpath(args.spec) if args.spec else None, "sizes": list(args.size or ()),
               "seed": config["seed"], "gpu": config["gpu"], "timeout": config["timeout"],
               "platforms": list(args.platform), "device": args.device}
    return report_cache.key([side(args.source), side(args.target)], options)


def _run_diff(args, config):
    """Lower, compare and run both sides: the diff itself (`lowercheck.diff`)."""
    _start_workers_early(args)
    from lowercheck.diff import DiffOptions, diff
    from lowercheck.errors import UserCodeStopped

    if args.platform:  # an unknown name is bad input before anything is lowered
        from lowercheck.compare.migration import platforms

        platforms(args.platform, config["gpu"])
    options = DiffOptions(args.source, args.target, _spec(args), seed=config["seed"], run=not args.no_run,
                          static=not args.no_static and args.baseline is None, device=args.device,
                          timeout_s=config["timeout"], baseline=args.baseline, gpu=config["gpu"],
                          platforms=tuple(args.platform), integrity=config["integrity"] == "on",
                          custom_kernel=config["custom_kernel"])
    from lowercheck import progress

    try:
        with progress.shown(args.format == "text" and sys.stdout.isatty()):
            return diff(options)
    except UserCodeStopped as err:
        from lowercheck.frontends import split_entry

        err.side = "source" if _same_file(err.path, split_entry(args.source)[0]) else "target"
        raise


def _start_workers_early(args) -> None:
    """Start the Python sides' front-end workers before importing the diff's own modules (sympy, xDSL,
    isl: about 0.6 s), so the workers' torch and Triton imports overlap them (issue 19's profile)."""
    from lowercheck import cuda_on_cpu
    from lowercheck.errors import UserError
    from lowercheck.frontends import split_entry, start_workers

    try:
        gpu = _configuration(args)["gpu"]
    except UserError:
        return  # bad configuration: reported by the diff itself
    cuda_on_cpu.set_target(gpu)  # what the workers' device queries answer, as diff() sets it
    start_workers([split_entry(args.source)[0], split_entry(args.target)[0]])


def _configuration(args):
    """The configuration with this command line's --seed, --timeout and --gpu over it."""
    from lowercheck import config

    if getattr(args, "timeout", None) is not None and args.timeout <= 0:
        from lowercheck.errors import UserError

        raise UserError("--timeout must be positive")
    loaded = config.apply_command_line(config.load(), seed=getattr(args, "seed", None),
                                       timeout=getattr(args, "timeout", None), gpu=getattr(args, "gpu", None),
                                       python=getattr(args, "python", None),
                                       integrity=getattr(args, "integrity", None),
                                       custom_kernel=getattr(args, "custom_kernel", None),
                                       reuse_reports=False if getattr(args, "no_reuse", False) else None)
    from lowercheck.runners import user_code

    user_code.use_interpreter(loaded["python"])  # before any worker starts: they inherit the environment
    return loaded


def _output(args, report, command: str, render_text) -> None:
    """stdout in the chosen format; --sarif beside it."""
    if args.format == "text":
        render_text(report)
    elif args.format == "json":
        from lowercheck.report import json_report

        sys.stdout.write(json_report.text(report))
    elif args.format == "sarif":
        import json

        from lowercheck.report import sarif

        sys.stdout.write(json.dumps(sarif.document(report.findings, report.verdict, command, report.notes),
                                    indent=2, default=str) + "\n")
    else:
        from lowercheck.report import github

        sys.stdout.write("\n".join(github.lines(report.findings, report.verdict)) + "\n")
    if args.sarif:
        from lowercheck.report import sarif

        sarif.write(report.findings, report.verdict, command, args.sarif, report.notes)


def _config(args) -> int:
    from lowercheck import config

    print(config.render(_configuration(args)))
    return 0


def _same_file(a: str | None, b: str) -> bool:
    return a is not None and os.path.realpath(a) == os.path.realpath(b)


def _bench(args) -> int:
    """The static comparison always; timings only where a CUDA device runs both sides natively
    (`lowercheck/perf/command.py`). Emulator and interpreter times are never kernel performance."""
    from rich.console import Console

    from lowercheck.perf import command

    return command.run(args.source, args.target, _spec(args), args.gpu, args.json, args.baseline_json,
                       command.check_budget(args.budget), Console(highlight=False, soft_wrap=True))


def _audit(args) -> int:
    from lowercheck.audit import presets, report, task
    from lowercheck.audit.command import audit
    from lowercheck.errors import UserError

    if args.harness is not None and args.harness not in presets.PRESETS:
        raise UserError(f"unknown harness {args.harness!r}", hint=f"one of {', '.join(presets.PRESETS)}")
    if args.gpu is not None:
        from lowercheck.perf.targets import get_target

        get_target(args.gpu)
    if args.timeout <= 0:
        raise UserError("--timeout must be positive")
    from lowercheck import config as configuration
    from lowercheck.runners import user_code

    user_code.use_interpreter(args.python or configuration.load()["python"])
    result = audit(task.load(args.task, args.harness, args.gpu), args.timeout)
    from lowercheck import config
    from lowercheck.report.policy import apply_codes

    loaded = result.task
    apply_codes(result, config.load().codes_for([str(loaded.path), str(loaded.reference)]
                                                + ([str(loaded.solution)] if loaded.solution else [])))
    _output(args, result, "audit", report.render)
    if args.json:
        report.write_json(result, args.json)
    return result.exit_code


def _corpus(args) -> int:
    from lowercheck import batch

    if args.jobs < 1:
        from lowercheck.errors import UserError

        raise UserError("-j must be at least 1")
    return batch.main(args.dir, args.jobs, args.results, args.baseline is not None, args.case_timeout, args.markdown,
                      args.html, args.ray)


def _lower(args) -> int:
    """Print the kernel IR or the access IR; exit 3 when the access IR holds an access lowercheck
    could not model (what `diff` reports as LC901), with either --emit."""
    from lowercheck import cuda_on_cpu
    from lowercheck.frontends import split_entry, start_workers

    cuda_on_cpu.set_target(args.gpu)
    start_workers([split_entry(args.file)[0]])  # its torch/Triton imports overlap ours (issue 19's profile)
    from lowercheck import ir
    from lowercheck.compare.accesses import left_to_runs
    from lowercheck.dialects.access import UnmodelledOp
    from lowercheck.errors import UserCodeStopped, UserError
    from lowercheck.lowering import NOT_EXACT, extract_accesses, lower_file, relations_text

    try:
        module = lower_file(args.file, _spec(args), emit="ir")
    except UserCodeStopped as err:  # no verdict to give: the file cannot be lowered
        raise UserError(err.message, err.location, err.hint) from None
    accesses = extract_accesses(module)
    shown = accesses if args.emit == "access" else module
    sys.stdout.write(ir.print_ir(shown, debuginfo=not args.no_loc))
    if args.emit == "access":
        spec = _spec(args)
        relations = relations_text(accesses, spec.sweep()[0] if spec.sizes else None)
        sys.stdout.write(relations)
        if args.observe and f": {NOT_EXACT} (" in relations:
            from lowercheck.observe import observed_text

            sys.stdout.write(observed_text(args.file, spec, args.gpu))
    unmodelled = [op for op in accesses.walk() if isinstance(op, UnmodelledOp)]
    partly = [op for op in accesses.walk() if left_to_runs(op)]
    if partly and not unmodelled:
        print(f"note: partly proved: {len(partly)} access(es) take their index from loaded data "
              "(`access.indirect`) or write only under a condition on it (`data_condition`): the runs "
              "bounds-check them; every other access is fully checked", file=sys.stderr)
    if not unmodelled:
        return 0
    print(f"inconclusive[LC901]: {len(unmodelled)} access(es) not modelled (`access.unmodelled` in "
          "--emit access): the static checks cannot prove anything about them", file=sys.stderr)
    return 3


def _opt(args) -> int:
    from xdsl.utils.exceptions import ParseError, VerifyException

    from lowercheck import ir
    from lowercheck.errors import UserError
    from lowercheck.passes import registry

    text = sys.stdin.read() if args.file == "-" else _read(args.file)
    try:
        module = ir.parse(text, args.file)
    except (ParseError, VerifyException) as err:
        raise UserError(f"{args.file}: invalid IR: {err}") from None
    passes = registry()
    for name in filter(None, args.passes.split(",")):
        if name not in passes:
            raise UserError(f"unknown pass `{name}`", hint=f"passes: {', '.join(passes)}")
        passes[name]().apply(ir.context(), module)
    sys.stdout.write(ir.print_ir(module, debuginfo=True))
    return 0


def _read(path: str) -> str:
    from lowercheck.errors import UserError

    try:
        with open(path) as f:
            return f.read()
    except OSError as err:
        raise UserError(f"cannot read {path}: {err.strerror}") from None


def _codes(args) -> int:
    from lowercheck.findings import CODES, render_doc

    if args.code:
        code = CODES.get(args.code.upper())
        if code is None:
            from lowercheck.errors import UserError

            raise UserError(f"unknown code {args.code}", hint="`lowercheck codes` lists them")
        print(render_doc(code))
        return 0
    for code in CODES.values():
        print(f"{code.code}  {code.severity:<12}  {code.title}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
