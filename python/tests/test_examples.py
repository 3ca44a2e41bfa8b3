"""examples/python/ (quickstart.py is shown verbatim in README.md) run and check their own results."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

import warpdex

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "python"


def run_example(name):
    package_root = str(Path(warpdex.__file__).resolve().parent.parent)
    environment = dict(os.environ, PYTHONPATH=package_root)
    result = subprocess.run([sys.executable, str(EXAMPLES / name)], capture_output=True, text=True, env=environment,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    return result


def test_quickstart_runs():
    result = run_example("quickstart.py")
    assert "refused: slab_map::insert: element 0 is a reserved key" in result.stdout
    assert result.stdout.rstrip().splitlines()[-1].startswith("ok: 99000 keys in the map")


@pytest.mark.skipif(not warpdex.HAS_LSM, reason="this build has no dpp family (no CCCL headers)")
def test_meshes_and_images_example_runs():
    assert run_example("meshes_and_images.py").stdout.startswith("ok: 3 cliques, 1200 faces")
