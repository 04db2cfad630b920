"""Renders the lab's notebooks into self-contained report.html files: a bench run's, an experiment folder's, and two runs compared.

    python -m labanalysis.report.render results/<run> [results/<another run> ...]
    python -m labanalysis.report.render --experiment results/<clients, io, floor, sweep or autobahn folder>
    python -m labanalysis.report.render --compare results/<run A> results/<run B>

The notebook runs headless (nbclient) with the folders injected as its parameters, and is exported
with its inputs hidden, its plots embedded and nothing loaded from the network (the offline template,
held to it by labanalysis.report.offline), so the HTML opens anywhere alone.
The folders a report shows beside its own (the newest pinning audit, clients, IO and floor runs) are
chosen at its first render and recorded in the folder (report-inputs.json), so rendering it
again gives the same report.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbconvert import HTMLExporter

from ..audit import audit
from ..cli import OneLineParser
from ..clients import clients
from ..floor import floor
from ..folder import autobahnfolder, floor_folders, repeats, series, sweepfolder
from ..folder.bench_manifest import ZGC, collector_of
from ..folder.folders import newest_beside
from ..folder.run import RunFolderError, load_run
from ..io import iobench
from ..sweep import sweep

ANALYSIS_DIR = Path(__file__).resolve().parents[2]
NOTEBOOK = ANALYSIS_DIR / "report.ipynb"
EXPERIMENTS = ANALYSIS_DIR / "experiments.ipynb"
COMPARE = ANALYSIS_DIR / "compare.ipynb"
# nbconvert's lab template without its CDN scripts (templates/offline).
TEMPLATES = ANALYSIS_DIR / "templates"
OFFLINE_TEMPLATE = "offline"
CELL_TIMEOUT_S = 600


class PoolingRefused(RunFolderError):
    """Run folders given with ALSO= that did not run the same thing: their passes are not repeats of one another."""


class SectionFailed(Exception):
    """A cell of the notebook raised: report.html was written with the rest, and its traceback where the section would be."""


# The folders a report shows beside its own, by the notebook parameter they are passed as: the
# kind's folder suffix and the file that marks a whole folder of that kind.
SIBLINGS = {
    "AUDIT": (audit.AUDIT_SUFFIX, "audit.json"),
    "CLIENTS": (clients.CLIENTS_SUFFIX, "manifest.json"),
    "IO": (iobench.IO_SUFFIX, "io-bench.json"),
    # make floor's folder: each model's cost per parked task, which the bench report's per-socket decomposition subtracts.
    "FLOOR": (floor_folders.FLOOR_SUFFIX, "floor.csv"),
    # make sweep's folder: requests in flight on each server, a closed loop.
    "SWEEP": (sweep.SWEEP_SUFFIX, "sweep.csv"),
    # make autobahn-perf's folder: Autobahn's section 9 timed by wstest on each server, its passes interleaved.
    "AUTOBAHN": (autobahnfolder.AUTOBAHN_SUFFIX, "manifest.json"),
}
# The kinds in the declared run-folder format: a folder of another format, or from before it, is not shown, as its reader refuses it.
IN_RUN_FOLDER_FORMAT = {"FLOOR", "SWEEP", "AUTOBAHN"}
# The siblings a bench run's report shows; every kind shows beside an experiment's.
BENCH_SIBLINGS = ["AUDIT", "CLIENTS", "IO", "FLOOR"]
# Which sibling folders a folder's report used, written at its first render; delete it to take the newest again.
INPUTS = "report-inputs.json"


@dataclass(frozen=True)
class Experiment:
    """A kind of folder that renders experiments.ipynb: the notebook parameter it is passed as, and its loader (which checks it)."""

    parameter: str
    load: Callable[[Path], object]

    @property
    def suffix(self) -> str:
        return SIBLINGS[self.parameter][0]


EXPERIMENT_KINDS = [
    Experiment("CLIENTS", clients.load),
    Experiment("IO", iobench.load),
    Experiment("FLOOR", floor.load),
    Experiment("SWEEP", sweepfolder.load),
    Experiment("AUTOBAHN", autobahnfolder.load),
]


def render(run_folder: str | Path, also: list[str | Path] = (), notebook: Path = NOTEBOOK) -> Path:
    """Executes the notebook on `run_folder` (pooling `also` as repeats) and writes `report.html` into it; returns its path.

    A cell that raises does not stop the others: the report is written whole but for that
    section, and SectionFailed then says which, so `make report` fails visibly.
    """
    run = load_run(Path(run_folder).resolve())
    others = [load_run(Path(folder).resolve()) for folder in also]
    refuse_to_pool(run, others)
    jdk = run.manifest.provenance.jdk.feature
    models = tuple(dict.fromkeys(e["model"] for e in run.catalogue))
    floors = siblings(run.folder, BENCH_SIBLINGS, jdk, run.collector, models)
    parameters = {"RUN": str(run.folder), "ALSO": [str(o.folder) for o in others], **floors}
    return _execute(notebook, parameters, run.folder)


def refuse_to_pool(run, others) -> None:
    """Raises PoolingRefused, before anything is written, if one of `others` differs from `run` in rate, profile, JVM flags or JDK
    (repeats.first_difference): one line naming the first difference and what to do instead."""
    for other in others:
        difference = repeats.first_difference(run, other)
        if difference:
            raise PoolingRefused(
                f"{other.folder.name} is not a repeat of {run.folder.name}: {difference}. Compare the two instead: "
                f"make compare A={run.folder} B={other.folder}"
            )


def render_experiment(folder: str | Path) -> Path:
    """Renders experiments.ipynb into an experiment folder of a kind EXPERIMENT_KINDS declares, with the other kinds' folders beside it."""
    folder = Path(folder).resolve()
    kind = next((k for k in EXPERIMENT_KINDS if folder.name.endswith(k.suffix)), None)
    if kind is None:
        kinds = ", ".join(f"*{k.suffix}" for k in EXPERIMENT_KINDS)
        raise RunFolderError(f"{folder} is not an experiment folder: its name ends with none of {kinds}")
    kind.load(folder)
    others = [k.parameter for k in EXPERIMENT_KINDS if k is not kind]
    return _execute(EXPERIMENTS, {kind.parameter: str(folder), **siblings(folder, others)}, folder)


