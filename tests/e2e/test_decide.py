"""The learning decision service (src/agent/decide) through the hello server's --decide routes, on real sockets:
specs (merge patches, versions, errors naming the field), decide/reward round trips, eventId and reward idempotency,
batches, paging, the model's ETag, shadow mode, default rewards after waitSeconds, principals, and the learned model
surviving a graceful stop and a SIGKILL on the same data dir."""

import http.client
import signal
import threading
import time

import pytest

from tests.e2e.test_sessions import Answer, call, cluster  # noqa: F401 (cluster: a fixture)

PROBLEM = "application/problem+json"
BASE = "/v1/tenants/acme/jobs/chat/capsules/router"
SPEC = {
    "actions": [{"id": "small"}, {"id": "large", "features": {"cost": 5}}],
    "features": {
        "dimension": 32,
        "context": [{"name": "len", "scale": 0.01}, {"name": "user.tier", "type": "categorical"}],
    },
    "reward": {"range": [0, 1], "waitSeconds": 3600, "components": {"quality": 1.0, "latency": -0.001}},
    "exploration": {"type": "squarecb", "gamma": 50, "floor": 0.02},
}
KEY = "decide-test-key-0123456789abcdef"


def send_raw(server, method, path, data):
    conn = http.client.HTTPConnection(server.host, server.port, timeout=10)
    conn.request(method, path, body=data, headers={"Content-Type": "application/json"})
    resp = conn.getresponse()
    answer = Answer(resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read())
    conn.close()
    return answer


def decide_server(start_server, data_dir, *flags):
    return start_server("--threads", "1", "--no-access-log", "--decide", "--data-dir", str(data_dir), *flags)


@pytest.fixture
def server(start_server, tmp_path):
    return decide_server(start_server, tmp_path / "data")


def put_spec(server, spec, path=BASE, headers=None):
    return call(server, "PUT", path + "/spec", spec, headers)


def decide(server, body, path=BASE):
    a = call(server, "POST", path + "/decide", body)
    assert a.status == 200, a.raw
    return a.json


def test_spec_versions_merge_patches_and_errors(server):
    assert call(server, "GET", BASE + "/spec").status == 404
    made = put_spec(server, SPEC)
    assert (made.status, made.json["version"], made.json["generation"], made.fields["etag"]) == (201, 1, 1, '"1"')
    assert made.json["spec"] == SPEC
    patched = put_spec(server, {"exploration": {"gamma": 10, "floor": None}, "mode": "learner"})
    assert (patched.status, patched.json["version"], patched.json["generation"]) == (200, 2, 1)
    assert patched.json["spec"]["exploration"] == {"type": "squarecb", "gamma": 10}
    got = call(server, "GET", BASE + "/spec")
    assert (got.json, got.fields["etag"]) == (patched.json, '"2"')

    stale = put_spec(server, {"mode": "frozen"}, headers={"If-Match": '"1"'})
    assert (stale.status, stale.fields["content-type"], stale.json["currentVersion"]) == (409, PROBLEM, 2)
    bad = put_spec(server, {"exploration": {"gamma": -1}})
    assert (bad.status, bad.fields["content-type"], bad.json["pointer"]) == (400, PROBLEM, "/exploration/gamma")
    assert bad.json["detail"] == "/exploration/gamma must be > 0 and <= 1000000000"
    typo = put_spec(server, {"actions": [{"id": "a", "eligble": {}}]})
    assert (typo.status, typo.json["pointer"], typo.json["detail"]) == (
        400,
        "/actions/0/eligble",
        "/actions/0/eligble is not a known member",
    )
    assert put_spec(server, {"actions": [{"id": "a"}, {"id": "a"}]}).json["pointer"] == "/actions/1/id"
    # A new capsule must be a whole spec.
    assert put_spec(server, {"mode": "frozen"}, path=BASE + "x").json["pointer"] == "/actions"
    not_json = send_raw(server, "PUT", BASE + "/spec", b"{nope")
    assert (not_json.status, not_json.fields["content-type"]) in ((400, PROBLEM), (422, PROBLEM))
    assert call(server, "GET", "/v1/tenants/bad%20name/jobs/chat/capsules/router/spec").status == 422
    # Changing the actions starts a new model generation.
    grown = put_spec(server, {"actions": [{"id": "small"}, {"id": "large"}, {"id": "xl"}]}, headers={"If-Match": '"2"'})
    assert (grown.status, grown.json["version"], grown.json["generation"]) == (200, 3, 3)


