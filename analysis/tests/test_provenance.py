"""Every kind of run says where it came from in one header, and runs from before the header read the same."""

import json

from labanalysis.folder import provenance

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

    assert found == HEADER
    assert provenance.commit({"provenance": HEADER}) == "0123456789ab (with uncommitted changes to README.md)"


def test_a_dirty_run_from_before_the_paths_were_recorded_says_only_that_it_was_dirty():
    header = {k: v for k, v in HEADER.items() if k != "gitDirtyPaths"}

    assert provenance.commit({"provenance": header}) == "0123456789ab (with uncommitted changes)"


def test_a_headlines_source_line_says_a_run_was_dirty_without_its_paths_which_would_break_its_comma_separated_fields():
    header = HEADER | {"gitDirtyPaths": ["README.md", "docs/METHODS.md"]}

    assert provenance.headline_commit({"provenance": header}) == "0123456 with uncommitted changes"


def test_a_bench_manifest_from_before_the_header_reads_the_same():
    old = {k: v for k, v in HEADER.items() if k != "jdk"} | {"serverJdk": HEADER["jdk"]}

    assert provenance.of(old) == HEADER


def test_what_a_run_did_not_record_is_empty_not_missing():
    found = provenance.of({"startedAt": "2026-11-22T16:00:00Z"})

    assert found["host"] == {} and found["jdk"] == {} and found["status"] is None
    assert provenance.commit({}) == "?"


def test_the_fixture_runs_of_every_kind_have_a_status(run_folder, fixture_copy):
    for folder in [run_folder, fixture_copy("clients", "20261122-075000-clients")]:
        assert provenance.status(json.loads((folder / "manifest.json").read_text())) == "complete"
