import shutil
from pathlib import Path

import pytest

FIXTURE = Path(__file__).parent / "fixtures" / "smoke-run"


@pytest.fixture
def run_folder(tmp_path: Path) -> Path:
    """A copy of the fixture run (a real smoke run, trimmed), so a test may write into it."""
    copy = tmp_path / FIXTURE.name
    shutil.copytree(FIXTURE, copy)
    return copy
