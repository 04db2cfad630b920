"""Memory per idle socket. The fixture's plateaus were worked out by hand from its proc.csv and
load.csv: each socket step has four samples, its plateau is the mean of the last two (a third,
rounded up), and its open sockets are load.csv's most for the step."""

import math

import pandas as pd
import pytest

from labanalysis import memory
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


def test_the_interval_of_an_extrapolation_widens_with_its_distance():
    points = pd.DataFrame({"open_sockets": [0, 1, 2], "rss_bytes": [0.0, 1.0, 3.0]})
    fit = memory.per_connection(points, "rss_bytes")

    near_low, near_high = fit.interval_at(1)
    far_low, far_high = fit.interval_at(10)

    assert near_low < fit.at(1) < near_high
    assert far_high - far_low > near_high - near_low


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
    assert memory.rss_at_most(server) == pytest.approx(PLATEAUS["vthread"][2][1])


def test_a_last_step_that_did_not_settle_gives_no_rss_at_the_most_sockets(run_folder):
    _climb_in_step(run_folder, "platform", step=3, percent=-5)

    assert math.isnan(memory.rss_at_most(load_run(run_folder).server("platform")))
