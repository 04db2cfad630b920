import shutil
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
FIXTURE = FIXTURES / "smoke-run"
# A synthetic run in the current run-folder format, two servers x three passes, every figure known (make_repeats_run.py says which).
REPEATS = FIXTURES / "repeats-run"


@pytest.fixture
def run_folder(tmp_path: Path) -> Path:
    """A copy of the fixture run (a real smoke run, trimmed), so a test may write into it."""
    copy = tmp_path / FIXTURE.name
    shutil.copytree(FIXTURE, copy)
    return copy


@pytest.fixture
def fixture_copy(tmp_path: Path):
    """Copies fixtures/<name> into tmp_path as `folder` (a results folder name such as 20261122-075000-clients); returns the copy."""

    def copy(name: str, folder: str) -> Path:
        target = tmp_path / folder
        shutil.copytree(FIXTURES / name, target)
        return target

    return copy


@pytest.fixture
def repeats_folder(tmp_path: Path) -> Path:
    """A copy of the repeats-run fixture (issue 16's files, two servers x three passes), so a test may write into it."""
    copy = tmp_path / "20261123-100000-fixture"
    shutil.copytree(REPEATS, copy)
    return copy
