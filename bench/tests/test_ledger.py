"""The ledger is append-only: old bytes stay a prefix, edits are refused, entries are found again."""
import pytest
from harness import ledger
from helpers import section


def test_first_append_writes_header_then_section(tmp_path):
    path = tmp_path / "BENCHMARKS.md"
    text = section({"fastapi": 0.1}, "run1")
    ledger.append_section(str(path), text)
    content = path.read_text()
    assert content.startswith(ledger.HEADER)
    assert content.endswith(text)
    assert [eid for eid, _ in ledger.entries(content)] == ["run1"]


def test_append_keeps_old_content_byte_for_byte(tmp_path):
    path = tmp_path / "BENCHMARKS.md"
    old = ledger.HEADER.encode() + "\n## earlier — hand-written text with ünïcode\n\nkept as is\r\n".encode()
    path.write_bytes(old)
    ledger.append_section(str(path), section({"fastapi": 0.1}, "run1"))
    ledger.append_section(str(path), section({"fastapi": 0.2}, "run2"))
    new = path.read_bytes()
    assert new.startswith(old)
    assert [eid for eid, _ in ledger.entries(new.decode())] == ["run1", "run2"]


@pytest.mark.parametrize("old, new", [(b"abc", b"abX-more"), (b"abc", b"ab"), (b"abc", b"abc")])
def test_verify_refuses_anything_but_an_append(old, new):
    with pytest.raises(ledger.LedgerError):
        ledger.verify_append_only(old, new)


def test_refuses_when_earlier_text_differs_from_the_committed_ledger(tmp_path):
    path = tmp_path / "BENCHMARKS.md"
    path.write_bytes(b"# ledger\n\n## run0\nrps 100\n")
    with pytest.raises(ledger.LedgerError):
        ledger.append_section(str(path), "## run1\n", committed=b"# ledger\n\n## run0\nrps 90\n")
    assert path.read_bytes() == b"# ledger\n\n## run0\nrps 100\n"
    ledger.append_section(str(path), "## run1\n", committed=b"# ledger\n\n## run0\n")
    assert path.read_bytes() == b"# ledger\n\n## run0\nrps 100\n\n## run1\n"


def test_section_carries_marker_commands_and_table():
    text = section({"fastapi": 0.25}, "run9")
    assert "<!-- bench-entry id=run9 results=r/run9.jsonl -->" in text
    assert "| fastapi | 25,000 | 25,000–25,000 | 0.50 | 2.00 | 3.0 | 9.0 | 2.0 | 0 | 0 | 0.25 |" in text
    assert "- hello: `wrk ...`" in text


def test_generic_command_hides_port_and_scratch_dir():
    cmd = "taskset -c 1 wrk -s /b/lua/post.lua http://127.0.0.1:41234/echo -- /b/results/tmp/X/r0-nginx/echo.json"
    assert ledger.generic_command(cmd, "/b/results/tmp/X") == \
        "taskset -c 1 wrk -s /b/lua/post.lua http://127.0.0.1:PORT/echo -- WORKDIR/echo.json"


def test_generic_command_of_ws_load():
    cmd = "taskset -c 1 /repo/build/bench/ws_load --host 127.0.0.1 --port 40123 --path /ws --duration 5"
    assert ledger.generic_command(cmd, "/repo/bench/results/tmp/X", "/repo") == \
        "taskset -c 1 build/bench/ws_load --host 127.0.0.1 --port PORT --path /ws --duration 5"


def test_an_unmarked_section_between_entries_belongs_to_neither(tmp_path):
    path = tmp_path / "BENCHMARKS.md"
    ledger.append_section(str(path), section({"fastapi": 0.1}, "run1"))
    ledger.append_section(str(path), "## counts — no marker\n\n| workload | a | b |\n|---|---|---|\n| hello | 1 | 2 |\n")
    ledger.append_section(str(path), section({"fastapi": 0.2}, "run2"))
    found = dict(ledger.entries(path.read_text()))
    assert list(found) == ["run1", "run2"]
    assert all("no marker" not in text for text in found.values())
    assert found["run2"].startswith("## ")
