"""The probe scripts behind published figures (loadtests/probes/) say a bad argument in one line, as a make target does."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROBES = ROOT / "loadtests" / "probes"
# The probes that read run folders; idle-sockets.py holds sockets open against a server instead.
READERS = sorted(p.name for p in PROBES.glob("*.py") if p.name != "idle-sockets.py")
# The probes that set two runs side by side, each pair of folders joined by a comma.
PAIRED = ["capacity-estimators.py", "capacity-at-mission-rate.py"]


def probe(name: str, *args: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONPATH": str(ROOT / "analysis")}
    return subprocess.run([sys.executable, str(PROBES / name), *args], capture_output=True, text=True, env=environment, timeout=120)


def test_the_probes_that_read_run_folders_are_there():
    assert "capacity-estimators.py" in READERS and len(READERS) >= 8


@pytest.mark.parametrize("name", READERS)
def test_a_folder_that_is_no_run_is_refused_in_one_line(name, tmp_path):
    argument = f"{tmp_path},{tmp_path}" if name in PAIRED else str(tmp_path)

    finished = probe(name, argument)

    assert finished.returncode == 2
    assert finished.stderr.count("\n") == 1
    assert finished.stderr.startswith(f"{name}: {tmp_path} has no manifest.json")


@pytest.mark.parametrize("name", PAIRED)
def test_a_pair_without_its_comma_is_refused_in_one_line(name, tmp_path):
    finished = probe(name, str(tmp_path))

    assert finished.returncode == 2
    assert finished.stderr.count("\n") == 1
    assert f"is not two run folders joined by a comma; usage: {name}" in finished.stderr
