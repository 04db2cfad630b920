"""The run's facts say where the load came from: a reader must know whether k6 shared the servers' CPU."""

from labanalysis.runtime import load_generation


def test_a_run_without_load_generators_says_k6_shared_the_cpu():
    assert "shared the CPU" in load_generation({"loadGenerators": []})
    assert "shared the CPU" in load_generation({})


def test_a_run_with_load_generators_names_each_segment():
    text = load_generation(
        {
            "bindAddress": "10.0.0.2",
            "loadGenerators": [{"host": "root@10.0.0.3", "executionSegment": "0:1/2"}, {"host": "root@10.0.0.4", "executionSegment": "1/2:1"}],
        }
    )
    assert "shared the CPU" not in text
    assert "root@10.0.0.3 (segment 0:1/2)" in text and "root@10.0.0.4 (segment 1/2:1)" in text
    assert "10.0.0.2" in text
