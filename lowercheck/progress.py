"""Progress of long work on a terminal: a rich bar with the current item and an ETA, nothing elsewhere.

The CLI turns it on (`shown(True)`) only when stdout is a terminal and the report is text; the
stages report what they finish through `task`/`advancer` and pay nothing when it is off (the API, the
corpus's child processes, a pipe).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

_BAR = None  # the rich Progress while shown


@contextlib.contextmanager
def shown(enabled: bool, console=None) -> Iterator[None]:
    """Show the bars of whatever runs inside (transient: gone before the report prints)."""
    global _BAR
    if not enabled:
        yield
        return
    from rich.progress import Progress, TextColumn

    with Progress(*Progress.get_default_columns(), TextColumn("{task.fields[item]}"), transient=True,
                  console=console) as bar:
        _BAR = bar
        try:
            yield
        finally:
            _BAR = None


def advancer(description: str, items: list[str]) -> Callable[[int], None] | None:
    """A callback for work over `items` (one label each): called with the index of each item that
    finished; None when no bar is shown."""
    bar = _BAR
    if bar is None or not items:
        return None
    task = bar.add_task(description, total=len(items), item="")

    def advance(index: int) -> None:
        bar.update(task, advance=1, item=items[index] if 0 <= index < len(items) else "")

    return advance
