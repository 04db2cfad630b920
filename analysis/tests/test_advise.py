"""make advise: a reader's workload (idle sockets, a rate, a wait) taken along each server's measured lines, pass by pass, to what it
would need, each need set against this host's limit for it. The repeats-run fixture's lines are known by construction
(make_repeats_run.py): live heap 40 MiB plus 2,000 / 2,100 / 1,900 B a socket for vthread; threads 40, plus one a socket for
platform; 20 open files plus one a socket for both, and 4 more from the /json warm-up on, the connections k6 opened there and kept;
a 160 MiB heap and 20,000 open files."""

import dataclasses

import pandas as pd
import pytest

from labanalysis.bench import memory
from labanalysis.folder.run import load_run
from labanalysis.verdict import advise, advise_check, advise_command

MIB = 1 << 20


@pytest.fixture(scope="module")
def run():
    return load_run("tests/fixtures/repeats-run")


def need(table, server: str, column: str) -> str:
    return table.set_index("server").loc[server, column]


def test_requests_in_flight_follow_littles_law():
    assert advise.Workload(0, 2_000, 100).in_flight == 200


def test_the_connections_held_are_those_kept_open_and_one_a_request_in_flight_at_least():
    assert advise.Workload(0, 2_000, 100).connections_held == 200
    assert advise.Workload(0, 2_000, 100, connections=50).connections_held == 200
    assert advise.Workload(0, 2_000, 100, connections=500).connections_held == 500


def test_a_workload_over_kept_connections_needs_a_file_for_each(run):
    alone = advise.per_pass([run], advise.Workload(10_000, 0, 0))
    kept = advise.per_pass([run], advise.Workload(10_000, 0, 0, connections=300))

    assert list(kept["open files"] - alone["open files"]) == pytest.approx([300] * 6)


def test_each_need_is_the_pass_by_pass_line_at_the_workload_across_passes(run):
    per_pass = advise.per_pass([run], advise.Workload(10_000, 0, 0))

    vthread = per_pass[per_pass["server"] == "vthread"]
    assert sorted(vthread["live heap (MiB)"]) == pytest.approx([40 + 10_000 * b / MIB for b in (1_900, 2_000, 2_100)])
    platform = per_pass[per_pass["server"] == "platform"]
    assert list(platform["threads"]) == pytest.approx([10_040] * 3)
    assert list(platform["open files"]) == pytest.approx([10_020] * 3)


def test_the_table_shows_the_median_with_the_range_across_passes(run):
    table = advise.table([run], advise.Workload(10_000, 0, 0))

    assert need(table, "vthread", "live heap (MiB)") == "59.07 [58.12, 60.03]"


def test_the_first_limit_is_the_need_that_fills_its_limit_the_most(run):
    table = advise.table([run], advise.Workload(25_000, 0, 0))

    # 25,020 files of 20,000 against a live heap of 111 MiB of 160 and 25,040 threads of 32,768.
    assert need(table, "platform", "the first limit it would hit") == "open files (needs 125% of the 20,000 open files here)"


def bounded(run, monkeypatch, server: str, threads_max: int) -> None:
    """`server`'s passes as a server whose READY line gave its pool's bound: a fact of the run, which advise does not read."""
    for passed in run.servers:
        if passed.server == server:
            monkeypatch.setattr(passed, "outcome", dataclasses.replace(passed.outcome, pool_threads_max=threads_max))


def test_a_bounded_pool_is_sized_to_its_run_so_its_bound_is_no_limit_for_another_shape(run, monkeypatch):
    bounded(run, monkeypatch, "platform", 16_000)
    table = advise.table([run], advise.Workload(25_000, 0, 0))

    # 25,040 threads, over the 16,000 its pool was given for the run, under pid_max's 32,768: the open files' 125% comes first.
    limits = advise.per_pass([run], advise.Workload(25_000, 0, 0)).set_index("server").loc["platform", advise.LIMITS]
    assert {limit["threads"] for limit in limits} == {advise.Limit(32_768.0)}
    assert need(table, "platform", "the first limit it would hit") == "open files (needs 125% of the 20,000 open files here)"


def test_a_workload_within_every_limit_names_the_closest_one(run):
    table = advise.table([run], advise.Workload(15_000, 0, 0))

    assert need(table, "vthread", "the first limit it would hit").startswith("none; closest: open files (needs 75% of")


def test_a_run_without_a_curve_says_its_cpu_is_not_measured(run):
    assert need(advise.table([run], advise.MISSION), "vthread", "CPU (cores)") == "not measured"


def test_a_negative_count_is_refused_in_one_line(capsys):
    assert advise_command.main(["tests/fixtures/repeats-run", "--sockets", "-5"]) == 2
    assert "give each as 0 or more" in capsys.readouterr().err


