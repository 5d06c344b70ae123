"""Synthetic records and rendered sections shared by the report, ledger and compare tests."""
from harness import ledger, report, workloads

META = {"date": "2026-01-02 03:04 UTC", "run_id": "20260102T030400Z", "commit": "abc123", "cpu_model": "Test CPU",
        "nproc": 2, "kernel": "6.0", "os": "Debian", "python": "3.11", "wrk": "wrk 4.1.0", "h2load": "h2load 1.52"}
SETTINGS = {"rounds": 3, "duration_s": 5, "warmup_s": 1, "connections": 64, "foreign_limit": 0.2, "max_retries": 2}


def measurement(contender, workload, rnd, rps, attempt=0, **extra):
    record = {"type": "measurement", "contender": contender, "workload": workload, "round": rnd, "attempt": attempt,
              "rps": rps, "latency_us": {"50.0": 500.0, "99.0": 2000.0}, "server_user_us_per_req": 3.0,
              "server_sys_us_per_req": 9.0, "rss_peak_kib": 2048, "non_2xx": 0,
              "socket_errors": {"connect": 0, "read": 0, "write": 0, "timeout": 0}, "disturbed": False,
              "client_cpu_cores": 0.5, "client_exit": 0, "idle_kept": None, "idle_opened": None}
    record.update(extra)
    return record


def section(ratios: dict[str, float], run_id: str) -> str:
    """A rendered section whose hello table has the given contender -> ratio (nginx rps 100,000)."""
    records = []
    for rnd in range(3):
        records.append(measurement("nginx", "hello", rnd, 100000.0))
        for name, ratio in ratios.items():
            records.append(measurement(name, "hello", rnd, 100000.0 * ratio))
    tables = report.build_tables(records, [workloads.WORKLOADS["hello"]], ["nginx", *ratios])
    meta = dict(META, run_id=run_id)
    return ledger.render_section(meta, SETTINGS, tables, invocation="bench/run.py", results_path=f"r/{run_id}.jsonl",
                                 chart_paths={}, commands={"hello": "wrk ..."}, contender_lines=["nginx: x"],
                                 caveats=["none"])
