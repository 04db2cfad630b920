"""The seed's claims against a run: held within a quarter, unresolved when the interval reaches the claim, otherwise not."""

import pytest

from labanalysis import claims
from labanalysis.claims import Claim
from labanalysis.run import load_run

ABOUT_1_2_GB = Claim("coroutine", "RSS at 50K", "~1.2 GB", 1.2e9, 1.2e9, "rss_at_50k")


@pytest.mark.parametrize(
    "measured, low, high, expected",
    [
        (1.2e9, float("nan"), float("nan"), "held"),
        (1.45e9, float("nan"), float("nan"), "held"),
        (3.6e9, 3.0e9, 4.0e9, "no: 3x the claim"),
        (0.3e9, 0.2e9, 0.4e9, "no: 0.25x the claim"),
        (3.6e9, 0.5e9, 7.0e9, "not resolved: 3x the claim, but the 95% interval includes it"),
        (float("nan"), float("nan"), float("nan"), "not measured"),
    ],
)
def test_verdict(measured, low, high, expected):
    assert claims.verdict(ABOUT_1_2_GB, measured, low, high) == expected


def test_a_range_claim_holds_anywhere_in_its_range():
    per_task = Claim("virtual", "per task", "~1-2 KB", 1024, 2048, "rss_per_socket")

    assert claims.verdict(per_task, 1500) == "held"
    assert claims.verdict(per_task, 37_457) == "no: 18x the claim"


def test_limits_at_50k_from_the_measured_threads_files_and_maps_per_socket(run_folder):
    # The fixture's host: 20,000 open files, pid_max 32,768, vm.max_map_count 65,530. Every
    # server needs a file per socket; the platform server also a thread and two maps per socket.
    run = load_run(run_folder)

    coroutine = claims.limits_at(run, run.server("coroutine"), 50_000)
    platform = claims.limits_at(run, run.server("platform"), 50_000)

    assert coroutine.startswith("open files (ulimit -n)") and "pid_max" not in coroutine
    assert "kernel.pid_max" in platform and "vm.max_map_count" in platform and "open files" in platform
    assert claims.limits_at(run, run.server("platform"), 1_000) == "none"


def test_the_table_has_a_row_per_claim_with_this_runs_value(run_folder):
    table = claims.table(load_run(run_folder))

    assert len(table) == len(claims.CLAIMS)
    assert set(table["server"]) == {"coroutine", "vthread", "platform"}
    rss = table[~table["claim"].str.contains("live heap")]
    assert rss["this run"].ne("").all()
    # The fixture's servers collected garbage once each, after the socket steps: no live-heap line.
    live = table[table["claim"].str.contains("live heap")]
    assert list(live["held?"]) == ["not measured", "not measured"]
