"""The statistics the verdict rests on, each held to a known truth: a ratio taken round by round cancels a drift that moves both
servers alike, where their ranges across passes overlap; and the capacity fit finds the fixed part and the cost of a request that
made the CPU it is given, so it finds the rate at which a budget fills."""

import math

import pytest

from labanalysis import stats
from labanalysis.stats import CapacityFit, numbers


def test_a_ratio_in_rounds_cancels_a_drift_that_moved_both_servers_alike():
    drift = {1: 1.0, 2: 1.3, 3: 0.8}  # the host, round by round: every pass of a round slowed alike
    a = {r: 12.0 * d for r, d in drift.items()}
    b = {r: 10.0 * d for r, d in drift.items()}

    ratio = stats.in_rounds(a, b)

    assert (ratio.median, ratio.low, ratio.high, ratio.passes) == pytest.approx((1.2, 1.2, 1.2, 3))
    # Their ranges across passes, the drift and all, overlap: apart-ness alone could not tell them.
    assert stats.apart(stats.across(b.values()), stats.across(a.values()), lower_is_better=True) != "apart across passes"


def test_a_ratio_in_rounds_pairs_only_the_rounds_that_measured_both_with_figures_above_0():
    a = {1: 4.0, 2: 6.0, 3: math.nan, 4: -1.0}
    b = {1: 2.0, 2: 2.0, 3: 1.0, 4: 1.0, 5: 1.0}

    ratio = stats.in_rounds(a, b)

    assert (ratio.median, ratio.low, ratio.high, ratio.passes) == (2.5, 2.0, 3.0, 2)


def test_a_round_that_put_the_other_server_ahead_shows_as_a_range_across_1():
    ratio = stats.in_rounds({1: 11.0, 2: 9.0, 3: 12.0}, {1: 10.0, 2: 10.0, 3: 10.0})

    assert ratio.low < 1 < ratio.high


def test_an_order_in_rounds_follows_the_ratios_within_rounds_not_the_medians_a_drift_moved():
    # The host doubled every figure in round 2 and halved it in round 3. b's median (9) is under a's (10), from round 1 alone; a was
    # under b in rounds 2 and 3, and 1.2 times under c in every round.
    a = {1: 10.0, 2: 20.0, 3: 5.0}
    b = {1: 9.0, 2: 23.0, 3: 6.0}
    c = {1: 12.0, 2: 24.0, 3: 6.0}

    assert stats.ranked_in_rounds({"b": b, "c": c, "a": a}, lower_is_better=True) == ["a", "b", "c"]
    assert stats.ranked_in_rounds({"b": b, "c": c, "a": a}, lower_is_better=False) == ["c", "b", "a"]
    # Where no round measured them all, the medians across rounds order them.
    assert stats.ranked_in_rounds({"a": {1: 3.0}, "b": {2: 2.0}}, lower_is_better=True) == ["b", "a"]


def test_the_capacity_fit_finds_the_fixed_part_and_the_cost_that_made_the_cpu():
    fixed_cores, us_per_request = 0.06, 40.0
    rates = [500, 1000, 1500, 2000, 3000, 4000]
    cores = [fixed_cores + r * us_per_request / 1e6 for r in rates]

    fit = stats.capacity_fit(rates, cores)

    assert (fit.fixed_cores, fit.us_per_request, fit.steps) == pytest.approx((0.06, 40.0, 6))
    # 0.4 of a core, 0.06 of it spent serving nothing: 0.34 / 40 µs.
    assert fit.capacity_per_s(0.4) == pytest.approx(8500)
    assert fit.per_cpu(0.4) == pytest.approx(8500 / 0.4)


def test_the_capacity_fit_holds_its_line_through_noise_in_each_step():
    rates = [500, 1000, 1500, 2000, 3000, 4000, 6000]
    noise = [0.004, -0.003, 0.002, -0.004, 0.003, -0.002, 0.001]  # a few thousandths of a core, as cpu.csv's seconds scatter
    cores = [0.06 + r * 40e-6 + n for r, n in zip(rates, noise, strict=True)]

    fit = stats.capacity_fit(rates, cores)

    assert fit.capacity_per_s(0.4) == pytest.approx(8500, rel=0.03)


def test_no_line_is_fitted_through_one_rate():
    fit = stats.capacity_fit([1000, 1000, math.nan], [0.1, 0.11, 0.3])

    assert fit.steps == 0 and math.isnan(fit.capacity_per_s(0.4))


def test_a_budget_the_fixed_part_fills_serves_nothing_it_can_name():
    assert math.isnan(CapacityFit(0.5, 40.0, 4).capacity_per_s(0.4))
    assert math.isnan(CapacityFit(0.05, -3.0, 4).capacity_per_s(0.4))


