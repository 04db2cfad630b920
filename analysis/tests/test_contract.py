"""The run folder's JSON documents are read through types held to the schemas under contract/, which the harness's own classes
make (lab.contract.ContractSchemaTest): a property the harness writes is a field here, under its name, of its type, with the
default the harness leaves out; and every outcome a committed fixture recorded reads."""

import dataclasses
import json
import math
import types
import typing
from collections.abc import Mapping
from dataclasses import MISSING, fields
from pathlib import Path
from typing import Any

import pytest

from labanalysis.clients import clients
from labanalysis.floor import floor
from labanalysis.folder import autobahnfolder, sweepfolder
from labanalysis.folder.bench_manifest import BenchManifest
from labanalysis.folder.declared import ADDED_LATER, DeclaredError, default_of, recorded, recorded_name
from labanalysis.folder.experiment_manifests import AutobahnManifest, ClientsManifest, FloorManifest, SweepManifest
from labanalysis.folder.outcome import PassOutcome
from labanalysis.folder.provenance import FIELDS as PROVENANCE_FIELDS
from labanalysis.folder.run import RunFolderError, load_run

CONTRACT = Path(__file__).resolve().parents[2] / "contract"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
JSON_TYPES = {"string": str, "integer": int, "number": float, "boolean": bool}
# The harness's classes whose parts the analysis reads as mappings, by the reader named: servers.json's entries, as the run recorded
# them, which catalogue.py reads as it reads servers.json itself.
READ_AS_MAPPINGS = {"lab.support.ServerEntry": "catalogue.py", "lab.support.EngineEntry": "catalogue.py and bench.runtime"}

# Each type the analysis reads a manifest (or a part of one) into, the schema that declares it, and the harness's class it is
# declared as. The types each one holds (a manifest's settings, its provenance) are held with it.
DECLARED_AS = [
    (BenchManifest, "bench-manifest.schema.json", "lab.bench.Manifest"),
    (SweepManifest, "sweep-manifest.schema.json", "lab.sweep.SweepManifest"),
    (FloorManifest, "floor-manifest.schema.json", "lab.floor.FloorManifest"),
    (AutobahnManifest, "autobahn-manifest.schema.json", "lab.autobahn.AutobahnManifest"),
    (ClientsManifest, "clients-manifest.schema.json", "lab.clients.ClientsManifest"),
]


def definitions(schema: str) -> dict:
    return json.loads((CONTRACT / schema).read_text())["$defs"]


def declared_shape(schema: dict) -> tuple[object, bool]:
    """A declared property's shape, and whether it may be null: a JSON type's Python type, ("tuple", item), ("mapping", value), or
    ("class", the name of the harness's class it refers to)."""
    kinds = schema.get("anyOf", [schema])
    named = next(k for k in kinds if k.get("type") != "null")
    nullable = len(kinds) > 1
    if "enum" in named:
        return str, nullable
    if "$ref" in named:
        name = named["$ref"].removeprefix("#/$defs/")
        return ("class", name), nullable
    if named["type"] == "array":
        return ("tuple", declared_shape(named["items"])[0]), nullable
    if named["type"] == "object":
        return ("mapping", declared_shape(named["additionalProperties"])[0]), nullable
    return JSON_TYPES[named["type"]], nullable


def python_shape(hint) -> tuple[object, bool]:
    """A field's shape, as declared_shape gives a property's, and whether it may be None; a dataclass is named by its type."""
    if typing.get_origin(hint) is types.UnionType:
        return python_shape(next(a for a in typing.get_args(hint) if a is not type(None)))[0], True
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if dataclasses.is_dataclass(hint):
        return ("class", hint), False
    if origin is tuple:
        return ("tuple", python_shape(args[0])[0]), False
    if origin is Mapping:
        return ("mapping", python_shape(args[1])[0] if args[1] is not Any else Any), False
    return hint, False


