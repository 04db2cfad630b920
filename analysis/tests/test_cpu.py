"""The CPU of every process, per pass, and the marks on a pass whose load generator was the bottleneck or whose server was
saturated. The fixture's figures are
make_repeats_run.py's: the server at 0.3 (vthread) or 0.5 (platform) cores in the /json phase, k6 at 0.45, the load's CPUs 50%
busy, except platform-r2's: 95% busy in 6 of its 10 /json seconds, with 12 dropped iterations; the server's CPUs as busy as the
server's cores."""

import math

import pandas as pd
import pytest

from labanalysis.bench import cpu
from labanalysis.folder.run import load_run


def _load_busy(folder, name: str, busy_seconds: int, phase: str = "json", cpus: str = "load_cpus_busy", server_cores: float | None = None) -> None:
    """Sets `name`'s load CPUs (or `cpus`) 95% busy in the first `busy_seconds` of `phase`, and 50% in every other second of it;
    and the server's own cores in those busy seconds to `server_cores`, where given."""
    path = folder / name / "cpu.csv"
    frame = pd.read_csv(path)
    rows = frame.index[frame["phase"] == phase]
    frame.loc[rows, cpus] = 0.5
    frame.loc[rows[:busy_seconds], cpus] = 0.95
    if server_cores is not None:
        frame.loc[rows[:busy_seconds], "server"] = server_cores
    frame.to_csv(path, index=False)


def test_the_pass_whose_load_cpus_were_busy_is_marked_and_says_its_latency_measures_the_load_generator(repeats_folder):
    run = load_run(repeats_folder)

    assert [s.name for s in run.servers if cpu.bottleneck(s)] == ["platform-r2"]
    assert cpu.bottleneck(run.server("platform-r2")) == (
        "the load generator was the bottleneck: its CPUs were 90% busy or more in 60% of the /json phase's seconds (the mark: 20%), "
        "so this pass's latency figures measure the load generator, not the server"
    )


@pytest.mark.parametrize("busy_seconds, marked", [(1, False), (2, True)])
def test_a_pass_is_marked_from_a_fifth_of_the_json_phases_seconds_at_90_percent_busy(repeats_folder, busy_seconds, marked):
    _load_busy(repeats_folder, "vthread", busy_seconds)

    assert bool(cpu.bottleneck(load_run(repeats_folder).server("vthread"))) is marked


def test_busy_load_cpus_outside_the_json_phase_do_not_mark_a_pass(repeats_folder):
    _load_busy(repeats_folder, "vthread", busy_seconds=5, phase="dashboard")

    assert cpu.bottleneck(load_run(repeats_folder).server("vthread")) is None


def test_dropped_iterations_while_the_load_cpus_were_idle_do_not_mark_a_pass(repeats_folder):
    # platform-r2 keeps its 12 dropped iterations, as a stalled server would cause, but its load CPUs were half idle.
    _load_busy(repeats_folder, "platform-r2", busy_seconds=0)

    assert cpu.bottleneck(load_run(repeats_folder).server("platform-r2")) is None


@pytest.mark.parametrize("busy_seconds, marked", [(1, False), (2, True)])
def test_a_pass_whose_server_cpus_were_busy_a_fifth_of_the_json_phase_is_marked_saturated(repeats_folder, busy_seconds, marked):
    _load_busy(repeats_folder, "vthread", busy_seconds, cpus="server_cpus_busy", server_cores=0.93)
    run = load_run(repeats_folder)

    assert bool(cpu.saturated(run.server("vthread"), cpu.server_cpu_count(run))) is marked
    assert cpu.bottleneck(run.server("vthread")) is None
    assert (cpu.phase_table([run]).set_index("pass").loc["vthread", "mark"] == "server was saturated") is marked


@pytest.mark.parametrize(
    "server_cores, why, mark",
    [
        # The server itself filled its CPU: its latency holds a queue.
        (
            0.93,
            "the server was saturated: its CPUs were 90% busy or more in 70% of the /json phase's seconds (the mark: 20%), so this "
            "pass's latency figures hold requests queued for its CPU, not a latency well under saturation",
            "server was saturated",
        ),
        # The server used 0.3 of a core while its CPU was 95% busy: another program filled it.
        (
            0.3,
            "other work shared the server's CPUs: they were 90% busy or more in 70% of the /json phase's seconds (the mark: 20%), and "
            "the server itself used 0.30 of their 0.95 busy cores in those seconds, so this pass's figures hold another program's turn "
            "on its CPUs, not the server at its limit",
            "server's CPUs shared with other work",
        ),
    ],
    ids=["the server saturated", "shared with other work"],
)
def test_a_pass_whose_server_cpus_were_full_says_whose_work_filled_them(repeats_folder, server_cores, why, mark):
    _load_busy(repeats_folder, "platform-r3", busy_seconds=7, cpus="server_cpus_busy", server_cores=server_cores)
    run = load_run(repeats_folder)

    assert cpu.saturation_notes([run]) == [f"{repeats_folder.name}/platform-r3: {why}"]
    table = cpu.phase_table([run]).set_index("pass")
    assert table.loc["platform-r3", "mark"] == mark
    assert table.loc["platform-r3", "seconds the server CPUs were 90%+ busy"] == pytest.approx(0.7)


