"""The README's Python example runs as written (from the checkout's root)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).parents[1]


def test_readme_python_example(monkeypatch):
    monkeypatch.chdir(ROOT)
    text = (ROOT / "README.md").read_text()
    example = text.split("```python\n", 1)[1].split("```", 1)[0]
    namespace: dict = {}
    exec(compile(example, "README.md", "exec"), namespace)  # noqa: S102 - the project's own example
    assert namespace["report"].verdict == "equivalent"
    assert callable(namespace["test_port"])
