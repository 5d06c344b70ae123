"""slipstream.decide on a Python app through the TestClient (real sockets): App.decisions / app.mount serve the C++
decision routes next to Python routes (with a prefix, metrics, the OpenAPI document); options and stores raise
ValueError / RuntimeError; replay() and `slipstream decide export|replay` give POST evaluate's numbers and the gate;
ModelRouter picks models and reports rewards (fallback, failures); the agent-governor example learns."""

import asyncio
import importlib.util
import json
import pathlib
import socket
import subprocess
import sys

import pytest
from slipstream import App, TestClient
from slipstream.decide import DecideError, Decisions, ModelRouter, replay

ROOT = pathlib.Path(__file__).resolve().parents[2]
BASE = "/v1/tenants/acme/jobs/chat/capsules/router"
SPEC = {
    "actions": [{"id": "left"}, {"id": "right"}],
    "features": {"dimension": 16, "context": [{"name": "side", "type": "categorical"}]},
    "exploration": {"type": "epsilonGreedy", "epsilon": 1.0},
}
GREEDY = {"exploration": {"type": "squarecb", "gamma": 200, "epsilon": None}}


def store(tmp_path) -> str:
    return f"sqlite://{tmp_path}/decide.db"


def test_app_decisions_serves_the_routes_next_to_python_routes(tmp_path):
    app = App()

    @app.get("/hello")
    def hello() -> dict:
        return {"hello": "world"}

    decisions = app.decisions(store(tmp_path), max_actions=8, openapi_path="/decide/openapi.json")
    with TestClient(app) as c:
        assert c.get("/hello").json() == {"hello": "world"}
        assert c.put(BASE + "/spec", json=SPEC).status_code == 201
        d = c.post(BASE + "/decide", json={"context": {"side": "left"}}).json()
        assert d["action"] in ("left", "right") and d["probability"] == 0.5
        r = c.post(BASE + "/reward", json={"decisionId": d["decisionId"], "reward": 1}).json()
        assert r["applied"] is True
        assert c.get(BASE + "/model").json()["version"] == 1
        too_many = c.put(BASE.replace("router", "big") + "/spec", json={"actions": [{"id": str(i)} for i in range(9)]})
        assert too_many.status_code == 400 and too_many.json()["pointer"] == "/actions"
        metrics = c.get("/metrics").text
        assert 'slipstream_decide_decisions_total{tenant="acme",job="chat",capsule="router"} 1' in metrics
        app_doc = c.get("/openapi.json").json()  # the app's own document lists them too
        assert "/hello" in app_doc["paths"] and set(decisions.openapi["paths"]) <= set(app_doc["paths"])
        assert "Problem" in app_doc["components"]["schemas"]
        served = c.get("/decide/openapi.json").json()
        assert (
            served == decisions.openapi
            and BASE.replace("acme", "{tenant}").replace("chat", "{job}").replace("router", "{capsule}") + "/decide"
            in served["paths"]
        )
    decisions.close()


def test_a_prefix_and_the_store_surviving_the_app(tmp_path):
    app = App()
    decisions = Decisions(store(tmp_path), shadow_flush_ms=60_000, shadow_batch=32)
    app.mount("/decide", decisions)
    shadow = "/decide" + BASE.replace("router", "shadow")
    with TestClient(app) as c:
        assert c.put("/decide" + BASE + "/spec", json=SPEC).status_code == 201
        assert c.get(BASE + "/spec").status_code == 404
        d = c.post("/decide" + BASE + "/decide", json={"context": {"side": "right"}}).json()
        assert c.put(shadow + "/spec", json={**SPEC, "mode": "frozen"}).status_code == 201
        queued = c.post(shadow + "/decide", json={"context": {"side": "left"}}).json()
        assert c.get(f"{shadow}/decisions/{queued['decisionId']}").json()["queued"] is True
    decisions.close()  # writes the queued shadow decision
    again = App()
    again.decisions(store(tmp_path), prefix="/decide")
    with TestClient(again) as c:
        got = c.get(f"/decide{BASE}/decisions/{d['decisionId']}").json()
        assert got["context"] == {"side": "right"}
        written = c.get(f"{shadow}/decisions/{queued['decisionId']}").json()
        assert written["context"] == {"side": "left"} and "queued" not in written


