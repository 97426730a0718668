"""python/API.md is the reference generated from the docstrings: it must be
what `python python/tools/apidoc.py` prints for the package under test."""

import importlib.util
from pathlib import Path

import pytest

PYTHON_DIR = Path(__file__).resolve().parents[1]
API_MD = PYTHON_DIR / "API.md"
APIDOC = PYTHON_DIR / "tools" / "apidoc.py"


def test_api_reference_is_current():
    if not (API_MD.is_file() and APIDOC.is_file()):
        pytest.skip(f"{API_MD} or {APIDOC} is not here (tests run outside the source tree)")
    spec = importlib.util.spec_from_file_location("apidoc", APIDOC)
    apidoc = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(apidoc)
    assert API_MD.read_text() == apidoc.generate(), (
        "python/API.md is out of date: regenerate it with `python python/tools/apidoc.py > python/API.md`")
