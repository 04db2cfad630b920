"""The analysis is in layers, held by import-linter (analysis/.importlinter): each imports only the layers under it, the experiments
beside one another none of each other, and no two modules import each other by any path."""

import subprocess
import sys
from pathlib import Path

ANALYSIS = Path(__file__).resolve().parents[1]


def test_every_import_keeps_to_the_layers_and_makes_no_circle():
    lint = Path(sys.executable).parent / "lint-imports"
    done = subprocess.run([str(lint), "--config", ".importlinter", "--no-cache"], cwd=ANALYSIS, capture_output=True, text=True)

    assert done.returncode == 0, done.stdout + done.stderr
