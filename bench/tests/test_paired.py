"""Paired columns: TLS cost against the cleartext workload, scaling of 2-worker rows; their ledger rendering."""
import pytest
from harness import ledger, report, workloads
from helpers import measurement

W = workloads.WORKLOADS


def _records(workload, contender, rps_by_round, cpu=(3.0, 9.0)):
    return [measurement(contender, workload, rnd, rps, server_user_us_per_req=cpu[0], server_sys_us_per_req=cpu[1])
            for rnd, rps in enumerate(rps_by_round)]


def test_tls_cost_pairs_each_round_with_the_same_contenders_cleartext_round():
    records = (_records("hello", "nginx", [100.0, 200.0, 100.0]) + _records("tls", "nginx", [90.0, 100.0, 80.0],
                                                                            cpu=(4.0, 11.0)))
    tables = report.build_tables(records, [W["hello"], W["tls"]], ["nginx"])
    assert tables[0].extra_columns == []
    table = tables[1]
    assert table.extra_columns == [report.TLS_COST, report.TLS_CPU]
    row = table.rows[0]
    assert row.extra[report.TLS_COST] == pytest.approx(0.2)  # median of 0.1, 0.5, 0.2
    assert row.extra[report.TLS_CPU] == pytest.approx(15.0 / 12.0)


def test_no_cpu_ratio_without_responses():
    records = _records("hello", "fastapi", [100.0]) + _records("tls", "fastapi", [0.0], cpu=(0.0, 0.0))
    row = report.build_tables(records, [W["tls"]], ["fastapi"])[0].rows[0]
    assert (row.extra[report.TLS_COST], row.extra[report.TLS_CPU]) == (1.0, None)


def test_tls_cost_needs_the_cleartext_workload_in_the_run():
    table = report.build_tables(_records("h2tls", "nginx", [50.0]), [W["h2tls"]], ["nginx"])[0]
    assert table.extra_columns == [] and table.rows[0].extra == {}


def test_tls_cost_is_empty_for_a_contender_without_a_cleartext_row():
    records = _records("h2", "nginx", [100.0]) + _records("h2tls", "nginx", [75.0]) + _records("h2tls", "h2o", [60.0])
    rows = report.build_tables(records, [W["h2tls"]], ["nginx", "h2o"])[0].rows
    assert [r.extra[report.TLS_COST] for r in rows] == [pytest.approx(0.25), None]
    assert [r.ratio for r in rows] == [1.0, pytest.approx(0.8)]


def test_scaling_against_the_one_worker_baseline_of_the_same_round():
    records = (_records("hello", "nginx", [100.0, 100.0, 100.0]) + _records("hello", "fastapi", [10.0, 20.0, 10.0])
               + _records("hello", "fastapi-w2", [19.0, 30.0, 21.0]))
    table = report.build_tables(records, [W["hello"]], ["nginx", "fastapi", "fastapi-w2"],
                                {"fastapi-w2": "fastapi", "granian-w2": "granian"})[0]
    assert table.extra_columns == [report.cpu_vs_reference("nginx"), report.kernel_vs_reference("nginx"),
                                   report.SCALING]
    nginx, fastapi, w2 = table.rows
    assert [r.extra.get(report.SCALING) for r in (nginx, fastapi)] == [None, None]
    assert w2.extra[report.SCALING] == pytest.approx(1.9)  # median of 1.9, 1.5, 2.1


def test_not_measurable_rows_render_without_a_scaling_column():
    records = _records("hello", "nginx", [100.0]) + [
        {"type": "na", "contender": "fastapi-w2", "workload": "hello", "round": 0,
         "reason": "not measurable here: 2 workers need 2 CPUs for the server and 2 for the load generator (4), "
                   "this machine has 2"}]
    table = report.build_tables(records, [W["hello"]], ["nginx", "fastapi-w2"], {"fastapi-w2": "fastapi"})[0]
    text = ledger.render_table(table)
    assert table.extra_columns == [] and text.splitlines()[0].endswith("| vs nginx | notes |")
    assert "| fastapi-w2 | n/a |" + "  |" * 9 + " not measurable here: 2 workers" in text
    assert all(line.count("|") == text.splitlines()[0].count("|") for line in text.splitlines())


def test_ledger_cells_for_tls_and_scaling():
    records = (_records("hello", "nginx", [100.0]) + _records("tls", "nginx", [88.0])
               + _records("tls", "h2o", [44.0]))
    table = report.build_tables(records, [W["tls"]], ["nginx", "h2o"])[0]
    lines = ledger.render_table(table).splitlines()
    assert lines[0] == ("| contender | req/s (median) | min–max | p50 ms | p99 ms | user µs/req | kernel µs/req | "
                        "peak RSS MiB | non-2xx | socket errors | vs nginx | CPU/req vs nginx | "
                        "kernel/req vs nginx CPU/req | TLS cost | CPU/req vs cleartext | notes |")
    assert lines[2].endswith("| 1.00 | 1.00× | 0.75× | 12.0% | 1.00× |  |")
    assert lines[3].endswith("| 0.50 | 1.00× | 0.75× |  |  |  |")