def test_without_a_cpu_split_the_bottleneck_cannot_be_told_and_the_table_says_so(repeats_folder):
    path = repeats_folder / "vthread" / "cpu.csv"
    frame = pd.read_csv(path)
    frame["load_cpus_busy"] = None
    frame["server_cpus_busy"] = None
    frame.to_csv(path, index=False)
    run = load_run(repeats_folder)

    table = cpu.phase_table([run]).set_index("pass")

    assert cpu.bottleneck(run.server("vthread")) is None
    assert table.loc["vthread", "mark"] == "cannot tell: the load's CPUs were not measured (no CPU split, or k6 on other hosts)"
    assert table.loc["vthread", "server (cores)"] == pytest.approx(0.3)


def test_the_phase_table_gives_each_processs_mean_cores_and_how_busy_the_cpus_were_in_the_json_phase(repeats_folder):
    table = cpu.phase_table([load_run(repeats_folder)]).set_index("pass")

    assert list(table.index) == ["vthread", "platform", "platform-r2", "vthread-r2", "vthread-r3", "platform-r3"]
    assert tuple(table.loc["vthread", ["server (cores)", "k6 (cores)", "stub (cores)", "harness (cores)"]]) == pytest.approx((0.3, 0.45, 0.02, 0.05))
    assert table.loc["platform-r2", "load CPUs busy"] == pytest.approx((6 * 0.95 + 4 * 0.5) / 10)
    assert table.loc["platform-r2", "seconds the load CPUs were 90%+ busy"] == pytest.approx(0.6)
    assert table.loc["platform-r2", "dropped iterations"] == 12
    # k6 at 0.45 cores for 20 requests a second: 22,500 µs a request, in every pass, as the host did not change speed.
    assert table[cpu.LOAD_PER_REQUEST].tolist() == pytest.approx([22_500] * 6)
    assert table.loc["platform-r2", "mark"] == "load generator was the bottleneck"
    assert table.loc["platform", "mark"] == ""


def test_server_cpu_per_request_is_its_mean_cores_in_the_json_phase_over_the_rate_it_answered(repeats_folder):
    server = load_run(repeats_folder).server("vthread")

    assert cpu.server_cpu_per_request(server, requests_per_second=20) == pytest.approx(0.3 / 20)
    assert math.isnan(cpu.server_cpu_per_request(server, requests_per_second=0))


def test_server_cpu_per_request_less_the_jit_leaves_out_what_its_compilers_took_in_each_second(repeats_folder):
    # 0.3 cores in every /json second, 0.1 of them the compilers' in half of the seconds: 0.25 cores serving, over 20 a second.
    path = repeats_folder / "vthread" / "cpu.csv"
    frame = pd.read_csv(path)
    json = frame.index[frame["phase"] == "json"]
    frame.loc[json, "server"] = 0.3
    frame.loc[json, "server_jit"] = [0.1 if i % 2 == 0 else 0.0 for i in range(len(json))]
    frame.to_csv(path, index=False)
    server = load_run(repeats_folder).server("vthread")
    share = frame.loc[json, "server_jit"].mean()

    assert cpu.server_cpu_per_request_less_jit(server, requests_per_second=20) == pytest.approx((0.3 - share) / 20)
    assert cpu.server_cpu_per_request(server, requests_per_second=20) == pytest.approx(0.3 / 20)
    frame.drop(columns=["server_jit"]).to_csv(path, index=False)
    assert math.isnan(cpu.server_cpu_per_request_less_jit(load_run(repeats_folder).server("vthread"), 20)), "a pass that did not split them out"


def test_k6s_cpu_per_request_moves_with_the_host_not_the_server(repeats_folder):
    # The same offered load, and k6 needing a third more CPU for it: the host was slower, whichever server it drove.
    path = repeats_folder / "platform" / "cpu.csv"
    frame = pd.read_csv(path)
    frame.loc[frame["phase"] == "json", "k6"] = 0.6
    frame.to_csv(path, index=False)
    run = load_run(repeats_folder)

    assert cpu.load_cpu_per_request(run.server("platform"), requests_per_second=20) == pytest.approx(0.6 / 20)
    assert cpu.load_cpu_per_request(run.server("vthread"), requests_per_second=20) == pytest.approx(0.45 / 20)
    assert math.isnan(cpu.load_cpu_per_request(run.server("vthread"), requests_per_second=0))


def test_a_server_held_to_a_cpu_budget_is_as_busy_as_the_share_of_its_budget_it_used():
    # A quarter of a CPU, used to 0.2 and 0.25 cores: 80% and 100% of the budget, while its CPU set was 20-25% busy.
    seconds = pd.DataFrame({"server": [0.2, 0.25], "server_cpus_busy": [0.21, 0.26], "server_budget": [0.25, 0.25], "server_throttled_s": [0.1, 0.7]})

    assert cpu.server_busy(seconds) == pytest.approx(0.9)


