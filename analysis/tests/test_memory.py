"""Memory per idle socket.

The plateau tests run on a small proc.csv and load.csv written by the test (`_write_steps`), whose plateaus are known by
construction. The fixture is a real smoke run, whose steps' plateaus do not fit such tests: each step's last /proc sample comes
after the full GC of its memory.csv snapshot, which drops RSS, so 7 of its 8 steps are marked not settled.
The per-socket tests on the fixture recompute their figures from its memory.csv with csv and numpy, not with labanalysis."""

import csv
import io
import json
import math

import numpy as np
import pandas as pd
import pytest

from labanalysis.bench import memory, memory_tables, warm_sockets
from labanalysis.folder.run import load_run

MIB = 1 << 20

# The written steps: (sockets open at the step's end, RSS plateau). The plateaus lie on 100 MiB + 40,960 B a socket, but for
# step 2, 1 MiB above the line, so that the line has a spread. Least squares over three evenly spaced x has slope
# (y3 - y1) / (x3 - x1), whatever the middle point: 40,960 B a socket.
STEPS = [(100, 100 * MIB + 40_960 * 100), (200, 100 * MIB + 40_960 * 200 + MIB), (300, 100 * MIB + 40_960 * 300)]
SLOPE = 40_960
# Each step's last two samples (its last third of six) are the plateau +- HALF_SPREAD: their mean is the plateau, and neither is.
HALF_SPREAD = 100_000


def _write_steps(run_folder, name: str = "jetty-virtual") -> None:
    """Replaces `name`'s proc.csv and load.csv with three socket steps of six samples a second, whose plateaus are STEPS.

    In each step RSS climbs for four samples (to 90%, 95%, 97% and 98% of the plateau), then holds at the plateau, 100,000 B
    below it and then above it; k6 reports 50 fewer sockets than the step's count, then the count. A startup and a json sample
    around them belong to no step.
    """
    proc = ["time_s,phase,rss_bytes,pss_bytes,threads,fds,maps", f"1.0,startup,{90 * MIB},{74 * MIB},30,40,250"]
    load = ["time_s,phase,sockets_opened_total,requests_total,requests_per_second,p95_ms_so_far"]
    t = 2.0
    for step, (sockets, plateau) in enumerate(STEPS, 1):
        phase = f"sockets-step-{step}"
        climb = [int(plateau * f) for f in (0.90, 0.95, 0.97, 0.98)]
        for rss in [*climb, plateau - HALF_SPREAD, plateau + HALF_SPREAD]:
            proc.append(f"{t},{phase},{rss},{rss - 16 * MIB},40,{sockets + 20},280")
            t += 1.0
        for i, opened in enumerate([sockets - 50, sockets, sockets]):
            load.append(f"{t - 6 + 2 * i + 0.5},{phase},{opened},0,0.0,0.0")
    proc.append(f"{t},json,{200 * MIB},{184 * MIB},40,320,280")
    (run_folder / name / "proc.csv").write_text("\n".join(proc) + "\n")
    (run_folder / name / "load.csv").write_text("\n".join(load) + "\n")


def test_plateaus_are_the_last_third_of_each_step(run_folder):
    _write_steps(run_folder)

    points = memory.plateaus(load_run(run_folder).server("jetty-virtual"))

    assert list(points["step"]) == [1, 2, 3]
    # k6's most sockets in the step, and the mean of the step's last two samples (plateau - 100,000 and plateau + 100,000).
    assert list(zip(points["open_sockets"], points["rss_bytes"], strict=True)) == STEPS
    assert list(points["pss_bytes"]) == [plateau - 16 * MIB for _, plateau in STEPS]


def test_a_step_whose_rss_holds_over_its_last_third_has_settled(run_folder):
    _write_steps(run_folder)

    points = memory.plateaus(load_run(run_folder).server("jetty-virtual"))

    assert points["settled"].all() and (points["why"] == "").all(), points
    # First sample of the plateau to its last: +200,000 B on plateau - 100,000.
    drifts = [100 * 2 * HALF_SPREAD / (plateau - HALF_SPREAD) for _, plateau in STEPS]
    assert list(points["rss_drift_percent"]) == pytest.approx(drifts)