def held(read_as: type, schema: str, written_by: str) -> list[tuple[type | None, str]]:
    """`read_as` and every type it holds, each beside the class it is declared as; a class read as a mapping, with None."""
    pairs, todo = {}, [(read_as, written_by)]
    while todo:
        cls, name = todo.pop()
        if name in pairs:
            assert pairs[name] is cls, f"{name} is read as {pairs[name]} and as {cls}: one type a class"
            continue
        pairs[name] = cls
        if cls is None:
            continue
        declared = definitions(schema)[name]["properties"]
        hints = typing.get_type_hints(cls)
        for f in fields(cls):
            mine, theirs = (
                python_shape(hints[f.name])[0],
                declared_shape(declared[recorded_name(f.name)])[0] if recorded_name(f.name) in declared else None,
            )
            todo += _classes(mine, theirs)
    return [(cls, name) for name, cls in pairs.items()]


def _classes(mine, theirs) -> list[tuple[type | None, str]]:
    """The (type, class name) pairs a field's shape and its property's shape refer to, side by side."""
    if isinstance(theirs, tuple) and theirs[0] == "class":
        return [(mine[1] if isinstance(mine, tuple) and mine[0] == "class" else None, theirs[1])]
    if isinstance(theirs, tuple) and isinstance(mine, tuple) and mine[0] == theirs[0]:
        return _classes(mine[1], theirs[1])
    if isinstance(theirs, tuple) and isinstance(mine, tuple) and mine[0] == "mapping" and mine[1] is Any:
        return _classes(None, theirs[1])
    return []


def _same(mine, theirs) -> bool:
    """Whether a field's shape is its property's: a class by the type declared as it, or by a mapping where READ_AS_MAPPINGS says so."""
    if isinstance(theirs, tuple) and theirs[0] == "class":
        if isinstance(mine, tuple) and mine[0] == "class":
            return True  # held() pairs the two, and the pair is held to its declaration in turn
        return typing.get_origin(mine) is Mapping or mine is Mapping or (isinstance(mine, tuple) and mine == ("mapping", Any))
    if isinstance(theirs, tuple) and isinstance(mine, tuple):
        return mine[0] == theirs[0] and (mine[1] is Any or _same(mine[1], theirs[1]))
    return mine == theirs


def every_pair():
    for read_as, schema, written_by in DECLARED_AS:
        for cls, name in held(read_as, schema, written_by):
            yield pytest.param(cls, schema, name, id=f"{read_as.__name__}-{name.rsplit('.', 1)[-1]}")


@pytest.mark.parametrize(("read_as", "schema", "written_by"), list(every_pair()))
def test_a_type_has_each_property_its_writer_writes_under_its_name_with_its_type(read_as, schema, written_by):
    if read_as is None:
        assert written_by in READ_AS_MAPPINGS, f"{written_by} is read as a mapping: declare a type for it, or say who reads it"
        return
    declared = definitions(schema)[written_by]["properties"]
    hints = typing.get_type_hints(read_as)

    assert sorted(recorded_name(f.name) for f in fields(read_as)) == sorted(declared)
    for f in fields(read_as):
        (mine, may_be_none), (theirs, nullable) = python_shape(hints[f.name]), declared_shape(declared[recorded_name(f.name)])
        # A property added within the format may be None here, for a folder from before it, where its writer always writes it.
        assert _same(mine, theirs) and (may_be_none == nullable or (may_be_none and ADDED_LATER in f.metadata)), (
            f"{read_as.__name__}.{f.name} is {hints[f.name]}, declared {declared[recorded_name(f.name)]}"
        )


@pytest.mark.parametrize(("read_as", "schema", "written_by"), [p for p in every_pair() if p.values[0] is not None])
def test_a_type_requires_what_its_writer_always_writes_and_defaults_the_rest_as_the_writer_does(read_as, schema, written_by):
    declared = definitions(schema)[written_by]
    added_later = {recorded_name(f.name) for f in fields(read_as) if ADDED_LATER in f.metadata}
    required = [recorded_name(f.name) for f in fields(read_as) if default_of(f) is MISSING]
    defaults = {recorded_name(f.name): default_of(f) for f in fields(read_as) if default_of(f) is not MISSING}

    assert sorted(required + sorted(added_later)) == sorted(declared["required"])
    assert {n: list(d) if isinstance(d, tuple) else d for n, d in defaults.items() if n not in added_later} == {
        n: p["default"] for n, p in declared["properties"].items() if n not in declared["required"]
    }