def test_a_server_with_no_budget_is_as_busy_as_its_cpus():
    seconds = pd.DataFrame({"server": [0.2, 0.3], "server_cpus_busy": [0.4, 0.6], "server_budget": [math.nan, math.nan]})

    assert cpu.server_busy(seconds) == pytest.approx(0.5)
    assert cpu.server_busy(seconds.drop(columns=["server_budget"])) == pytest.approx(0.5), "a folder from before the budget"
    assert math.isnan(cpu.server_busy(seconds.iloc[0:0]))


def test_the_whole_cpu_line_runs_through_the_cores_each_second_of_the_warm_up_and_the_steady_phase_cost_without_the_jit(repeats_folder):
    # Known by construction: 0.08 cores serving nothing, plus 150 µs a request; the warm-up's seconds also compile, on 0.2 cores
    # of JIT that the line leaves out. A second's rate is the answers the wire saw in it.
    path = repeats_folder / "vthread"
    seconds = pd.read_csv(path / "cpu.csv")
    rates = {"json-warmup": [400, 1200], "json": [2000] * 10}
    wire, answered = [], iter([r for phase in ("json-warmup", "json") for r in rates[phase]])
    for i in seconds.index[seconds["phase"].isin(rates)]:
        rate, end = next(answered), float(seconds.loc[i, "time_s"])
        jit = 0.2 if seconds.loc[i, "phase"] == "json-warmup" else 0.0
        seconds.loc[i, ["server", "server_jit"]] = [0.08 + rate * 150e-6 + jit, jit]
        wire += [[end - 1 + (k + 0.5) / rate, seconds.loc[i, "phase"], "json", 0.5] for k in range(rate)]
    seconds.to_csv(path / "cpu.csv", index=False)
    pd.DataFrame(wire, columns=["time_s", "phase", "endpoint", "ms"]).to_csv(path / "wire.csv", index=False)

    line = cpu.whole_cpu_fit(load_run(repeats_folder).server("vthread"), "json")

    assert (line.fixed_cores, line.us_per_request, line.steps) == (pytest.approx(0.08), pytest.approx(150), 12)


def test_a_pass_without_the_wire_has_no_whole_cpu_line(repeats_folder):
    assert math.isnan(cpu.whole_cpu_fit(load_run(repeats_folder).server("vthread"), "json").us_per_request)


def test_the_hypervisors_steal_is_a_passs_mean_share_in_cores_of_the_hosts_cpus_across_the_compared_passes(repeats_folder):
    # Every pass lost a quarter of the host's CPU time to the hypervisor, but one, which lost a twentieth.
    run = load_run(repeats_folder)
    for server in run.servers:
        path = repeats_folder / server.name / "cpu.csv"
        frame = pd.read_csv(path)
        frame["steal"] = 0.05 if server.name == "platform-r2" else 0.25
        frame.to_csv(path, index=False)
    run = load_run(repeats_folder)

    steal = cpu.steal_cores(run)

    cpus = cpu.host_cpus(run)
    assert cpus >= 1
    assert (steal.median, steal.low, steal.high) == pytest.approx((0.25 * cpus, 0.05 * cpus, 0.25 * cpus))
    assert steal.passes == len([s for s in run.servers if not s.cpu.empty])


def _steal_seconds(folder, name: str, taken_seconds: int, cores: float = 0.5) -> None:
    """Cuts `name`'s cpu.csv to 40 seconds, and sets the hypervisor's steal to `cores` of the host in the first `taken_seconds` of
    them and to none in the rest."""
    path = folder / name / "cpu.csv"
    frame = pd.read_csv(path).head(40)
    frame["steal"] = 0.0
    frame.loc[frame.index[:taken_seconds], "steal"] = cores / cpu.host_cpus(load_run(folder))
    frame.to_csv(path, index=False)


def test_a_pass_in_which_the_hypervisor_took_over_a_quarter_of_a_core_in_more_than_1_second_in_20_is_the_hosts(repeats_folder):
    _steal_seconds(repeats_folder, "vthread", taken_seconds=4)
    # 1 second in 20, at the mark and not over it: not the host's.
    _steal_seconds(repeats_folder, "platform", taken_seconds=2)
    # Every second at a quarter of a core, not over it: none taken.
    _steal_seconds(repeats_folder, "platform-r2", taken_seconds=40, cores=cpu.HOST_TOOK_CORES)
    run = load_run(repeats_folder)
    cpus = cpu.host_cpus(run)

    assert cpu.host_took(run.server("vthread"), cpus) == (
        "the host took the pass: its hypervisor took over 0.25 of a core in 4 of its 40 seconds (10%; the mark: 5%)"
    )
    assert cpu.host_took(run.server("platform"), cpus) is None
    assert cpu.host_took(run.server("platform-r2"), cpus) is None
    assert cpu.host_notes([run]) == [f"{run.folder.name}/vthread: {cpu.host_took(run.server('vthread'), cpus)}"]
