"""The decision service's series on a real server's /metrics (hello --decide): decisions, explored decisions and
rewards by capsule, the exploration rate and mean reward, model and spec versions, write-behind losses, and the
decide/reward latency histograms with their sub-millisecond buckets."""

from tests.e2e.helpers import metric_value, metrics_text
from tests.e2e.test_decide import decide, decide_server, put_spec
from tests.e2e.test_sessions import call

ROUTER = "/v1/tenants/acme/jobs/chat/capsules/router"
GATE = "/v1/tenants/acme/jobs/tools/capsules/gate"
EPSILON = {"actions": [{"id": "a"}, {"id": "b"}], "exploration": {"type": "epsilonGreedy", "epsilon": 0.5}}


def metrics(server):
    return metrics_text(server)


def labels(path):
    _, tenant, _, job, _, capsule = path.strip("/").split("/")[1:]
    return {"tenant": tenant, "job": job, "capsule": capsule}


def test_decisions_rewards_exploration_and_versions_by_capsule(start_server, tmp_path):
    server = decide_server(start_server, tmp_path / "data")
    assert put_spec(server, EPSILON, ROUTER).status == 201
    assert put_spec(server, {**EPSILON, "mode": "frozen"}, GATE).status == 201
    made = [decide(server, {}, ROUTER) for _ in range(40)]
    explored = sum(d["action"] != d["ranking"][0]["action"] for d in made)
    rewards = [1.0, 0.0, 0.5, 1.0, 0.25]
    for d, r in zip(made, rewards):
        assert call(server, "POST", ROUTER + "/reward", {"decisionId": d["decisionId"], "reward": r}).status == 200
    dup = call(server, "POST", ROUTER + "/reward", {"decisionId": made[0]["decisionId"], "reward": 1})
    assert dup.json["applied"] is False
    for _ in range(3):
        decide(server, {}, GATE)
    batch = call(server, "POST", ROUTER + "/decide/batch", {"requests": [{}, {}]})
    assert [r["status"] for r in batch.json["results"]] == [200, 200]

    text = metrics(server)
    r, g = labels(ROUTER), labels(GATE)
    assert metric_value(text, "slipstream_decide_decisions_total", r, None) == 42
    assert metric_value(text, "slipstream_decide_decisions_total", g, None) == 3
    batch_explored = sum(x["body"]["action"] != x["body"]["ranking"][0]["action"] for x in batch.json["results"])
    assert metric_value(text, "slipstream_decide_explored_decisions_total", r, None) == explored + batch_explored
    assert metric_value(text, "slipstream_decide_exploration_rate", r, None) == (explored + batch_explored) / 42
    assert metric_value(text, "slipstream_decide_rewards_total", r, None) == 5
    assert metric_value(text, "slipstream_decide_rewards_total", g, None) == 0
    assert metric_value(text, "slipstream_decide_reward_mean", r, None) == sum(rewards) / 5
    assert metric_value(text, "slipstream_decide_model_version", r, None) == 5
    assert metric_value(text, "slipstream_decide_spec_version", r, None) == 1
    assert metric_value(text, "slipstream_decide_model_generation", r, None) == 1
    assert metric_value(text, "slipstream_decide_capsule_info", {**g, "mode": "frozen"}, None) == 1
    assert metric_value(text, "slipstream_decide_capsule_info", {**r, "mode": "learner"}, None) == 1
    assert metric_value(text, "slipstream_decide_capsules", None, None) == 2
    assert "# TYPE slipstream_decide_decisions_total counter" in text
    assert "# TYPE slipstream_decide_exploration_rate gauge" in text
    # Every decision and reward answered is one observation; the first buckets are below a millisecond.
    assert metric_value(text, "slipstream_decide_decide_latency_seconds_count", None, None) == 45
    assert metric_value(text, "slipstream_decide_reward_latency_seconds_count", None, None) == 6
    for le in ("0.00001", "0.000025", "0.00005", "0.0001", "0.00025", "0.0005", "0.001"):
        assert metric_value(text, "slipstream_decide_decide_latency_seconds_bucket", {"le": le}, None) is not None, le

    # A spec change that keeps the model moves the spec version only; a new action set starts a generation.
    assert put_spec(server, {"exploration": {"epsilon": 0.1}}, ROUTER).status == 200
    assert put_spec(server, {"actions": [{"id": "a"}, {"id": "b"}, {"id": "c"}]}, ROUTER).status == 200
    text = metrics(server)
    assert metric_value(text, "slipstream_decide_spec_version", r, None) == 3
    assert metric_value(text, "slipstream_decide_model_generation", r, None) == 3
    assert metric_value(text, "slipstream_decide_model_version", r, None) == 0


def test_write_behind_losses_are_counted(start_server, tmp_path):
    server = decide_server(
        start_server, tmp_path / "data", "--decide-shadow-queue", "1", "--decide-shadow-flush", "60s"
    )
    assert put_spec(server, {**EPSILON, "mode": "frozen"}, GATE).status == 201
    out = call(server, "POST", GATE + "/decide/batch", {"requests": [{}] * 100})
    assert [r["status"] for r in out.json["results"]] == [200] * 100
    text = metrics(server)
    lost = metric_value(text, "slipstream_decide_shadow_lost_total", labels(GATE), None)
    assert lost >= 1  # 100 decisions pushed back to back into a queue of one
    assert metric_value(text, "slipstream_decide_shadow_write_lost_total", None, None) == lost
    assert call(server, "GET", GATE + "/model").json["shadowLost"] == lost


def test_per_capsule_series_are_bounded(start_server, tmp_path):
    server = decide_server(start_server, tmp_path / "data", "--decide-metrics-capsules", "1")
    assert put_spec(server, EPSILON, ROUTER).status == 201
    assert put_spec(server, EPSILON, GATE).status == 201
    text = metrics(server)
    # The first by tenant/job/name: acme/chat/router before acme/tools/gate.
    assert metric_value(text, "slipstream_decide_decisions_total", labels(ROUTER), None) == 0
    assert metric_value(text, "slipstream_decide_decisions_total", labels(GATE), None) is None
    assert metric_value(text, "slipstream_decide_capsules", None, None) == 2
