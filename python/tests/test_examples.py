"""examples/python/quickstart.py (shown verbatim in README.md) runs and checks its own results."""

import os
import subprocess
import sys
from pathlib import Path

import warpdex

QUICKSTART = Path(__file__).resolve().parents[2] / "examples" / "python" / "quickstart.py"


def test_quickstart_runs():
    package_root = str(Path(warpdex.__file__).resolve().parent.parent)
    environment = dict(os.environ, PYTHONPATH=package_root)
    result = subprocess.run([sys.executable, str(QUICKSTART)], capture_output=True, text=True, env=environment,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    assert "refused: slab_map::insert: element 0 is a reserved key" in result.stdout
    assert result.stdout.rstrip().splitlines()[-1].startswith("ok: 99000 keys in the map")
