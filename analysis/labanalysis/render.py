"""Renders report.ipynb for one run folder into a self-contained report.html beside the run's data.

    python -m labanalysis.render results/<run>

The notebook runs headless (nbclient) with the run folder injected as its RUN parameter, and
is exported with its inputs hidden and its plots embedded, so the HTML opens anywhere alone.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbconvert import HTMLExporter

from .run import RunFolderError, load_run

ANALYSIS_DIR = Path(__file__).resolve().parent.parent
NOTEBOOK = ANALYSIS_DIR / "report.ipynb"
CELL_TIMEOUT_S = 600


def render(run_folder: str | Path, notebook: Path = NOTEBOOK) -> Path:
    """Executes the notebook on `run_folder` and writes `report.html` into it; returns its path."""
    run = load_run(Path(run_folder).resolve())
    nb = nbformat.read(notebook, as_version=4)
    _inject_run(nb, run.folder)
    NotebookClient(nb, timeout=CELL_TIMEOUT_S, kernel_name="python3", resources={"metadata": {"path": str(ANALYSIS_DIR)}}).execute()
    exporter = HTMLExporter(exclude_input=True, exclude_input_prompt=True, exclude_output_prompt=True)
    html, _ = exporter.from_notebook_node(nb)
    out = run.folder / "report.html"
    out.write_text(html)
    return out


def _inject_run(nb: nbformat.NotebookNode, folder: Path) -> None:
    """Puts `RUN = "<folder>"` right after the cell tagged `parameters`, as papermill would."""
    index = next((i for i, cell in enumerate(nb.cells) if "parameters" in cell.get("metadata", {}).get("tags", [])), None)
    if index is None:
        raise ValueError(f"{NOTEBOOK.name} has no cell tagged 'parameters'")
    nb.cells.insert(index + 1, nbformat.v4.new_code_cell(f"RUN = {str(folder)!r}", metadata={"tags": ["injected-parameters"]}))


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: make report RUN=results/<run folder>", file=sys.stderr)
        return 2
    try:
        print(render(argv[0]))
    except RunFolderError as e:
        print(f"make report: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