def test_decide_and_reward_round_trip(server):
    assert put_spec(server, SPEC).status == 201
    d = decide(server, {"context": {"len": 120, "user": {"tier": "pro"}}})
    assert set(d) == {
        "decisionId",
        "action",
        "actionIndex",
        "probability",
        "ranking",
        "mode",
        "modelVersion",
        "generation",
        "specVersion",
        "seed",
        "createdAt",
    }
    assert d["action"] in ("small", "large") and d["mode"] == "learner" and d["modelVersion"] == 0
    assert abs(sum(r["probability"] for r in d["ranking"]) - 1.0) < 1e-9
    assert all(r["probability"] >= 0.02 - 1e-12 for r in d["ranking"])
    assert d["probability"] == next(r["probability"] for r in d["ranking"] if r["action"] == d["action"])
    assert int(d["seed"]) >= 0

    r = call(
        server,
        "POST",
        BASE + "/reward",
        {"decisionId": d["decisionId"], "components": {"quality": 0.9, "latency": 200}},
    )
    assert r.status == 200, r.raw
    assert r.json == {"decisionId": d["decisionId"], "applied": True, "reward": pytest.approx(0.7), "closed": True}
    dup = call(server, "POST", BASE + "/reward", {"decisionId": d["decisionId"], "reward": 1})
    assert (dup.status, dup.json["applied"], dup.json["reason"]) == (
        200,
        False,
        "duplicate: the decision has its reward",
    )
    unknown = call(server, "POST", BASE + "/reward", {"decisionId": "nope", "reward": 1})
    assert (unknown.status, unknown.fields["content-type"]) == (404, PROBLEM)
    neither = call(server, "POST", BASE + "/reward", {"decisionId": d["decisionId"]})
    assert (neither.status, neither.json["detail"]) == (422, "give reward or components")
    wrong = call(server, "POST", BASE + "/reward", {"decisionId": d["decisionId"], "components": {"cost": 1}})
    assert (wrong.status, wrong.json["pointer"]) == (422, "/components/cost")

    full = call(server, "GET", f"{BASE}/decisions/{d['decisionId']}")
    assert full.status == 200
    assert full.json["closed"] is True and full.json["reward"] == pytest.approx(0.7)
    assert full.json["context"] == {"len": 120, "user": {"tier": "pro"}}
    assert full.json["principal"] == "anonymous"
    assert [x["value"] for x in full.json["rewards"]] == [pytest.approx(0.7)]
    assert call(server, "GET", f"{BASE}/decisions/nope").status == 404

    model = call(server, "GET", BASE + "/model").json
    assert (model["version"], model["decisions"], model["rewards"]) == (1, 1, 1)
    assert sum(a["updates"] for a in model["actions"]) == 1

    bad = call(server, "POST", BASE + "/decide", {"context": {"len": "long"}})
    assert (bad.status, bad.json["pointer"], bad.json["detail"]) == (
        422,
        "/context",
        '/context context feature "len" must be a number',
    )
    none_left = call(server, "POST", BASE + "/decide", {"excluded": ["small", "large"]})
    assert (none_left.status, none_left.json["detail"]) == (422, "/context leaves no eligible action")
    only = decide(server, {"actions": ["large"]})
    assert (only["action"], only["probability"]) == ("large", 1.0)
    assert call(server, "POST", BASE + "x/decide", {}).status == 404


def test_event_ids_are_idempotent(server):
    assert put_spec(server, SPEC).status == 201
    body = {"context": {"len": 5}, "eventId": "evt-1"}
    first = call(server, "POST", BASE + "/decide", body)
    again = call(server, "POST", BASE + "/decide", body)
    assert (first.status, again.status) == (200, 200)
    assert again.json == first.json and again.fields.get("idempotent-replayed") == "true"
    other = call(server, "POST", BASE + "/decide", {"context": {"len": 6}, "eventId": "evt-1"})
    assert (other.status, other.fields["content-type"]) == (409, PROBLEM)
    assert "evt-1" in other.json["detail"]
    listed = call(server, "GET", BASE + "/decisions").json["decisions"]
    assert [x["decisionId"] for x in listed] == [first.json["decisionId"]]


def test_sum_rewards_are_idempotent_by_key(server):
    spec = {"actions": [{"id": "a"}, {"id": "b"}], "reward": {"aggregation": "sum", "range": [0, 10]}}
    assert put_spec(server, spec).status == 201
    d = decide(server, {})
    for key, applied in (("k1", True), ("k2", True), ("k1", False)):
        r = call(server, "POST", BASE + "/reward", {"decisionId": d["decisionId"], "reward": 2, "idempotencyKey": key})
        assert (r.status, r.json["applied"], r.json["closed"]) == (200, applied, False)
    got = call(server, "GET", f"{BASE}/decisions/{d['decisionId']}").json
    assert sorted(x["key"] for x in got["rewards"]) == ["k1", "k2"] and got["closed"] is False


