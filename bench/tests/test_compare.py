"""bench-compare flags rows whose ratio to the reference dropped by more than 10% between the last two entries."""
from harness import compare, ledger
from helpers import section


def _ledger(*sections):
    return ledger.HEADER + "\n" + "\n".join(sections)


def test_flags_a_drop_over_ten_percent_only():
    text = _ledger(section({"fastapi": 0.50, "granian": 0.80, "robyn": 0.30}, "a"),
                   section({"fastapi": 0.44, "granian": 0.75, "robyn": 0.40}, "b"))
    what, findings, compared = compare.compare_ledger(text)
    assert what == "a -> b"
    assert compared == 4  # nginx itself too
    assert [(f.contender, f.before, f.after) for f in findings] == [("fastapi", 0.5, 0.44)]
    assert str(findings[0]) == "hello/fastapi: ratio to nginx 0.50 -> 0.44 (-12%)"


def test_only_the_last_two_entries_count():
    text = _ledger(section({"fastapi": 0.9}, "a"), section({"fastapi": 0.5}, "b"), section({"fastapi": 0.5}, "c"))
    assert compare.compare_ledger(text)[1] == []


def test_rows_missing_from_either_entry_are_not_compared():
    text = _ledger(section({"fastapi": 0.5}, "a"), section({"granian": 0.1}, "b"))
    _, findings, compared = compare.compare_ledger(text)
    assert (findings, compared) == ([], 1)


def test_fewer_than_two_entries():
    assert compare.compare_ledger(ledger.HEADER)[0] == "0 entries in the ledger: nothing to compare"
    assert compare.compare_ledger(_ledger(section({}, "a")))[0] == "1 entry in the ledger: nothing to compare"


def test_parse_ratios_ignores_non_numeric_cells():
    text = ("### echo — x\n\n| contender | req/s | vs fastapi | notes |\n|---|---|---|---|\n"
            "| fastapi | 10 | 1.00 | |\n| nginx | n/a |  | static |\n")
    assert compare.parse_ratios(text) == {("echo", "fastapi"): ("fastapi", 1.0)}