def test_bytes_per_socket_is_the_slope_through_the_plateaus(run_folder):
    _write_steps(run_folder)

    fit = memory.per_connection(memory.plateaus(load_run(run_folder).server("jetty-virtual")), "rss_bytes")

    assert fit.slope == pytest.approx(SLOPE)
    assert fit.points == 3
    assert fit.slope_low < fit.slope < fit.slope_high  # step 2 is off the line: the interval has a width


def test_a_perfect_line_has_its_slope_intercept_and_no_spread():
    points = pd.DataFrame({"open_sockets": [0, 1000, 2000, 3000], "rss_bytes": [100e6 + 2048 * x for x in [0, 1000, 2000, 3000]]})

    fit = memory.per_connection(points, "rss_bytes")

    assert fit.slope == pytest.approx(2048)
    assert fit.intercept == pytest.approx(100e6)
    assert fit.r_squared == pytest.approx(1.0)
    assert fit.slope_high - fit.slope_low == pytest.approx(0, abs=1e-6)
    assert fit.at(50_000) == pytest.approx(100e6 + 2048 * 50_000)


def test_the_slope_interval_is_students_t_over_the_plateaus():
    # y = 0, 1, 3 at x = 0, 1, 2: slope 1.5, intercept -1/6, residuals 1/6, -1/3, 1/6,
    # residual variance (1/36 + 1/9 + 1/36) / 1 = 1/6, slope stderr sqrt((1/6) / 2),
    # t(0.975, 1 df) = 12.706.
    points = pd.DataFrame({"open_sockets": [0, 1, 2], "rss_bytes": [0.0, 1.0, 3.0]})

    fit = memory.per_connection(points, "rss_bytes")

    half = 12.7062 * math.sqrt(1 / 12)
    assert fit.slope == pytest.approx(1.5)
    assert fit.intercept == pytest.approx(-1 / 6)
    assert fit.slope_high - fit.slope == pytest.approx(half, rel=1e-4)


def test_two_plateaus_have_a_slope_but_no_interval():
    points = pd.DataFrame({"open_sockets": [100, 200], "rss_bytes": [1000.0, 3000.0]})

    fit = memory.per_connection(points, "rss_bytes")

    assert fit.slope == pytest.approx(20)
    assert math.isnan(fit.slope_low) and math.isnan(fit.slope_high)


def test_a_server_without_samples_has_no_plateaus(run_folder):
    (run_folder / "jetty-virtual" / "proc.csv").unlink()

    points = memory.plateaus(load_run(run_folder).server("jetty-virtual"))

    assert points.empty
    assert math.isnan(memory.per_connection(points, "rss_bytes").slope)


def test_the_live_heap_is_fitted_over_the_gcs_during_the_steps_at_the_sockets_open_then(run_folder):
    # The fixture's jetty-virtual series has a GC at startup (6.603 s, reported twice: ZGC's young and old halves of one major
    # GC), which is no step's, and one at the end of each step: 12.193 s and 18.165 s, both 35,651,584 B. Two GCs are added
    # within the steps, the second reported twice. The sockets open at each are load.csv's last count before it: 52 (8.667 s)
    # at 9.0 s, 150 (11.712 s) at 12.193 s, 208 (14.823 s) at 15.0 s and 300 (17.861 s) at 18.165 s.
    series = run_folder / "jetty-virtual" / "jfr-series.csv"
    series.write_text(
        series.read_text()
        + "9.0,sockets-step-1,heap_after_gc_bytes,30000000\n"
        + "15.0,sockets-step-2,heap_after_gc_bytes,33000000\n"
        + "15.0,sockets-step-2,heap_after_gc_bytes,33000000\n"
    )
    server = load_run(run_folder).server("jetty-virtual")

    points = memory.live_heap_points(server)
    fit = memory.per_connection(points, "heap_after_gc_bytes")

    expected = [(52, 30_000_000), (150, 35_651_584), (208, 33_000_000), (300, 35_651_584)]
    assert list(zip(points["open_sockets"], points["heap_after_gc_bytes"], strict=True)) == expected
    x, y = np.array(expected, dtype=float).T
    assert fit.slope == pytest.approx(np.polyfit(x, y, 1)[0])


