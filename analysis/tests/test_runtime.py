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


def _server_with_cpu(tmp_path, samples: list[tuple[float, str, float, float]]):
    from labanalysis.run import ServerRun

    lines = ["time_s,phase,metric,value"]
    for time_s, phase, user, system in samples:
        lines += [f"{time_s},{phase},cpu_jvm_user,{user}", f"{time_s},{phase},cpu_jvm_system,{system}", f"{time_s},{phase},cpu_machine,0.9"]
    (tmp_path / "jfr-series.csv").write_text("\n".join(lines) + "\n")
    return ServerRun(tmp_path, {"server": "any", "status": "ok"})


def test_cpu_per_request_is_the_jvms_cpu_time_in_the_phase_over_the_requests_it_answered(tmp_path):
    from labanalysis.runtime import cpu_seconds_per_request

    # A quarter of a 2-CPU host is half a CPU-second each second; at 100 requests a second, 5 ms a request.
    server = _server_with_cpu(tmp_path, [(1.0, "json", 0.20, 0.05), (2.0, "json", 0.15, 0.10), (3.0, "dashboard", 0.9, 0.1)])

    assert cpu_seconds_per_request(server, "json", cpus=2, requests_per_second=100) == 0.25 * 2 / 100


def test_cpu_per_request_is_not_measured_without_samples_or_answers(tmp_path):
    import math

    from labanalysis.runtime import cpu_seconds_per_request

    server = _server_with_cpu(tmp_path, [(1.0, "json", 0.2, 0.05)])

    assert math.isnan(cpu_seconds_per_request(server, "json", cpus=2, requests_per_second=0))
    assert math.isnan(cpu_seconds_per_request(server, "dashboard", cpus=2, requests_per_second=100))
