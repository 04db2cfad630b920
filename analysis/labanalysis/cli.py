"""Command lines of the analysis's `make` targets: argparse, with every mistake said in one line that names the make target and
how to call it, and a status rather than an exit, so a test can call `main` as `make` does."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable


class OneLineParser(argparse.ArgumentParser):
    """argparse's parser, whose error is one line on stderr, `<make target>: <what is wrong>; usage: <how to call it>`, and then status 2."""

    def __init__(self, prog: str, usage_line: str, **kwargs) -> None:
        super().__init__(prog=prog, **kwargs)
        self.usage_line = usage_line

    def mistake(self, message: str) -> int:
        """Says what is wrong with the command line, in one line, and gives the status to return for it."""
        print(f"{self.prog}: {message}; usage: {self.usage_line}", file=sys.stderr)
        return 2

    def error(self, message: str):
        raise SystemExit(self.mistake(message))

    def parse(self, argv: list[str]) -> argparse.Namespace | int:
        """The arguments, or the status to return where there are none to go on with (a mistake, 2; `--help`, 0)."""
        try:
            return self.parse_args(argv)
        except SystemExit as e:
            return int(e.code or 0)


def one_line(prog: str, main: Callable[[], object], *mistakes: type[Exception]) -> int:
    """Runs a script's `main`, and says any of its `mistakes` (a folder that is no run, say) in one line on stderr, status 2, as
    a make target says a bad argument; 0 where it ran through."""
    try:
        main()
    except mistakes as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    return 0


def runs_parser(prog: str, description: str, options: str = "") -> OneLineParser:
    """The parser of a script that reads bench run folders, given after its `options` (how the usage line shows them): it has
    `runs` already; the script adds its options."""
    parser = OneLineParser(prog=prog, usage_line=" ".join(filter(None, [prog, options, "results/<run> ..."])), description=description)
    parser.add_argument("runs", nargs="+", help="bench run folders")
    return parser


def run_pairs(prog: str, description: str) -> list[tuple[str, str]]:
    """The pairs of run folders a script that sets two runs side by side was given, each `A,B` on its command line; a pair
    without its one comma is said in one line, status 2."""
    parser = OneLineParser(prog=prog, usage_line=f"{prog} results/<A>,results/<B> ...", description=description)
    parser.add_argument("pairs", nargs="+", metavar="A,B", help="two run folders of one pair, comma-separated")
    args = parser.parse_args()
    if unpaired := [pair for pair in args.pairs if pair.count(",") != 1]:
        parser.error(f"{unpaired[0]} is not two run folders joined by a comma")
    return [tuple(pair.split(",")) for pair in args.pairs]