def render_compare(a: str | Path, b: str | Path) -> Path:
    """Renders compare.ipynb on run folders `a` and `b` into `compare-<a>-vs-<b>/report.html` beside `b`; returns its path."""
    run_a, run_b = (load_run(Path(folder).resolve()) for folder in (a, b))
    if run_a.folder == run_b.folder:
        raise RunFolderError(f"A and B are the same run ({run_a.folder.name}); name two run folders: make compare A=results/<run> B=results/<run>")
    out = compare_folder(run_a.folder, run_b.folder)
    out.mkdir(exist_ok=True)
    return _execute(COMPARE, {"A": str(run_a.folder), "B": str(run_b.folder)}, out)


def compare_folder(a: Path, b: Path) -> Path:
    """Where the comparison of runs `a` and `b` is written: beside `b`, named for both, so comparing them again rewrites it."""
    return b.parent / f"compare-{a.name}-vs-{b.name}"


def siblings(
    folder: Path, wanted: list[str], jdk_feature: int | None = None, collector: str = ZGC, models: tuple[str, ...] = ()
) -> dict[str, str | None]:
    """The sibling folders `folder`'s report shows, by parameter: as its report-inputs.json recorded them, else the newest of each kind now
    (of floors, the newest that measured `jdk_feature`, the run's JDK, on its `collector`, and a task of each of the run's `models`,
    where one did; never one of another collector, whose heap lays a task out otherwise).

    What is chosen is recorded, so rendering the same folder again shows the same siblings even
    after newer ones appear; a kind with none beside it is recorded as None.
    """
    recorded = folder / INPUTS
    chosen = json.loads(recorded.read_text()) if recorded.is_file() else {}
    for parameter in wanted:
        if parameter not in chosen:
            of_jdk = floor_folders.covering(folder.resolve().parent, jdk_feature, collector, models) if parameter == "FLOOR" and jdk_feature else []
            readable = _in_run_folder_format if parameter in IN_RUN_FOLDER_FORMAT else (lambda _: True)
            if parameter == "FLOOR":
                readable = _of_collector(collector, readable)
            found = of_jdk[-1] if of_jdk else newest_beside(folder, *SIBLINGS[parameter], readable=readable)
            chosen[parameter] = found.name if found else None
    recorded.write_text(json.dumps(chosen, indent=1, sort_keys=True) + "\n")
    return {parameter: str(folder.parent / chosen[parameter]) if chosen[parameter] else None for parameter in wanted}


def _of_collector(collector: str, readable: Callable[[Path], bool]) -> Callable[[Path], bool]:
    """`readable`, and of a run on `collector` (bench_manifest.collector_of)."""

    def of_it(folder: Path) -> bool:
        manifest = folder / "manifest.json"
        return readable(folder) and manifest.is_file() and collector_of(json.loads(manifest.read_text())) == collector

    return of_it


def _in_run_folder_format(folder: Path) -> bool:
    manifest = folder / "manifest.json"
    return manifest.is_file() and series.refused_version(folder, json.loads(manifest.read_text())) is None


def _execute(notebook: Path, parameters: dict, out_folder: Path) -> Path:
    nb = nbformat.read(notebook, as_version=4)
    _inject_parameters(nb, parameters)
    client = NotebookClient(nb, timeout=CELL_TIMEOUT_S, kernel_name="python3", allow_errors=True, resources={"metadata": {"path": str(ANALYSIS_DIR)}})
    client.execute()
    exporter = HTMLExporter(
        template_name=OFFLINE_TEMPLATE,
        extra_template_basedirs=[str(TEMPLATES)],
        exclude_input=True,
        exclude_input_prompt=True,
        exclude_output_prompt=True,
    )
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
    parser = OneLineParser(
        "make report",
        "make report RUN=results/<run> [ALSO='results/<another> ...'], make compare A=results/<run> B=results/<run>, "
        "or make experiment-report FOLDER=results/<folder>",
        description="Renders a run folder's report, two runs compared, or an experiment folder's report.",
    )
    parser.add_argument("folders", nargs="*", help="a run folder, and any more to pool with it as repeats")
    parser.add_argument("--compare", nargs=2, metavar=("A", "B"), help="two run folders: B against A")
    parser.add_argument("--experiment", metavar="FOLDER", help="a clients, io, floor, sweep or autobahn folder")
    args = parser.parse(argv)
    if isinstance(args, int):
        return args
    if sum([bool(args.folders), args.compare is not None, args.experiment is not None]) != 1:
        return parser.mistake("name a run folder, two with --compare, or one with --experiment")
    try:
        if args.experiment is not None:
            print(render_experiment(args.experiment))
        elif args.compare is not None:
            print(render_compare(*args.compare))
        else:
            print(render(args.folders[0], also=args.folders[1:]))
    except (
        RunFolderError,
        clients.ClientsFolderError,
        iobench.IoFolderError,
        floor.FloorFolderError,
        sweepfolder.SweepFolderError,
        autobahnfolder.AutobahnFolderError,
    ) as e:
        print(f"make report: {e}", file=sys.stderr)
        return 2
    except SectionFailed as e:
        print(f"make report: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