def test_a_folder_that_is_no_run_is_refused_in_one_line(tmp_path, capsys):
    assert advise_command.main([str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith("make advise: ")


def test_advise_at_the_runs_own_shape_agrees_with_what_its_steady_phase_measured_where_the_lines_are_known(run):
    # The fixture's threads and open files follow their lines in every phase: advise at the run's 400 sockets gives what the /json
    # phase counted.
    held = advise_check.checked([run]).set_index(["server", "need"])

    # The 4 connections are k6's, counted from its samples, not read off the phase's open files.
    assert advise_check.own_shape(run) == advise.Workload(400, 20, 0, connections=4)
    assert held.loc[("vthread", "open files"), "make advise"] == "424 [424, 424]"
    assert held.loc[("vthread", "open files"), "measured"] == "424 [424, 424]"
    assert held.loc[("platform", "threads"), "make advise"] == "440 [440, 440]"
    assert held.loc[("platform", "threads"), "measured"] == "440 [440, 440]"
    assert held.loc[("platform", "threads"), "agrees"] == "yes: the ranges across passes overlap"
    assert held.loc[("vthread", "open files"), "agrees"] == "yes: the ranges across passes overlap"
    # No curve, so no CPU line to hold to the phase's 0.3 cores.
    assert held.loc[("vthread", "CPU (cores)"), "agrees"] == "not measured"


def test_threads_and_open_files_are_whole_counts_so_a_line_a_fraction_of_a_file_off_agrees(run, monkeypatch):
    # A line through counts gives fractions between them: 20.4 at rest and one a socket is 420.4 at 400 sockets, and /proc counts
    # 420 (make bench, 20261203-150753-local: 17,278.4 open files predicted against 17,278 counted in every pass).
    line = memory.LineFit(1.0, 1.0, 1.0, 20.4, 1.0, 4)
    monkeypatch.setattr(advise.memory, "per_connection", lambda points, column, settled_only=True: line)
    needs = advise.per_pass([run], advise.Workload(400, 0, 0))

    assert set(needs["threads"]) == {420.0}
    assert set(needs["open files"]) == {420.0}


def test_a_line_that_misses_what_the_phase_measured_is_said_to_disagree(run, monkeypatch):
    measured = advise_check.measured_at_own_shape([run])
    # As a pool of clients' connections would: 2,000 more open files in the phase than the idle sockets' line holds.
    monkeypatch.setattr(advise_check, "measured_at_own_shape", lambda runs: measured.assign(**{"open files": measured["open files"] + 2_000}))
    held = advise_check.checked([run]).set_index(["server", "need"])

    assert held.loc[("vthread", "open files"), "measured over advise"] == "5.72x"
    assert held.loc[("vthread", "open files"), "agrees"] == "no: the ranges across passes are apart"


def pass_cores(cores: list[float], stderr: list[float]) -> pd.DataFrame:
    return pd.DataFrame({"pass": [f"p{i}" for i in range(len(cores))], "CPU (cores)": cores, advise.CPU_STDERR: stderr})


def test_the_line_and_the_phase_agree_on_cpu_where_every_pass_puts_them_within_two_standard_errors_of_their_difference():
    # Standard errors of 0.003 and 0.004 cores make their difference's 0.005: 1.96 of it is 0.0098 cores.
    line = pass_cores([0.150, 0.160], [0.003, 0.003])

    assert advise_check.cpu_agrees(line, pass_cores([0.159, 0.151], [0.004, 0.004])).startswith("yes: ")
    assert advise_check.cpu_agrees(line, pass_cores([0.159, 0.170], [0.004, 0.004])) == (
        "no: within 1.96 standard errors of their difference in 1 of 2 passes"
    )


class _Cores:
    """A CPU line that gives `cores` at any rate."""

    def __init__(self, cores: float):
        self.cores = cores

    def cores_at(self, rate: float) -> float:
        return self.cores

    def stderr_cores_at(self, rate: float) -> float:
        return 0.001


def test_the_cpu_leaves_out_a_round_the_host_took_and_the_counts_at_rest_keep_it(run, monkeypatch):
    # Round 2 needs three times the cores, as a pass does whose host took its CPU; the host marked its vthread pass only, and the
    # whole round goes, as in the verdict.
    cores = {1: 0.30, 2: 0.90, 3: 0.32}
    monkeypatch.setattr(advise.cpu, "whole_cpu_fit", lambda server, endpoint: _Cores(cores[server.repeat]))
    monkeypatch.setattr(advise.cpu, "host_took", lambda server, cpus: "the host took the pass" if server.name == "vthread-r2" else None)
    passes = advise.per_pass([run], advise.Workload(400, 20, 0))
    table = advise.of_passes(passes)

    assert need(table, "vthread", "CPU (cores)") == need(table, "platform", "CPU (cores)") == "0.31 [0.3, 0.32]"
    # Memory at rest keeps round 2: vthread's three passes hold 1,900, 2,000 and 2,100 B a socket, and its range spans all three.
    vthread = passes[passes["server"] == "vthread"]
    assert need(table, "vthread", "live heap (MiB)") == advise.need_shown(advise.stats.across(vthread["live heap (MiB)"]))
    assert advise.stats.across(vthread["live heap (MiB)"]).passes == 3
    assert advise.host_note(passes) == (
        "The CPU leaves out the rounds the host took; the memory, threads and files keep them: round 2 of "
        f"`{run.folder.name}` (vthread-r2: the host took the pass)."
    )


def test_a_cpu_the_host_took_in_every_round_says_so(run, monkeypatch):
    monkeypatch.setattr(advise.cpu, "whole_cpu_fit", lambda server, endpoint: _Cores(0.3))
    monkeypatch.setattr(advise.cpu, "host_took", lambda server, cpus: "the host took the pass")
    table = advise.table([run], advise.Workload(400, 20, 0))

    assert need(table, "vthread", "CPU (cores)") == advise.HOST_TOOK_EVERY_ROUND
    assert need(table, "platform", "threads") == "440 [440, 440]"
    assert need(table, "vthread", "the first limit it would hit").endswith(f"(its CPU not judged: {advise.HOST_TOOK_EVERY_ROUND})")
