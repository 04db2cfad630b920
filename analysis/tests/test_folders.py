"""Each report finds the newest folder of another command beside its own: the audit, the clients and the IO runs."""

import pytest

from labanalysis import audit, clients, iobench


@pytest.mark.parametrize(
    "module, fixture, kind",
    [(audit, "audit", "pinning"), (clients, "clients", "clients"), (iobench, "io", "io")],
)
def test_the_newest_folder_of_a_kind_beside_a_run_is_found(tmp_path, fixture_copy, module, fixture, kind):
    run = tmp_path / "20261122-044957-local"
    run.mkdir()
    assert module.latest(run) is None
    for stamp in ["20261122-050000", "20261122-061512"]:
        fixture_copy(fixture, f"{stamp}-{kind}")

    assert module.latest(run).name == f"20261122-061512-{kind}"
