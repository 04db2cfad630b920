"""Renders report.ipynb for one run folder into a self-contained report.html beside the run's data.

    python -m labanalysis.render results/<run> [results/<another run> ...]

The notebook runs headless (nbclient) with the run folder injected as its RUN parameter, and
is exported with its inputs hidden and its plots embedded, so the HTML opens anywhere alone.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbconvert import HTMLExporter

from . import clients, iobench
from .run import RunFolderError, load_run

ANALYSIS_DIR = Path(__file__).resolve().parent.parent
NOTEBOOK = ANALYSIS_DIR / "report.ipynb"
EXPERIMENTS = ANALYSIS_DIR / "experiments.ipynb"
CELL_TIMEOUT_S = 600


class SectionFailed(Exception):
    """A cell of the notebook raised: report.html was written with the rest, and its traceback where the section would be."""


def render(run_folder: str | Path, also: list[str | Path] = (), notebook: Path = NOTEBOOK) -> Path:
    """Executes the notebook on `run_folder` (pooling `also` as repeats) and writes `report.html` into it; returns its path.

    A cell that raises does not stop the others: the report is written whole but for that
    section, and SectionFailed then says which, so `make report` fails visibly.
    """
    run = load_run(Path(run_folder).resolve())
    others = [load_run(Path(folder).resolve()).folder for folder in also]
    return _execute(notebook, {"RUN": str(run.folder), "ALSO": [str(f) for f in others]}, run.folder)


def render_experiment(folder: str | Path) -> Path:
    """Renders experiments.ipynb into a `make clients` or `make io-bench` folder, with the newest folder of the other kind beside it."""
    folder = Path(folder).resolve()
    if folder.name.endswith(clients.CLIENTS_SUFFIX):
        clients.load(folder)
        parameters = {"CLIENTS": str(folder), "IO": _str(iobench.latest(folder))}
    elif folder.name.endswith(iobench.IO_SUFFIX):
        iobench.load(folder)
        parameters = {"CLIENTS": _str(clients.latest(folder)), "IO": str(folder)}
    else:
        raise RunFolderError(f"{folder} is neither a `make clients` (*-clients) nor a `make io-bench` (*-io) folder")
    return _execute(EXPERIMENTS, parameters, folder)


def _str(path: Path | None) -> str | None:
    return str(path) if path else None


def _execute(notebook: Path, parameters: dict, out_folder: Path) -> Path:
    nb = nbformat.read(notebook, as_version=4)
    _inject_parameters(nb, parameters)
    client = NotebookClient(nb, timeout=CELL_TIMEOUT_S, kernel_name="python3", allow_errors=True, resources={"metadata": {"path": str(ANALYSIS_DIR)}})
    client.execute()
    exporter = HTMLExporter(exclude_input=True, exclude_input_prompt=True, exclude_output_prompt=True)
    html, _ = exporter.from_notebook_node(nb)
    out = out_folder / "report.html"
    out.write_text(html)
    errors = [f"{o.get('ename')}: {o.get('evalue')}" for cell in nb.cells for o in cell.get("outputs", []) if o.get("output_type") == "error"]
    if errors:
        raise SectionFailed(f"{out} written, but {len(errors)} section(s) failed, first: {errors[0]}")
    return out


def _inject_parameters(nb: nbformat.NotebookNode, parameters: dict) -> None:
    """Puts one assignment a parameter (`RUN = "<folder>"`, ...) right after the cell tagged `parameters`, as papermill would."""
    # Not papermill: its executor stops at the first failing cell (it declined an allow_errors option,
    # nteract/papermill#269), so only its parameterize_notebook would serve, and for these five lines it would add
    # 11 packages to the lock (papermill 2.7.0, requests, urllib3, click, tqdm, tenacity, PyYAML, ...).
    index = next((i for i, cell in enumerate(nb.cells) if "parameters" in cell.get("metadata", {}).get("tags", [])), None)
    if index is None:
        raise ValueError(f"{NOTEBOOK.name} has no cell tagged 'parameters'")
    source = "\n".join(f"{name} = {value!r}" for name, value in parameters.items())
    nb.cells.insert(index + 1, nbformat.v4.new_code_cell(source, metadata={"tags": ["injected-parameters"]}))


def main(argv: list[str]) -> int:
    if len(argv) < 1:
        print("usage: make report RUN=results/<run folder> [ALSO='results/<another> ...']", file=sys.stderr)
        return 2
    try:
        if argv[0] == "--experiment":
            print(render_experiment(argv[1]))
        else:
            print(render(argv[0], also=argv[1:]))
    except (RunFolderError, clients.ClientsFolderError, iobench.IoFolderError) as e:
        print(f"make report: {e}", file=sys.stderr)
        return 2
    except SectionFailed as e:
        print(f"make report: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
