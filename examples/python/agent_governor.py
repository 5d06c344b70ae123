"""An agent governor: before an agent runs a tool call, a capsule decides `allow`, `limit` (run it with reduced
scope), `ask` (a human confirms) or `block`, and learns from what happened afterwards.

Serve it:   slipstream run examples.python.agent_governor:app      (decisions in ./governor.db)
Try it:     python examples/python/agent_governor.py                (a simulated agent against an in-process server)

The capsule starts in `baselineExplore` mode: it serves the caller's rule-based choice (`baseline`), explores the
other actions a little, and learns a ridge model per action from the context (the tool and where it runs, its risk
score, the user's tier). Once its scores show it has learned what the rules miss, `PUT .../spec` {"mode": "learner"}
serves the learned policy (the model carries over: only the mode changed); `POST .../evaluate` and `.../promote`
judge a candidate spec (say, less exploration) on the logged decisions first.
"""

from __future__ import annotations

import os
import random
from typing import Any

from slipstream import App, TestClient

ACTIONS = ("allow", "limit", "ask", "block")
CAPSULE = "/v1/tenants/acme/jobs/agent/capsules/governor"
SPEC = {
    "actions": [{"id": a} for a in ACTIONS],
    "features": {
        "dimension": 64,
        "context": [
            {"name": "tool", "type": "categorical"},
            {"name": "where", "type": "categorical"},  # tool@target: what the call does, where
            {"name": "risk", "scale": 1.0},
            {"name": "user.tier", "type": "categorical"},
        ],
    },
    # The outcome as components: the task got done (+1), an incident happened (-5), a human was asked (-0.3).
    "reward": {
        "range": [-5, 1],
        "waitSeconds": 3600,
        "default": 0,
        "components": {"done": 1, "incident": -5, "asked": -0.3},
    },
    "exploration": {"type": "epsilonGreedy", "epsilon": 0.1},
    "mode": "baselineExplore",
}

app = App()
app.decisions(os.environ.get("GOVERNOR_STORE", "sqlite://governor.db"), openapi_path="/decide/openapi.json")


def rules(call: dict[str, Any]) -> str:
    """The hand-written policy the governor starts from: it knows about shell on production, not about payments."""
    if call["where"] == "shell@production":
        return "block"
    if call["risk"] > 0.7:
        return "ask"
    return "allow"


class Governor:
    """The agent's side: one decision per tool call, one reward per outcome."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def setup(self) -> None:
        r = self.client.put(CAPSULE + "/spec", json=SPEC)
        if r.status_code not in (200, 201):
            raise RuntimeError(r.text)

    def decide(self, call: dict[str, Any]) -> dict[str, Any]:
        r = self.client.post(CAPSULE + "/decide", json={"context": call, "baselineAction": rules(call)})
        r.raise_for_status()
        return r.json()

    def outcome(self, decision_id: str, done: bool, incident: bool, asked: bool) -> None:
        components = {"done": float(done), "incident": float(incident), "asked": float(asked)}
        self.client.post(CAPSULE + "/reward", json={"decisionId": decision_id, "components": components})


def simulate_call(rng: random.Random) -> dict[str, Any]:
    tool = rng.choice(["search", "email", "shell", "payments"])
    target = rng.choice(["staging", "production"])
    return {
        "tool": tool,
        "where": f"{tool}@{target}",
        "risk": round(rng.random(), 2),
        "user": {"tier": rng.choice(["free", "pro"])},
    }


DANGEROUS = ("shell@production", "payments@production")


def world(call: dict[str, Any], action: str, rng: random.Random) -> tuple[bool, bool, bool]:
    """What happens: (done, incident, asked). Shell and payments calls on production go wrong when allowed (80%),
    whatever their risk score; asking never goes wrong but costs a human and a dangerous call is then declined."""
    dangerous = call["where"] in DANGEROUS
    if action == "block":
        return False, False, False
    if action == "ask":
        return not dangerous, False, True
    if action == "limit":
        return rng.random() < 0.6, dangerous and rng.random() < 0.2, False
    return True, dangerous and rng.random() < 0.8, False


def simulate(governor: Governor, rounds: int, seed: int = 7) -> dict[str, float]:
    """Runs `rounds` tool calls through the governor; returns the mean reward, and that of the first and last
    quarters."""
    rng = random.Random(seed)
    rewards = []
    for _ in range(rounds):
        call = simulate_call(rng)
        d = governor.decide(call)
        done, incident, asked = world(call, d["action"], rng)
        governor.outcome(d["decisionId"], done, incident, asked)
        rewards.append(max(-5.0, min(1.0, done - 5 * incident - 0.3 * asked)))
    quarter = max(1, rounds // 4)
    return {
        "mean": sum(rewards) / len(rewards),
        "first": sum(rewards[:quarter]) / quarter,
        "last": sum(rewards[-quarter:]) / quarter,
    }


def scores(governor: Governor, where: str) -> dict[str, float]:
    """The model's score of each action for a call (the reward it expects)."""
    tool = where.split("@")[0]
    call = {"tool": tool, "where": where, "risk": 0.5, "user": {"tier": "pro"}}
    return {r["action"]: r["score"] for r in governor.decide(call)["ranking"]}


if __name__ == "__main__":
    with TestClient(app) as c:
        governor = Governor(c)
        governor.setup()
        print("rules, exploring:", simulate(governor, 2000))
        print("payments@production:", scores(governor, "payments@production"))
        print(
            "candidate with less exploration:",
            c.post(CAPSULE + "/evaluate", json={"spec": {"exploration": {"epsilon": 0.02}}}).json()["candidate"]["dr"],
        )
        c.put(CAPSULE + "/spec", json={"mode": "learner", "exploration": {"epsilon": 0.05}})
        print("learned policy:", simulate(governor, 1000, seed=8))
