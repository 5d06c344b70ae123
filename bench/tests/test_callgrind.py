"""bench/callgrind.py: reading callgrind's totals and the ledger table it renders (the measurement itself needs
valgrind and a built server; `bench/callgrind.py --baseline REV` runs it)."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench import callgrind


def test_totals_line_is_the_count(tmp_path):
    dump = tmp_path / "cg.out.1"
    dump.write_text("version: 1\ncreator: callgrind\nevents: Ir\nfn=main\n16 3\nsummary: 123456\ntotals: 123456\n")
    assert callgrind._total_instructions(str(dump)) == 123456


def test_a_dump_without_totals_is_an_error(tmp_path):
    dump = tmp_path / "cg.out.1"
    dump.write_text("events: Ir\n")
    with pytest.raises(RuntimeError, match="no totals"):
        callgrind._total_instructions(str(dump))


def test_table_has_both_counts_and_their_ratio():
    text = callgrind.render([("hello", 2000.0, 2010.0), ("h2", 6000.0, 5940.0)], "aaaa111", "bbbb222", 20000,
                            "bench/callgrind.py --baseline aaaa111")
    assert text.startswith("## ") and "against aaaa111" in text.splitlines()[0]
    rows = [line for line in text.splitlines() if line.startswith(("| hello", "| h2"))]
    assert rows[0].endswith("| 2,000 | 2,010 | 1.0050 |")
    assert rows[1].endswith("| 6,000 | 5,940 | 0.9900 |")
    assert "20,000 requests" in text