def test_batches(start_server, tmp_path):
    server = decide_server(start_server, tmp_path / "data", "--decide-max-batch", "3")
    assert put_spec(server, SPEC).status == 201
    out = call(
        server,
        "POST",
        BASE + "/decide/batch",
        {"requests": [{"context": {"len": 1}}, {"context": {"len": "x"}}, {"eventId": "b-1"}]},
    )
    assert out.status == 200, out.raw
    statuses = [r["status"] for r in out.json["results"]]
    assert statuses == [200, 422, 200]
    assert out.json["results"][1]["body"]["pointer"] == "/context"
    ids = [r["body"]["decisionId"] for r in out.json["results"] if r["status"] == 200]
    rewards = call(
        server,
        "POST",
        BASE + "/reward/batch",
        {
            "rewards": [
                {"decisionId": ids[0], "reward": 1},
                {"decisionId": ids[0], "reward": 1},
                {"decisionId": "missing", "reward": 0},
            ]
        },
    )
    assert [r["status"] for r in rewards.json["results"]] == [200, 200, 404]
    assert [r["body"].get("applied") for r in rewards.json["results"][:2]] == [True, False]
    too_many = call(server, "POST", BASE + "/decide/batch", {"requests": [{}, {}, {}, {}]})
    assert (too_many.status, too_many.fields["content-type"]) == (422, PROBLEM)


def test_decisions_page_in_order(server):
    assert put_spec(server, SPEC).status == 201
    made = [decide(server, {"context": {"len": i}})["decisionId"] for i in range(5)]
    seen, after = [], ""
    for _ in range(5):
        page = call(server, "GET", f"{BASE}/decisions?limit=2&after={after}").json
        seen += [x["decisionId"] for x in page["decisions"]]
        assert all(x["closed"] is False and x["reward"] is None for x in page["decisions"])
        if page["next"] is None:
            break
        after = page["next"]
    assert sorted(seen) == sorted(made) and len(seen) == 5
    assert call(server, "GET", f"{BASE}/decisions?from=0&to=1").json == {"decisions": [], "next": None}
    assert call(server, "GET", f"{BASE}/decisions?after=bogus").json["pointer"] == "/after"
    assert call(server, "GET", f"{BASE}/decisions?limit=0").status == 422


def test_model_etag_and_304(server):
    assert put_spec(server, SPEC).status == 201
    first = call(server, "GET", BASE + "/model")
    etag = first.fields["etag"]
    same = call(server, "GET", BASE + "/model", headers={"If-None-Match": etag})
    assert (same.status, same.raw, same.fields["etag"]) == (304, b"", etag)
    d = decide(server, {"context": {"len": 3}})
    assert call(server, "POST", BASE + "/reward", {"decisionId": d["decisionId"], "reward": 0.5}).status == 200
    changed = call(server, "GET", BASE + "/model", headers={"If-None-Match": etag})
    assert changed.status == 200 and changed.fields["etag"] != etag and changed.json["version"] == 1
    assert call(server, "GET", BASE + "x/model").status == 404


def test_shadow_mode_logs_and_never_learns(server):
    assert put_spec(server, {**SPEC, "mode": "frozen"}).status == 201
    d = decide(server, {"context": {"len": 7}})
    assert d["mode"] == "frozen"
    # The reward waits for the shadow decision to be written behind.
    r = call(server, "POST", BASE + "/reward", {"decisionId": d["decisionId"], "reward": 1})
    assert (r.status, r.json["applied"]) == (200, True)
    model = call(server, "GET", BASE + "/model").json
    assert (model["version"], model["shadowLost"], model["mode"]) == (0, 0, "frozen")


def test_baseline_explore_needs_the_baseline(server):
    assert put_spec(server, {**SPEC, "mode": "baselineExplore", "exploration": {"epsilon": 0.1}}).status == 201
    missing = call(server, "POST", BASE + "/decide", {})
    assert (missing.status, missing.json["pointer"]) == (422, "/baselineAction")
    served = [decide(server, {"baselineAction": "large"}) for _ in range(20)]
    for d in served:
        assert d["probability"] == pytest.approx(0.95 if d["action"] == "large" else 0.05)


