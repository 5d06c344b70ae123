"""FastAPI peer of the `/decide` benchmark (bench/decide_bench.py): the same decision logic as a Slipstream capsule
with the benchmark's spec, in Python: context features hashed into a fixed dimension (numeric scaled, categorical
as indicators, FNV-1a), a ridge regression per action updated with Sherman-Morrison (numpy), SquareCB inverse-gap
weighting with a probability floor, a seeded draw; every decision logged to SQLite (WAL, synchronous=FULL as
Slipstream's store): `frozen` (shadow) mode queues it for a writer thread that commits a batch every 50 ms (a full
queue drops and counts), `learner` mode commits it before answering; a reward is committed (decision closed, reward
row) before it is answered and then learned. Run by uvicorn with one worker, uvloop and httptools:

    DECIDE_MODE=frozen|learner DECIDE_DB=/tmp/x.db uvicorn decide_fastapi:app --loop uvloop --http httptools
"""

import asyncio
import os
import queue
import secrets
import sqlite3
import threading
import time
from contextlib import asynccontextmanager

import numpy as np
import runtime_report
from fastapi import FastAPI, HTTPException
from pydantic import BaseModel, Field

MODE = os.environ.get("DECIDE_MODE", "frozen")
DB_PATH = os.environ.get("DECIDE_DB", "/tmp/decide_fastapi.db")
ACTIONS = ["small", "medium", "large", "xl"]
DIM = 32
GAMMA = 50.0
FLOOR = 0.02
REG = 1.0
QUEUE_MAX = 10_000


def fnv1a(text: str) -> int:
    h = 0xCBF29CE484222325
    for b in text.encode():
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def features(context: dict) -> np.ndarray:
    """The benchmark spec's features: len (numeric, scale 0.01), user.tier (categorical), a bias at 0."""
    x = np.zeros(DIM)
    x[0] = 1.0
    length = context.get("len")
    if isinstance(length, (int, float)):
        x[1 + fnv1a("len") % (DIM - 1)] += length * 0.01
    tier = (context.get("user") or {}).get("tier")
    if isinstance(tier, str):
        x[1 + fnv1a("user.tier=" + tier) % (DIM - 1)] += 1.0
    return x


class Arm:
    def __init__(self) -> None:
        self.a_inv = np.eye(DIM) / REG
        self.b = np.zeros(DIM)
        self.theta = np.zeros(DIM)

    def update(self, x: np.ndarray, reward: float) -> None:
        ax = self.a_inv @ x
        self.a_inv -= np.outer(ax, ax) / (1.0 + x @ ax)
        self.b += reward * x
        self.theta = self.a_inv @ self.b


ARMS = [Arm() for _ in ACTIONS]
MODEL_LOCK = threading.Lock()


def squarecb(scores: np.ndarray) -> np.ndarray:
    k = len(scores)
    best = int(np.argmax(scores))
    p = np.zeros(k)
    for i in range(k):
        if i != best:
            p[i] = 1.0 / (k + GAMMA * (scores[best] - scores[i]))
    p[best] = 1.0 - p.sum()
    return (1.0 - FLOOR * k) * p + FLOOR if FLOOR * k < 1 else np.full(k, 1.0 / k)


def connect() -> sqlite3.Connection:
    db = sqlite3.connect(DB_PATH, isolation_level=None, check_same_thread=False)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute(
        "CREATE TABLE IF NOT EXISTS decisions (id TEXT PRIMARY KEY, context TEXT NOT NULL, action INTEGER NOT NULL, "
        "probability REAL NOT NULL, seed TEXT NOT NULL, created_at INTEGER NOT NULL, closed INTEGER NOT NULL, "
        "reward REAL)"
    )
    db.execute(
        "CREATE TABLE IF NOT EXISTS rewards (decision_id TEXT PRIMARY KEY, value REAL NOT NULL, "
        "created_at INTEGER NOT NULL)"
    )
    return db


DB = connect()
DB_LOCK = threading.Lock()
PENDING: queue.Queue = queue.Queue(maxsize=QUEUE_MAX)
LOST = 0


def writer() -> None:
    db = connect()
    while True:
        time.sleep(0.05)
        rows = []
        while True:
            try:
                rows.append(PENDING.get_nowait())
            except queue.Empty:
                break
        if rows:
            db.execute("BEGIN")
            db.executemany("INSERT INTO decisions VALUES (?, ?, ?, ?, ?, ?, 0, NULL)", rows)
            db.execute("COMMIT")


@asynccontextmanager
async def lifespan(app):
    runtime_report.write(asyncio.get_running_loop())
    threading.Thread(target=writer, daemon=True).start()
    yield


app = FastAPI(lifespan=lifespan)


class DecideBody(BaseModel):
    context: dict = Field(default_factory=dict)
    actions: list[str] | None = None
    excluded: list[str] | None = None


class RewardBody(BaseModel):
    decisionId: str
    reward: float


CAPSULE = "/v1/tenants/{tenant}/jobs/{job}/capsules/{capsule}"
CONTEXTS: dict[str, tuple[np.ndarray, int]] = {}  # open decisions of learner mode: features and action


@app.post(CAPSULE + "/decide")
async def decide(tenant: str, job: str, capsule: str, body: DecideBody):
    global LOST
    x = features(body.context)
    with MODEL_LOCK:
        scores = np.array([arm.theta @ x for arm in ARMS])
    p = squarecb(scores)
    seed = secrets.randbits(64)
    action = int(np.random.default_rng(seed).choice(len(ACTIONS), p=p))
    decision_id = secrets.token_hex(16)
    now = int(time.time() * 1000)
    order = np.argsort(-p, kind="stable")
    answer = {
        "decisionId": decision_id,
        "action": ACTIONS[action],
        "actionIndex": action,
        "probability": float(p[action]),
        "ranking": [
            {"action": ACTIONS[i], "actionIndex": int(i), "score": float(scores[i]), "probability": float(p[i])}
            for i in order
        ],
        "mode": MODE,
        "seed": str(seed),
        "createdAt": now,
    }
    row = (decision_id, str(body.context), action, float(p[action]), str(seed), now)
    if MODE == "frozen":
        try:
            PENDING.put_nowait(row)
        except queue.Full:
            LOST += 1
    else:
        with DB_LOCK:
            DB.execute("INSERT INTO decisions VALUES (?, ?, ?, ?, ?, ?, 0, NULL)", row)
        CONTEXTS[decision_id] = (x, action)
    return answer


@app.post(CAPSULE + "/reward")
async def reward(tenant: str, job: str, capsule: str, body: RewardBody):
    with DB_LOCK:
        DB.execute("BEGIN")
        closed = DB.execute(
            "UPDATE decisions SET closed = 1, reward = ? WHERE id = ? AND closed = 0", (body.reward, body.decisionId)
        ).rowcount
        if closed == 0:
            DB.execute("COMMIT")
            found = DB.execute("SELECT 1 FROM decisions WHERE id = ?", (body.decisionId,)).fetchone()
            if not found:
                raise HTTPException(404, "no such decision")
            return {"decisionId": body.decisionId, "applied": False, "closed": True}
        DB.execute("INSERT INTO rewards VALUES (?, ?, ?)", (body.decisionId, body.reward, int(time.time() * 1000)))
        DB.execute("COMMIT")
    learned = CONTEXTS.pop(body.decisionId, None)
    if learned is not None and MODE != "frozen":
        with MODEL_LOCK:
            ARMS[learned[1]].update(learned[0], body.reward)
    return {"decisionId": body.decisionId, "applied": True, "reward": body.reward, "closed": True}
