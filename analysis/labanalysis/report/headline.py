"""A run's headline tables as Markdown, for a README, a release note or an issue's closing note.

`make headline RUN=results/<run>` prints the tables the report leads with: the verdict, "Who wins what", and for a run with a curve, each
server's highest sustained rate and the curve's figures step by step; for a `make sweep` folder, how far each server held C/D, its CPU
per request, and where that CPU went by thread family; for a `make floor` folder, memory per parked task, cold and warm; for a
`make autobahn-perf` folder, each arm's section 9;
`make headline A=results/<run> B=results/<run>` prints the
comparison `make compare` renders; `PICTURE=<file>.png` also saves the report's first plot a reader looks at.

Nothing here computes a figure: the tables are the report's own (summary, curve, compare), only written as text, under a line
that names the folder, its commit and the command that made it, so that a figure pasted from here can be traced to its run.
"""

from __future__ import annotations

import sys

import pandas as pd

from ..autobahn import autobahnperf
from ..bench import cpu, warm_sockets, zgc
from ..cli import OneLineParser
from ..curve import curve, curve_tables
from ..floor import floor
from ..folder import autobahnfolder, catalogue, floor_folders, provenance, sweepfolder
from ..folder.run import Run, RunFolderError, load_run
from ..markdown import markdown
from ..stats.numbers import shown
from ..sweep import cpu_profile, sweep
from ..verdict import arms, compare, grid, parents, perpass, summary, verdict, verdict_repeat
from . import grid_plots, plots

# The curve's figures a reader compares step by step (curve.FIGURES names).
CURVE_FIGURES = ("p99 on the wire (ms)", "server CPU busy (%)", "achieved (req/s)")


def host(run: Run) -> str:
    """One line on how much of the host the run had: the hypervisor's steal over its passes, which no other table shows."""
    steal = cpu.steal_cores(run)
    if steal.passes == 0:
        return f"`{run.folder.name}`: no pass recorded the host's steal time."
    return (
        f"`{run.folder.name}`'s host: the CPU its hypervisor gave to others (steal time), in cores of its {cpu.host_cpus(run)} a "
        f"pass: {shown(steal)}. What it takes, the server and the load generator wait for, so the figures of a run it "
        "took much from compare only within the run's rounds."
    )


