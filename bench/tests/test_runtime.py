"""What a contender ran: the apps' runtime report, the harness's check against the declared runtime, the ledger line."""
import asyncio
import importlib.metadata
import os
import subprocess
import sys
import types

import run
from harness import contenders, runtime

APPS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "apps")
sys.path.insert(0, APPS_DIR)
import runtime_report

UVLOOP_REPORT = {"pid": 7, "python": "3.11.7", "loop": "uvloop.Loop", "http": "httptools", "dev_mode": False,
                 "tracing": False, "profiling": False, "pythonmalloc": "", "asyncio_debug": False,
                 "asyncio_debug_env": "", "versions": {"fastapi": "0.165.0", "uvicorn": "0.54.0"}}
NATIVE = ["httptools", "pydantic_core", "uvloop"]


def test_declared_runtime_passes():
    assert runtime.problems(contenders.UVICORN_EXPECTS, [UVLOOP_REPORT], NATIVE, 1) == []


def test_asyncio_loop_and_h11_are_a_fall_back():
    report = dict(UVLOOP_REPORT, loop="asyncio.unix_events._UnixSelectorEventLoop", http="h11")
    assert runtime.problems(contenders.UVICORN_EXPECTS, [report], ["pydantic_core"], 1) == [
        "pid 7: loop is 'asyncio.unix_events._UnixSelectorEventLoop', expected 'uvloop.'",
        "pid 7: http is 'h11', expected 'httptools'",
        "native module uvloop is not loaded",
        "native module httptools is not loaded",
    ]


def test_debug_interpreters_are_refused():
    report = dict(UVLOOP_REPORT, dev_mode=True, tracing=True, pythonmalloc="debug", asyncio_debug=True)
    assert runtime.problems({}, [report], [], 1) == [
        "pid 7: Python dev mode is on",
        "pid 7: a trace or profile function is set",
        "pid 7: PYTHONMALLOC=debug",
        "pid 7: asyncio debug mode is on",
    ]


def test_every_worker_must_report():
    assert runtime.problems({}, [UVLOOP_REPORT], [], 2) == ["1 of 2 process(es) wrote a runtime report"]
    assert runtime.problems({"loop": "uvloop."}, [], [], 1) == ["0 of 1 process(es) wrote a runtime report"]


def test_report_facts_of_this_interpreter(monkeypatch):
    monkeypatch.setitem(sys.modules, "uvicorn.protocols.http.httptools_impl", types.ModuleType("fake"))
    monkeypatch.setitem(sys.modules, "h11", types.ModuleType("h11"))  # installed with httpx
    monkeypatch.delitem(sys.modules, "fastapi", raising=False)
    loop = asyncio.new_event_loop()
    try:
        facts = runtime_report.facts(loop)
    finally:
        loop.close()
    assert facts["loop"] == f"{type(loop).__module__}.{type(loop).__qualname__}"
    assert facts["asyncio_debug"] is False
    assert facts["http"] == "httptools"
    assert facts["python"] == ".".join(map(str, sys.version_info[:3]))
    assert facts["pid"] == os.getpid()
    # versions of the distributions this process imported, and only those
    assert facts["versions"]["h11"] == importlib.metadata.version("h11")
    assert "fastapi" not in facts["versions"]


def test_report_written_by_a_child_and_read_back(tmp_path):
    code = "import asyncio, runtime_report\nasync def main():\n    runtime_report.write(asyncio.get_running_loop())\n" \
           "asyncio.run(main())\n"
    env = dict(os.environ, BENCH_RUNTIME_DIR=str(tmp_path), PYTHONPATH=APPS_DIR, PYTHONDEVMODE="1")
    subprocess.run([sys.executable, "-c", code], env=env, check=True)
    reports = runtime.wait_reports(str(tmp_path), 1, timeout_s=0)
    assert len(reports) == 1
    assert reports[0]["loop"].startswith("asyncio.")
    # dev mode turns asyncio debug on too: both are reported, and the check refuses the run.
    assert reports[0]["dev_mode"] is True
    pid = reports[0]["pid"]
    assert runtime.problems({"loop": "asyncio."}, reports, [], 1) == [
        f"pid {pid}: Python dev mode is on", f"pid {pid}: asyncio debug mode is on"]


def test_no_report_without_the_variable(tmp_path, monkeypatch):
    monkeypatch.delenv("BENCH_RUNTIME_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    runtime_report.write()
    assert os.listdir(tmp_path) == []


def test_native_modules_from_maps(tmp_path):
    uvloop_so = "/v/lib/python3.11/site-packages/uvloop/loop.cpython-311-x86_64-linux-gnu.so"
    httptools_so = "/v/site-packages/httptools/parser/parser.cpython-311-x86_64-linux-gnu.so"
    maps = {10: (1, [f"7f00-7f01 r-xp 0 08:01 1 {uvloop_so}", "7f02-7f03 r-xp 0 08:01 2 /usr/lib/libc.so.6"]),
            11: (10, [f"7f00-7f01 r-xp 0 08:01 3 {httptools_so}",
                      "7f04-7f05 r--p 0 08:01 4 /v/site-packages/fastapi/__init__.py"]),
            20: (1, ["7f00-7f01 r-xp 0 08:01 5 /v/site-packages/granian/_granian.so"])}
    for pid, (ppid, lines) in maps.items():
        d = tmp_path / str(pid)
        d.mkdir()
        (d / "stat").write_text(f"{pid} (p) S {ppid} 0 0 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 0 0 0\n")
        (d / "maps").write_text("\n".join(lines) + "\n")
    assert runtime.native_modules(10, str(tmp_path)) == ["httptools", "uvloop"]


def test_ledger_line_says_what_ran_and_what_fell_back():
    records = [
        {"type": "runtime", "contender": "fastapi", "round": 0, "summary": "Python 3.11.7; loop uvloop.Loop",
         "problems": []},
        {"type": "runtime", "contender": "fastapi", "round": 1, "summary": "Python 3.11.7; loop asyncio",
         "problems": ["pid 9: loop is 'asyncio.x', expected 'uvloop.'"]},
    ]
    ran = run.runtimes(records)
    assert ran == {"fastapi": "Python 3.11.7; loop uvloop.Loop — NOT MEASURED, fell back: round 2: pid 9: loop is "
                              "'asyncio.x', expected 'uvloop.'"}
    line = run.contender_line(contenders.BY_NAME["nginx"], {}, ran)
    assert "ran:" not in line
    assert runtime.summary([UVLOOP_REPORT], NATIVE) == (
        "Python 3.11.7; loop uvloop.Loop; HTTP httptools; fastapi 0.165.0, uvicorn 0.54.0; "
        "native httptools+pydantic_core+uvloop")
