"""bench/decide_bench.py: the ledger entry flags runs disturbed by other processes."""

from bench import decide_bench


def test_a_disturbed_run_flags_the_entry():
    results = {("a", "frozen", False, 1): [{"foreign_cores": 0.05}, {"foreign_cores": 0.9}]}
    line = decide_bench.disturbed_line(results)
    assert "1 of 2" in line and "flagged" in line


def test_quiet_runs_are_not_flagged():
    results = {
        ("a", "frozen", False, 1): [{"foreign_cores": 0.0}],
        ("b", "learner", True, 50): [{"foreign_cores": 0.1}],
    }
    line = decide_bench.disturbed_line(results)
    assert "0 of 2" in line and "flagged" not in line
