#!/usr/bin/env python3
"""Agent session appends (issue 20): appends/s, p99 and CPU per append of `POST /sessions/{id}/events` with an
Idempotency-Key. Slipstream `--session-durability durable` and `buffered` on SQLite against a FastAPI + sqlite3
peer, and on PostgreSQL (a throwaway cluster, tests/pg_cluster.py) against a FastAPI + asyncpg peer, each doing
the same operation (one transaction: take the session's row, check the key, insert the event and the key; an
answered append is committed: SQLite WAL with synchronous=FULL, PostgreSQL's commit, like Slipstream's durable
mode). One server process each with one worker thread, pinned to CPU 0; wrk (and PostgreSQL) on CPU 1. Per
append: the server's CPU time (user + kernel, /proc) and PostgreSQL's; the per-core ratio is the peer's CPU per
append over ours at equal durability. A round where other processes used more than 0.2 cores is flagged
disturbed. Prints a ledger section (Markdown); --append-ledger appends it to BENCHMARKS.md.

    .venv/bin/python bench/session_appends.py [--duration 5] [--connections 32] [--sessions 64] [--rounds 3]
        [--backends sqlite,postgresql] [--append-ledger]
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
BASELINE_BUILD = ""  # --baseline-build
PYTHON = os.path.join(REPO_DIR, ".venv", "bin", "python")

sys.path.insert(0, REPO_DIR)
from bench.harness import cpu, foreign_load, ledger, procs
from bench.harness import database as pg

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


PEER_PG = r'''
import json, os, secrets, time
import asyncpg
from fastapi import FastAPI, Header, HTTPException, Request
from fastapi.responses import JSONResponse

import contextlib

pool = None


@contextlib.asynccontextmanager
async def lifespan(app):
    global pool
    pool = await asyncpg.create_pool(os.environ["PEER_DSN"], min_size=4, max_size=10)
    async with pool.acquire() as c:
        await c.execute("""
CREATE TABLE IF NOT EXISTS peer_sessions (id TEXT PRIMARY KEY, owner TEXT NOT NULL, last_seq BIGINT NOT NULL,
                                          updated_at BIGINT NOT NULL);
CREATE TABLE IF NOT EXISTS peer_events (session_id TEXT NOT NULL REFERENCES peer_sessions (id), seq BIGINT NOT NULL,
    role TEXT NOT NULL, content TEXT NOT NULL, created_at BIGINT NOT NULL, PRIMARY KEY (session_id, seq));
CREATE TABLE IF NOT EXISTS peer_appends (session_id TEXT NOT NULL REFERENCES peer_sessions (id),
    idempotency_key TEXT NOT NULL, first_seq BIGINT NOT NULL, last_seq BIGINT NOT NULL,
    PRIMARY KEY (session_id, idempotency_key));
