"""Loading a run folder: a whole one reads clean; a partial one says what is missing instead of failing."""

import gzip
import json

import pandas as pd
import pytest

from labanalysis.folder import series
from labanalysis.folder.bench_manifest import CpuSplit
from labanalysis.folder.run import RunFolderError, load_run
from labanalysis.folder.series import FORMAT_VERSION


def test_a_whole_run_has_its_four_servers_and_no_problems(run_folder):
    run = load_run(run_folder)
    run.read_all()

    # In the order they ran (the manifest's outcomes).
    assert [s.name for s in run.servers] == ["ktor-coroutine", "jetty-virtual", "jetty-coroutine", "jetty-platform"]
    assert all(s.ok for s in run.servers)
    assert run.complete
    # Every file read whole: the only problems are the harness's own marks (the host was busy during three of the passes).
    marks = [f"{s.name}: {m}" for s in run.servers for m in s.outcome.marks]
    assert run.all_problems() == marks and not run.server("ktor-coroutine").outcome.marks


def test_a_folder_without_a_manifest_is_one_line_saying_what_to_pass(tmp_path):
    with pytest.raises(RunFolderError) as error:
        load_run(tmp_path)

    assert "no manifest.json" in str(error.value)
    assert "RUN=" in str(error.value)
    assert "\n" not in str(error.value)


def test_a_manifest_cut_off_mid_write_is_one_line(run_folder):
    manifest = run_folder / "manifest.json"
    manifest.write_text(manifest.read_text()[:200])

    with pytest.raises(RunFolderError, match="not valid JSON"):
        load_run(run_folder)


@pytest.mark.parametrize(
    "recorded, said",
    [
        (FORMAT_VERSION + 1, f"run-folder format {FORMAT_VERSION + 1}, and this analysis reads format {FORMAT_VERSION}"),
        (None, f"records no run-folder format (it predates run-folder.json), and this analysis reads format {FORMAT_VERSION}"),
    ],
)
def test_a_run_in_another_run_folder_format_or_none_is_one_line_naming_the_commit_to_render_it_from(run_folder, recorded, said):
    manifest_path = run_folder / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["runFolderFormat"] = recorded
    if recorded is None:
        del manifest["runFolderFormat"]
    manifest_path.write_text(json.dumps(manifest))

    with pytest.raises(RunFolderError) as error:
        load_run(run_folder)

    assert said in str(error.value) and "\n" not in str(error.value)
    assert f"render it from a checkout of {manifest['provenance']['gitCommit']}" in str(error.value)


def test_a_failed_server_is_named_with_its_reason(run_folder):
    manifest = json.loads((run_folder / "manifest.json").read_text())
    manifest["outcomes"][3].update(status="failed", reason="exited with 137 (SIGKILL) in phase json")
    (run_folder / "manifest.json").write_text(json.dumps(manifest))

    run = load_run(run_folder)

    assert not run.server("jetty-platform").ok
    assert "jetty-platform: failed: exited with 137 (SIGKILL) in phase json" in run.all_problems()


def test_a_pass_marked_by_the_harness_lists_each_mark_among_its_problems(run_folder):
    manifest = json.loads((run_folder / "manifest.json").read_text())
    manifest["outcomes"][1]["marks"] = ["3 of 300 idle sockets never opened"]
    (run_folder / "manifest.json").write_text(json.dumps(manifest))

    run = load_run(run_folder)

    assert run.servers[1].problems == ["3 of 300 idle sockets never opened"]
    assert run.servers[1].ok, "a marked pass still ran to the end"


def test_a_server_the_harness_never_reached_is_named(run_folder):
    manifest = json.loads((run_folder / "manifest.json").read_text())
    manifest["outcomes"] = manifest["outcomes"][:1]
    manifest["provenance"]["status"] = "incomplete"
    (run_folder / "manifest.json").write_text(json.dumps(manifest))
    for name in ["jetty-virtual", "jetty-coroutine", "jetty-platform"]:
        for f in (run_folder / name).iterdir():
            f.unlink()
        (run_folder / name).rmdir()

    run = load_run(run_folder)

    assert [s.name for s in run.servers] == ["ktor-coroutine"]
    assert "jetty-virtual never ran: the harness stopped before it" in run.all_problems()
    assert any("incomplete" in p for p in run.all_problems())