def tables(runs: list[Run], per_pass: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """(title, table) in the report's order: the verdict, who wins what, the steady phase's p99 against the collector's major cycles
    where the run has both, then the curve's summary and its step tables, where there is a curve. `per_pass` is perpass.table(runs)."""
    found = [
        ("The verdict: the model to pick for each shape of work", verdict.table(per_pass, compare.settings(runs[0]))),
        ("Who wins what", summary.winners(summary.figures(perpass.for_verdict(per_pass)))),
    ]
    beside_parents = parents.table(per_pass)
    if not beside_parents.empty:
        found.append(("A model beside the models it is made of", beside_parents))
    if warm_sockets.measured(runs):
        title = (
            f"Cold and warm sockets: what an idle socket holds, opened before the load and after it (the verdict's are {runs[0].sockets_headline})"
        )
        warm = warm_sockets.per_pass(runs)
        found.append((f"{title}. {warm_sockets.order_sentence(warm)}", warm_sockets.table(warm)))
    stalls = zgc.stalls_table(runs)
    if not stalls.empty:
        title = "The steady /json phase and ZGC's major cycles: the wire's p99 inside and outside them, a row a pass"
        found.append((f"{title} (how much was ZGC's warm-up: blank where the pass's series names no warm-up cycle)", stalls))
    changes = arms.change_effects(grid.passes(runs))
    if not changes.empty:
        found.append(("What the lab's changes to each engine do: each arm against its server", grid.effects_table(changes)))
    if curve.has_curve(runs):
        steps = curve.per_step(runs)
        found.append(("Highest sustained rate", curve_tables.summary(steps)))
        found.append(("How far each capacity figure moved from pass to pass", curve_tables.spread(steps)))
        full = curve_tables.full_step(steps)
        if not full.empty:
            found.append(("The full step: wrk's closed loop on the budget, against the ladder's fullest step", full))
        shares = curve_tables.jvm_shares(steps)
        if not shares.empty:
            found.append(("What of the server's CPU in the curve went to the JVM's own threads", shares))
        for endpoint in curve.ENDPOINTS:
            for figure in CURVE_FIGURES:
                found.append((f"/{endpoint}: {figure}, median [lowest, highest] across passes", curve_tables.table(steps, endpoint, figure)))
    return found


def of_run(runs: list[Run]) -> str:
    """The whole Markdown of one run (pooled with `runs[1:]` as repeats, as `make report ALSO=` does)."""
    parts = [provenance.source(r) for r in runs] + [host(r) for r in runs]
    per_pass = perpass.table(runs)
    if note := perpass.left_out(per_pass):
        parts.append(note)
    for title, table in tables(runs, per_pass):
        parts += [f"### {title}", markdown(table, index=title.startswith("/"))]
    return "\n\n".join(parts) + "\n"


def picture(runs: list[Run], path: str) -> None:
    """Saves the report's plot a reader looks at first, as it is drawn there: the `/dashboard` curve where the run has one (what a
    model buys), else each headline figure per cell of the grid (what it costs)."""
    if curve.has_curve(runs):
        figure = plots.rate_curves(curve.per_step(runs), "dashboard", curve.bound_ms(runs[0], "dashboard"))
    else:
        passes = catalogue.without_arms(grid.passes(runs))
        figure = grid_plots.grid_figures(grid.per_server(passes), grid.headlines(passes), grid.models(passes), grid.engines(passes))
    figure.savefig(path, dpi=72, bbox_inches="tight")


def _made_by(experiment: str, run: sweepfolder.SweepRun | floor.FloorRun | autobahnfolder.AutobahnRun) -> list[str]:
    """The lines an experiment's headline opens with: its folder, commit, format and command, then its problems or that it had none."""
    manifest = run.manifest
    made_as = f"{experiment}, {manifest.provenance.headline_commit()}, run-folder format {manifest.run_folder_format}"
    return [
        f"From `{run.folder.name}` ({made_as}), made by `{manifest.provenance.command}`.",
        f"The run's problems: {'; '.join(run.problems)}." if run.problems else "The run had no problems.",
    ]


def of_floor(run: floor.FloorRun) -> str:
    """The Markdown of a `make floor` folder's headline tables, the experiments report's: memory per parked task by model, depth
    and warmth; cold against warm, where the run parked both; and what a deeper call costs a frame."""
    parts = _made_by("make floor", run)
    per_task = floor.table(run)
    if not per_task.empty:
        parts += ["### Memory per parked task (KiB), median [lowest, highest] over the repeats", markdown(per_task.reset_index())]
    warmth = floor.warmth_table(run)
    if not warmth.empty:
        parts += ["### Cold and warm: live heap per parked task", markdown(warmth)]
    depth = floor.depth_cost(run)
    if not depth.empty:
        parts += ["### What a deeper call costs a parked task", markdown(depth)]
    return "\n\n".join(parts) + "\n"


def of_autobahn(run: autobahnfolder.AutobahnRun) -> str:
    """The Markdown of a `make autobahn-perf` folder's headline tables, the experiments report's: each arm's section 9 summed over
    its cases, and each section's median duration."""
    parts = _made_by("make autobahn-perf", run)
    parts += ["### Autobahn's section 9: each arm's cases' durations, summed", markdown(autobahnperf.summary_table(run))]
    sections = autobahnperf.section_table(run)
    if not sections.empty:
        parts += ["### Each section's durations summed (ms), median across passes", markdown(sections.reset_index(names="arm"))]
    return "\n\n".join(parts) + "\n"


def of_sweep(run: sweepfolder.SweepRun) -> str:
    """The Markdown of a `make sweep` folder's headline tables: how far each server held C/D and why it stopped, its CPU per
    request (the slope over the steps it held), and per workload where that CPU went, by thread family."""
    parts = _made_by("make sweep", run)
    parts += [
        "### How far each server held C/D, and why it stopped",
        markdown(sweep.capacity(run).assign(server=lambda f: f["server"].map(catalogue.label))),
    ]
    slopes = sweep.cpu_per_request(run)
    parts += [
        "### Server CPU per request (µs): the slope over the steps each server held",
        markdown(slopes.assign(server=slopes["server"].map(catalogue.label)).round(1)),
    ]
    profiles = cpu_profile.profiles_of(run)
    for workload in run.manifest.settings.workloads:
        families = sweep.thread_family_table(run, workload)
        if not families.empty:
            title = f"/{workload}: server CPU per request (µs) by thread family, median [lowest, highest] across passes"
            parts += [f"### {title}", markdown(families)]
        libraries = cpu_profile.library_table(profiles, workload)
        if not libraries.empty:
            title = f"/{workload}: sampled CPU per request (µs) by the library whose code ran (JFR, the JDK's frames charged to their caller)"
            parts += [f"### {title}", markdown(libraries)]
        if sweep.measured(run, workload, sweep.DOWNSTREAM_CONNECTIONS):
            title = f"/{workload}: {sweep.DOWNSTREAM_CONNECTIONS} (the stub's count: 1 opens one for each call, 0 keeps them)"
            parts += [f"### {title}", markdown(sweep.table(run, workload, sweep.DOWNSTREAM_CONNECTIONS).reset_index(names="server"))]
    return "\n\n".join(parts) + "\n"


def of_comparison(a: Run, b: Run) -> str:
    """The Markdown of `make compare A=a B=b`'s tables: whether the verdict repeated, cell by cell, and each server's capacity per CPU;
    then every figure of every server in both, B against A."""
    per_pass_a, per_pass_b = perpass.table([a]), perpass.table([b])
    parts = [f"A: {provenance.source(a)}", f"B: {provenance.source(b)}"]
    parts += [note for note in (perpass.left_out(p) for p in (per_pass_a, per_pass_b)) if note]
    parts += ["### Did the verdict repeat?", markdown(verdict_repeat.cells(per_pass_a, per_pass_b))]
    parts += ["### Did each server's capacity per CPU repeat?", markdown(verdict_repeat.capacities(per_pass_a, per_pass_b))]
    parts += ["### Every figure, B against A", markdown(compare.table(compare.pairs(a, b)))]
    return "\n\n".join(parts) + "\n"


def main(argv: list[str]) -> int:
    parser = OneLineParser(
        "make headline",
        "make headline RUN=results/<run> [ALSO=...] [PICTURE=x.png], or make headline A=results/<run> B=results/<run>",
        description="A run's headline tables as Markdown.",
    )
    parser.add_argument("run", nargs="?", help="a run folder (results/<run>)")
    parser.add_argument("--also", nargs="*", default=[], help="run folders to pool with it as repeats")
    parser.add_argument("--compare", nargs=2, metavar=("A", "B"), help="two run folders: B against A")
    parser.add_argument("--picture", help="also save the report's first plot into this PNG file")
    args = parser.parse(argv)
    if isinstance(args, int):
        return args
    if bool(args.run) == bool(args.compare):
        return parser.mistake("name one run folder, or two to compare")
    try:
        if args.compare:
            print(of_comparison(load_run(args.compare[0]), load_run(args.compare[1])), end="")
        elif args.run.rstrip("/").endswith(sweep.SWEEP_SUFFIX):
            print(of_sweep(sweepfolder.load(args.run)), end="")
        elif args.run.rstrip("/").endswith(floor_folders.FLOOR_SUFFIX):
            print(of_floor(floor.load(args.run)), end="")
        elif args.run.rstrip("/").endswith(autobahnfolder.AUTOBAHN_SUFFIX):
            print(of_autobahn(autobahnfolder.load(args.run)), end="")
        else:
            runs = [load_run(f) for f in [args.run, *args.also]]
            print(of_run(runs), end="")
            if args.picture:
                picture(runs, args.picture)
    except (RunFolderError, sweepfolder.SweepFolderError, floor.FloorFolderError, autobahnfolder.AutobahnFolderError) as e:
        print(f"make headline: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
