"""The model and engine effect at each step of the curve (labanalysis.verdict.curve_effects), held to per-step figures known by construction."""

import pandas as pd

from labanalysis.verdict import curve_effects

# The catalogue's four servers: the engine and the model of each.
SERVERS = {
    "coroutine": ("ktor-netty", "coroutine"),
    "vthread": ("jetty", "virtual"),
    "platform": ("jetty", "platform"),
    "jetty-coroutine": ("jetty", "coroutine"),
}


def _steps(p99_ms: dict[str, dict[int, list[float]]]) -> pd.DataFrame:
    """Per-step rows of /dashboard: for each server and offered rate, one row a pass with that pass's wire p99."""
    rows = []
    for server, by_rate in p99_ms.items():
        engine, model = SERVERS[server]
        for rate, values in by_rate.items():
            for n, value in enumerate(values):
                rows.append(
                    {
                        "run folder": "r",
                        "pass": f"{server}-{n}",
                        "server": server,
                        "label": server,
                        "engine": engine,
                        "model": model,
                        "jdk": 25,
                        "endpoint": "dashboard",
                        "offered_per_s": rate,
                        "wire_p99_ms": value,
                    }
                )
    return pd.DataFrame(rows)


STEPS = _steps(
    {
        "coroutine": {200: [40.0, 45.0, 50.0], 800: [900.0, 1000.0, 1100.0]},
        "vthread": {200: [22.0, 25.0, 28.0], 800: [30.0, 32.0, 34.0]},
        "platform": {200: [24.0, 26.0, 30.0], 800: [300.0, 320.0, 340.0]},
        "jetty-coroutine": {200: [21.0, 24.0, 27.0], 800: [31.0, 33.0, 35.0]},
    }
)


def test_each_step_compares_the_models_on_one_engine_and_the_engines_under_one_model():
    found = curve_effects.effects(STEPS, "dashboard", "p99 on the wire (ms)")

    vthread_platform = found[(found["A server"] == "vthread") & (found["B server"] == "platform")].set_index("figure")
    assert list(vthread_platform.index) == ["200/s", "800/s"]
    assert vthread_platform.loc["800/s", "ratio"] == 32.0 / 320.0
    engines = found[found["within"] == "coroutine"]
    assert set(zip(engines["A server"], engines["B server"], strict=True)) == {("coroutine", "jetty-coroutine")}


def test_a_cell_says_the_factor_and_whether_every_pair_of_passes_is_on_one_side():
    table = curve_effects.table(STEPS, "dashboard", "p99 on the wire (ms)")

    model = table.loc["on jetty: virtual threads against platform threads (vthread, platform)"]
    assert model["800/s"] == "0.1x, lower"  # every vthread pass under every platform pass
    assert model["200/s"] == "0.962x, overlap"  # 22-28 against 24-30: the passes straddle
    engine = table.loc["coroutines: ktor-netty against jetty (coroutine, jetty-coroutine)"]
    assert engine["800/s"] == "30.30x, higher"


def test_an_endpoint_the_run_did_not_step_has_no_table():
    assert curve_effects.table(STEPS, "json", "p99 on the wire (ms)").empty