def test_the_first_is_ahead_of_the_second_by_their_own_ratio_when_a_third_misses_a_round():
    # 12-02's /dashboard capacity: the platform server had no fit in round 1, so the rounds that measured all three are 2 and 3,
    # where coroutines came first; virtual threads were ahead of coroutines in rounds 1 and 3, by their own ratio in every round.
    coroutine = {1: 2325.0, 2: 2330.0, 3: 2428.0}
    virtual = {1: 2634.0, 2: 2098.0, 3: 2582.0}
    platform = {2: 992.0, 3: 874.0}

    ranked = stats.ranked_in_rounds({"coroutine": coroutine, "virtual": virtual, "platform": platform}, lower_is_better=False)

    assert ranked == ["virtual", "coroutine", "platform"]
    assert stats.in_rounds(virtual, coroutine).median > 1


def test_two_passes_order_their_servers_only_where_their_own_intervals_lie_apart_in_every_round():
    leader = {1: (2.0, 4.0), 2: (1.5, 3.0), 3: (2.5, 5.0)}
    apart = {1: (4.5, 9.0), 2: (3.5, 8.0), 3: (5.5, 12.0)}
    # Round 3's intervals overlap (the leader's reaches 5.0, the other's starts at 4.6): whatever the ratio, that round did not
    # order them.
    overlapping = {**apart, 3: (4.6, 12.0)}

    assert stats.apart_in_rounds(leader, apart, lower_is_better=True)
    assert not stats.apart_in_rounds(leader, overlapping, lower_is_better=True)
    # Where higher is better the leader's interval must lie above.
    assert stats.apart_in_rounds(apart, leader, lower_is_better=False)
    assert not stats.apart_in_rounds(leader, apart, lower_is_better=False)


def test_a_round_without_both_intervals_makes_no_claim_either_way():
    assert stats.apart_in_rounds({1: (1.0, 2.0), 2: (math.nan, math.nan)}, {1: (3.0, 4.0), 2: (0.5, 9.0)}, lower_is_better=True)
    assert stats.apart_in_rounds({}, {}, lower_is_better=True)


def test_a_lines_standard_error_is_its_residuals_spread_over_how_many_points_place_it_and_how_far_from_their_middle():
    # Two points either side of 1.0 core at no rate and of 2.0 at 10/s: residuals of 0.1, so s = sqrt(0.04 / 2); the rates' mean is
    # 5 and their squared deviations sum to 100. At the middle, s / 2; at no rate, s * sqrt(1/4 + 25/100) = 0.1.
    fit = stats.capacity_fit([0, 0, 10, 10], [0.9, 1.1, 1.9, 2.1])

    assert fit.cores_at(0) == pytest.approx(1.0)
    assert fit.stderr_cores_at(5) == pytest.approx(math.sqrt(0.02) / 2)
    assert fit.stderr_cores_at(0) == pytest.approx(0.1)


def test_a_line_through_two_points_does_not_say_how_precise_it_is():
    assert math.isnan(stats.capacity_fit([0, 10], [1.0, 2.0]).stderr_cores_at(5))


def test_one_judge_orders_two_figures_across_passes_only_where_their_ranges_lie_apart():
    high, low, touching = stats.across([10.0, 11.0, 12.0]), stats.across([7.0, 8.0, 9.0]), stats.across([9.0, 9.5, 10.0])

    assert stats.order(high, low) == 1
    assert stats.order(low, high) == -1
    # Ranges that touch overlap: the pass at 10 of one is not clear of the pass at 10 of the other.
    assert stats.order(high, touching) == 0
    assert stats.order(high, stats.across([20.0])) is None


def test_every_reading_of_apart_is_the_one_judge():
    a, b = stats.across([10.0, 11.0, 12.0]), stats.across([7.0, 8.0, 9.0])

    assert stats.apart(a, b, lower_is_better=False) == "apart across passes"
    assert stats.apart(a, b, lower_is_better=True) == "overlap across passes: not resolved"
    assert stats.apart_in_rounds({1: (a.low, a.high)}, {1: (b.low, b.high)}, lower_is_better=False)
    assert not stats.apart_in_rounds({1: (a.low, a.high)}, {1: (b.low, b.high)}, lower_is_better=True)


def test_a_figure_is_shown_with_its_range_and_passes_or_as_one_pass():
    assert numbers.shown(stats.Across(6.0, 5.0, 7.0, 3)) == "6 [5, 7] over 3 passes"
    assert numbers.shown(stats.Across(6.0, math.nan, math.nan, 1)) == "6 (one pass)"
    assert numbers.shown(stats.Across(math.nan, math.nan, math.nan, 0)) == "not measured"


def test_one_number_format_whole_from_100_two_decimals_from_1_three_digits_below():
    assert [numbers.number(x) for x in (12345.6, 100.4, 12.345, 1.5, 0.012345, 7.0)] == ["12,346", "100", "12.35", "1.50", "0.0123", "7"]
    assert numbers.number(math.nan) == ""


def test_a_table_in_its_own_unit_shows_a_figure_in_its_own_format():
    assert numbers.shown(stats.Across(6.0, 5.0, 7.0, 3), lambda x: f"{x:g} B") == "6 B [5 B, 7 B] over 3 passes"
