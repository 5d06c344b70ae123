#!/usr/bin/env python3
"""Agent session appends (issue 20): appends/s and p99 of `POST /sessions/{id}/events` with an Idempotency-Key,
Slipstream `--session-durability durable` and `buffered` on SQLite against a FastAPI + sqlite3 peer doing the same
operation (one transaction: take the session's row, check the key, insert the event and the key; WAL with
synchronous=FULL, so an answered append is on disk like Slipstream's durable mode). One server process each, one
worker thread; wrk drives them with a Lua script that spreads the appends over many sessions. Prints a ledger
section (Markdown); nothing is written to BENCHMARKS.md.

    .venv/bin/python bench/session_appends.py [--duration 5] [--connections 32] [--sessions 64] [--rounds 3]
        [--append-ledger]
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_DIR = os.path.dirname(BENCH_DIR)
BUILD = os.path.join(REPO_DIR, os.environ.get("SLIPSTREAM_BUILD_DIR", "build"))
PYTHON = os.path.join(REPO_DIR, ".venv", "bin", "python")

sys.path.insert(0, REPO_DIR)
from bench.harness import ledger, procs

LUA = r"""
local ids = {}
for line in io.lines(os.getenv("SESSION_IDS")) do ids[#ids + 1] = line end
local counter = 0
local tag = tostring(math.random(1, 1000000000))
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
request = function()
  counter = counter + 1
  local id = ids[(counter % #ids) + 1]
  wrk.headers["Idempotency-Key"] = tag .. "-" .. counter
  return wrk.format(nil, "/sessions/" .. id .. "/events",
                    nil, '{"role":"user","content":{"text":"hello","n":' .. counter .. '}}')
end
local errors = 0
response = function(status, headers, body)
  if status ~= 201 then errors = errors + 1 end
end
done = function(summary, latency, requests)
  io.write(string.format("P99_US %d\n", latency:percentile(99)))
end
"""

PEER = r'''
import os, sqlite3, threading, time, secrets
from fastapi import FastAPI, Header, HTTPException, Request
from fastapi.responses import JSONResponse
import json

db = sqlite3.connect(os.environ["PEER_DB"], check_same_thread=False, isolation_level=None)
db.execute("PRAGMA journal_mode=WAL")
db.execute("PRAGMA synchronous=FULL")
db.executescript("""
CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, owner TEXT, last_seq INTEGER, updated_at INTEGER);
CREATE TABLE IF NOT EXISTS events (session_id TEXT, seq INTEGER, role TEXT, content TEXT, created_at INTEGER,
                                   PRIMARY KEY (session_id, seq));
CREATE TABLE IF NOT EXISTS appends (session_id TEXT, idempotency_key TEXT, first_seq INTEGER, last_seq INTEGER,
                                    PRIMARY KEY (session_id, idempotency_key));
""")
lock = threading.Lock()
app = FastAPI()


@app.post("/sessions", status_code=201)
def create():
    sid = secrets.token_urlsafe(16)
    with lock:
        db.execute("INSERT INTO sessions VALUES (?, 'anonymous', 0, ?)", (sid, int(time.time() * 1000)))
    return {"id": sid}


@app.post("/sessions/{sid}/events")
async def append(sid: str, request: Request, idempotency_key: str | None = Header(default=None)):
    body = await request.json()
    role, content = body["role"], json.dumps(body["content"], separators=(",", ":"))
    now = int(time.time() * 1000)
    with lock:
        db.execute("BEGIN IMMEDIATE")
        try:
            row = db.execute("UPDATE sessions SET last_seq = last_seq + 1, updated_at = ? WHERE id = ? "
                             "RETURNING owner, last_seq", (now, sid)).fetchone()
            if row is None:
                db.execute("ROLLBACK")
                raise HTTPException(404, "no such session")
            if idempotency_key:
                known = db.execute("SELECT first_seq, last_seq FROM appends WHERE session_id = ? AND "
                                   "idempotency_key = ?", (sid, idempotency_key)).fetchone()
                if known:
                    db.execute("ROLLBACK")
                    return JSONResponse({"first_seq": known[0], "last_seq": known[1], "replayed": True})
            seq = row[1]
            db.execute("INSERT INTO events VALUES (?, ?, ?, ?, ?)", (sid, seq, role, content, now))
            if idempotency_key:
                db.execute("INSERT INTO appends VALUES (?, ?, ?, ?)", (sid, idempotency_key, seq, seq))
            db.execute("COMMIT")
        except HTTPException:
            raise
        except Exception:
            db.execute("ROLLBACK")
            raise
    return JSONResponse({"first_seq": seq, "last_seq": seq, "replayed": False}, status_code=201)
'''


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_up(port: int, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited: {proc.args}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("server did not start")


def create_sessions(port: int, n: int) -> list[str]:
    ids = []
    for _ in range(n):
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        c.request("POST", "/sessions", body=b"{}", headers={"Content-Type": "application/json"})
        r = c.getresponse()
        assert r.status == 201, r.read()
        ids.append(json.loads(r.read())["id"])
        c.close()
    return ids


def run_wrk(port: int, ids_file: str, lua_file: str, duration: int, connections: int) -> dict:
    env = dict(os.environ, SESSION_IDS=ids_file)
    out = subprocess.run(["wrk", "-t", "1", "-c", str(connections), "-d", f"{duration}s", "--latency", "-s", lua_file,
                          f"http://127.0.0.1:{port}"], capture_output=True, text=True, env=env, check=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p99 = int(re.search(r"P99_US (\d+)", out).group(1)) / 1000
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return {"rps": rps, "p99_ms": p99, "errors": int(non2xx.group(1)) if non2xx else 0}


def measure(name: str, argv: list[str], port: int, work: str, args: argparse.Namespace, env=None) -> dict:
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    try:
        wait_up(port, proc)
        ids = create_sessions(port, args.sessions)
        ids_file = os.path.join(work, f"{name}.ids")
        with open(ids_file, "w") as f:
            f.write("\n".join(ids) + "\n")
        lua_file = os.path.join(work, "append.lua")
        with open(lua_file, "w") as f:
            f.write(LUA)
        run_wrk(port, ids_file, lua_file, 1, args.connections)  # warm-up
        return run_wrk(port, ids_file, lua_file, args.duration, args.connections)
    finally:
        procs.stop(proc)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--duration", type=int, default=5, help="seconds measured per contender (5)")
    p.add_argument("--connections", type=int, default=32, help="wrk connections (32)")
    p.add_argument("--sessions", type=int, default=64, help="sessions the appends are spread over (64)")
    p.add_argument("--rounds", type=int, default=1, help="rounds, contenders in the same order each (1)")
    p.add_argument("--append-ledger", action="store_true", help="append the section to BENCHMARKS.md")
    args = p.parse_args(argv)
    hello = os.path.join(BUILD, "examples", "hello")
    if not os.path.exists(hello):
        print(f"{hello} is not built; run 'make build' first", file=sys.stderr)
        return 1
    if shutil.which("wrk") is None:
        print("wrk is not installed (bench/setup.sh installs it)", file=sys.stderr)
        return 1
    names = ("Slipstream C++ `durable`", "Slipstream C++ `buffered`", "FastAPI + sqlite3 (uvicorn, 1 worker)")
    modes = ("durable", "buffered", "durable")
    results: dict[str, list[dict]] = {n: [] for n in names}
    for _ in range(args.rounds):
        work = tempfile.mkdtemp(prefix="ss-session-bench-")
        try:
            for name, mode in zip(names[:2], modes[:2]):
                port = free_port()
                argv_ = [hello, "--host", "127.0.0.1", "--port", str(port), "--threads", "1", "--no-access-log",
                         "--sessions", "--data-dir", os.path.join(work, mode), "--session-durability", mode,
                         "--session-queue", "100000"]
                results[name].append(measure(mode, argv_, port, work, args))
            port = free_port()
            peer_file = os.path.join(work, "peer_app.py")
            with open(peer_file, "w") as f:
                f.write(PEER)
            env = dict(os.environ, PEER_DB=os.path.join(work, "peer.db"), PYTHONPATH=work)
            argv_ = [PYTHON, "-m", "uvicorn", "peer_app:app", "--host", "127.0.0.1", "--port", str(port),
                     "--workers", "1", "--log-level", "warning", "--no-access-log"]
            results[names[2]].append(measure("peer", argv_, port, work, args, env))
        finally:
            shutil.rmtree(work, ignore_errors=True)

    def median(name: str, key: str) -> float:
        return statistics.median(r[key] for r in results[name])

    peer = median(names[2], "rps")
    commit = subprocess.run(["git", "-C", REPO_DIR, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            check=False).stdout.strip()
    now = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    out = [f"## {now} — {commit} (agent session appends on SQLite: durable and buffered against FastAPI + sqlite3)",
           "", f"- Machine: nproc {os.cpu_count()}, Linux {os.uname().release}",
           f"- Command: `bench/session_appends.py {' '.join(argv if argv is not None else sys.argv[1:])}`",
           (f"- Method: `POST /sessions/{{id}}/events` with an Idempotency-Key, {args.connections} connections "
            f"(wrk, 1 thread) over {args.sessions} sessions, {args.duration} s per contender and round, "
            f"{args.rounds} round(s), medians; one server process with one worker thread each; the server and wrk "
            f"share the {os.cpu_count()} CPUs (not pinned); the peer commits each append with sqlite3 (WAL, "
            "synchronous=FULL), as `durable` does"), "",
           "| server | durability | appends/s (median) | min–max | p99 ms | vs peer | non-2xx |",
           "|---|---|---:|---|---:|---:|---:|"]
    for name, mode in zip(names, modes):
        rates = [r["rps"] for r in results[name]]
        rps = median(name, "rps")
        out.append(f"| {name} | {mode} | {rps:,.0f} | {min(rates):,.0f}–{max(rates):,.0f} | "
                   f"{median(name, 'p99_ms'):.2f} | {rps / peer if peer else float('nan'):.2f}x | "
                   f"{sum(r['errors'] for r in results[name])} |")
    out += ["", "Caveats:", "",
            ("- `durable` answers after each append's own COMMIT (one fsync each, no group commit yet); `buffered` "
             "answers once queued and commits every 50 ms: it can lose up to that interval on a crash, so it is "
             "not compared with the peer at equal durability."),
            "- Two cores shared by the server, wrk and SQLite's fsyncs: ratios only."]
    section = "\n".join(out) + "\n"
    print(section)
    if args.append_ledger:
        path = os.path.join(REPO_DIR, "BENCHMARKS.md")
        ledger.append_section(path, section, ledger.committed_version(path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
