"""The lab's servers as servers.json at the repository root declares them: the one list every tool reads.

The analysis takes each server's label, colour, engine and model from here, never from its name. It
is also make's and bench-vps's reader, with the standard library only, so that `make servers` and
`make serve` need no virtual environment:

    PYTHONPATH=analysis python3 -m labanalysis.folder.catalogue            # one server a line: name engine model
    PYTHONPATH=analysis python3 -m labanalysis.folder.catalogue jar NAME   # NAME's jar, relative to the repository root
    PYTHONPATH=analysis python3 -m labanalysis.folder.catalogue jars       # every server's jar, one a line
    PYTHONPATH=analysis python3 -m labanalysis.folder.catalogue names      # the names, comma-separated
"""

from __future__ import annotations

import json
import re
import sys
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from ..cli import OneLineParser

if TYPE_CHECKING:
    import pandas as pd

CATALOGUE = Path(__file__).resolve().parents[3] / "servers.json"
# The models servers.json declares, in its order, and how a reader sees each ("coroutines").
_DECLARED_MODELS: list[dict] = json.loads(CATALOGUE.read_text())["models"]
MODELS: tuple[str, ...] = tuple(m["name"] for m in _DECLARED_MODELS)
MODEL_WORDS: dict[str, str] = {m["name"]: m["words"] for m in _DECLARED_MODELS}
# The models made of others (coroutines on virtual threads: of coroutines and of virtual threads), each with those it is made of.
MADE_OF: dict[str, tuple[str, ...]] = {m["name"]: tuple(m["madeOf"]) for m in _DECLARED_MODELS if m["madeOf"]}
# Cells of the engine x model grid no server can fill, and why: a fact about an engine, not about a server.
NO_SUCH_MODE = {("ktor-netty", "virtual"): "Ktor has no virtual-thread mode"}
# A server an old run names but the catalogue no longer declares is still drawn, in grey.
UNKNOWN_COLOUR = "tab:gray"
_FIELDS = {"name", "formerNames", "module", "jar", "engine", "model", "traits", "label", "colour"}
_TRAITS = {"threadPerSocket", "canPin", "boundedPool"}


class CatalogueError(Exception):
    """servers.json is malformed, or a name is not in it: one line that says which and what to choose."""


@dataclass(frozen=True)
class Server:
    """One entry of servers.json; servers.json's "fields" says what each means."""

    name: str
    former_names: tuple[str, ...]  # what run folders made before the rename of 2026-11-29 call it
    module: str
    jar: str
    engine: str
    model: str
    label: str
    colour: str
    thread_per_socket: bool
    can_pin: bool
    bounded_pool: bool
    # An arm (`make bench ONLY=server:change`): the server it was made from.
    arm_of: str | None = None


def parse(text: str) -> list[Server]:
    """The entries of a catalogue's text, checked as the harness checks them: a typo fails here."""
    servers = []
    declaration = json.loads(text)
    models = [m["name"] for m in declaration.get("models", [])]
    if not models or len(set(models)) != len(models):
        raise CatalogueError(f"servers.json must declare its models, each once: {models}")
    for m in declaration["models"]:
        if not set(m.get("madeOf", [])) <= set(models) - {m["name"]}:
            raise CatalogueError(f"servers.json: model {m['name']} is made of {', '.join(m['madeOf'])}, which must be other models it declares")
    for entry in declaration["servers"]:
        if set(entry) != _FIELDS or set(entry["traits"]) != _TRAITS:
            raise CatalogueError(f"servers.json: {entry.get('name', '?')} must have exactly {sorted(_FIELDS)} and traits {sorted(_TRAITS)}")
        if entry["model"] not in models:
            raise CatalogueError(f"servers.json: {entry['name']}'s model {entry['model']!r} is none of {', '.join(models)}")
        traits = entry["traits"]
        servers.append(
            Server(
                name=entry["name"],
                former_names=tuple(entry["formerNames"]),
                module=entry["module"],
                jar=entry["jar"],
                engine=entry["engine"],
                model=entry["model"],
                label=entry["label"],
                colour=entry["colour"],
                thread_per_socket=traits["threadPerSocket"],
                can_pin=traits["canPin"],
                bounded_pool=traits["boundedPool"],
            )
        )
    names = [s.name for s in servers]
    if not servers or len(set(names)) != len(names):
        raise CatalogueError(f"servers.json must declare at least one server, each name once: {names}")
    for s in servers:
        if clash := set(s.former_names) & set(names):
            raise CatalogueError(f"servers.json: {s.name}'s former name {sorted(clash)[0]!r} is another server's name")
    return servers