def _climb_in_step(run_folder, name: str, step: int, percent: float) -> None:
    """Makes `name`'s RSS climb by `percent` across the last two samples of a step, as a step that had not settled would."""
    path = run_folder / name / "proc.csv"
    proc = pd.read_csv(path)
    rows = proc.index[proc["phase"] == f"sockets-step-{step}"][-2:]
    proc.loc[rows[-1], "rss_bytes"] = int(proc.loc[rows[0], "rss_bytes"] * (1 + percent / 100))
    proc.to_csv(path, index=False)


def test_a_step_still_climbing_is_marked_and_left_out_of_the_line(run_folder):
    _write_steps(run_folder)
    _climb_in_step(run_folder, "jetty-virtual", step=2, percent=10)
    server = load_run(run_folder).server("jetty-virtual")

    points = memory.plateaus(server)
    fit = memory.per_connection(points, "rss_bytes")

    assert list(points["settled"]) == [True, False, True]
    assert points.loc[1, "why"] == "RSS still moving +10.0% over the step's last third (limit 2%)"
    # The line through the two settled plateaus only: (y3 - y1) / (x3 - x1), STEPS' slope.
    assert fit.points == 2 and fit.slope == pytest.approx(SLOPE)
    assert fit.left_out == ("step 2: RSS still moving +10.0% over the step's last third (limit 2%)",)


# ---- memory per socket on the fixture (a real smoke run): memory.csv's snapshots ---------------------


def _least_squares_slope(run_folder, name: str, component: str) -> float:
    """By plain means: the least-squares slope of `component`'s bytes against sockets_open over the pass's memory.csv rows
    taken at startup and at each socket step's end (the fixture's: 0, 150 and 300 sockets)."""
    with open(run_folder / name / "memory.csv") as f:
        rows = [r for r in csv.DictReader(f) if r["component"] == component and r["phase"].startswith(("startup", "sockets-step-"))]
    x = np.array([float(r["sockets_open"]) for r in rows])
    y = np.array([float(r["bytes"]) for r in rows])
    return float(np.polyfit(x, y, 1)[0])


@pytest.mark.parametrize("name", ["ktor-coroutine", "jetty-virtual", "jetty-platform", "jetty-coroutine"])
def test_a_passs_memory_per_socket_is_the_least_squares_slope_over_its_memory_csv_snapshots(run_folder, name):
    server = load_run(run_folder).server(name)

    for measure, component in [("RSS", "rss"), ("PSS", "pss"), ("live heap", "live_heap")]:
        fit = memory.per_socket_fit(server, measure)
        assert fit.points == 3
        assert fit.slope == pytest.approx(_least_squares_slope(run_folder, name, component)), measure


def test_a_pass_without_memory_csv_has_no_memory_per_socket(run_folder):
    # proc.csv is still there: it is no source of a figure per socket.
    (run_folder / "jetty-virtual" / "memory.csv").unlink()
    server = load_run(run_folder).server("jetty-virtual")

    assert math.isnan(memory.per_socket_fit(server, "RSS").slope)
    assert math.isnan(memory.per_socket_fit(server, "live heap").slope)
    assert "memory.csv is missing: the figures from it are left out" in server.problems


# ---- memory split into its parts (memory.csv), on the repeats-run fixture ---------------------------
# make_repeats_run.py wrote each component as intercept + slope x sockets open, plus a residual no line can follow, at 0, 100,
# 200, 300 and 400 sockets; each pass with its own slopes.


def test_each_components_bytes_per_socket_is_its_least_squares_slope_over_a_passs_snapshots(repeats_folder):
    fits = memory.component_fits(load_run(repeats_folder).server("platform-r2"))

    assert fits["live_heap"].slope == pytest.approx(3200)
    assert fits["nmt_thread"].slope == pytest.approx(20480)
    assert fits["rss"].slope == pytest.approx(27000)
    assert fits["live_heap"].points == 5
    assert fits["live_heap"].intercept == pytest.approx(40 * (1 << 20))