def test_bad_options_and_stores(tmp_path):
    with pytest.raises(ValueError, match="unknown decisions option"):
        Decisions(store(tmp_path), max_action=3)
    with pytest.raises(ValueError, match="max_actions must be"):
        Decisions(store(tmp_path), max_actions=-1)
    with pytest.raises(ValueError, match="shadow_batch must be in 1..100000"):
        Decisions(store(tmp_path), shadow_batch=0)
    with pytest.raises(ValueError, match="rate"):
        Decisions(store(tmp_path), decide_rate_limit="fast")
    with pytest.raises(ValueError, match="default_access"):
        Decisions(store(tmp_path), default_access="admin")
    with pytest.raises(RuntimeError, match="decision store"):
        Decisions(f"sqlite://{tmp_path}/missing/folder/decide.db")


def log_decisions(c, n):
    for i in range(n):
        side = "left" if i % 2 else "right"
        d = c.post(BASE + "/decide", json={"context": {"side": side}}).json()
        c.post(BASE + "/reward", json={"decisionId": d["decisionId"], "reward": float(d["action"] == side)})


def test_replay_and_the_cli_match_evaluate(tmp_path):
    app = App()
    decisions = app.decisions(store(tmp_path))
    with TestClient(app) as c:
        assert c.put(BASE + "/spec", json=SPEC).status_code == 201
        log_decisions(c, 160)
        evaluated = c.post(BASE + "/evaluate", json={"spec": GREEDY, "resamples": 100, "seed": 3}).json()
        lines = c.get(BASE + "/decisions?format=jsonl&limit=1000").text
        spec = c.get(BASE + "/spec").text
        result = replay(spec, lines, json.dumps(GREEDY), resamples=100, seed=3)
        assert result.passed and result.report["candidate"] == evaluated["candidate"]
        assert not replay(spec, lines).passed  # the current spec against itself
        with pytest.raises(ValueError, match="line 1"):
            replay(spec, "not json\n")

        url = f"http://127.0.0.1:{c.port}"
        server = ["--url", url, "--tenant", "acme", "--job", "chat", "--capsule", "router", "--page", "50"]
        (tmp_path / "candidate.yaml").write_text("exploration: {type: squarecb, gamma: 200, epsilon: null}\n")
        cli = [sys.executable, "-m", "slipstream", "decide"]
        done = subprocess.run(
            [
                *cli,
                "replay",
                *server,
                "--candidate",
                str(tmp_path / "candidate.yaml"),
                "--resamples",
                "100",
                "--seed",
                "3",
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["candidate"] == evaluated["candidate"]
        exported = subprocess.run(
            [*cli, "export", *server, "-o", str(tmp_path / "log.jsonl")],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert exported.returncode == 0 and len((tmp_path / "log.jsonl").read_text().splitlines()) == 160
        (tmp_path / "spec.json").write_text(spec)
        failed = subprocess.run(
            [
                *cli,
                "replay",
                "--spec",
                str(tmp_path / "spec.json"),
                "--log",
                str(tmp_path / "log.jsonl"),
                "--min-samples",
                "1000",
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert failed.returncode == 1 and "gate: only 160 logged decisions" in failed.stderr
        bad = subprocess.run(
            [*cli, "replay", "--spec", str(tmp_path / "spec.json")],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert bad.returncode == 2
    decisions.close()


MODELS_SPEC = {
    "actions": [{"id": "fast"}, {"id": "good"}],
    "features": {"dimension": 16, "context": [{"name": "kind", "type": "categorical"}]},
    "reward": {"range": [-1, 1], "components": {"quality": 1.0, "latency": -1.0, "cost": -0.1}},
    "exploration": {"type": "epsilonGreedy", "epsilon": 0.1},
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_model_router_picks_models_and_reports_rewards(tmp_path):
    app = App()
    decisions = app.decisions(store(tmp_path))
    calls = []

    def complete(model: str, prompt: str) -> str:
        calls.append(model)
        if prompt == "boom":
            raise TimeoutError("upstream timed out")
        return f"{model}:{prompt}"

    with TestClient(app) as c:
        assert c.put(BASE + "/spec", json=MODELS_SPEC).status_code == 201
        router = ModelRouter(
            f"http://127.0.0.1:{c.port}",
            complete,
            tenant="acme",
            job="chat",
            capsule="router",
            quality=lambda text: 1.0 if text.startswith("good") else 0.2,
            cost=lambda model, text: 3.0 if model == "good" else 0.0,
        )
        for i in range(40):
            routed = router.complete(f"q{i}", context={"kind": "chat"})
            assert routed.result == f"{routed.model}:q{i}" and routed.decision_id
        with pytest.raises(TimeoutError):
            router("boom", context={"kind": "chat"})
        assert c.get(BASE + "/model").json()["version"] == 41
        page = c.get(BASE + "/decisions?limit=100").json()["decisions"]
        expected = {"fast": 0.2, "good": 1.0 - 0.3}  # quality - latency (~0) - 0.1 * cost
        for d in page[:40]:
            assert d["reward"] == pytest.approx(expected[d["action"]], abs=0.01)
        assert page[40]["reward"] <= 0.0  # the failed call: quality 0
        only_fast = router.complete("x", context={"kind": "chat"}, models=["fast"])
        assert only_fast.model == "fast" and only_fast.probability == 1.0

        async def acomplete(model: str, prompt: str) -> str:
            await asyncio.sleep(0)
            return f"{model}:{prompt}"

        async_router = ModelRouter(
            f"http://127.0.0.1:{c.port}",
            acomplete,
            tenant="acme",
            job="chat",
            capsule="router",
            quality=lambda text: 1.0,
        )
        routed = asyncio.run(async_router.acomplete("async", context={"kind": "chat"}))
        assert routed.result == f"{routed.model}:async"
        assert c.get(f"{BASE}/decisions/{routed.decision_id}").json()["closed"] is True
    decisions.close()

    down = f"http://127.0.0.1:{free_port()}"
    fallback = ModelRouter(down, complete, tenant="a", job="b", capsule="c", fallback="fast", timeout=2)
    routed = fallback.complete("y")
    assert (routed.model, routed.decision_id) == ("fast", None)
    with pytest.raises(DecideError):
        ModelRouter(down, complete, tenant="a", job="b", capsule="c", timeout=2).complete("z")


def test_the_agent_governor_example_learns(tmp_path, monkeypatch):
    monkeypatch.setenv("GOVERNOR_STORE", store(tmp_path))
    spec = importlib.util.spec_from_file_location("agent_governor", ROOT / "examples/python/agent_governor.py")
    governor_mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(governor_mod)
    with TestClient(governor_mod.app) as c:
        governor = governor_mod.Governor(c)
        governor.setup()
        under_rules = governor_mod.simulate(governor, 1200)
        # The rules allow payments on production; the model learned that allowing them goes wrong.
        scores = governor_mod.scores(governor, "payments@production")
        assert scores["allow"] < min(scores["ask"], scores["block"])
        assert (
            c.put(
                governor_mod.CAPSULE + "/spec", json={"mode": "learner", "exploration": {"epsilon": 0.05}}
            ).status_code
            == 200
        )
        learned = governor_mod.simulate(governor, 600, seed=8)
        assert learned["mean"] > under_rules["mean"] + 0.1  # about 0.7 against 0.45