""")
    yield
    await pool.close()


app = FastAPI(lifespan=lifespan)


@app.post("/sessions", status_code=201)
async def create():
    sid = secrets.token_urlsafe(16)
    await pool.execute("INSERT INTO peer_sessions VALUES ($1, 'anonymous', 0, $2)", sid, int(time.time() * 1000))
    return {"id": sid}


class Replayed(Exception):
    pass


@app.post("/sessions/{sid}/events")
async def append(sid: str, request: Request, idempotency_key: str | None = Header(default=None)):
    body = await request.json()
    role, content = body["role"], json.dumps(body["content"], separators=(",", ":"))
    now = int(time.time() * 1000)
    async with pool.acquire() as c:
        try:
            async with c.transaction():
                row = await c.fetchrow("UPDATE peer_sessions SET last_seq = last_seq + 1, updated_at = $2 "
                                       "WHERE id = $1 RETURNING owner, last_seq", sid, now)
                if row is None:
                    raise HTTPException(404, "no such session")
                if idempotency_key:
                    known = await c.fetchrow("SELECT first_seq, last_seq FROM peer_appends WHERE session_id = $1 "
                                             "AND idempotency_key = $2", sid, idempotency_key)
                    if known:
                        raise Replayed(known)
                seq = row["last_seq"]
                await c.execute("INSERT INTO peer_events VALUES ($1, $2, $3, $4, $5)", sid, seq, role, content, now)
                if idempotency_key:
                    await c.execute("INSERT INTO peer_appends VALUES ($1, $2, $3, $4)", sid, idempotency_key, seq, seq)
        except Replayed as r:
            known = r.args[0]
            return JSONResponse({"first_seq": known[0], "last_seq": known[1], "replayed": True})
    return JSONResponse({"first_seq": seq, "last_seq": seq, "replayed": False}, status_code=201)
'''

# (label, backend, durability, kind): kind "ss" is Slipstream, "peer" the backend's FastAPI app.
CONTENDERS = (
    ("Slipstream C++", "sqlite", "durable", "ss"),
    ("Slipstream C++", "sqlite", "buffered", "ss"),
    ("FastAPI + sqlite3 (uvicorn, uvloop, httptools, 1 worker)", "sqlite", "durable", "peer"),
    ("Slipstream C++", "postgresql", "durable", "ss"),
    ("Slipstream C++", "postgresql", "buffered", "ss"),
    ("FastAPI + asyncpg (uvicorn, uvloop, httptools, 1 worker)", "postgresql", "durable", "peer"),
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_up(port: int, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited: {proc.args}: {proc.stderr.read().decode(errors='replace')[-2000:]}")
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


def session_counters(port: int) -> dict[str, float]:
    """The slipstream_sessions_* counters of /metrics ({} for a server without them: a peer)."""
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        c.request("GET", "/metrics")
        r = c.getresponse()
        text = r.read().decode(errors="replace") if r.status == 200 else ""
        c.close()
    except OSError:
        return {}
    found = re.findall(r"^(slipstream_sessions_\w+_total) (\S+)$", text, re.MULTILINE)
    return {name: float(value) for name, value in found}


def run_wrk(port: int, ids_file: str, lua_file: str, duration: int, connections: int) -> dict:
    env = dict(os.environ, SESSION_IDS=ids_file)
    url = f"http://127.0.0.1:{port}"
    wrk = ["wrk", "-t1", f"-c{connections}", f"-d{duration}s", "--latency", "-s", lua_file, url]
    argv = procs.pinned(wrk, procs.CLIENT_CPU)
    out = subprocess.run(argv, capture_output=True, text=True, env=env, check=True).stdout
    total = int(re.search(r"(\d+) requests in", out).group(1))
    p99 = int(re.search(r"P99_US (\d+)", out).group(1)) / 1000
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors = int(non2xx.group(1)) if non2xx else 0
    return {"ok": total - errors, "p99_ms": p99, "errors": errors}


def measure(name: str, argv: list[str], port: int, work: str, args: argparse.Namespace, database, env=None) -> dict:
    proc = subprocess.Popen(
        procs.pinned(argv, procs.SERVER_CPU), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env
    )
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
        server_before = cpu.tree_times(proc.pid)
        db_before = database.times() if database else cpu.CpuTimes(0, 0)
        machine_before = foreign_load.read_machine()
        started = time.monotonic()
        ticks_before = client_ticks()
        counters_before = session_counters(port)
        result = run_wrk(port, ids_file, lua_file, args.duration, args.connections)
        wall = time.monotonic() - started
        counters = session_counters(port)
        server = cpu.tree_times(proc.pid) - server_before
        db = (database.times() - db_before) if database else cpu.CpuTimes(0, 0)
        foreign = foreign_load.foreign_cores(
            machine_before, foreign_load.read_machine(), server.total, client_ticks() - ticks_before, wall, db.total
        )
        result["rps"] = result["ok"] / wall
        result["server_us"] = sum(server.us_per_request(result["ok"]))
        result["server_user_us"], result["server_sys_us"] = server.us_per_request(result["ok"])
        result["db_us"] = sum(db.us_per_request(result["ok"]))
        result["foreign"] = foreign
        result["disturbed"] = foreign_load.disturbed(foreign)
        # PostgreSQL durable appends that went out together with others (one statement and commit per group).
        # Replays count: a wrk run's keys repeat the warm-up's (the Lua tag comes from an unseeded random).
        grouped = "slipstream_sessions_grouped_appends_total"
        answered = ("slipstream_sessions_appends_total", "slipstream_sessions_replayed_appends_total")
        done = sum(counters.get(k, 0) - counters_before.get(k, 0) for k in answered)
        if grouped in counters and done > 0:
            result["grouped_share"] = (counters[grouped] - counters_before.get(grouped, 0)) / done
        return result
    finally:
        procs.stop(proc)


def client_ticks() -> int:
    """CPU ticks of this harness and the wrk it ran (reaped children)."""
    t = os.times()
    return int((t.user + t.system + t.children_user + t.children_system) * cpu.CLOCK_TICKS)


def own_database(database, kind: str) -> str:
    """A database of the cluster for one build's contenders (another build may have another schema version)."""
    name = f"bench_{kind}"
    if name not in CREATED:
        database.cluster.psql(f"CREATE DATABASE {name}")
        CREATED.add(name)
    return database.url.replace("/postgres?", f"/{name}?")