def test_per_server_each_component_is_the_median_across_passes_with_their_range(repeats_folder):
    table = memory.components_per_server([load_run(repeats_folder)]).set_index(["server", "component"])

    assert tuple(table.loc[("vthread", "live_heap"), ["median", "low", "high", "passes"]]) == (2000, 1900, 2100, 3)
    assert tuple(table.loc[("platform", "nmt_thread"), ["median", "low", "high", "passes"]]) == pytest.approx((20000, 19800, 20480, 3))
    assert tuple(table.loc[("platform", "rss"), ["median", "low", "high"]]) == pytest.approx((26000, 25500, 27000))


def test_native_memory_is_the_sum_of_nmts_parts_other_than_the_heap_and_kernel_memory_the_sum_of_the_cgroups_two(repeats_folder):
    table = memory.components_per_server([load_run(repeats_folder)]).set_index(["server", "component"])

    # vthread r1: thread 100 + GC 50 + class 0 + code 0 + other 300 + rest 10; kernel 1,500 + its TCP buffers 2,000.
    assert table.loc[("vthread", "native (NMT, not the heap)"), "median"] == pytest.approx(460)
    assert table.loc[("vthread", "kernel memory"), "median"] == pytest.approx(3500)


def test_without_the_servers_cgroup_kernel_memory_is_the_hosts_tcp_memory(repeats_folder):
    path = repeats_folder / "vthread" / "memory.csv"
    frame = pd.read_csv(path)
    frame = frame[~frame["component"].isin(["kernel"])]
    frame.loc[frame["component"] == "kernel_tcp", "component"] = "kernel_tcp_host"
    frame.to_csv(path, index=False)

    fits = memory.component_fits(load_run(repeats_folder).server("vthread"))

    assert "kernel" not in fits
    assert fits["kernel memory"].slope == pytest.approx(fits["kernel_tcp_host"].slope) == pytest.approx(2000)


def test_a_snapshot_whose_components_were_read_seconds_apart_and_into_the_next_phase_is_one_snapshot(repeats_folder):
    path = repeats_folder / "vthread" / "memory.csv"
    frame = pd.read_csv(path)
    frame["time_s"] = frame["time_s"] + 0.2 * frame.groupby("time_s").cumcount()  # 0.2 s a component: the last 2.2 s after the first
    frame.loc[frame["component"] == "pss", "phase"] = (
        frame["phase"].map({"startup": "sockets-step-1", "sockets-step-4": "json-warmup"}).fillna(frame["phase"])
    )
    frame.to_csv(path, index=False)

    points = memory.snapshots(load_run(repeats_folder).server("vthread"))

    assert list(points["open_sockets"]) == [0, 100, 200, 300, 400]
    assert memory.per_connection(points, "live_heap").slope == pytest.approx(2000)
    assert memory.per_connection(points, "pss").slope == pytest.approx(4900)


def test_a_memory_csv_written_component_by_component_gives_the_same_snapshots(repeats_folder):
    path = repeats_folder / "vthread" / "memory.csv"
    pd.read_csv(path).sort_values("component", kind="stable").to_csv(path, index=False)

    fits = memory.component_fits(load_run(repeats_folder).server("vthread"))

    assert fits["live_heap"].slope == pytest.approx(2000) and fits["live_heap"].points == 5
    assert fits["nmt_thread"].slope == pytest.approx(100)


def test_a_snapshot_under_request_load_is_not_in_the_line(repeats_folder):
    path = repeats_folder / "vthread" / "memory.csv"
    path.write_text(path.read_text() + "30.0,json,400,live_heap,999999999\n30.0,json,400,rss,999999999\n")

    fits = memory.component_fits(load_run(repeats_folder).server("vthread"))

    assert fits["live_heap"].slope == pytest.approx(2000) and fits["live_heap"].points == 5


def test_the_largest_classes_per_socket_are_the_top_ten_by_slope_not_the_largest_by_size(repeats_folder):
    top = memory_tables.top_classes([load_run(repeats_folder)])
    vthread = top[top["server"] == "vthread"].reset_index(drop=True)

    assert len(vthread) == 10
    # String and Class are the largest classes at every snapshot, but do not grow with the sockets.
    assert "java.lang.String" not in set(vthread["class"])
    assert tuple(vthread.loc[0, ["class", "median", "low", "high", "passes"]]) == pytest.approx(("jdk.internal.vm.StackChunk", 800, 760, 840, 3))
    assert vthread.loc[0, "instances per socket"] == pytest.approx(1)
    assert list(top["server"].unique()) == ["vthread", "platform"]


