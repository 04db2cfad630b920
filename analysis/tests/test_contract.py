"""The run folder's JSON documents are read through types held to the schemas under contract/, which the harness's own classes
make (lab.contract.ContractSchemaTest): a property the harness writes is a field here, under its name, of its type, with the
default the harness leaves out; and every outcome a committed fixture recorded reads."""

import json
import math
import types
import typing
from collections.abc import Mapping
from dataclasses import MISSING, fields
from pathlib import Path

import pytest

from labanalysis.folder.bench_manifest import CpuSplit, HostLimits, LoadPhase
from labanalysis.folder.declared import DeclaredError, facts, recorded_name
from labanalysis.folder.outcome import PassOutcome
from labanalysis.folder.run import RunFolderError, load_run

CONTRACT = Path(__file__).resolve().parents[2] / "contract"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
JSON_TYPES = {"string": str, "integer": int, "number": float, "boolean": bool, "array": tuple, "object": Mapping}


def definition(schema: str, name: str) -> dict:
    return json.loads((CONTRACT / schema).read_text())["$defs"][name]


def json_type(property_schema: dict) -> tuple[type, bool]:
    """A declared property's type, and whether it may be null."""
    kinds = property_schema.get("anyOf", [property_schema])
    named = [k["type"] for k in kinds if k.get("type") != "null"]
    return JSON_TYPES[named[0]], len(named) < len(kinds)


def python_type(hint) -> tuple[type, bool]:
    """A field's type, and whether it may be None."""
    if typing.get_origin(hint) is types.UnionType:
        return python_type(next(a for a in typing.get_args(hint) if a is not type(None)))[0], True
    return typing.get_origin(hint) or hint, False


def written(read) -> dict:
    """A part of a manifest as JSON holds it: a tuple as a list."""
    return {name: list(value) if isinstance(value, tuple) else value for name, value in facts(read).items()}


# Each type the analysis reads a bench manifest's part into, and the harness's class it is declared as.
DECLARED_AS = [
    (PassOutcome, "lab.bench.ServerOutcome"),
    (LoadPhase, "lab.bench.load.LoadPhase"),
    (CpuSplit, "lab.bench.host.CpuSplit"),
    (HostLimits, "lab.bench.host.HostLimits"),
]


@pytest.mark.parametrize(("read_as", "written_by"), DECLARED_AS, ids=[c.__name__ for c, _ in DECLARED_AS])
def test_a_type_has_each_property_its_writer_writes_under_its_name_with_its_type(read_as, written_by):
    declared = definition("bench-manifest.schema.json", written_by)["properties"]

    fields_as_recorded = {recorded_name(name): python_type(hint) for name, hint in typing.get_type_hints(read_as).items()}
    assert fields_as_recorded == {name: json_type(p) for name, p in declared.items()}


@pytest.mark.parametrize(("read_as", "written_by"), DECLARED_AS, ids=[c.__name__ for c, _ in DECLARED_AS])
def test_a_type_requires_what_its_writer_always_writes_and_defaults_the_rest_as_the_writer_does(read_as, written_by):
    declared = definition("bench-manifest.schema.json", written_by)
    required = [f for f in fields(read_as) if f.default is MISSING]
    defaults = {recorded_name(f.name): f.default for f in fields(read_as) if f.default is not MISSING}

    assert sorted(recorded_name(f.name) for f in required) == sorted(declared["required"])
    assert {n: list(d) if isinstance(d, tuple) else d for n, d in defaults.items()} == {
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

    with pytest.raises(RunFolderError, match=r"manifest\.json: an outcome has no seconds"):
        load_run(tmp_path)


def test_a_property_a_newer_harness_added_in_the_same_format_is_left_out():
    assert PassOutcome.read({"server": "s", "status": "ok", "seconds": 1.0, "addedLater": 3}) == PassOutcome(server="s", status="ok", seconds=1.0)


@pytest.mark.parametrize("fixture", ["smoke-run", "repeats-run", "curve-run"])
def test_every_part_a_committed_run_recorded_reads_as_it_was_written(fixture):
    manifest = json.loads((FIXTURES / fixture / "manifest.json").read_text())
    run = load_run(FIXTURES / fixture)
    by_folder = {s.outcome.folder: s.outcome for s in run.servers}
    pairs = [(r, by_folder[r["folder"]]) for r in manifest["outcomes"]] + list(zip(manifest.get("timeline", []), run.timeline, strict=True))
    pairs += [(manifest["cpuSplit"], run.cpu_split), (manifest["limits"], run.limits)]

    # An older run of the same format may hold a property the harness has since stopped writing (curve-run's jsonCpu): left out.
    assert manifest["outcomes"]
    for recorded, read in pairs:
        known = written(read)
        assert {name: known[name] for name in recorded if name in known} == {name: v for name, v in recorded.items() if name in known}
        assert len(known.keys() & recorded.keys()) >= min(len(recorded), 2)
