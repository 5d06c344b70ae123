#!/usr/bin/env python3
"""Learning quality of the `/decide` service (issue 23) on synthetic contextual bandits with a known optimum:
cumulative regret of Slipstream's capsule (SquareCB, and epsilon-greedy 0.1, both with a ridge per action, through
hello --decide over HTTP) against uniform random and Vowpal Wabbit's `--cb_explore_adf` (SquareCB, and epsilon-greedy
0.1, with the same context x action interactions) on the same streams. Problems: linear rewards with 5 actions,
non-linear rewards with 10 actions, and linear rewards with 20 actions whose rewards arrive 100 rounds late and 20% of
them never. Saves one PNG per problem (matplotlib) under bench/results/ and prints a ledger section.

    .venv/bin/python bench/decide_regret.py [--rounds 3000] [--seeds 3] [--append-ledger]
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import deque
from dataclasses import dataclass

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_DIR = os.path.dirname(BENCH_DIR)
BUILD = os.path.join(REPO_DIR, os.environ.get("SLIPSTREAM_BUILD_DIR", "build"))
sys.path.insert(0, REPO_DIR)
from bench.harness import ledger, procs
from bench.session_appends import free_port, wait_up

NUMERIC = 4  # x0..x3 in [-1, 1]
SEGMENTS = 6  # a categorical feature


@dataclass
class Problem:
    name: str
    actions: int
    kind: str  # "linear" | "nonlinear"
    delay: int = 0  # rounds before a reward arrives
    missing: float = 0.0  # share of rewards that never arrive
    noise: float = 0.1

    def weights(self, rng: random.Random) -> list[list[float]]:
        return [[rng.uniform(-1, 1) for _ in range(NUMERIC + SEGMENTS)] for _ in range(self.actions)]

    def expected(self, w: list[list[float]], x: list[float], seg: int) -> list[float]:
        out = []
        for a in range(self.actions):
            if self.kind == "linear":
                z = sum(w[a][i] * x[i] for i in range(NUMERIC)) + w[a][NUMERIC + seg]
            else:  # a smooth non-linear surface per action: products, a sine and a threshold
                z = math.sin(3 * x[0] * w[a][0] + w[a][1]) + x[1] * x[2] * w[a][2] + (0.8 if x[3] > w[a][3] else -0.8)
            out.append(0.5 + 0.25 * math.tanh(z))
        return out


PROBLEMS = [
    Problem("linear, 5 actions", 5, "linear"),
    Problem("non-linear, 10 actions", 10, "nonlinear"),
    Problem("linear, 20 actions, rewards 100 rounds late, 20% never", 20, "linear", delay=100, missing=0.2),
]


def contexts(problem: Problem, rounds: int, seed: int):
    rng = random.Random(seed)
    w = problem.weights(rng)
    for _ in range(rounds):
        x = [rng.uniform(-1, 1) for _ in range(NUMERIC)]
        seg = rng.randrange(SEGMENTS)
        yield x, seg, problem.expected(w, x, seg), rng.gauss(0, problem.noise), rng.random()


class Uniform:
    label = "uniform random"

    def __init__(self, problem: Problem, seed: int) -> None:
        self.k, self.rng = problem.actions, random.Random(seed)

    def choose(self, x, seg) -> tuple[int, object]:
        return self.rng.randrange(self.k), None

    def learn(self, token, reward: float) -> None:
        pass

    def close(self) -> None:
        pass


class Slipstream:
    """A capsule on hello --decide: decide over HTTP, reward over HTTP."""

    def __init__(self, problem: Problem, seed: int, exploration: dict, label: str, work: str) -> None:
        self.label = label
        self.port = free_port()
        argv = [
            os.path.join(BUILD, "examples", "hello"),
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--threads",
            "1",
            "--no-access-log",
            "--decide",
            "--data-dir",
            tempfile.mkdtemp(dir=work),
            "--decide-decisions",
            "buffered",
        ]
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_up(self.port, self.proc)
        self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        self.path = "/v1/tenants/bench/jobs/regret/capsules/p"
        spec = {
            "actions": [{"id": f"a{i}"} for i in range(problem.actions)],
            "features": {
                "dimension": 64,
                "context": [*({"name": f"x{i}"} for i in range(NUMERIC)), {"name": "seg", "type": "categorical"}],
            },
            "reward": {"range": [-1, 2], "waitSeconds": 86400},
            "exploration": exploration,
            "learner": {"type": "perAction", "regularization": 1.0},
        }
        status, body = self.call("PUT", "/spec", spec)
        assert status == 201, body

    def call(self, method: str, path: str, body: dict) -> tuple[int, dict]:
        self.conn.request(method, self.path + path, body=json.dumps(body), headers={"Content-Type": "application/json"})
        r = self.conn.getresponse()
        return r.status, json.loads(r.read())

    def choose(self, x, seg) -> tuple[int, object]:
        context = {f"x{i}": x[i] for i in range(NUMERIC)} | {"seg": str(seg)}
        status, d = self.call("POST", "/decide", {"context": context})
        assert status == 200, d
        return d["actionIndex"], d["decisionId"]

    def learn(self, token, reward: float) -> None:
        status, r = self.call("POST", "/reward", {"decisionId": token, "reward": reward})
        assert status == 200 and r["applied"], r

    def close(self) -> None:
        self.conn.close()
        procs.stop(self.proc)


class Vowpal:
    """vowpalwabbit's --cb_explore_adf: a shared context example and one per action, cost = -reward."""

    def __init__(self, problem: Problem, seed: int, flags: str, label: str) -> None:
        import vowpalwabbit

        self.label = label
        self.k = problem.actions
        self.rng = random.Random(seed)
        self.vw = vowpalwabbit.Workspace(f"--cb_explore_adf {flags} -q sa --quiet --random_seed {seed}")

    def examples(self, x, seg, label: tuple[int, float, float] | None = None) -> list[str]:
        shared = "shared |s " + " ".join(f"x{i}:{x[i]:.6f}" for i in range(NUMERIC)) + f" seg{seg}"
        out = [shared]
        for a in range(self.k):
            prefix = f"0:{label[1]}:{label[2]} " if label and label[0] == a else ""
            out.append(f"{prefix}|a a{a}")
        return out

    def choose(self, x, seg) -> tuple[int, object]:
        pmf = self.vw.predict(self.examples(x, seg))
        a = self.rng.choices(range(self.k), weights=pmf)[0]
        return a, (x, seg, a, pmf[a])

    def learn(self, token, reward: float) -> None:
        x, seg, a, p = token
        self.vw.learn(self.examples(x, seg, (a, -reward, p)))

    def close(self) -> None:
        self.vw.finish()


