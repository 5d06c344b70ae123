"""`slipstream run --reload`: an edit that breaks the import leaves the running workers on the previous code, logs
where the error is, and the next good edit replaces them; a real supervisor on a real socket."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from test_cli import Server, get, wait_for

APP = '''import os
from slipstream import App

import helper

app = App(title="reload")

@app.get("/version")
def version():
    return {"pid": os.getpid(), "version": VERSION, "helper": helper.NAME}

VERSION = 1
'''
HELPER = 'NAME = "helper"\n'


def version(server: Server) -> dict[str, Any]:
    """GET /version on a new connection (so that SO_REUSEPORT may pick any worker)."""
    return get(server.port, "/version")


def answers(server: Server, count: int = 20) -> list[dict[str, Any]]:
    return [version(server) for _ in range(count)]


@pytest.fixture()
def app_dir(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text(APP)
    (tmp_path / "helper.py").write_text(HELPER)
    return tmp_path


@pytest.fixture()
def start(app_dir: Path) -> Iterator[Callable[..., Server]]:
    started: list[Server] = []

    def run(*args: str) -> Server:
        started.append(Server(app_dir, "--reload", *args))
        return started[-1]

    yield run
    for server in started:
        server.stop()


def line_of(text: str, needle: str) -> int:
    """The 1-based number of the line of `text` that contains `needle`."""
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def write(path: Path, text: str) -> None:
    """Rewrites a watched file; its mtime moves forward even within the clock's resolution."""
    before = path.stat().st_mtime_ns
    path.write_text(text)
    if path.stat().st_mtime_ns <= before:
        os.utime(path, ns=(before + 1_000_000, before + 1_000_000))


SYNTAX = APP + "\ndef half_typed(:\n"
MISSING_MODULE = APP.replace("import helper\n", "import helper\nimport no_such_module_for_reload\n")
RAISES = APP.replace("VERSION = 1\n", "VERSION = 1\nraise RuntimeError('half-edited')\n")

MISSING = "ModuleNotFoundError: No module named 'no_such_module_for_reload'"

# (file edited, its broken text, the head of the error record: "FILE, line N: Type: message")
BROKEN = {
    "syntax error": ("app.py", SYNTAX, f"app.py, line {line_of(SYNTAX, 'half_typed')}: SyntaxError: "),
    "missing module": ("app.py", MISSING_MODULE, f"app.py, line {line_of(MISSING_MODULE, 'no_such')}: {MISSING}"),
    "exception at import": ("app.py", RAISES, f"app.py, line {line_of(RAISES, 'half-')}: RuntimeError: half-edited"),
    "error in an imported module": ("helper.py", "NAME = 1 / 0\n",
                                    "helper.py, line 1: ZeroDivisionError: division by zero"),
}


def error_record(log: str, head: str) -> str:
    """The supervisor's record of the failed reload whose account starts with `head` (it spans lines)."""
    match = re.search(r"slipstream\.supervisor: reload: new worker \d+ \(pid \d+\) could not start \(status 3\); "
                      r"waiting for a file change; (\d+) worker\(s\) still serve the previous code:\n"
                      + re.escape(head) + r".*", log)
    assert match, log
    return match.group(0)


@pytest.mark.parametrize("case", list(BROKEN))
def test_a_broken_edit_keeps_the_old_code_serving(start: Callable[..., Server], app_dir: Path, case: str) -> None:
    server = start()
    first = wait_for(lambda: version(server), "the first start")
    assert first["version"] == 1
    name, broken, head = BROKEN[case]

    write(app_dir / name, broken)
    wait_for(lambda: head in "".join(server.log), "the error record")
    assert "; 1 worker(s) still serve the previous code:\n" in error_record("".join(server.log), head)
    # Every request still goes to the worker that was serving before the edit.
    assert {(a["pid"], a["version"]) for a in answers(server)} == {(first["pid"], 1)}
    if name == "helper.py":  # the frame in the application that imported it is named too
        assert '  File "app.py", line 4, in <module>\n    import helper' in "".join(server.log)

    write(app_dir / "app.py", APP.replace("VERSION = 1", "VERSION = 2"))
    write(app_dir / "helper.py", HELPER)
    new = wait_for(lambda: (a := version(server))["version"] == 2 and a, "the fixed code")
    assert new["pid"] != first["pid"]
    wait_for(lambda: {a["version"] for a in answers(server)} == {2}, "the old worker gone")
    assert "reloaded: 1 worker(s) serve the new code" in "".join(server.log)


def test_every_failed_change_is_reported_and_a_later_good_one_replaces_all_workers(
        start: Callable[..., Server], app_dir: Path) -> None:
    server = start("--workers", "2")

    def both_workers(wanted: int) -> set[int] | None:
        """The two pids that answered, when both answered and only with version `wanted`."""
        seen = answers(server, 40)
        pids = {a["pid"] for a in seen}
        return pids if len(pids) == 2 and {a["version"] for a in seen} == {wanted} else None

    old = wait_for(lambda: both_workers(1), "two workers answering")

    write(app_dir / "app.py", RAISES)
    wait_for(lambda: "RuntimeError: half-edited" in "".join(server.log), "the first error")
    write(app_dir / "app.py", SYNTAX)
    wait_for(lambda: ": SyntaxError: " in "".join(server.log), "the second error: the next change is tried again")
    assert "; 2 worker(s) still serve the previous code:\n" in error_record("".join(server.log), BROKEN["syntax error"][2])
    seen = answers(server, 40)
    assert {a["version"] for a in seen} == {1}
    assert {a["pid"] for a in seen} <= old

    write(app_dir / "app.py", APP.replace("VERSION = 1", "VERSION = 3"))
    new = wait_for(lambda: both_workers(3), "two workers on the new code")
    assert not new & old
    server.stop()
    assert server.proc.returncode == 0
