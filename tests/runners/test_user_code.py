"""How a user's file is imported (`lowercheck.runners.user_code`): the front ends and the runners
share one importer, so a file behaves the same in capture and in every run."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path


def test_a_package_unpacked_after_its_folder_was_looked_up_is_found(tmp_path: Path) -> None:
    """CI unpacks the real-world packages while the test processes run: a process that had looked
    in the package's folder before it existed (a launcher on `sys.path`, a failed import) cached
    the folder as importing nothing, and a file of the package then failed with "No module named
    'liger_kernel'" in every later call. The importer looks at the package's root afresh."""
    root = tmp_path / "unpacked"
    script = textwrap.dedent(f"""\
        import os, sys
        root = {str(root)!r}
        sys.path.insert(0, root)
        try:
            import late_pkg
        except ImportError:
            pass
        os.makedirs(os.path.join(root, "late_pkg"))
        open(os.path.join(root, "late_pkg", "__init__.py"), "w").close()
        with open(os.path.join(root, "late_pkg", "helpers.py"), "w") as f:
            f.write("WIDTH = 7\\n")
        with open(os.path.join(root, "late_pkg", "kernel.py"), "w") as f:
            f.write("from late_pkg.helpers import WIDTH\\n")
        from lowercheck.runners.user_code import exec_user_module
        print(exec_user_module(os.path.join(root, "late_pkg", "kernel.py"), "t_").WIDTH)
        """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "7"


def test_sibling_modules_are_each_files_own_and_shadow_nothing_after_the_import(tmp_path: Path) -> None:
    """Two solutions in two folders, each with its own `helpers.py`, imported in one process (a
    front-end worker lowers many files): each gets its own sibling; after the imports no user
    folder comes first on sys.path (a folder's `copy.py` would shadow the standard library for
    every process the worker spawns)."""
    script = textwrap.dedent(f"""
        import sys
        from lowercheck.runners.user_code import exec_user_module
        for name in ("a", "b"):
            folder = {str(tmp_path)!r} + "/" + name
            got = exec_user_module(folder + "/solution.py", "t_")
            print(name, got.WHO)
        print("first", sys.path[0].startswith({str(tmp_path)!r}))
        import copy
        print("copy", copy.__file__.startswith({str(tmp_path)!r}))
    """)
    for name in ("a", "b"):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "helpers.py").write_text(f"WHO = {name!r}\n")
        (folder / "copy.py").write_text("raise ImportError('the user folder shadows the standard library')\n")
        (folder / "solution.py").write_text("from helpers import WHO\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd="/")
    assert done.stdout.split("\n")[:4] == ["a a", "b b", "first False", "copy False"], done.stderr