def run(policy, problem: Problem, rounds: int, seed: int) -> tuple[list[float], float]:
    """Cumulative regret after each round, and the share of the best action in the last 500 rounds."""
    regret, total, best_hits, tail = [], 0.0, 0, max(1, min(500, rounds // 4))
    late: deque = deque()
    for t, (x, seg, expected, noise, coin) in enumerate(contexts(problem, rounds, seed)):
        a, token = policy.choose(x, seg)
        best = max(range(problem.actions), key=expected.__getitem__)
        total += expected[best] - expected[a]
        regret.append(total)
        if t >= rounds - tail and a == best:
            best_hits += 1
        if coin >= problem.missing:
            late.append((t + problem.delay, token, expected[a] + noise))
        while late and late[0][0] <= t:
            _, tok, r = late.popleft()
            policy.learn(tok, r)
    return regret, best_hits / tail


def contenders(problem: Problem, seed: int, work: str):
    yield Uniform(problem, seed)
    # SquareCB with VW's default schedule (gamma 10 x t^0.5), so the two SquareCB rows differ only in the learner.
    squarecb = {"type": "squarecb", "gamma": 10, "gammaExponent": 0.5, "floor": 0.0}
    yield Slipstream(problem, seed, squarecb, "Slipstream SquareCB", work)
    yield Slipstream(problem, seed, {"type": "epsilonGreedy", "epsilon": 0.1}, "Slipstream epsilon-greedy 0.1", work)
    try:
        yield Vowpal(problem, seed, "--squarecb --gamma_scale 10", "VW --cb_explore_adf --squarecb")
        yield Vowpal(problem, seed, "--epsilon 0.1", "VW --cb_explore_adf --epsilon 0.1")
    except ImportError:
        return


def plot(problem: Problem, curves: dict[str, list[list[float]]], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    for label, runs in curves.items():
        mean = [statistics.fmean(vals) for vals in zip(*runs, strict=True)]
        ax.plot(range(1, len(mean) + 1), mean, label=label, linestyle="--" if label == "uniform random" else "-")
    ax.set_title(problem.name)
    ax.set_xlabel("round")
    ax.set_ylabel("cumulative regret (expected reward)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rounds", type=int, default=3000)
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--append-ledger", action="store_true")
    args = p.parse_args(argv)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    out_dir = os.path.join(REPO_DIR, "bench", "results", f"decide-regret-{stamp}")
    os.makedirs(out_dir, exist_ok=True)
    work = tempfile.mkdtemp(prefix="ss-regret-")
    table: dict[str, dict[str, tuple[float, float]]] = {}
    vw_missing = False
    try:
        for n, problem in enumerate(PROBLEMS):
            curves: dict[str, list[list[float]]] = {}
            shares: dict[str, list[float]] = {}
            for seed in range(args.seeds):
                labels = []
                for policy in contenders(problem, 1000 * n + seed, work):
                    try:
                        curve, share = run(policy, problem, args.rounds, 1000 * n + seed)
                    finally:
                        policy.close()
                    curves.setdefault(policy.label, []).append(curve)
                    shares.setdefault(policy.label, []).append(share)
                    labels.append(policy.label)
                    print(
                        f"# {problem.name} seed {seed} {policy.label}: regret {curve[-1]:.1f}, best {share:.0%}",
                        file=sys.stderr,
                    )
                vw_missing = not any(label.startswith("VW") for label in labels)
            plot(problem, curves, os.path.join(out_dir, f"problem{n + 1}.png"))
            table[problem.name] = {
                label: (statistics.fmean(c[-1] for c in runs), statistics.fmean(shares[label]))
                for label, runs in curves.items()
            }
    finally:
        shutil.rmtree(work, ignore_errors=True)
    section = render(table, args, argv, out_dir, vw_missing)
    print(section)
    if args.append_ledger:
        path = os.path.join(REPO_DIR, "BENCHMARKS.md")
        ledger.append_section(path, section, ledger.committed_version(path))
    return 0


def render(table, args, argv, out_dir: str, vw_missing: bool) -> str:
    commit = subprocess.run(
        ["git", "-C", REPO_DIR, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    rel = os.path.relpath(out_dir, REPO_DIR)
    now = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    out = [
        f"## {now} — {commit} (/decide learning quality: cumulative regret on synthetic bandits)",
        "",
        f"- Command: `bench/decide_regret.py {' '.join(argv if argv is not None else sys.argv[1:])}`",
        (
            f"- Method: {args.rounds} rounds per stream, {args.seeds} seeds (the same streams for every policy); "
            f"context: {NUMERIC} numbers in [-1, 1] and a categorical segment of {SEGMENTS}; expected rewards in "
            "[0.25, 0.75] (0.5 + 0.25 tanh of a linear, or of a non-linear, function per action), Gaussian noise "
            "0.1; regret counts expected rewards, so noise does not add to it. Slipstream: a capsule on hello "
            "--decide (ridge per action, 64 hashed features, regularization 1; SquareCB gamma 10 x updates^0.5, "
            "VW's default schedule), decide and reward over HTTP; VW "
            "9.11.9 `--cb_explore_adf -q sa` (shared context x action interactions), cost = -reward. Best-action "
            "share: the last 500 rounds."
        ),
        f"- Curves (PNG, mean over seeds): `{rel}/problem1.png`, `problem2.png`, `problem3.png`",
        "",
    ]
    if vw_missing:
        out.append("- Vowpal Wabbit did not install here: its rows are missing.")
    for name, rows in table.items():
        uniform = rows["uniform random"][0]
        out += [
            f"### {name}",
            "",
            "| policy | cumulative regret (mean) | vs uniform | best action, last 500 |",
            "|---|---:|---:|---:|",
        ]
        for label, (regret, share) in sorted(rows.items(), key=lambda kv: kv[1][0]):
            out.append(f"| {label} | {regret:,.1f} | {regret / uniform:.0%} | {share:.0%} |")
        out.append("")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.exit(main())