def test_at_50k_sockets_vthreads_live_heap_fits_the_heap_and_platforms_fills_it_at_a_socket_count_it_says(repeats_folder):
    table = memory_tables.extrapolation([load_run(repeats_folder)]).set_index("server")

    # 40 MiB at rest + 50,000 x 2,000 B; the heap is 160 MiB.
    assert table.loc["vthread", "live heap"].median == pytest.approx(40 * (1 << 20) + 50_000 * 2000)
    assert table.loc["vthread", "verdict"] == "fits: 85% of the 160 MiB heap at 50,000 sockets"
    # Platform: 40 MiB + 50,000 x 3,000 B > 160 MiB, which its median line reaches at (160 - 40) MiB / 3,000 B = 41,943 sockets.
    assert table.loc["platform", "verdict"] == "exceeds the 160 MiB heap: the live heap would fill it at about 41,943 sockets"
    assert table.loc["platform", "RSS"].median == pytest.approx(150 * (1 << 20) + 50_000 * 26000)


def test_the_command_line_prints_each_passs_bytes_per_socket_as_csv(repeats_folder, capsys):
    assert memory.main([str(repeats_folder)]) == 0
    printed = pd.read_csv(io.StringIO(capsys.readouterr().out))
    live = printed[(printed["component"] == "live_heap") & (printed["server"] == "vthread")]
    assert sorted(live["bytes_per_socket"]) == [1900.0, 2000.0, 2100.0]


def test_the_command_line_without_a_folder_says_how_to_call_it(capsys):
    assert memory.main([]) == 2
    assert capsys.readouterr().err.startswith("usage: python -m labanalysis.bench.memory")


def test_a_count_is_fitted_over_every_step_though_rss_was_still_moving_in_some():
    # Two of three steps were still giving memory back (not settled): RSS's line has one point and no slope, while the
    # threads, a count the collector does not move, keep all three, one a socket.
    points = pd.DataFrame(
        {
            "step": [1, 2, 3],
            "open_sockets": [5000, 10000, 15000],
            "rss_bytes": [300e6, 380e6, 460e6],
            "threads": [5040.0, 10040.0, 15040.0],
            "settled": [False, False, True],
            "why": ["RSS still moving", "RSS still moving", ""],
        }
    )

    assert math.isnan(memory.per_connection(points, "rss_bytes").slope)
    assert math.isnan(memory.per_connection(points, "threads").slope)
    counted = memory.per_connection(points, "threads", settled_only=False)
    assert counted.slope == pytest.approx(1.0) and counted.at(50_000) == pytest.approx(50_040)


# ---- cold and warm sockets: the same steps again after the load, each set fitted on its own --------------------------------


def _open_warm(
    folder, scale: dict[str, float], headline: str = "cold", servers: tuple[str, ...] = ("vthread", "platform"), kept_threads: int = 0
) -> None:
    """Each pass of `servers` opens its sockets again, warm: its cold snapshots and /proc samples again 100 s later, in the warm
    phases, each component's bytes times its `scale` (1 where none is given), so that each warm slope is the cold one times it,
    and `kept_threads` more threads in every warm sample, as a pool that kept its cold sockets' threads holds them."""
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["profile"] = {**manifest.get("profile", {}), "warmSockets": True, "socketsHeadline": headline}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    warm_phase = {"startup": "warm-sockets-rest", **{f"sockets-step-{n}": f"warm-sockets-step-{n}" for n in range(1, 9)}}
    for path in folder.glob("*/memory.csv"):
        if not path.parent.name.startswith(servers):
            continue
        cold = pd.read_csv(path)
        warm = cold[cold["phase"].isin(warm_phase)].assign(time_s=lambda f: f["time_s"] + 100, phase=lambda f: f["phase"].map(warm_phase))
        warm["bytes"] = warm["bytes"] * warm["component"].map(scale).fillna(1)
        pd.concat([cold, warm]).to_csv(path, index=False)
        proc = pd.read_csv(path.parent / "proc.csv")
        again = proc.assign(time_s=proc["time_s"] + 100, threads=proc["threads"] + kept_threads)
        pd.concat([proc, again]).to_csv(path.parent / "proc.csv", index=False)


