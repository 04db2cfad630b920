"""Repeats are the unit of evidence: a figure across passes is their median with their range, two servers are apart only when
their ranges are, one pass concludes nothing, and runs pool as repeats only when they ran the same thing."""

import json
import math
import shutil

import pytest

from labanalysis import stats
from labanalysis.folder import repeats
from labanalysis.folder.run import load_run
from labanalysis.stats import Across


def test_a_figure_across_passes_is_their_median_with_their_range():
    assert stats.across([5.0, 7.0, 6.0]) == Across(6.0, 5.0, 7.0, 3)


def test_one_pass_has_a_median_and_no_interval():
    found = stats.across([5.0, math.nan])

    assert (found.median, found.passes, found.has_interval) == (5.0, 1, False)
    assert math.isnan(found.low) and math.isnan(found.high)


def test_two_servers_are_apart_only_when_their_ranges_do_not_overlap():
    assert stats.apart(Across(6, 5, 7, 3), Across(22, 20, 25, 3), lower_is_better=True) == "apart across passes"
    assert stats.apart(Across(6, 5, 21, 3), Across(22, 20, 25, 3), lower_is_better=True) == "overlap across passes: not resolved"
    assert stats.apart(Across(22, 20, 25, 3), Across(6, 5, 7, 3), lower_is_better=False) == "apart across passes"


def test_with_one_pass_no_comparison_can_be_concluded_however_far_apart():
    assert stats.apart(Across(1, math.nan, math.nan, 1), Across(1000, 900, 1100, 3), lower_is_better=True) == stats.ONE_PASS
    assert stats.ONE_PASS == "one pass: no comparison can be concluded"


def test_the_passes_compared_are_every_repeat_that_ended_ok(repeats_folder):
    run = load_run(repeats_folder)

    assert [base["pass"] for _, _, base in repeats.each_pass([run])] == run.pass_order


# ---- pooling run folders as repeats (ALSO=) -----------------------------------------------------------


def _copy_with(repeats_folder, tmp_path, change) -> "object":
    other = tmp_path / "other-run"
    shutil.copytree(repeats_folder, other)
    manifest = json.loads((other / "manifest.json").read_text())
    change(manifest)
    (other / "manifest.json").write_text(json.dumps(manifest))
    return load_run(other)


def test_runs_of_the_same_rate_profile_flags_and_jdk_pool(repeats_folder, tmp_path):
    other = _copy_with(repeats_folder, tmp_path, lambda m: m["profile"].update(description="said another way"))

    assert repeats.first_difference(load_run(repeats_folder), other) is None


@pytest.mark.parametrize(
    "change, difference",
    [
        (lambda m: m.update(jsonRatePerSecond=40), "the /json rate differs (20/s against 40/s)"),
        (lambda m: m.update(profileName="local"), "the profile differs (fixture against local)"),
        (lambda m: m["profile"].update(heapMb=2048), "the profile's heapMb differs (160 against 2048)"),
        (lambda m: m["jvmFlags"].remove("-XX:ActiveProcessorCount=1"), "the JVM flags differ (-XX:ActiveProcessorCount=1 against (none))"),
        (lambda m: m["provenance"]["jdk"].update(version="25.0.1"), "the JDK differs (25.0.3 against 25.0.1)"),
    ],
)
def test_runs_that_differ_in_rate_profile_flags_or_jdk_do_not_pool_and_the_first_difference_is_named(repeats_folder, tmp_path, change, difference):
    other = _copy_with(repeats_folder, tmp_path, change)

    assert repeats.first_difference(load_run(repeats_folder), other) == difference
