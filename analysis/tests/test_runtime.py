"""The run's facts say where the load came from and what the lab changed in each engine: a reader must know both."""

from labanalysis.bench.runtime import engine_changes, load_generation


def test_a_run_without_load_generators_says_k6_shared_the_cpu(bench_manifest):
    assert "shared the CPU" in load_generation(bench_manifest(loadGenerators=[]))


def test_a_run_with_load_generators_names_each_segment(bench_manifest):
    text = load_generation(
        bench_manifest(
            bindAddress="10.0.0.2",
            loadGenerators=[{"host": "root@10.0.0.3", "executionSegment": "0:1/2"}, {"host": "root@10.0.0.4", "executionSegment": "1/2:1"}],
        )
    )
    assert "shared the CPU" not in text
    assert "root@10.0.0.3 (segment 0:1/2)" in text and "root@10.0.0.4 (segment 1/2:1)" in text
    assert "10.0.0.2" in text


def test_the_run_facts_name_what_the_lab_changed_in_each_engine_as_the_run_recorded_it():
    manifest = {
        "engines": {
            "jetty": {
                "label": "Jetty 12.1.12",
                "changes": [{"name": "fill-lock", "kind": "patch", "what": "one thread fills a connection", "why": "a buffer used twice"}],
            },
            "ktor-netty": {"label": "Ktor 3.5.2 on Netty 4.2.20", "changes": []},
        }
    }

    text = engine_changes(manifest["engines"])

    assert text.startswith("Jetty 12.1.12: fill-lock (patch: one thread fills a connection); Ktor 3.5.2 on Netty 4.2.20: ")


def test_a_run_from_before_the_engines_changes_were_recorded_says_so():
    assert engine_changes({}).startswith("not recorded")
