"""bench/scheduler_overhead.py's summary of google-benchmark rows (no benchmark runs here)."""
import pytest

from bench.scheduler_overhead import summarize


def row(args: str, real_time: float, unit: str, tokens: float, seconds_per_token: float) -> dict:
    return {"run_name": f"BM_SchedulerStep/{args}", "run_type": "iteration", "real_time": real_time,
            "time_unit": unit, "tokens/step": tokens, "ns/token": seconds_per_token}


def test_medians_per_argument_set_in_microseconds_and_nanoseconds():
    rows = [row("running:8/cache:1/spec:0", 2400, "ns", 8, 3.0e-7),
            row("running:8/cache:1/spec:0", 2600, "ns", 8, 3.2e-7),
            row("running:8/cache:1/spec:0", 9000, "ns", 8, 9.0e-7),
            row("running:256/cache:1/spec:4", 0.31, "ms", 1000, 3.1e-7)]
    assert summarize(rows) == [("running:8/cache:1/spec:0", pytest.approx(2.6), 8, pytest.approx(320.0)),
                               ("running:256/cache:1/spec:4", pytest.approx(310.0), 1000, pytest.approx(310.0))]
