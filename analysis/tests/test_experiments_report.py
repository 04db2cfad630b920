"""The experiments' report: experiments.ipynb run headless on a clients or IO folder, with the newest folder of the other kind beside it."""

from labanalysis.report import offline, render

SECTIONS = [
    "What to pick",
    "Threads each client blocks while its calls wait",
    "Claims checked",
    "Large downloads",
    "Heap allocated per byte downloaded",
    "Several large downloads at once",
    "IO throughput",
    "Each model's floor: memory per parked task",
    "The runs",
]


def test_a_clients_run_renders_every_section_with_the_newest_io_run_beside_it(fixture_copy):
    clients_folder = fixture_copy("clients", "20261122-075000-clients")
    fixture_copy("io", "20261122-074453-io")

    report = render.render_experiment(clients_folder)

    html = report.read_text()
    assert report == clients_folder / "report.html"
    for section in SECTIONS:
        assert f">{section}<" in html, section
    # The thread census, one plot a download size, and the IO times.
    assert html.count("data:image/png;base64,") >= 4
    assert "Traceback" not in html and 'data-mime-type="application/vnd.jupyter.stderr"' not in html
    assert "20261122-074453-io" in html and "NIO FileChannel" in html
    assert offline.external_loads(html) == [], "the report loads nothing from the network"


def test_an_io_run_alone_says_which_command_measures_the_clients(fixture_copy):
    html = render.render_experiment(fixture_copy("io", "20261122-074453-io")).read_text()

    assert "run <code>make clients</code>" in html or "run `make clients`" in html
    assert "No Autobahn timing here" in html
    assert "Traceback" not in html


def test_a_folder_that_is_neither_is_one_line_and_exit_code_2(tmp_path, capsys):
    assert render.main(["--experiment", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is not an experiment folder" in err[0] and "-clients" in err[0]
