"""Access and rate limits of the decision routes on a real server (hello --decide): a `read` principal may decide
and read but never learn (reward, spec changes, promotion: 403); access per tenant; the default level of unlisted
principals; a bad access file stops the server at start; per-principal limits on decisions and rewards (429 with
Retry-After and RateLimit-* fields; batch items past the limit answered 429 in their slot)."""

import subprocess

import pytest

from tests.conftest import example_binary
from tests.e2e.test_decide import decide_server
from tests.e2e.test_sessions import call

BASE = "/v1/tenants/acme/jobs/chat/capsules/router"
OTHER = "/v1/tenants/globex/jobs/chat/capsules/router"
SPEC = {"actions": [{"id": "a"}, {"id": "b"}]}
KEYS = {
    "carol": "carol-decide-key-0123456789abcdef",
    "rita": "rita-decide-key-0123456789abcdefg",
    "tina": "tina-decide-key-0123456789abcdefg",
    "dave": "dave-decide-key-0123456789abcdefg",
}


def key(name):
    return {"X-API-Key": KEYS[name]}


def secured(start_server, tmp_path, access_lines, *flags):
    keys = tmp_path / "keys.txt"
    keys.write_text("".join(f"{p} {k}\n" for p, k in KEYS.items()))
    acl = tmp_path / "access.txt"
    acl.write_text(access_lines)
    return decide_server(
        start_server,
        tmp_path / "data",
        "--auth",
        "required",
        "--api-keys-file",
        str(keys),
        "--decide-access",
        str(acl),
        *flags,
    )


def test_read_principals_decide_but_never_learn(start_server, tmp_path):
    server = secured(
        start_server,
        tmp_path,
        "# who may learn\ncarol write\nrita read\ntina write acme\n",
        "--decide-default-access",
        "none",
    )
    for path in (BASE, OTHER):
        assert call(server, "PUT", path + "/spec", SPEC, key("carol")).status == 201
    denied = call(server, "PUT", BASE + "/spec", {"mode": "frozen"}, key("rita"))
    assert (denied.status, denied.fields["content-type"]) == (403, "application/problem+json")
    assert "not learn" in denied.json["detail"]
    d = call(server, "POST", BASE + "/decide", {}, key("rita"))
    assert d.status == 200
    for path, body in (
        ("/reward", {"decisionId": d.json["decisionId"], "reward": 1}),
        ("/reward/batch", {"rewards": [{"decisionId": d.json["decisionId"], "reward": 1}]}),
        ("/promote", {}),
    ):
        assert call(server, "POST", BASE + path, body, key("rita")).status == 403, path
    for path in ("/spec", "/decisions", f"/decisions/{d.json['decisionId']}", "/model"):
        assert call(server, "GET", BASE + path, headers=key("rita")).status == 200, path
    assert call(server, "POST", BASE + "/evaluate", {"resamples": 0}, key("rita")).status == 200
    # The decision is still open: rita's reward was refused before the store saw it; carol's is applied.
    r = call(server, "POST", BASE + "/reward", {"decisionId": d.json["decisionId"], "reward": 1}, key("carol"))
    assert (r.status, r.json["applied"]) == (200, True)
    # tina writes on acme only; dave is not listed (default none).
    assert call(server, "POST", BASE + "/decide", {}, key("tina")).status == 200
    assert call(server, "POST", OTHER + "/decide", {}, key("tina")).status == 403
    assert call(server, "GET", OTHER + "/spec", headers=key("tina")).status == 403
    assert call(server, "POST", BASE + "/decide", {}, key("dave")).status == 403
    assert call(server, "POST", BASE + "/decide", {}).status == 401


def test_default_access_without_a_file(start_server, tmp_path):
    server = decide_server(start_server, tmp_path / "data", "--decide-default-access", "read")
    assert call(server, "PUT", BASE + "/spec", SPEC).status == 403


@pytest.mark.parametrize(
    "lines, error",
    [
        ("carol admin\n", 'line 1: unknown access level "admin"'),
        ("carol write\ncarol read\n", 'line 2: principal "carol" listed twice'),
        ("rita read acme,bad/name\n", '"bad/name" is not a tenant name'),
    ],
)
def test_a_bad_access_file_stops_the_start(tmp_path, lines, error):
    acl = tmp_path / "access.txt"
    acl.write_text(lines)
    argv = [example_binary("hello"), "--port", "0", "--decide", "--data-dir", str(tmp_path / "data")]
    done = subprocess.run([*argv, "--decide-access", str(acl)], check=False, capture_output=True, text=True, timeout=30)
    assert done.returncode != 0 and error in done.stderr


def test_per_principal_decision_and_reward_limits(start_server, tmp_path):
    server = secured(
        start_server,
        tmp_path,
        "carol write\nrita write\n",
        "--decide-rate-limit",
        "3/h",
        "--decide-reward-rate-limit",
        "2/h",
    )
    assert call(server, "PUT", BASE + "/spec", SPEC, key("carol")).status == 201
    made = [call(server, "POST", BASE + "/decide", {}, key("carol")) for _ in range(3)]
    assert [m.status for m in made] == [200, 200, 200]
    refused = call(server, "POST", BASE + "/decide", {}, key("carol"))
    assert refused.status == 429 and int(refused.fields["retry-after"]) > 0
    assert refused.fields["ratelimit-limit"] == "3" and refused.fields["ratelimit-remaining"] == "0"
    # Another principal has its own budget; a batch counts each item.
    batch = call(server, "POST", BASE + "/decide/batch", {"requests": [{}] * 5}, key("rita"))
    assert [r["status"] for r in batch.json["results"]] == [200, 200, 200, 429, 429]
    rewards = [{"decisionId": m.json["decisionId"], "reward": 1} for m in made]
    answers = call(server, "POST", BASE + "/reward/batch", {"rewards": rewards}, key("carol"))
    assert [r["status"] for r in answers.json["results"]] == [200, 200, 429]
    assert call(server, "POST", BASE + "/reward", rewards[2], key("carol")).status == 429
    # Reads are not limited by these.
    assert call(server, "GET", BASE + "/decisions", headers=key("carol")).status == 200
