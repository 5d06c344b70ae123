"""Shadow decisions still queued for the write-behind writer are visible (hello --decide, a 60 s flush interval so
that they stay queued): GET decisions lists them in order, marked "queued", across pages; GET decisions/{id} finds
one; a reward writes the queue first, after which the decision is listed as written and closed."""

from tests.e2e.test_decide import decide, decide_server, put_spec
from tests.e2e.test_sessions import call

BASE = "/v1/tenants/acme/jobs/tools/capsules/gate"
SPEC = {"actions": [{"id": "allow"}, {"id": "block"}], "mode": "frozen"}


def test_queued_decisions_are_listed_and_found(start_server, tmp_path):
    server = decide_server(start_server, tmp_path / "data", "--decide-shadow-flush", "60s")
    assert put_spec(server, SPEC, BASE).status == 201
    made = [decide(server, {"context": {"n": i}}, BASE) for i in range(5)]
    ids = [d["decisionId"] for d in made]

    listed = call(server, "GET", BASE + "/decisions?limit=100").json
    assert sorted(x["decisionId"] for x in listed["decisions"]) == sorted(ids)
    assert all(x["queued"] is True and x["closed"] is False and x["reward"] is None for x in listed["decisions"])
    assert listed["next"] is None
    order = [(x["createdAt"], x["decisionId"]) for x in listed["decisions"]]
    assert order == sorted(order)

    # Pages of two over the queued decisions: every one exactly once.
    seen, after = [], ""
    while True:
        page = call(server, "GET", f"{BASE}/decisions?limit=2" + (f"&after={after}" if after else "")).json
        seen += [x["decisionId"] for x in page["decisions"]]
        if page["next"] is None:
            break
        after = page["next"]
    assert sorted(seen) == sorted(ids) and len(seen) == len(set(seen))

    one = call(server, "GET", f"{BASE}/decisions/{ids[2]}").json
    assert one["queued"] is True and one["context"] == {"n": 2} and one["rewards"] == []
    assert one["principal"] == "anonymous" and one["action"] == made[2]["action"]

    # A reward waits for the queue's write; then everything is written.
    r = call(server, "POST", BASE + "/reward", {"decisionId": ids[2], "reward": 1})
    assert (r.status, r.json["applied"]) == (200, True)
    after_write = call(server, "GET", BASE + "/decisions?limit=100").json["decisions"]
    assert sorted(x["decisionId"] for x in after_write) == sorted(ids)
    assert not any("queued" in x for x in after_write)
    assert [x["closed"] for x in after_write if x["decisionId"] == ids[2]] == [True]
    assert call(server, "GET", f"{BASE}/decisions/{ids[2]}").json["rewards"][0]["value"] == 1
    assert call(server, "GET", f"{BASE}/decisions/missing").status == 404
