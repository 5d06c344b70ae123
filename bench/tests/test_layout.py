"""CPU layouts: one worker on CPU 0 with the client on CPU 1; two workers only where 4 CPUs exist."""
import pytest
from harness import contenders, procs, runner, workloads


@pytest.mark.parametrize("cpus, workers, server, client, harness, shared", [
    ([0, 1], 1, "0", "1", 1, False),
    ([0, 1], 2, "0,1", "1", 1, True),
    ([0, 1, 2, 3], 1, "0", "1", 3, False),
    ([0, 1, 2, 3], 2, "0,1", "2,3", 3, False),
    (list(range(8)), 2, "0,1", "2,3", 7, False),
    ([0, 1, 2], 2, "0,1", "2", 2, True),
    ([4, 5, 6, 7], 2, "4,5", "6,7", 7, False),
    ([0], 1, "0", "0", 0, True),
])
def test_layouts(cpus, workers, server, client, harness, shared):
    layout = procs.CpuLayout(cpus, workers)
    assert (layout.server_spec, layout.client_spec, layout.harness, layout.shared) == (server, client, harness, shared)


@pytest.mark.parametrize("cpus, spec", [([0], "0"), ([0, 1], "0,1"), ([2, 3, 4, 5], "2-5"), ([0, 2, 3], "0,2,3")])
def test_cpu_list(cpus, spec):
    assert procs.cpu_list(cpus) == spec


@pytest.mark.parametrize("name", ["slipstream-py-w2", "fastapi-w2", "granian-w2"])
def test_two_worker_rows_need_four_cpus(name):
    c = contenders.BY_NAME[name]
    assert c.cores_reason(2) == ("not measurable here: 2 workers need 2 CPUs for the server and 2 for the load "
                                 "generator (4), this machine has 2")
    assert c.cores_reason(4) is None
    assert {w for w in workloads.WORKLOADS if not c.na_reason(w, 65536, 10000, 64)} == {"hello", "validated"}


def test_one_worker_contenders_fit_any_machine():
    assert all(c.cores_reason(1) is None for c in contenders.CONTENDERS if c.workers == 1)


@pytest.mark.parametrize("cpus, allow, expected", [
    ([0, 1], False, "not measurable here"), ([0, 1], True, None), ([0, 1, 2, 3], False, None)])
def test_runner_marks_two_worker_rows_by_the_cpus_it_has(cpus, allow, expected):
    settings = runner.Settings(allow_shared_cores=allow)
    suite = runner.SuiteContext(fd_limit=65536, cpus=cpus)
    reason = runner.na_reason(contenders.BY_NAME["fastapi-w2"], workloads.WORKLOADS["hello"], settings, suite)
    assert (reason if expected is None else reason[:len(expected)]) == expected


def test_load_commands_follow_the_layout_and_the_scheme(tmp_path):
    settings = runner.Settings()
    w = workloads.WORKLOADS
    two = procs.CpuLayout([0, 1, 2, 3], 2)
    argv, _ = runner.load_command(w["hello"], settings, 8000, None, str(tmp_path), 5, two)
    assert argv[:5] == ["taskset", "-c", "2,3", "wrk", "-t2"] and argv[-1] == "http://127.0.0.1:8000/hello"
    one = procs.CpuLayout([0, 1], 1)
    argv, _ = runner.load_command(w["tls"], settings, 8000, None, str(tmp_path), 5, one)
    assert argv[:5] == ["taskset", "-c", "1", "wrk", "-t1"] and argv[-1] == "https://127.0.0.1:8000/hello"
    argv, log = runner.load_command(w["h2tls"], settings, 8000, None, str(tmp_path), 5, one)
    assert argv[3] == "h2load" and argv[-1] == "https://127.0.0.1:8000/hello" and log.endswith("h2load-h2tls.log")
    argv, log = runner.load_command(w["ws"], settings, 8000, None, str(tmp_path), 5, one)
    assert argv[3].endswith("ws_load") and log is None
    assert argv[4:] == ["--host", "127.0.0.1", "--port", "8000", "--path", "/ws", "--connections", "64",
                        "--depth", "1", "--size", "32", "--duration", "5"]