def test_a_missing_series_is_an_empty_frame_and_a_problem(run_folder):
    (run_folder / "ktor-coroutine" / "proc.csv").unlink()

    server = load_run(run_folder).server("ktor-coroutine")

    assert server.proc.empty
    assert server.problems == ["proc.csv is missing: the figures from it are left out"]


def test_a_csv_cut_mid_line_keeps_its_whole_rows(run_folder):
    proc = run_folder / "ktor-coroutine" / "proc.csv"
    lines = proc.read_text().splitlines()
    proc.write_text("\n".join(lines) + "\n" + lines[-1][:12])  # a last line half written

    server = load_run(run_folder).server("ktor-coroutine")

    assert len(server.proc) == len(lines) - 1
    assert server.proc["rss_bytes"].notna().all()
    assert server.problems == ["proc.csv has 1 cut-off line(s), left out"]


def test_a_csv_written_whole_reads_as_its_rows_read_one_by_one_do(run_folder):
    # load.csv: a reader that rounds otherwise than pd.to_numeric reads some of its rates a bit apart
    text = (run_folder / "ktor-coroutine" / "load.csv").read_text()
    spec = series.SERIES["load.csv"]
    cut = text + text.splitlines()[-1][:12]

    whole, dropped, _ = series.whole_rows(text, spec)
    one_by_one, _, _ = series.whole_rows(cut, spec)  # a cut line sends it to the row-by-row reader

    assert series._every_row_whole(text, len(text.splitlines()[0].split(","))) and dropped == 0
    pd.testing.assert_frame_equal(whole, one_by_one, check_exact=True)


def test_a_quoted_field_or_a_line_of_another_length_is_read_row_by_row():
    fields = 3
    assert series._every_row_whole("a,b,c\n1,2,3\n\n4,5,6", fields)
    assert not series._every_row_whole('a,b,c\n1,"2,5",3\n', fields)
    assert not series._every_row_whole("a,b,c\n1,2,3\n4,5\n", fields)
    assert not series._every_row_whole("a,b,c\n1,2,3,4\n", fields)