def test_cpu_per_request_against_the_reference_of_the_same_round():
    records = (_records("hello", "nginx", [100.0, 100.0, 100.0], cpu=(3.0, 9.0))
               + _records("hello", "h2o", [90.0, 90.0, 90.0], cpu=(2.0, 10.0))
               + [measurement("slipstream-cpp", "hello", rnd, 120.0, server_user_us_per_req=user,
                              server_sys_us_per_req=9.0) for rnd, user in enumerate([0.6, 3.0, 1.0])])
    table = report.build_tables(records, [W["hello"]], ["nginx", "h2o", "slipstream-cpp"])[0]
    column, kernel = report.cpu_vs_reference("nginx"), report.kernel_vs_reference("nginx")
    assert table.extra_columns == [column, kernel]
    nginx, h2o, ours = table.rows
    assert nginx.extra[column] == pytest.approx(1.0)
    assert h2o.extra[column] == pytest.approx(1.0)
    assert ours.extra[column] == pytest.approx(10.0 / 12.0)  # median of 9.6, 12.0 and 10.0 over 12
    # Kernel time alone against the reference's total: what the ratio would be with no user-space time.
    assert nginx.extra[kernel] == pytest.approx(9.0 / 12.0)
    assert h2o.extra[kernel] == pytest.approx(10.0 / 12.0)
    assert ours.extra[kernel] == pytest.approx(9.0 / 12.0)


def test_tcp_segments_per_response_are_a_median_column_when_every_run_counted_them():
    records = ([measurement("nginx", "hello", rnd, 100.0, tcp_segments_per_req=segs)
                for rnd, segs in enumerate([2.0, 2.1, 2.0])]
               + [measurement("slipstream-cpp", "hello", rnd, 120.0, tcp_segments_per_req=segs)
                  for rnd, segs in enumerate([2.0, None, 2.0])])
    table = report.build_tables(records, [W["hello"]], ["nginx", "slipstream-cpp"])[0]
    assert table.extra_columns[-1] == report.SEGMENTS
    nginx, ours = table.rows
    assert nginx.extra[report.SEGMENTS] == pytest.approx(2.0)
    assert ours.extra[report.SEGMENTS] is None  # one round without counters: no figure rather than a partial one
    lines = ledger.render_table(table).splitlines()
    assert lines[0].endswith("| TCP segs/req | notes |")
    assert lines[2].endswith("| 2.00 |  |") and lines[3].endswith("|  |  |")


def test_no_segments_column_without_counters():
    table = report.build_tables(_records("hello", "nginx", [100.0]) + _records("hello", "h2o", [90.0]),
                                [W["hello"]], ["nginx", "h2o"])[0]
    assert report.SEGMENTS not in table.extra_columns


def test_no_cpu_column_for_the_reference_alone():
    table = report.build_tables(_records("hello", "nginx", [100.0]), [W["hello"]], ["nginx"])[0]
    assert table.extra_columns == [] and table.rows[0].extra == {}


def test_ws_tables_count_messages():
    records = _records("ws", "socketify", [1000.0]) + _records("ws", "websockets", [250.0])
    table = report.build_tables(records, [W["ws"]], ["socketify", "websockets"])[0]
    head = ledger.render_table(table).splitlines()[0]
    assert "| msg/s (median) |" in head and "| user µs/msg | kernel µs/msg |" in head
    assert "| bad echoes |" in head and "| vs socketify |" in head
    assert table.rows[1].ratio == pytest.approx(0.25)


def test_shared_cores_and_tls_session_become_notes():
    records = [measurement("granian-w2", "hello", 0, 10.0, cores_shared=True, server_cpus="0,1"),
               measurement("nginx", "h2tls", 0, 10.0, tls_session="TLSv1.3 TLS_AES_128_GCM_SHA256 X25519 h2")]
    hello = report.build_tables(records, [W["hello"]], ["granian-w2"])[0].rows[0]
    assert hello.flags == ["CPUs shared with the load generator (server on 0,1): not a valid measurement"]
    h2tls = report.build_tables(records, [W["h2tls"]], ["nginx"])[0].rows[0]
    assert h2tls.flags == ["TLSv1.3 TLS_AES_128_GCM_SHA256 X25519 h2"]
