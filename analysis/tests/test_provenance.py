"""Every kind of run says where it came from in one header, read into one type; a clients run from before the header, which kept
the same properties at its manifest's top level, reads the same."""

import json

import pytest

from labanalysis.folder import provenance
from labanalysis.folder.declared import DeclaredError
from labanalysis.folder.provenance import Host, Jdk, Provenance

HEADER = {
    "status": "complete",
    "command": "java -jar lab.jar --profile smoke",
    "startedAt": "2026-11-22T16:00:00Z",
    "finishedAt": "2026-11-22T16:03:00Z",
    "host": {"hostname": "lab", "kernel": "6.1", "cpuModel": "x", "cpus": 2, "memoryBytes": 1 << 34},
    "jdk": {"home": "/jdk", "version": "25.0.3", "feature": 25},
    "gitCommit": "0123456789abcdef0123456789abcdef01234567",
    "gitDirty": True,
    "gitDirtyPaths": ["README.md"],
}


def test_a_manifest_with_the_header_is_read_from_it():
    found = provenance.of({"provenance": HEADER, "status": "ignored"})

    assert found == Provenance(
        status="complete",
        command="java -jar lab.jar --profile smoke",
        started_at="2026-11-22T16:00:00Z",
        finished_at="2026-11-22T16:03:00Z",
        host=Host(hostname="lab", kernel="6.1", cpu_model="x", cpus=2, memory_bytes=1 << 34),
        jdk=Jdk(home="/jdk", version="25.0.3", feature=25),
        git_commit="0123456789abcdef0123456789abcdef01234567",
        git_dirty=True,
        git_dirty_paths=("README.md",),
    )
    assert found.commit() == "0123456789ab (with uncommitted changes to README.md)"


def test_a_dirty_run_from_before_the_paths_were_recorded_says_only_that_it_was_dirty():
    header = {k: v for k, v in HEADER.items() if k != "gitDirtyPaths"}

    assert provenance.of({"provenance": header}).commit() == "0123456789ab (with uncommitted changes)"


def test_a_headlines_source_line_says_a_run_was_dirty_without_its_paths_which_would_break_its_comma_separated_fields():
    header = HEADER | {"gitDirtyPaths": ["README.md", "docs/METHODS.md"]}

    assert provenance.of({"provenance": header}).headline_commit() == "0123456 with uncommitted changes"


def test_a_clients_manifest_from_before_the_header_reads_the_same():
    assert provenance.of(HEADER) == provenance.of({"provenance": HEADER})


def test_a_header_without_what_the_harness_always_writes_is_refused_naming_it():
    with pytest.raises(DeclaredError, match=r"^the manifest's provenance has no command, host"):
        provenance.of({"provenance": {k: v for k, v in HEADER.items() if k not in ("command", "host")}})


def test_a_manifest_not_read_into_a_type_yet_gives_its_header_with_what_it_did_not_record_empty():
    found = provenance.recorded({"startedAt": "2026-11-22T16:00:00Z"})

    assert found["host"] == {} and found["jdk"] == {} and found["status"] is None and found["startedAt"] == "2026-11-22T16:00:00Z"


def test_the_fixture_runs_of_every_kind_have_a_status(run_folder, fixture_copy):
    for folder in [run_folder, fixture_copy("clients", "20261122-075000-clients")]:
        assert provenance.of(json.loads((folder / "manifest.json").read_text())).complete