@lru_cache(maxsize=1)
def servers() -> tuple[Server, ...]:
    return tuple(parse(CATALOGUE.read_text()))


@lru_cache(maxsize=1)
def _engines() -> dict:
    engines = json.loads(CATALOGUE.read_text()).get("engines", {})
    for engine, entry in engines.items():
        for change in [*entry.get("changes", []), *entry.get("alternatives", [])]:
            # An arm's name is made of its changes' names (lab.support.Catalogue says the same).
            if change["name"] == "all" or {"and", "with", "without"} & set(change["name"].split("-")):
                raise CatalogueError(f"servers.json: engine {engine}'s change {change['name']!r} cannot be read back from an arm's name")
    return engines


def engine_changes() -> dict[str, tuple[str, ...]]:
    """Each engine's changes by the lab (servers.json's engines), in their declared order."""
    return {engine: tuple(c["name"] for c in entry.get("changes", [])) for engine, entry in _engines().items()}


def engine_label(engine: str) -> str:
    """What a reader sees for an engine (servers.json's engines' label: "Jetty 12.1.12"); the name itself for an engine not declared."""
    return _engines().get(engine, {}).get("label", engine)


def engine_alternatives() -> dict[str, dict[str, str | None]]:
    """Each engine's alternatives (servers.json's engines): each one's name, and the change it runs in place of (None: beside them all)."""
    return {engine: {a["name"]: a.get("insteadOf") for a in entry.get("alternatives", [])} for engine, entry in _engines().items()}


# An arm's colour, none of a catalogue server's: picked by its whole name, so that it is the same in every run and plot
# (two arms may still share one; their labels tell them apart).
ARM_COLOURS = ("tab:cyan", "tab:olive", "tab:brown", "tab:pink", "gold", "black", "darkblue", "lime")
# server-without-a-and-b-with-c, as lab.support.ServerEntry.arm names an arm.
_ARM_NAME = re.compile(r"(?:-without-(?P<without>.+?))?(?:-with-(?P<alternatives>.+))?")


@lru_cache(maxsize=256)
def _arm(name: str) -> Server | None:
    """The arm `name` is, `server-without-a-and-b-with-c` as the harness names it (lab.support.ServerEntry.arm), or None: its
    engine, model and traits are its server's, its label says what it ran without and with."""
    base = next((s for s in servers() if name.startswith(s.name + "-with")), None)
    found = _ARM_NAME.fullmatch(name[len(base.name) :]) if base else None
    if base is None or found is None:
        return None
    declared, alternatives = engine_changes().get(base.engine, ()), engine_alternatives().get(base.engine, {})
    without = tuple(found["without"].split("-and-")) if found["without"] else ()
    chosen = tuple(found["alternatives"].split("-and-")) if found["alternatives"] else ()
    if not (without or chosen) or any(c not in declared for c in without) or any(a not in alternatives for a in chosen):
        return None
    # "As shipped" only for an arm without every change and with no alternative of the lab's: ServerEntry.arm's words.
    every = set(without) == set(declared) and not chosen
    said = ["as shipped"] if every else [f"without {', '.join(without)}"] if without else []
    said += [f"with {', '.join(f'{a} instead of {alternatives[a]}' if alternatives[a] else a for a in chosen)}"] if chosen else []
    return replace(
        base,
        name=name,
        former_names=(),
        label=f"{base.label}, {', '.join(said)}",
        colour=ARM_COLOURS[zlib.crc32(name.encode()) % len(ARM_COLOURS)],
        arm_of=base.name,
    )


def arm_of(name: str) -> str | None:
    """The catalogue server `name` is an arm of, or None for a server itself (or a name the catalogue does not know)."""
    return s.arm_of if (s := _arm(name)) else None


def without_arms(passes: pd.DataFrame) -> pd.DataFrame:
    """`passes` (rows with a "server" column) without the arms' rows (arm_of): the servers of the catalogue themselves."""
    return passes[[arm_of(s) is None for s in passes["server"]]] if len(passes) else passes


def names() -> list[str]:
    return [s.name for s in servers()]