def test_k6_samples_cut_short_keep_the_samples_before_the_cut(run_folder):
    samples = run_folder / "ktor-coroutine" / "k6-metrics.csv.gz"
    whole = gzip.decompress(samples.read_bytes())
    compressed = gzip.compress(whole)
    samples.write_bytes(compressed[: len(compressed) // 2])

    server = load_run(run_folder).server("ktor-coroutine")
    frame = server.k6_samples

    assert 0 < len(frame) < whole.count(b"\n") - 1
    assert len(server.problems) == 1 and "k6-metrics.csv.gz is cut short" in server.problems[0]


def test_a_missing_k6_summary_is_a_problem_not_an_error(run_folder):
    (run_folder / "ktor-coroutine" / "k6-summary.json").unlink()

    server = load_run(run_folder).server("ktor-coroutine")

    assert server.k6_metrics == {}
    assert "k6-summary.json is missing" in server.problems[0]


def test_a_k6_script_that_threw_is_a_problem(run_folder):
    # As k6 logs a script that throws, here the one a missing plan field once caused.
    line = (
        'time="2026-11-22T04:37:46Z" level=error msg="TypeError: Cannot read property \'length\' of undefined" scenario=pin_traps source=stacktrace'
    )
    # k6's own errors, such as being stopped, are not the script's.
    stopped = 'time="2026-11-22T02:59:01Z" level=error msg="test run was aborted because k6 received a \'terminated\' signal"'
    (run_folder / "ktor-coroutine" / "k6.log").write_text("\n".join([line, stopped, line]) + "\n")

    run = load_run(run_folder)
    run.read_all()

    assert run.server("ktor-coroutine").k6_script_errors == 2
    assert run.server("ktor-coroutine").problems == [
        "k6's script threw 2 time(s) (see k6.log): the requests those iterations were to make are missing from its figures"
    ]


# ---- the files of repeated passes: cpu.csv, memory.csv, histogram.csv and the manifest's additions ---


def test_a_run_in_the_new_format_reads_cpu_memory_and_histogram_for_every_pass(repeats_folder):
    run = load_run(repeats_folder)
    run.read_all()

    assert [s.name for s in run.servers] == ["vthread", "platform", "platform-r2", "vthread-r2", "vthread-r3", "platform-r3"]
    assert run.all_problems() == []
    vthread = run.server("vthread")
    assert len(vthread.cpu) == 41 and vthread.cpu.loc[0, "k6"] == 0.1
    assert set(vthread.memory["component"]) >= {"live_heap", "nmt_thread", "kernel", "kernel_tcp", "rss", "pss"}
    assert sorted(vthread.memory["sockets_open"].unique()) == [0, 100, 200, 300, 400]
    assert vthread.histogram.loc[0, "class"] == "java.lang.String"


def test_the_manifest_says_the_pass_order_its_seed_the_cpu_split_the_rate_choice_and_the_kernel_memory_source(repeats_folder):
    run = load_run(repeats_folder)

    assert run.pass_order == ["vthread", "platform", "platform-r2", "vthread-r2", "vthread-r3", "platform-r3"]
    assert run.pass_seed == 7
    assert run.cpu_split == CpuSplit(server_cpus=(1,), load_cpus=(0,))
    assert run.json_rate_choice == "fixed at 20/s by the profile, the same for every pass"
    assert run.kernel_memory_source == "cgroup-v1"
    assert run.heap_bytes == 160 * (1 << 20)


def test_a_pass_without_memory_csv_has_a_problem_saying_so(repeats_folder):
    (repeats_folder / "vthread-r2" / "memory.csv").unlink()

    run = load_run(repeats_folder)
    run.read_all()

    assert run.all_problems() == ["vthread-r2: memory.csv is missing: the figures from it are left out"]


def test_an_empty_cell_in_cpu_csv_is_no_value_and_keeps_its_row(repeats_folder):
    # k6 on a remote load generator, and no CPU split: the harness leaves those cells empty.
    path = repeats_folder / "vthread" / "cpu.csv"
    lines = path.read_text().splitlines()
    path.write_text(
        "\n".join([lines[0], *[",".join(f if i not in (3, 7, 8) else "" for i, f in enumerate(line.split(","))) for line in lines[1:]]]) + "\n"
    )

    server = load_run(repeats_folder).server("vthread")

    assert len(server.cpu) == 41
    assert server.cpu["k6"].isna().all() and server.cpu["load_cpus_busy"].isna().all()
    assert server.cpu["server"].notna().all()
    assert server.problems == []


def test_a_cpu_csv_without_an_optional_column_is_read_with_it_empty_and_says_so(repeats_folder):
    path = repeats_folder / "vthread" / "cpu.csv"
    frame = pd.read_csv(path).drop(columns=["steal"])
    frame.to_csv(path, index=False)

    server = load_run(repeats_folder).server("vthread")

    assert server.cpu["steal"].isna().all() and len(server.cpu) == 41
    assert server.problems == ["cpu.csv has no column steal: the figures from it are left out"]


def test_a_memory_csv_with_another_name_for_a_spec_column_is_not_guessed_at(repeats_folder):
    path = repeats_folder / "vthread" / "memory.csv"
    path.write_text(path.read_text().replace("sockets_open", "open_sockets", 1))

    server = load_run(repeats_folder).server("vthread")

    assert server.memory.empty
    assert server.problems == ["memory.csv lacks the columns sockets_open: the figures from it are left out"]


def test_the_fixture_is_what_its_generator_writes(tmp_path):
    import filecmp
    import importlib.util

    from conftest import FIXTURES, REPEATS

    spec = importlib.util.spec_from_file_location("make_repeats_run", FIXTURES / "make_repeats_run.py")
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    generator.main(tmp_path / "again")

    compared = filecmp.dircmp(REPEATS, tmp_path / "again")
    assert not compared.diff_files and not compared.left_only and not compared.right_only
    for sub in compared.subdirs.values():
        assert not sub.diff_files and not sub.left_only and not sub.right_only, sub.left