def test_warm_sockets_are_fitted_through_their_own_snapshots_and_the_cold_line_keeps_its_own(repeats_folder):
    _open_warm(repeats_folder, {"live_heap": 0.5})
    server = load_run(repeats_folder).server("vthread")

    assert memory.per_socket_fit(server, "live heap", memory.WARM).slope == pytest.approx(1000)
    assert memory.per_socket_fit(server, "live heap", memory.COLD).slope == pytest.approx(2000)
    assert memory.per_socket_fit(server, "live heap").slope == pytest.approx(2000), "the profile's headline is the cold sockets"
    assert memory.per_socket_fit(server, "live heap", memory.WARM).points == 5


def test_a_profile_that_heads_with_warm_sockets_gives_every_figure_per_socket_from_them(repeats_folder):
    _open_warm(repeats_folder, {"live_heap": 0.5}, headline="warm")

    table = memory.components_per_server([load_run(repeats_folder)]).set_index(["server", "component"])

    assert tuple(table.loc[("vthread", "live_heap"), ["median", "low", "high"]]) == pytest.approx((1000, 950, 1050))


def test_warm_over_cold_is_taken_pass_by_pass_then_across_passes(repeats_folder):
    _open_warm(repeats_folder, {"live_heap": 0.5})
    runs = [load_run(repeats_folder)]

    passes = warm_sockets.per_pass(runs)
    by_pass = passes.set_index(["pass", "measure"])
    table = warm_sockets.table(passes).set_index(["server", "measure"])

    assert by_pass.loc[("vthread-r2", "live heap"), "warm over cold"] == pytest.approx(0.5)
    assert by_pass.loc[("vthread-r2", "kernel memory"), "warm over cold"] == pytest.approx(1)
    assert table.loc[("Jetty 12, virtual threads", "live heap"), "warm over cold"] == "0.5 [0.5, 0.5]"
    assert warm_sockets.order_sentence(passes).startswith("Cold and warm sockets order the servers alike")


def test_a_pair_that_warm_sockets_no_longer_set_apart_is_named(repeats_folder):
    # Platform's warm socket costs a hundredth of its cold one, less than a virtual thread's: the order turns round.
    _open_warm(repeats_folder, dict.fromkeys(("live_heap", "nmt_thread", "kernel", "kernel_tcp"), 0.01), servers=("platform",))
    _open_warm(repeats_folder, {}, servers=("vthread",))

    passes = warm_sockets.per_pass([load_run(repeats_folder)])
    changes = warm_sockets.order_changes(passes)

    platform, vthread = "Jetty 12, platform threads", "Jetty 12, virtual threads"
    assert [c.split(" held ")[0] for c in changes] == [platform, vthread], changes
    assert changes[0].startswith(f"{platform} held 4.76 [4.72, 4.86] times what {vthread} held for a cold socket"), changes
    assert warm_sockets.order_sentence(passes).startswith("Warm sockets change the servers' order")


def test_a_server_whose_pool_kept_its_cold_sockets_threads_is_left_out_of_the_order_and_said_to_be(repeats_folder):
    _open_warm(repeats_folder, dict.fromkeys(("live_heap", "nmt_thread", "kernel", "kernel_tcp"), 0.01), servers=("platform",), kept_threads=400)
    _open_warm(repeats_folder, {}, servers=("vthread",))
    runs = [load_run(repeats_folder)]

    passes = warm_sockets.per_pass(runs)
    assert warm_sockets.order_changes(passes) == []
    said = warm_sockets.order_sentence(passes)
    assert said.startswith("Cold and warm sockets order the servers alike")
    assert "Left out: Jetty 12, platform threads, whose pool kept 400 threads of its cold sockets to the warm rest" in said
    table = warm_sockets.table(passes).set_index(["server", "measure"])
    assert table.loc[("Jetty 12, platform threads", "live heap"), "threads at rest, cold / warm"] == "40 / 440"


def test_a_run_without_warm_sockets_has_no_warm_figures(repeats_folder):
    runs = [load_run(repeats_folder)]

    assert not warm_sockets.measured(runs)
    assert math.isnan(memory.per_socket_fit(runs[0].server("vthread"), "live heap", memory.WARM).slope)