def server(name: str) -> Server:
    for s in servers():
        if s.name == name:
            return s
    if (arm := _arm(name)) is not None:
        raise CatalogueError(f"{name!r} is an arm of {arm.arm_of!r}, not a server: run {arm.arm_of!r} with --as-shipped (see servers.json's engines)")
    if (now := _declared(name)) is not None:
        raise CatalogueError(f"server {name!r} is called {now.name!r} since 2026-11-29: use that name")
    raise CatalogueError(f"unknown server {name!r}; choose from {', '.join(names())}")


def _declared(name: str) -> Server | None:
    """The server `name` is, by its name or a former one (a run folder from before a rename), or the arm it names; None if none."""
    return next((s for s in servers() if s.name == name), None) or next((s for s in servers() if name in s.former_names), None) or _arm(name)


def current(name: str) -> str:
    """What the catalogue calls `name` now: a run folder from before a rename has the server's former name."""
    return s.name if (s := _declared(name)) else name


def colour(name: str) -> str:
    """The server's colour in every plot; grey for a server the catalogue no longer declares."""
    return s.colour if (s := _declared(name)) else UNKNOWN_COLOUR


def label(name: str) -> str:
    """How a reader is told which server it is; its name for a server the catalogue no longer declares."""
    return s.label if (s := _declared(name)) else name


def model_in(recorded_catalogue: Iterable[Mapping], name: str) -> str | None:
    """How `name`'s tasks wait, as the run's manifest recorded it in its catalogue; servers.json's for a run from before manifests did."""
    recorded = {e["name"]: e["model"] for e in recorded_catalogue}
    if name in recorded:
        return recorded[name]
    return s.model if (s := _declared(name)) else None


def engine_in(recorded_catalogue: Iterable[Mapping], name: str) -> str | None:
    """`name`'s HTTP and WebSocket stack, as the run's manifest recorded it in its catalogue; servers.json's for a run from before it did."""
    recorded = {e["name"]: e["engine"] for e in recorded_catalogue}
    if name in recorded:
        return recorded[name]
    return s.engine if (s := _declared(name)) else None


def run_servers(recorded_catalogue: Iterable[Mapping], servers: Iterable[str]) -> list[dict]:
    """Each of a run's `servers`, as its manifest recorded it in its catalogue (servers.json's entry for a run from before it did):
    what it is, for the report."""
    recorded = {e["name"]: e for e in recorded_catalogue}
    rows = []
    for name in servers:
        entry = recorded.get(name) or (vars(s) if (s := _declared(name)) else None)
        if entry is None:
            rows.append({"server": name, "engine": "?", "model": "?", "what it is": "not in servers.json"})
        else:
            rows.append({"server": name, "engine": entry["engine"], "model": entry["model"], "what it is": entry["label"]})
    return rows


def order(names_seen: list[str]) -> list[str]:
    """`names_seen`, each once, in the catalogue's order, with names it does not declare after them."""
    position = {s.name: i for i, s in enumerate(servers())}

    def place(n: str) -> tuple[int, str]:
        found = _declared(n)
        # An arm right after its server, arms of one server by name.
        return (position[found.arm_of or found.name], n if found.arm_of else "")

    declared = sorted((n for n in dict.fromkeys(names_seen) if _declared(n)), key=place)
    return declared + sorted(set(names_seen) - set(declared))


def parser() -> OneLineParser:
    cli = OneLineParser("make servers", "catalogue [names | jars | jar NAME]", description="The servers servers.json declares.")
    cli.add_argument("asked", nargs="?", choices=["names", "jars", "jar"], help="the names; every jar; one server's jar")
    cli.add_argument("name", nargs="?", help="the server whose jar `jar` gives")
    return cli


def main(argv: list[str]) -> int:
    cli = parser()
    args = cli.parse(argv)
    if isinstance(args, int):
        return args
    if (args.asked == "jar") != (args.name is not None):
        return cli.mistake("`jar` takes one server's name, and only `jar` takes one")
    try:
        if args.asked is None:
            print("\n".join(f"{s.name} {s.engine} {s.model}" for s in servers()))
        elif args.asked == "names":
            print(",".join(names()))
        elif args.asked == "jars":
            print("\n".join(s.jar for s in servers()))
        else:
            print(server(args.name).jar)
    except CatalogueError as e:
        print(e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
