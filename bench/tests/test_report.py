"""Per-workload rows: medians over rounds, same-round ratios, last attempt kept, skipped and n/a rows shown."""
import pytest
from harness import report, runner, workloads
from helpers import measurement

HELLO = workloads.WORKLOADS["hello"]


def test_ratio_uses_the_reference_of_the_same_round():
    records = [measurement("nginx", "hello", 0, 100.0), measurement("nginx", "hello", 1, 200.0),
               measurement("nginx", "hello", 2, 50.0),
               measurement("fastapi", "hello", 0, 50.0), measurement("fastapi", "hello", 1, 50.0),
               measurement("fastapi", "hello", 2, 50.0)]
    table = report.build_tables(records, [HELLO], ["nginx", "fastapi"])[0]
    nginx, fastapi = table.rows
    assert (nginx.rps, nginx.rps_min, nginx.rps_max, nginx.ratio) == (100.0, 50.0, 200.0, 1.0)
    assert fastapi.ratio == pytest.approx(0.5)  # median of 0.5, 0.25, 1.0
    assert fastapi.rounds == 3


def test_last_attempt_of_a_disturbed_round_is_kept():
    records = [measurement("nginx", "hello", 0, 10.0, attempt=0, disturbed=True),
               measurement("nginx", "hello", 0, 90.0, attempt=1)]
    row = report.build_tables(records, [HELLO], ["nginx"])[0].rows[0]
    assert (row.rps, row.flags) == (90.0, [])


def test_figures_and_flags():
    records = [measurement("nginx", "idle", r, 100.0 + r, non_2xx=1, rss_peak_kib=1024 * (r + 1), disturbed=r == 0,
                           client_cpu_cores=0.95, idle_kept=9000 + r, idle_opened=10000,
                           socket_errors={"connect": 0, "read": 2, "write": 0, "timeout": 1}) for r in range(3)]
    row = report.build_tables(records, [workloads.WORKLOADS["idle"]], ["nginx"])[0].rows[0]
    assert (row.p50_us, row.p99_us, row.user_us, row.sys_us) == (500.0, 2000.0, 3.0, 9.0)
    assert (row.rss_peak_mib, row.non_2xx, row.socket_errors) == (3.0, 3, 9)
    assert row.flags == ["disturbed in 1/3 rounds", "client-bound", "idle kept 9,000 of 10,000"]


def test_server_bound_is_the_servers_share_of_its_cores():
    def row_for(cores: float, count: int, **extra) -> list[str]:
        records = [measurement("nginx", "hello", r, 100.0, server_cpu_cores=cores, server_cpu_count=count, **extra)
                   for r in range(3)]
        return report.build_tables(records, [HELLO], ["nginx"])[0].rows[0].flags
    assert row_for(0.95, 1) == ["server-bound"]
    assert row_for(0.95, 2) == []  # half of two cores
    assert row_for(1.9, 2) == ["server-bound"]
    assert row_for(0.95, 1, client_cpu_cores=0.97) == ["client-bound", "server-bound"]
    assert row_for(0.5, 1) == []


def test_skipped_na_and_failed_contenders_are_listed_not_dropped():
    records = [measurement("nginx", "hello", 0, 100.0),
               {"type": "skip", "contender": "slipstream-cpp", "reason": "not built"},
               {"type": "na", "contender": "fastapi", "workload": "hello", "round": 0, "reason": "cannot"},
               {"type": "failure", "contender": "robyn", "workload": "hello", "round": 0, "reason": "pre-flight: x"}]
    rows = report.build_tables(records, [HELLO], ["nginx", "slipstream-cpp", "fastapi", "robyn"])[0].rows
    assert [(r.contender, r.status, r.note) for r in rows[1:]] == [
        ("slipstream-cpp", "skipped", "not built"), ("fastapi", "n/a", "cannot"), ("robyn", "failed", "pre-flight: x")]


def test_no_reference_means_no_ratio():
    row = report.build_tables([measurement("fastapi", "hello", 0, 5.0)], [HELLO], ["fastapi"])[0].rows[0]
    assert row.ratio is None


@pytest.mark.parametrize("round_index, expected", [(0, "ABC"), (1, "BCA"), (2, "CAB"), (3, "ABC")])
def test_rounds_rotate_the_order(round_index, expected):
    assert "".join(runner.rotate(list("ABC"), round_index)) == expected
