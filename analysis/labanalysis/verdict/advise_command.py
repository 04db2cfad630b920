"""`make advise`: what a reader's workload would take on each server (advise), and the same lines held to the run's own shape
(advise_check)."""

from __future__ import annotations

import sys

from ..cli import OneLineParser
from ..folder import provenance
from ..folder.run import RunFolderError, load_run
from ..folder.sweepfolder import SweepFolderError
from ..folder.sweepfolder import load as load_sweep
from ..markdown import markdown
from .advise import MISSION, Workload, host_note, of_passes, per_pass
from .advise_check import checked, own_shape


def main(argv: list[str]) -> int:
    parser = OneLineParser(
        "make advise",
        "make advise [SOCKETS=50000] [RATE=2000] [WAIT_MS=100] [CONNECTIONS=0] [RUN=results/<run>] [SWEEP=results/<run>-sweep]",
        description="What a workload would take on each server, from a run's measured slopes.",
    )
    parser.add_argument("run", help="a bench or curve run folder")
    parser.add_argument("--sockets", type=int, default=MISSION.sockets)
    parser.add_argument("--rate", type=float, default=MISSION.rate_per_s)
    parser.add_argument("--wait-ms", type=float, default=MISSION.wait_ms)
    parser.add_argument("--connections", type=float, default=MISSION.connections, help="request connections the clients keep open")
    parser.add_argument("--sweep", help="a make sweep folder, for what each request in flight holds")
    args = parser.parse(argv)
    if isinstance(args, int):
        return args
    if args.sockets < 0 or args.rate < 0 or args.wait_ms < 0 or args.connections < 0:
        return parser.mistake("SOCKETS, RATE, WAIT_MS and CONNECTIONS are counts and times: give each as 0 or more")
    workload = Workload(args.sockets, args.rate, args.wait_ms, args.connections)
    try:
        runs = [load_run(args.run)]
        sweep = load_sweep(args.sweep) if args.sweep else None
    except (RunFolderError, SweepFolderError) as e:
        print(f"make advise: {e}", file=sys.stderr)
        return 2
    print(f"What {workload} would take on each server. {provenance.source(runs[0])}")
    if sweep is None and workload.in_flight > 0:
        print("No make sweep folder was given (SWEEP=): what each request in flight holds (memory, threads) is left out.")
    print()
    passes = per_pass(runs, workload, sweep)
    print(markdown(of_passes(passes)))
    if note := host_note(passes):
        print()
        print(note)
    held = checked(runs)
    if not held.empty:
        print()
        print(f"The same lines at this run's own shape, {own_shape(runs[0])}, against what its steady /json phase measured:")
        print()
        print(markdown(held.drop(columns="server")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
