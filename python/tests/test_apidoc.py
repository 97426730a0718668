"""python/API.md is the reference generated from the docstrings: it must be
what `python -m parprim._apidoc` prints for the package under test."""

from pathlib import Path

import pytest

from parprim import _apidoc

API_MD = Path(__file__).resolve().parents[1] / "API.md"


def test_api_reference_is_current():
    if not API_MD.is_file():
        pytest.skip(f"{API_MD} is not here (tests run outside the source tree)")
    assert API_MD.read_text() == _apidoc.generate(), (
        "python/API.md is out of date: regenerate it with `python -m parprim._apidoc > python/API.md`")