def test_default_reward_after_the_wait(start_server, tmp_path):
    server = decide_server(start_server, tmp_path / "data", "--decide-sweep-interval", "20ms")
    spec = {"actions": [{"id": "a"}, {"id": "b"}], "reward": {"waitSeconds": 0.2, "default": 0.25}}
    assert put_spec(server, spec).status == 201
    d = decide(server, {})
    deadline = time.monotonic() + 15  # a bound against a hang, not a timing assertion
    got = None
    while time.monotonic() < deadline:
        got = call(server, "GET", f"{BASE}/decisions/{d['decisionId']}").json
        if got["closed"]:
            break
        time.sleep(0.05)
    assert got["closed"] is True and got["reward"] == 0.25 and got["rewards"] == []
    assert call(server, "GET", BASE + "/model").json["version"] == 1
    late = call(server, "POST", BASE + "/reward", {"decisionId": d["decisionId"], "reward": 1})
    assert (late.status, late.json["applied"]) == (200, False)


def test_principals_with_auth(start_server, tmp_path):
    keys = tmp_path / "keys.txt"
    keys.write_text(f"carol {KEY}\n")
    server = decide_server(start_server, tmp_path / "data", "--auth", "required", "--api-keys-file", str(keys))
    assert call(server, "PUT", BASE + "/spec", SPEC).status == 401
    auth = {"X-API-Key": KEY}
    assert call(server, "PUT", BASE + "/spec", SPEC, auth).status == 201
    d = call(server, "POST", BASE + "/decide", {}, auth).json
    assert call(server, "POST", BASE + "/reward", {"decisionId": d["decisionId"], "reward": 1}, auth).status == 200
    got = call(server, "GET", f"{BASE}/decisions/{d['decisionId']}", headers=auth).json
    assert got["principal"] == "carol" and got["rewards"][0]["principal"] == "carol"


def learn(server, n):
    for i in range(n):
        d = decide(server, {"context": {"len": i % 10 * 10, "user": {"tier": "pro" if i % 2 else "free"}}})
        reward = 1.0 if (d["action"] == "large") == (i % 2 == 1) else 0.0
        r = call(server, "POST", BASE + "/reward", {"decisionId": d["decisionId"], "reward": reward})
        assert r.status == 200 and r.json["applied"] is True


def model_state(server):
    m = call(server, "GET", BASE + "/model")
    probe = call(server, "POST", BASE + "/decide", {"context": {"len": 40, "user": {"tier": "pro"}}}).json
    scores = {r["action"]: r["score"] for r in probe["ranking"]}
    state = {k: v for k, v in m.json.items() if k not in ("decisions", "rewards", "shadowLost", "shadowLostTotal")}
    return state, m.fields["etag"], scores


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGKILL], ids=["graceful", "sigkill"])
def test_restart_keeps_the_learned_model(start_server, tmp_path, stop):
    data = tmp_path / "data"
    flags = ("--decide-snapshot-every", "7")  # a snapshot, then a tail of the learning log replayed
    server = decide_server(start_server, data, *flags)
    assert put_spec(server, SPEC).status == 201
    learn(server, 30)
    before, etag, scores = model_state(server)
    assert before["version"] == 30
    server.stop(stop)

    again = decide_server(start_server, data, *flags)
    after, etag_after, scores_after = model_state(again)
    assert after == before and etag_after == etag
    assert scores_after == scores  # bit for bit: the same scores from the same state
    assert call(again, "GET", BASE + "/spec").json["version"] == 1
    learn(again, 3)
    assert call(again, "GET", BASE + "/model").json["version"] == 33


def reward_until_killed(server, acked, stop):
    """Decides and rewards (reward 1 for "large", 0 otherwise) until the server dies; records acknowledged rewards."""
    while not stop.is_set():
        try:
            d = call(server, "POST", BASE + "/decide", {"context": {"len": len(acked)}}).json
            r = call(server, "POST", BASE + "/reward", {"decisionId": d["decisionId"], "reward": 0.5})
        except (OSError, http.client.HTTPException, ValueError, TypeError):
            return
        if r.status == 200 and r.json["applied"]:
            acked.append(d["decisionId"])


def test_acknowledged_rewards_survive_sigkill(start_server, tmp_path):
    data = tmp_path / "data"
    server = decide_server(start_server, data, "--decide-snapshot-every", "10")
    assert put_spec(server, SPEC).status == 201
    acked, stop = [], threading.Event()
    writer = threading.Thread(target=reward_until_killed, args=(server, acked, stop))
    writer.start()
    deadline = time.monotonic() + 30  # a bound against a hang: the kill comes once 40 rewards were acknowledged
    while len(acked) < 40 and time.monotonic() < deadline:
        time.sleep(0.01)
    server.stop(signal.SIGKILL)
    stop.set()
    writer.join()
    assert len(acked) >= 40

    again = decide_server(start_server, data)
    for decision_id in acked:
        got = call(again, "GET", f"{BASE}/decisions/{decision_id}").json
        assert got["closed"] is True and got["reward"] == 0.5
    # Every acknowledged reward was learned (one more may have committed before its answer was lost).
    assert call(again, "GET", BASE + "/model").json["version"] in (len(acked), len(acked) + 1)


