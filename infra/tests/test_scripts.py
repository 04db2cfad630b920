"""Every shell script the lab ships parses, and passes shellcheck: the host scripts run on machines a user rents, where a
quoting slip costs an hour of a paid host."""

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = sorted([*REPO.glob("infra/**/*.sh"), *REPO.glob("setup/*.sh"), REPO / ".ci/run"])


def test_every_script_is_found():
    assert {"infra/bench-vps.sh", "infra/rehearsal.sh", "infra/tune-host.sh", "infra/hetzner/cloud-init.sh"} <= {
        str(s.relative_to(REPO)) for s in SCRIPTS
    }


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: str(path.relative_to(REPO)))
def test_the_script_parses_and_passes_shellcheck(script):
    assert subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True).stderr == ""
    if shutil.which("shellcheck") is None:
        pytest.skip("shellcheck is not installed (setup/test-hosts.sh installs it as root); bash -n passed")
    # Warnings and errors: its info and style notes are advice, and one (SC2317) takes every trap handler for dead code.
    lint = subprocess.run(["shellcheck", "--severity=warning", "--external-sources", str(script)], capture_output=True, text=True, cwd=script.parent)
    assert lint.returncode == 0, lint.stdout
