"""Memory per idle socket. The fixture's plateaus were worked out by hand from its proc.csv and
load.csv: each socket step has four samples, its plateau is the mean of the last two (a third,
rounded up), and its open sockets are load.csv's most for the step."""

import io
import math

import pandas as pd
import pytest

from labanalysis import memory, memory_tables
from labanalysis.run import load_run

# (open sockets, plateau RSS in bytes) for each step, by hand from the fixture.
PLATEAUS = {
    "coroutine": [(100, 173164544), (200, 179439616), (300, 186339328)],
    "vthread": [(100, 173672448), (200, 177543168), (300, 181164032)],
    "platform": [(100, 184276992), (200, 194967552), (300, 207773696)],
}
# Least squares over three evenly spaced x: slope = (y3 - y1) / (x3 - x1).
SLOPES = {name: (points[2][1] - points[0][1]) / 200 for name, points in PLATEAUS.items()}


@pytest.mark.parametrize("name", PLATEAUS)
def test_plateaus_are_the_last_third_of_each_step(run_folder, name):
    points = memory.plateaus(load_run(run_folder).server(name))

    assert list(points["step"]) == [1, 2, 3]
    assert list(zip(points["open_sockets"], points["rss_bytes"], strict=True)) == PLATEAUS[name]


def test_bytes_per_socket_is_the_slope_through_the_plateaus(run_folder):
    run = load_run(run_folder)

    for name, slope in SLOPES.items():
        fit = memory.per_connection(memory.plateaus(run.server(name)), "rss_bytes")
        assert fit.slope == pytest.approx(slope)
        assert fit.points == 3
        assert fit.slope_low < fit.slope < fit.slope_high
    # By hand: platform 117,483.52 bytes a socket, vthread 37,457.92, coroutine 65,873.92.
    assert SLOPES["platform"] == pytest.approx(117_483.52)


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
    (run_folder / "vthread" / "proc.csv").unlink()

    points = memory.plateaus(load_run(run_folder).server("vthread"))

    assert points.empty
    assert math.isnan(memory.per_connection(points, "rss_bytes").slope)


def test_the_live_heap_is_fitted_over_the_gcs_during_the_steps_at_the_sockets_open_then(run_folder):
    # Three GCs added to the fixture's vthread series, in steps 1, 2 and 3, at times when
    # load.csv says 100, 154 and 300 sockets were open; the fixture's own GC, in the json
    # phase, is not a step's, and the last one is reported twice.
    series = run_folder / "vthread" / "jfr-series.csv"
    series.write_text(
        series.read_text()
        + "5.5,sockets-step-1,heap_after_gc_bytes,50000000\n"
        + "7.5,sockets-step-2,heap_after_gc_bytes,50540000\n"
        + "13.9,sockets-step-3,heap_after_gc_bytes,52000000\n"
        + "13.9,sockets-step-3,heap_after_gc_bytes,52000000\n"  # ZGC's young and old halves of one major GC
    )
    server = load_run(run_folder).server("vthread")

    points = memory.live_heap_points(server)
    fit = memory.per_connection(points, "heap_after_gc_bytes")

    assert list(points["open_sockets"]) == [100, 154, 300]
    assert fit.slope == pytest.approx(10_000)
    assert fit.r_squared == pytest.approx(1.0)


def _climb_in_step(run_folder, name: str, step: int, percent: float) -> None:
    """Makes `name`'s RSS climb by `percent` across the last two samples of a step, as a step that had not settled would."""
    path = run_folder / name / "proc.csv"
    proc = pd.read_csv(path)
    rows = proc.index[proc["phase"] == f"sockets-step-{step}"][-2:]
    proc.loc[rows[-1], "rss_bytes"] = int(proc.loc[rows[0], "rss_bytes"] * (1 + percent / 100))
    proc.to_csv(path, index=False)


def test_every_fixture_step_settled(run_folder):
    for name in PLATEAUS:
        points = memory.plateaus(load_run(run_folder).server(name))
        assert points["settled"].all() and (points["why"] == "").all(), points
        assert (points["rss_drift_percent"].abs() < memory.SETTLED_DRIFT_PERCENT).all()


def test_a_step_still_climbing_is_marked_and_left_out_of_the_line(run_folder):
    _climb_in_step(run_folder, "vthread", step=2, percent=10)
    server = load_run(run_folder).server("vthread")

    points = memory.plateaus(server)
    fit = memory.per_connection(points, "rss_bytes")

    assert list(points["settled"]) == [True, False, True]
    assert points.loc[1, "why"] == "RSS still moving +10.0% over the step's last third (limit 2%)"
    # The line through the two settled plateaus only: by hand, (y3 - y1) / (x3 - x1).
    assert fit.points == 2 and fit.slope == pytest.approx(SLOPES["vthread"])
    assert fit.left_out == ("step 2: RSS still moving +10.0% over the step's last third (limit 2%)",)


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


def test_a_run_from_before_memory_csv_has_rss_per_socket_from_its_plateaus_and_no_live_heap(run_folder):
    server = load_run(run_folder).server("vthread")

    assert memory.per_socket_fit(server, "RSS").slope == pytest.approx(SLOPES["vthread"])
    assert math.isnan(memory.per_socket_fit(server, "live heap").slope)
    assert memory_tables.extrapolation([load_run(run_folder)]).set_index("server").loc["vthread", "verdict"] == "not in this run: no memory.csv"


def test_the_command_line_prints_each_passs_bytes_per_socket_as_csv(repeats_folder, capsys):
    assert memory.main([str(repeats_folder)]) == 0
    printed = pd.read_csv(io.StringIO(capsys.readouterr().out))
    live = printed[(printed["component"] == "live_heap") & (printed["server"] == "vthread")]
    assert sorted(live["bytes_per_socket"]) == [1900.0, 2000.0, 2100.0]


def test_the_command_line_without_a_folder_says_how_to_call_it(capsys):
    assert memory.main([]) == 2
    assert capsys.readouterr().err.startswith("usage: python -m labanalysis.memory")
