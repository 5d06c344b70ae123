"""bench/run.py options: quick and full settings, the ledger guard, and --compare's exit status."""
import os
import sys

from helpers import section

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import run
from harness import ledger


def test_quick_and_full_settings():
    quick = run.settings_from(run.parse_args(["--quick"]))
    assert (quick.rounds, quick.duration_s, quick.warmup_s, quick.max_retries) == (1, 3, 1, 0)
    full = run.settings_from(run.parse_args([]))
    assert (full.rounds, full.duration_s, full.warmup_s, full.max_retries) == (3, 5, 1, 2)
    custom = run.settings_from(run.parse_args(["--quick", "--rounds", "2", "--duration", "7", "--connections", "8"]))
    assert (custom.rounds, custom.duration_s, custom.connections) == (2, 7, 8)


def test_ledger_entries_need_three_rounds(tmp_path, capsys):
    path = tmp_path / "BENCHMARKS.md"
    assert run.main(["--append-ledger", "--rounds", "2", "--ledger", str(path)]) == 2
    assert run.main(["--append-ledger", "--quick", "--ledger", str(path)]) == 2
    assert not path.exists()


def test_compare_exit_status(tmp_path, capsys):
    path = tmp_path / "BENCHMARKS.md"
    assert run.main(["--compare", "--ledger", str(path)]) == 0
    ledger.append_section(str(path), section({"fastapi": 0.5}, "a"))
    assert run.main(["--compare", "--ledger", str(path)]) == 0
    ledger.append_section(str(path), section({"fastapi": 0.5}, "b"))
    assert run.main(["--compare", "--ledger", str(path)]) == 0
    ledger.append_section(str(path), section({"fastapi": 0.4}, "c"))
    assert run.main(["--compare", "--ledger", str(path)]) == 1
    assert "REGRESSION hello/fastapi: ratio to nginx 0.50 -> 0.40 (-20%)" in capsys.readouterr().out


def test_caveats_follow_the_workloads():
    from harness import report, workloads
    tables = [report.Table(workloads.WORKLOADS["hello"], "nginx", [])]
    notes = run.caveats(run.settings_from(run.parse_args([])), tables)
    assert not any("pipelined" in n or "idle:" in n or "validated" in n for n in notes)
