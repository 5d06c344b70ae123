"""Per-request action features (hello --decide, real sockets): a decide body's actions may carry the features this
request gives them; the shared learner scores with them, learns from them after a reward, replays them after a
SIGKILL (bit for bit) and evaluates with them; bad features are a 422 naming the field; a per-action learner
refuses them; a version-1 database gains the column on start."""

import random
import signal
import sqlite3

from tests.e2e.test_decide import decide, decide_server, put_spec
from tests.e2e.test_sessions import call

BASE = "/v1/tenants/acme/jobs/rank/capsules/docs"
SHARED = {
    "actions": [{"id": "a"}, {"id": "b"}, {"id": "c"}],
    "features": {"dimension": 64},
    "learner": {"type": "shared", "regularization": 1.0},
    "exploration": {"type": "epsilonGreedy", "epsilon": 0.1},
}


def offered(goods):
    return [{"id": k, "features": {"doc": {"good": g}}} for k, g in goods.items()]


def learn_goodness(server, rounds, rng):
    """Each round every action gets a random `doc.good` in {0, 1}; the reward is the chosen action's value."""
    for _ in range(rounds):
        goods = {k: rng.choice([0, 1]) for k in "abc"}
        d = decide(server, {"actions": offered(goods)}, BASE)
        r = call(server, "POST", BASE + "/reward", {"decisionId": d["decisionId"], "reward": goods[d["action"]]})
        assert r.status == 200 and r.json["applied"] is True


def probe(server):
    d = decide(server, {"actions": offered({"a": 0, "b": 1, "c": 0})}, BASE)
    return {r["action"]: r["score"] for r in d["ranking"]}


def test_the_shared_learner_learns_from_request_features_and_replays_them(start_server, tmp_path):
    data = tmp_path / "data"
    server = decide_server(start_server, data, "--decide-snapshot-every", "25")
    assert put_spec(server, SHARED, BASE).status == 201
    learn_goodness(server, 60, random.Random(7))
    for good in "abc":
        scores = probe_with(server, good)
        assert max(scores, key=scores.get) == good, scores
    scores = probe(server)
    server.stop(signal.SIGKILL)
    again = decide_server(start_server, data, "--decide-snapshot-every", "25")
    assert probe(again) == scores  # snapshot + the logged features replayed: the same model bit for bit
    e = call(again, "POST", BASE + "/evaluate", {"resamples": 50})
    assert e.status == 200 and e.json["current"]["skipped"] == 0 and e.json["current"]["samples"] == 60


def probe_with(server, good):
    d = decide(server, {"actions": offered({k: int(k == good) for k in "abc"})}, BASE)
    return {r["action"]: r["score"] for r in d["ranking"]}


def test_bad_features_and_the_per_action_learner(start_server, tmp_path):
    server = decide_server(start_server, tmp_path / "data")
    assert put_spec(server, SHARED, BASE).status == 201
    bad = call(server, "POST", BASE + "/decide", {"actions": [{"id": "a", "features": {"x": "high"}}]})
    assert (bad.status, bad.json["pointer"]) == (422, "/actions")
    assert "/a/features/x must be a number" in bad.json["detail"]
    twice = call(
        server, "POST", BASE + "/decide", {"actions": [{"id": "a", "features": {}}, {"id": "a", "features": {}}]}
    )
    assert (twice.status, twice.json["pointer"]) == (422, "/actions/1") and "twice" in twice.json["detail"]
    unknown = call(server, "POST", BASE + "/decide", {"actions": ["a", {"id": "zz"}]})
    assert (unknown.status, unknown.json["pointer"]) == (422, "/actions/1")
    assert "needs its features" in unknown.json["detail"]
    extra = call(server, "POST", BASE + "/decide", {"actions": [{"id": "a", "cost": 1}]})
    assert extra.status == 422
    # Plain ids and objects mix; without features an object is just the id.
    mixed = decide(server, {"actions": ["a", {"id": "b"}]}, BASE)
    assert {r["action"] for r in mixed["ranking"]} == {"a", "b"}
    per_action = "/v1/tenants/acme/jobs/rank/capsules/plain"
    assert put_spec(server, {"actions": [{"id": "a"}, {"id": "b"}]}, per_action).status == 201
    refused = call(server, "POST", per_action + "/decide", {"actions": [{"id": "a", "features": {"x": 1}}]})
    assert (refused.status, refused.json["pointer"]) == (422, "/actions")
    assert "shared learner" in refused.json["detail"]


def test_a_request_may_bring_its_own_actions(start_server, tmp_path):
    """Candidates only the request knows (documents to rank, say): ids the spec lacks, with their features; the
    shared learner scores them by their features, learns from their rewards and replays them after a restart."""
    data = tmp_path / "data"
    server = decide_server(start_server, data)
    assert put_spec(server, SHARED, BASE).status == 201
    rng = random.Random(3)
    for r in range(60):
        docs = {f"doc-{r}-{k}": rng.choice([0, 1]) for k in range(3)}
        d = decide(server, {"actions": offered(docs)}, BASE)
        assert d["action"] in docs and d["actionIndex"] >= 3  # after the spec's a, b, c
        assert {x["action"] for x in d["ranking"]} == set(docs)
        reward = call(server, "POST", BASE + "/reward", {"decisionId": d["decisionId"], "reward": docs[d["action"]]})
        assert reward.json["applied"] is True
    fresh = {"new-1": 0, "new-2": 1, "new-3": 0}
    d = decide(server, {"actions": [*offered(fresh), "a"]}, BASE)
    scores = {x["action"]: x["score"] for x in d["ranking"]}
    assert max(fresh, key=scores.get) == "new-2" and set(scores) == {*fresh, "a"}
    assert call(server, "GET", BASE + "/model").json["version"] == 60
    server.stop(signal.SIGKILL)
    again = decide_server(start_server, data)
    d2 = decide(again, {"actions": [*offered(fresh), "a"]}, BASE)
    assert {x["action"]: x["score"] for x in d2["ranking"]} == scores
    e = call(again, "POST", BASE + "/evaluate", {"resamples": 20})
    assert e.status == 200 and e.json["current"]["skipped"] == 0


def test_a_version_one_database_gains_the_column(start_server, tmp_path):
    data = tmp_path / "data"
    server = decide_server(start_server, data)
    assert put_spec(server, SHARED, BASE).status == 201
    before = decide(server, {}, BASE)
    server.stop()
    with sqlite3.connect(data / "decide.db") as db:  # the schema as version 1 left it
        db.execute("ALTER TABLE decide_decisions DROP COLUMN actions")
        db.execute("DELETE FROM decide_schema_version")
        db.execute("INSERT INTO decide_schema_version (version) VALUES (1)")
    again = decide_server(start_server, data)
    d = decide(again, {"actions": offered({"a": 1, "b": 0})}, BASE)
    assert call(again, "POST", BASE + "/reward", {"decisionId": d["decisionId"], "reward": 1}).status == 200
    assert call(again, "GET", f"{BASE}/decisions/{before['decisionId']}").status == 200
    with sqlite3.connect(data / "decide.db") as db:
        assert db.execute("SELECT MAX(version) FROM decide_schema_version").fetchone() == (2,)
