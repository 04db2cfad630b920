"""Where a server's CPU went, from JFR's folded stacks (labanalysis.sweep.cpu_profile), held to truths known by construction.

The sampler itself is held to a known truth in the lab's JfrProfileTest: a method that used three times another's CPU
has three times its samples.
"""

from pathlib import Path

import pytest

from labanalysis.sweep import cpu_profile

KTOR_CLIENT_HASHMAP = (
    "DefaultDispatch;java.lang.Thread.run;io.ktor.client.engine.cio.Endpoint.execute;io.ktor.client.call.HttpClientCall.body;java.util.HashMap.get"
)
NETTY_READ = "eventLoopGroupP;java.lang.Thread.run;io.netty.channel.nio.NioEventLoop.run;sun.nio.ch.SocketDispatcher.read0"
CARRIER = "ForkJoinPool;java.lang.Thread.run;java.util.concurrent.ForkJoinPool.runWorker"


def _profile(stacks: dict[str, int], pass_: int = 1, requests: int = 1000, server_cpu_s: float = 2.0) -> cpu_profile.StepProfile:
    return cpu_profile.StepProfile(pass_, "ktor-coroutine", "dashboard", 50, requests, server_cpu_s, stacks)


def test_folded_lines_are_a_stack_and_its_count_and_a_stack_seen_twice_is_summed():
    text = f"{NETTY_READ} 3\n{CARRIER} 2\n{NETTY_READ} 4\nnot a line\n"

    assert cpu_profile.parse_folded(text) == {NETTY_READ: 7, CARRIER: 2}


def test_the_jdks_frames_are_charged_to_the_library_that_called_them():
    assert cpu_profile.library_of(KTOR_CLIENT_HASHMAP) == "Ktor client"
    assert cpu_profile.library_of(NETTY_READ) == "Netty"
    assert cpu_profile.library_of(CARRIER) == cpu_profile.RUNTIME_ONLY
    assert cpu_profile.library_of(cpu_profile.LOST) == cpu_profile.LOST
    assert cpu_profile.library_of("GC Thread;[no stack]") == cpu_profile.NO_STACK
    assert cpu_profile.library_of("x;[truncated];org.example.deep.Thing.run") == "org.example"


def test_the_innermost_frame_is_the_method_on_the_cpu_and_the_first_part_the_thread_family():
    assert cpu_profile.innermost(KTOR_CLIENT_HASHMAP) == "java.util.HashMap.get"
    assert cpu_profile.family_of(KTOR_CLIENT_HASHMAP) == "DefaultDispatch"


def test_a_samples_cpu_is_the_period_and_a_key_missing_from_a_pass_counts_as_none_there():
    # 30 samples of 10 ms over 1,000 requests: 300 µs a request; Netty's 10 samples in one pass of two, none in the other.
    profiles = [_profile({KTOR_CLIENT_HASHMAP: 30, NETTY_READ: 10}, pass_=1), _profile({KTOR_CLIENT_HASHMAP: 30}, pass_=2)]

    table = cpu_profile.per_request(profiles, cpu_profile.library_of).set_index("key")

    assert table.loc["Ktor client", "µs per request"] == pytest.approx(300)
    assert table.loc["Netty", ["µs per request", "low", "high"]].tolist() == pytest.approx([50, 0, 100])
    assert set(table["passes"]) == {2}


def test_the_sampled_cpu_stands_beside_the_servers_whole_and_a_lost_sample_was_cpu_used():
    profiles = [_profile({NETTY_READ: 100, cpu_profile.LOST: 7}, server_cpu_s=1.5)]

    row = cpu_profile.sampled_against_whole(profiles).iloc[0]

    assert (row["sampled"], row["whole"]) == pytest.approx((1070, 1500))


def test_a_sweep_without_profiles_says_how_to_make_one(fixture_copy, capsys):
    folder = fixture_copy("sweep-threads", "20261204-004929-sweep")

    assert cpu_profile.main([str(folder)]) == 0
    assert "JFR_PROFILE=on" in capsys.readouterr().out


def test_a_sweeps_profiles_are_read_from_each_pass_folder_and_shown_a_step(fixture_copy, capsys):
    folder = fixture_copy("sweep-threads", "20261204-004929-sweep")
    run, _ = cpu_profile.load(folder)
    first = run.steps.iloc[0]
    pass_folder = folder / f"{first['server']}-{first['workload']}-pass{first['pass']}"
    pass_folder.mkdir(exist_ok=True)
    (pass_folder / f"profile-{first['workload']}-{first['concurrency']}.cpu.folded").write_text(f"{KTOR_CLIENT_HASHMAP} 40\n{NETTY_READ} 10\n")

    _, profiles = cpu_profile.load(folder)
    assert cpu_profile.main([str(folder)]) == 0

    assert [(p.server, p.concurrency, p.requests) for p in profiles] == [(first["server"], first["concurrency"], first["requests"])]
    out = capsys.readouterr().out
    assert "| Ktor client |" in out and "`java.util.HashMap.get`" in out


def test_a_workloads_libraries_stand_across_a_row_a_server_and_c_the_largest_first():
    profiles = [_profile({KTOR_CLIENT_HASHMAP: 30, NETTY_READ: 10}, pass_=p) for p in (1, 2)]

    table = cpu_profile.library_table(profiles, "dashboard")

    assert list(table.columns) == ["server", "C", "Ktor client", "Netty", cpu_profile.OTHER_LIBRARIES]
    assert table.iloc[0]["C"] == "50"
    assert cpu_profile.library_table(profiles, "delay").empty


def test_a_profiled_sweeps_headline_shows_its_libraries(fixture_copy):
    from labanalysis.folder import sweepfolder
    from labanalysis.report import headline

    folder = fixture_copy("sweep-threads", "20261204-004929-sweep")
    run = sweepfolder.load(folder)
    first = run.steps.iloc[0]
    pass_folder = folder / f"{first['server']}-{first['workload']}-pass{first['pass']}"
    pass_folder.mkdir(exist_ok=True)
    (pass_folder / f"profile-{first['workload']}-{first['concurrency']}.cpu.folded").write_text(f"{NETTY_READ} 10\n")

    assert "by the library whose code ran" in headline.of_sweep(sweepfolder.load(folder))


def test_the_sampler_is_set_beside_procs_count_of_the_same_family():
    import pandas as pd

    from labanalysis.folder import sweepfolder

    steps = pd.DataFrame(
        [
            dict.fromkeys(sweepfolder.STEP_COLUMNS, 0)
            | {"pass": 1, "server": "ktor-coroutine", "workload": "dashboard", "concurrency": 50, "requests": 1000, "server_cpu_s": 2.0}
        ]
    )
    threads = pd.DataFrame(
        [{"pass": 1, "server": "ktor-coroutine", "workload": "dashboard", "concurrency": 50, "thread_family": "DefaultDispatch", "cpu_s": 0.5}]
    )
    manifest = sweepfolder.load(Path(__file__).resolve().parent / "fixtures" / "sweep").manifest
    run = sweepfolder.SweepRun(None, manifest, steps, pd.DataFrame(columns=sweepfolder.MEMORY_COLUMNS), threads)
    # 40 samples of 10 ms over 1,000 requests is 400 µs a request; /proc counted 0.5 s, 500 µs a request.
    profiles = [_profile({KTOR_CLIENT_HASHMAP: 40})]

    row = cpu_profile.families_against_proc(run, profiles).set_index("family").loc["DefaultDispatch"]

    assert (row["sampled"], row["counted"], row["sampled / counted"]) == pytest.approx((400, 500, 0.8))
