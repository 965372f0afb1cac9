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
