import json
import shutil
from pathlib import Path

import pytest

from labanalysis.folder.bench_manifest import BenchManifest
from labanalysis.folder.declared import read_as

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
    """A copy of the repeats-run fixture (two servers x three passes), so a test may write into it."""
    copy = tmp_path / "20261123-100000-fixture"
    shutil.copytree(REPEATS, copy)
    return copy


@pytest.fixture
def bench_manifest():
    """Makes a bench manifest as the harness writes it: the fixture run's, but for the properties given, each as the manifest records
    it (`profile` given as the settings that differ from the fixture's profile)."""

    def made(profile: dict | None = None, **recorded) -> BenchManifest:
        manifest = json.loads((FIXTURE / "manifest.json").read_text())
        manifest = manifest | recorded | {"profile": manifest["profile"] | (profile or {})}
        return read_as(BenchManifest, manifest, "a test's manifest")

    return made
