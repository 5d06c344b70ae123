"""wrk and h2load output parsing against outputs captured from real runs (tests/fixtures/)."""
import pytest
from harness import h2load, wrk


@pytest.mark.parametrize("name, threads, conns, requests, duration, rps, non2xx, errors, p50, p99", [
    ("wrk_hello_nginx.txt", 1, 64, 113859, 3.02, 37748.88, 0, 0, 930.0, 12470.0),
    ("wrk_pipeline16_nginx.txt", 1, 64, 185963, 2.00, 92768.92, 0, 0, 6470.0, 0.0),
    ("wrk_large_nginx.txt", 1, 16, 15480, 2.01, 7716.20, 0, 0, 1340.0, 9220.0),
    ("wrk_non2xx_nginx.txt", 1, 8, 11429, 1.01, 11360.95, 11429, 0, 270.0, 4270.0),
    ("wrk_read_errors.txt", 1, 8, 0, 1.10, 0.0, 0, 3423, 0.0, 0.0),
    ("wrk_validated_fastapi.txt", 1, 16, 6568, 2.00, 3276.03, 656, 0, 4690.0, 11290.0),
])
def test_parses_captured_wrk_output(fixture_text, name, threads, conns, requests, duration, rps, non2xx, errors,
                                    p50, p99):
    result = wrk.parse(fixture_text(name))
    assert (result.threads, result.connections, result.requests) == (threads, conns, requests)
    assert result.duration_s == pytest.approx(duration)
    assert result.requests_per_s == pytest.approx(rps)
    assert result.non_2xx == non2xx
    assert result.socket_error_total == errors
    assert result.percentiles_us[50.0] == pytest.approx(p50)
    assert result.percentiles_us[99.0] == pytest.approx(p99)
    assert sorted(result.percentiles_us) == [50.0, 75.0, 90.0, 99.0]


def test_counts_only_2xx_as_throughput(fixture_text):
    result = wrk.parse(fixture_text("wrk_validated_fastapi.txt"))
    assert result.ok_requests == 6568 - 656
    assert result.ok_per_s == pytest.approx((6568 - 656) / 2.00)


def test_socket_error_kinds(fixture_text):
    result = wrk.parse(fixture_text("wrk_read_errors.txt"))
    assert result.socket_errors == {"connect": 0, "read": 3423, "write": 0, "timeout": 0}


def test_size_and_latency_units(fixture_text):
    result = wrk.parse(fixture_text("wrk_large_nginx.txt"))
    assert result.bytes_read == pytest.approx(0.95 * 1024**3)
    assert result.latency_avg_us == pytest.approx(2280.0)
    assert result.latency_max_us == pytest.approx(13080.0)


@pytest.mark.parametrize("text", [
    "",
    "unable to connect to 127.0.0.1:18099 Connection refused\n",
    "Running 1s test @ http://x/\n  1 threads and 8 connections\nRequests/sec: 5.0\n",
])
def test_refuses_incomplete_output(fixture_text, text):
    with pytest.raises(wrk.WrkParseError):
        wrk.parse(text)


def test_refuses_captured_connect_failure(fixture_text):
    with pytest.raises(wrk.WrkParseError):
        wrk.parse(fixture_text("wrk_connect_errors.txt"))


def test_command_line():
    assert wrk.command("http://127.0.0.1:1/hello", duration_s=3, connections=64) == [
        "wrk", "-t1", "-c64", "-d3s", "--timeout=5s", "--latency", "http://127.0.0.1:1/hello"]
    assert wrk.command("http://h/e", duration_s=1, connections=2, script="p.lua", script_args=["16"])[-4:] == [
        "p.lua", "http://h/e", "--", "16"]


def test_parses_captured_h2load_output(fixture_text):
    result = h2load.parse(fixture_text("h2load_hello_nginx.txt"), fixture_text("h2load_hello_nginx_head.log"), 16)
    assert result.requests == 57609
    assert result.non_2xx == 0
    assert result.requests_per_s == pytest.approx(28804.50)
    assert result.duration_s == pytest.approx(2.00)
    assert result.latency_avg_us == pytest.approx(7990.0)
    assert result.latency_max_us == pytest.approx(27650.0)
    assert result.socket_error_total == 0
    assert 0 < result.percentiles_us[50.0] <= result.percentiles_us[99.0]


@pytest.mark.parametrize("done, codes, non2xx", [(100, (102, 0, 0, 0), 0), (100, (90, 1, 4, 5), 10)])
def test_h2load_non_2xx_counts_the_other_status_classes(fixture_text, done, codes, non2xx):
    text = fixture_text("h2load_hello_nginx.txt").replace(
        "requests: 57609 total, 57865 started, 57609 done,", f"requests: {done} total, {done} started, {done} done,"
    ).replace("status codes: 57609 2xx, 0 3xx, 0 4xx, 0 5xx",
              "status codes: {} 2xx, {} 3xx, {} 4xx, {} 5xx".format(*codes))
    assert h2load.parse(text, "", 16).non_2xx == non2xx


def test_h2load_log_latencies():
    assert h2load.parse_log("1\t200\t443\n2\t200\t475\nbogus\n") == [443.0, 475.0]


def test_h2load_refuses_incomplete_output():
    with pytest.raises(wrk.WrkParseError):
        h2load.parse("starting benchmark...\n", "", 1)
