"""Front ends that execute user code (the Triton wrapper is imported and run to capture its
launches) run in a worker process: the user's import-time side effects, hangs and crashes stay
there, and the worker's heavy imports (torch, Triton) overlap with the main process's own work.

`IsolatedFrontend(language)` has the front-end API (`entries`, `lower`); `lower` returns the module
parsed back from the MLIR text the worker printed (locations included). Results are cached by
content (`lowercheck.cache`), so an unchanged file is not imported again: the worker starts only
when something is missing.
"""

from __future__ import annotations

import concurrent.futures
import importlib
import json
import multiprocessing
import resource
from concurrent.futures.process import BrokenProcessPool

from xdsl.dialects.builtin import ModuleOp

from lowercheck import cache
from lowercheck.errors import SourceLocation, UserError
from lowercheck.frontends.base import Binding, EntryCandidate, EntryParam

MEMORY_MB = 8192


def _init(language: str, memory_mb: int) -> None:
    limit = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    module = importlib.import_module(f"lowercheck.frontends.{language}")
    getattr(module, "warm_up", lambda: None)()  # start the heavy imports (torch, Triton) now


def _entries(language: str, path: str) -> list[EntryCandidate]:
    return importlib.import_module(f"lowercheck.frontends.{language}").entries(path)


def _lower(language: str, path: str, entry: str, binding: Binding) -> str:
    from lowercheck import ir

    module = importlib.import_module(f"lowercheck.frontends.{language}").lower(path, entry, binding)
    return ir.print_ir(module, debuginfo=True)


def _migrate(language: str, path: str, entry: str, binding: Binding, sweep: list[dict[str, int]],
             platforms: list[dict]) -> str:
    facts = importlib.import_module(f"lowercheck.frontends.{language}").migrate(path, entry, binding, sweep, platforms)
    return json.dumps(facts)


def _entries_to_json(found: list[EntryCandidate]) -> str:
    return json.dumps([{"name": c.name, "location": [c.location.file, c.location.line, c.location.column],
                        "params": [[p.name, p.kind, p.dtype] for p in c.params], "launches": list(c.launches)}
                       for c in found])


def _entries_from_json(text: str) -> list[EntryCandidate]:
    return [EntryCandidate(c["name"], SourceLocation(*c["location"]),
                           tuple(EntryParam(*p) for p in c["params"]), tuple(c["launches"]))
            for c in json.loads(text)]


class IsolatedFrontend:
    """A front end whose calls run in one worker process, started on the first cache miss."""

    def __init__(self, language: str, timeout_s: float = 300.0, memory_mb: int = MEMORY_MB):
        self.language = language
        self.timeout_s = timeout_s
        self.memory_mb = memory_mb
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None

    def warm_up(self, path: str) -> None:
        """Start the worker now unless `path` was lowered before (its imports then overlap ours)."""
        if cache.get("entries", cache.key(self.language, cache.source_digest(path))) is None:
            self._start()

    def _start(self) -> concurrent.futures.ProcessPoolExecutor:
        if self._pool is None:
            context = multiprocessing.get_context("spawn")
            self._pool = concurrent.futures.ProcessPoolExecutor(
                max_workers=1, mp_context=context, initializer=_init, initargs=(self.language, self.memory_mb))
            self._pool.submit(int)  # makes the worker start (and import) right away
        return self._pool

    def _call(self, func, *args, what: str):
        future = self._start().submit(func, self.language, *args)
        try:
            return future.result(timeout=self.timeout_s)
        except concurrent.futures.TimeoutError:
            self.close(kill=True)
            raise UserError(f"{what} did not finish in {self.timeout_s:g} s",
                            hint="the file may hang at import or while capturing the launch") from None
        except BrokenProcessPool:
            self._pool = None
            raise UserError(f"{what} crashed the front end's worker process",
                            hint="run the file alone with python to see the crash") from None

    def entries(self, path: str) -> list[EntryCandidate]:
        key = cache.key(self.language, cache.source_digest(path))
        if (text := cache.get("entries", key)) is not None:
            return _entries_from_json(text)
        found = self._call(_entries, path, what=f"reading {path}")
        cache.put("entries", key, _entries_to_json(found))
        return found

    def lower(self, path: str, entry: str, binding: Binding) -> ModuleOp:
        from lowercheck import ir

        key = cache.key(self.language, cache.source_digest(path), entry, repr(binding))
        text = cache.get("lowered", key)
        if text is None:
            text = self._call(_lower, path, entry, binding, what=f"lowering {path}:{entry}")
            cache.put("lowered", key, text)
        return ir.parse(text, path)

    def migrate(self, path: str, entry: str, binding: Binding, sweep: list[dict[str, int]],
                platforms: list[dict]) -> dict:
        """The migration facts of `entry` (a front end with a `migrate`: Pallas), cached like `lower`."""
        key = cache.key(self.language, cache.source_digest(path), entry, repr(binding), json.dumps(sweep),
                        json.dumps(platforms, sort_keys=True))
        text = cache.get("migration", key)
        if text is None:
            text = self._call(_migrate, path, entry, binding, sweep, platforms,
                              what=f"checking {path}:{entry} for {', '.join(p['name'] for p in platforms)}")
            cache.put("migration", key, text)
        return json.loads(text)

    def close(self, kill: bool = False) -> None:
        if self._pool is None:
            return
        if kill:
            for process in list(getattr(self._pool, "_processes", {}).values()):
                process.kill()
        self._pool.shutdown(wait=True, cancel_futures=True)  # processes killed first: a quick wait
        self._pool = None