def test_an_outcome_reads_what_it_recorded_and_the_writers_default_for_what_it_left_out():
    outcome = PassOutcome.read(
        {"server": "jetty-virtual", "status": "failed", "seconds": 12.5, "reason": "exited with 137", "marks": ["k6 checks failed"]}
    )

    assert (outcome.server, outcome.ok, outcome.reason, outcome.marks) == ("jetty-virtual", False, "exited with 137", ("k6 checks failed",))
    assert (outcome.jfr_streaming, outcome.repeat, outcome.load_start_epoch_ms) == (True, 1, None)
    assert math.isnan(PassOutcome.incomplete("jetty-virtual").seconds)


def test_an_outcome_without_a_property_the_harness_always_writes_is_refused_in_one_line_naming_it():
    with pytest.raises(DeclaredError, match=r"^an outcome has no status, seconds: its manifest was not written by this lab's harness$"):
        PassOutcome.read({"server": "jetty-virtual"})


def test_a_manifest_whose_outcome_is_not_the_harnesss_is_no_run_and_says_which_file(tmp_path):
    manifest = json.loads((FIXTURES / "smoke-run" / "manifest.json").read_text())
    del manifest["outcomes"][0]["seconds"]
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))

    with pytest.raises(
        RunFolderError, match=r"manifest\.json: one of the manifest's outcomes has no seconds: its manifest was not written by this lab's harness$"
    ):
        load_run(tmp_path)


def test_a_null_where_the_harness_always_writes_a_value_is_refused_naming_it():
    with pytest.raises(DeclaredError, match=r"^an outcome's seconds is null: its manifest was not written by this lab's harness$"):
        PassOutcome.read({"server": "jetty-virtual", "status": "ok", "seconds": None})


def test_a_property_a_newer_harness_added_in_the_same_format_is_left_out():
    assert PassOutcome.read({"server": "s", "status": "ok", "seconds": 1.0, "addedLater": 3}) == PassOutcome(server="s", status="ok", seconds=1.0)


def _same_as_recorded(recorded, read, where: str) -> None:
    """`read` holds every property `recorded` has, with its value; a property the type does not know (a property an older run of
    the same format held and the harness no longer writes, curve-run's jsonCpu) is left out."""
    if isinstance(recorded, dict) and isinstance(read, dict):
        for name in recorded.keys() & read.keys():
            _same_as_recorded(recorded[name], read[name], f"{where}.{name}")
        assert len(recorded.keys() & read.keys()) >= min(len(recorded), 1), where
    elif isinstance(recorded, list) and isinstance(read, list):
        assert len(recorded) == len(read), where
        for i, (one, other) in enumerate(zip(recorded, read, strict=True)):
            _same_as_recorded(one, other, f"{where}[{i}]")
    else:
        assert recorded == read, where


COMMITTED = [
    ("smoke-run", load_run),
    ("repeats-run", load_run),
    ("curve-run", load_run),
    ("sweep", sweepfolder.load),
    ("sweep-threads", sweepfolder.load),
    ("floor", floor.load),
    ("autobahn/20261129-103400-autobahn", autobahnfolder.load),
]


@pytest.mark.parametrize(("fixture", "load"), COMMITTED, ids=[f for f, _ in COMMITTED])
def test_every_part_a_committed_run_recorded_reads_as_it_was_written(fixture, load):
    manifest = json.loads((FIXTURES / fixture / "manifest.json").read_text())

    _same_as_recorded(manifest, recorded(load(FIXTURES / fixture).manifest), "manifest")


def test_a_clients_run_from_before_the_header_reads_its_top_levels_header_properties_as_its_header():
    manifest = json.loads((FIXTURES / "clients" / "manifest.json").read_text())
    read = recorded(clients.load(FIXTURES / "clients").manifest)

    assert "provenance" not in manifest
    _same_as_recorded({name: value for name, value in manifest.items() if name not in PROVENANCE_FIELDS}, read, "manifest")
    _same_as_recorded({name: value for name, value in manifest.items() if name in PROVENANCE_FIELDS}, read["provenance"], "provenance")