CREATED: set[str] = set()  # own_database's


def launch(label: str, backend: str, mode: str, kind: str, work: str, database) -> tuple[list[str], int, dict]:
    port = free_port()
    if kind in ("ss", "base"):
        hello = os.path.join(BUILD if kind == "ss" else BASELINE_BUILD, "examples", "hello")
        store = (
            ["--data-dir", os.path.join(work, mode)]
            if backend == "sqlite"
            else ["--store", own_database(database, kind)]
        )
        server = f"{hello} --host 127.0.0.1 --port {port} --threads 1 --no-access-log --sessions"
        durability = f"--session-durability {mode} --session-queue 100000"
        return (server.split() + store + durability.split(), port, dict(os.environ))
    peer_file = os.path.join(work, f"peer_{backend}.py")
    with open(peer_file, "w") as f:
        f.write(PEER if backend == "sqlite" else PEER_PG)
    env = dict(os.environ, PEER_DB=os.path.join(work, "peer.db"), PYTHONPATH=work)
    if database:
        env["PEER_DSN"] = database.url
    uvicorn = f"{PYTHON} -m uvicorn peer_{backend}:app --host 127.0.0.1 --port {port} --workers 1"
    production = "--loop uvloop --http httptools --log-level warning --no-access-log"
    return (uvicorn.split() + production.split(), port, env)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--duration", type=int, default=5, help="seconds measured per contender (5)")
    p.add_argument("--connections", type=int, default=32, help="wrk connections (32)")
    p.add_argument("--sessions", type=int, default=64, help="sessions the appends are spread over (64)")
    p.add_argument("--rounds", type=int, default=1, help="rounds, contenders in rotating order (1)")
    p.add_argument("--backends", default="sqlite,postgresql", help="sqlite, postgresql or both (both)")
    p.add_argument(
        "--baseline-build",
        help="another build folder (an earlier commit's): its hello runs as one more `durable` contender per backend",
    )
    p.add_argument("--append-ledger", action="store_true", help="append the section to BENCHMARKS.md")
    args = p.parse_args(argv)
    backends = [b for b in args.backends.split(",") if b]
    hello = os.path.join(BUILD, "examples", "hello")
    if not os.path.exists(hello):
        print(f"{hello} is not built; run 'make build' first", file=sys.stderr)
        return 1
    if shutil.which("wrk") is None:
        print("wrk is not installed (bench/setup.sh installs it)", file=sys.stderr)
        return 1
    contenders = [c for c in CONTENDERS if c[1] in backends]
    if args.baseline_build:
        global BASELINE_BUILD
        BASELINE_BUILD = os.path.abspath(args.baseline_build)
        commit = subprocess.run(
            ["git", "-C", BASELINE_BUILD, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
        ).stdout.strip()
        for backend in backends:
            contenders.append((f"Slipstream C++ baseline ({commit or BASELINE_BUILD})", backend, "durable", "base"))
        contenders.sort(key=lambda c: c[1] != "sqlite")  # grouped by backend, as CONTENDERS are
    results: dict[tuple, list[dict]] = {c: [] for c in contenders}
    database = None
    work_root = tempfile.mkdtemp(prefix="ss-session-bench-")
    try:
        if "postgresql" in backends:
            schema = os.path.join(work_root, "empty.sql")
            with open(schema, "w") as f:
                f.write("SELECT 1;\n")
            database = pg.Database.start([procs.CLIENT_CPU], schema=schema)
        for round_ in range(args.rounds):
            shift = round_ % len(contenders)
            for c in contenders[shift:] + contenders[:shift]:
                work = tempfile.mkdtemp(dir=work_root)
                argv_, port, env = launch(*c, work, database if c[1] == "postgresql" else None)
                results[c].append(
                    measure(c[3], argv_, port, work, args, database if c[1] == "postgresql" else None, env)
                )
        pg_version = database.version() if database else ""
    finally:
        if database:
            database.close()
        shutil.rmtree(work_root, ignore_errors=True)
    print(render(args, argv, contenders, results, pg_version))
    if args.append_ledger:
        path = os.path.join(REPO_DIR, "BENCHMARKS.md")
        ledger.append_section(path, render(args, argv, contenders, results, pg_version), ledger.committed_version(path))
    return 0


def render(args, argv, contenders, results, pg_version: str) -> str:
    def median(c, key: str) -> float:
        return statistics.median(r[key] for r in results[c])

    commit = subprocess.run(
        ["git", "-C", REPO_DIR, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    now = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    disturbed = sum(r["disturbed"] for rs in results.values() for r in rs)
    runs = sum(len(rs) for rs in results.values())
    out = [
        (
            f"## {now} — {commit} (agent session appends: durable and buffered on "
            f"{' and '.join(sorted({c[1] for c in contenders}))} against FastAPI peers)"
        ),
        "",
        f"- Machine: nproc {os.cpu_count()}, Linux {os.uname().release}" + (f", {pg_version}" if pg_version else ""),
        f"- Command: `bench/session_appends.py {' '.join(argv if argv is not None else sys.argv[1:])}`",
        (
            f"- Method: `POST /sessions/{{id}}/events` with an Idempotency-Key, {args.connections} connections "
            f"(wrk, 1 thread, CPU {procs.CLIENT_CPU}) over {args.sessions} sessions, {args.duration} s per contender "
            f"and round, {args.rounds} round(s) in rotating order, medians; one server process with one worker "
            f"thread each, on CPU {procs.SERVER_CPU}; PostgreSQL on CPU {procs.CLIENT_CPU}. CPU per append: the "
            "server's user + kernel time (and PostgreSQL's, all its processes) over the 2xx answers. Per-core ratio: "
            "the peer's CPU per append (server + database) over the contender's, same backend, durable only"
        ),
        f"- Disturbed rounds (others used more than {foreign_load.DISTURBANCE_LIMIT_CORES} cores): "
        f"{disturbed} of {runs}" + (" — **flagged: numbers from a busy machine**" if disturbed else ""),
        "",
        (
            "| backend | server | durability | appends/s (median) | min–max | p99 ms | server us/append (user+sys) | "
            "database us/append | vs peer appends/s | vs peer per core | non-2xx | disturbed | others (cores) |"
        ),
        "|---|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for c in contenders:
        label, backend, mode, _kind = c
        peer = next((x for x in contenders if x[1] == backend and x[3] == "peer"), None)
        rates = [r["rps"] for r in results[c]]
        rps = median(c, "rps")
        cost = median(c, "server_us") + median(c, "db_us")
        vs_rps = f"{rps / median(peer, 'rps'):.2f}x" if peer and median(peer, "rps") else "—"
        vs_core = "—"
        if peer and mode == "durable" and cost:
            vs_core = f"{(median(peer, 'server_us') + median(peer, 'db_us')) / cost:.2f}x"
        db = f"{median(c, 'db_us'):.0f}" if backend == "postgresql" else "—"
        out.append(
            f"| {backend} | {label} | {mode} | {rps:,.0f} | {min(rates):,.0f}–{max(rates):,.0f} | "
            f"{median(c, 'p99_ms'):.2f} | {median(c, 'server_us'):.0f} ({median(c, 'server_user_us'):.0f}+"
            f"{median(c, 'server_sys_us'):.0f}) | {db} | {vs_rps} | {vs_core} | "
            f"{sum(r['errors'] for r in results[c])} | {sum(r['disturbed'] for r in results[c])} | {median(c, 'foreign'):.2f} |"
        )
    out += [
        "",
        "Caveats:",
        "",
        (
            "- `durable` answers after the append's COMMIT (SQLite: group commit, appends waiting join the running "
            "transaction and share its fsync; PostgreSQL: one statement, alone or with the appends of other sessions "
            "that waited meanwhile, one commit for them); the peers commit each "
            "append on its own. `buffered` answers once queued and commits every 50 ms: it can lose up to that "
            "interval on a crash, so it has no per-core ratio at equal durability."
        ),
        "- Two shared cores: ratios and CPU per append, not absolute rates.",
    ]
    for c in contenders:
        shares = [r["grouped_share"] for r in results[c] if "grouped_share" in r]
        if shares and c[1] == "postgresql" and c[2] == "durable":
            out.append(
                f"- {c[0]} durable on PostgreSQL: {statistics.median(shares):.0%} of the appends went out in group "
                "statements (several sessions' appends, one transaction and one commit; "
                "`slipstream_sessions_grouped_appends_total`), the rest alone."
            )
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.exit(main())
