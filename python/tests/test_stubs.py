"""The committed type stubs of the extension module (python/warpdex/_warpdex.pyi, shipped in wheels) equal
the stubs nanobind's stubgen writes from the module just built."""

from pathlib import Path

import pytest

import warpdex

COMMITTED = Path(__file__).resolve().parents[1] / "warpdex" / "_warpdex.pyi"


def test_the_committed_stubs_are_current():
    built = Path(warpdex._warpdex.__file__).with_name("_warpdex.pyi")
    if not built.is_file():
        pytest.skip(f"no stubs beside the built module ({built}): build the _warpdex_stub target")
    if not warpdex.HAS_LSM:
        pytest.skip("this build has no LSM / dpp: its stubs lack those names")
    assert built.read_text() == COMMITTED.read_text(), (
        f"{COMMITTED} is stale: copy {built} over it (the module's bindings changed)"
    )


def test_the_stubs_name_every_compiled_class():
    text = COMMITTED.read_text()
    for name in ("SlabMapCore", "SortedIndexCore32", "SortedIndexCore64", "LSMMapCore32", "LSMMapCore64"):
        assert f"class {name}" in text