def log_uniform_decisions(server, n):
    """n decisions of a uniformly exploring policy, rewarded 1 when the action matches the context's side."""
    sides = ["left" if i % 2 else "right" for i in range(n)]
    for start in range(0, n, 100):
        batch = [{"context": {"side": s}} for s in sides[start : start + 100]]
        made = call(server, "POST", BASE + "/decide/batch", {"requests": batch}).json["results"]
        rewards = [
            {"decisionId": m["body"]["decisionId"], "reward": 1.0 if m["body"]["action"] == side else 0.0}
            for m, side in zip(made, sides[start : start + 100], strict=True)
        ]
        out = call(server, "POST", BASE + "/reward/batch", {"rewards": rewards}).json["results"]
        assert all(r["status"] == 200 and r["body"]["applied"] for r in out)


def test_evaluate_and_promote(server):
    spec = {
        "actions": [{"id": "left"}, {"id": "right"}],
        "features": {"context": [{"name": "side", "type": "categorical"}]},
        "exploration": {"type": "epsilonGreedy", "epsilon": 1.0},
    }
    assert put_spec(server, spec).status == 201
    log_uniform_decisions(server, 200)
    greedy = {"exploration": {"type": "squarecb", "gamma": 200, "epsilon": None}}
    e = call(server, "POST", BASE + "/evaluate", {"spec": greedy, "resamples": 300, "seed": 5})
    assert e.status == 200, e.raw
    ev = e.json
    assert ev["logged"] == 200 and ev["candidate"]["samples"] == 200 and ev["specVersion"] == 1
    # The logging policy (uniform over two actions) is worth about 0.5; the learning candidate far more.
    assert 0.35 < ev["logging"]["estimate"] < 0.65
    assert 0.35 < ev["current"]["dr"]["estimate"] < 0.65
    for name in ("ips", "snips", "dm", "dr"):
        c = ev["candidate"][name]
        assert c["low"] <= c["estimate"] <= c["high"]
    assert ev["candidate"]["dr"]["low"] > ev["current"]["dr"]["estimate"] + 0.1
    assert 0 < ev["candidate"]["effectiveSamples"] <= 200
    assert call(server, "POST", BASE + "/evaluate", {"spec": {"exploration": {"gamma": -1}}}).json["pointer"] == (
        "/spec/exploration/gamma"
    )

    few = call(server, "POST", BASE + "/promote", {"spec": greedy, "minSamples": 1000})
    assert (few.status, few.fields["content-type"]) == (409, PROBLEM)
    assert few.json["reasons"] == ["only 200 logged decisions; the gate needs 1000"]
    same = call(server, "POST", BASE + "/promote", {"spec": {}})
    assert same.status == 409 and "DR lower bound" in same.json["reasons"][0]
    assert call(server, "GET", BASE + "/spec").json["version"] == 1

    promoted = call(server, "POST", BASE + "/promote", {"spec": greedy})
    assert promoted.status == 200, promoted.raw
    assert promoted.json["promoted"] is True and promoted.json["spec"]["version"] == 2
    assert call(server, "GET", BASE + "/spec").json["spec"]["exploration"] == {"type": "squarecb", "gamma": 200}


def test_postgresql_store_keeps_the_model_after_sigkill(start_server, cluster):  # noqa: F811 (the fixture)
    flags = ("--threads", "1", "--no-access-log", "--decide", "--store", cluster.url, "--decide-snapshot-every", "5")
    server = start_server(*flags)
    assert put_spec(server, SPEC).status == 201
    learn(server, 12)
    before, etag, scores = model_state(server)
    server.stop(signal.SIGKILL)
    again = start_server(*flags)
    after, etag_after, scores_after = model_state(again)
    assert (after, etag_after, scores_after) == (before, etag, scores)
    assert after["version"] == 12


def test_buffered_decisions_are_rewarded_and_learned(start_server, tmp_path):
    server = decide_server(start_server, tmp_path / "data", "--decide-decisions", "buffered")
    assert put_spec(server, SPEC).status == 201
    learn(server, 10)  # each reward right after its decision: it waits for the decision's write
    assert call(server, "GET", BASE + "/model").json["version"] == 10
    assert len(call(server, "GET", BASE + "/decisions?limit=100").json["decisions"]) == 10
