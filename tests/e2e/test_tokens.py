"""Scoped API tokens (--tokens): issued, listed and revoked through /admin/tokens on real sockets, checked by the
engine's auth (401 once revoked or expired), their scopes reaching routes (/whoami, /decide: a read token decides
but is refused reward with 403), JWT scope claims, last-used times, only SHA-256 digests in the database file, and
two processes sharing tokens through one PostgreSQL."""

import base64
import hashlib
import hmac
import json
import sqlite3
import time

import pytest

from tests.e2e.test_decide import BASE, SPEC
from tests.e2e.test_sessions import call, cluster  # noqa: F401 (cluster: a fixture)

ADMIN = "sst_bootstrap-admin-token-for-the-e2e-suite"
BEARER = {"Authorization": f"Bearer {ADMIN}"}
SECRET = "t" * 40


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def token_server(start_server, *flags, store=None, data_dir=None):
    where = ("--store", store) if store else ("--data-dir", str(data_dir))
    return start_server(
        "--threads",
        "1",
        "--no-access-log",
        "--auth",
        "required",
        "--tokens",
        "--decide",
        "--token-refresh",
        "100ms",
        *where,
        *flags,
        env={"SLIPSTREAM_ADMIN_TOKEN": ADMIN},
    )


def issue(server, body, headers=BEARER):
    a = call(server, "POST", "/admin/tokens", body, headers)
    assert a.status == 201, a.raw
    return a.json


def wait_for(check, seconds=10.0):
    """Polls `check` until it returns a true value (bounded): another replica's change arrives on its next refresh."""
    deadline = time.monotonic() + seconds
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.05)


@pytest.fixture
def server(start_server, tmp_path):
    return token_server(start_server, data_dir=tmp_path / "data")


def test_issue_use_list_and_revoke(server, tmp_path):
    assert call(server, "POST", "/admin/tokens", {"principal": "x", "scopes": ["read"]}).status == 401
    t = issue(server, {"principal": "svc.reader", "scopes": ["read:acme", "read:beta"], "expiresIn": 3600})
    assert t["token"].startswith("sst_") and len(t["token"]) == 47
    assert t["id"].startswith("tok_") and t["principal"] == "svc.reader"
    assert t["scopes"] == ["read:acme", "read:beta"] and t["lastUsedAt"] is None and t["revokedAt"] is None
    assert t["expiresAt"] == t["createdAt"] + 3600
    who = call(server, "GET", "/whoami", headers=bearer(t["token"]))
    assert (who.status, who.json) == (200, {"principal": "svc.reader", "scopes": "read:acme read:beta"})
    # The API-key field works too.
    assert call(server, "GET", "/whoami", headers={"X-API-Key": t["token"]}).json["principal"] == "svc.reader"
    # Listed without the secret; a read token administers nothing.
    listed = call(server, "GET", "/admin/tokens", headers=BEARER).json["tokens"]
    assert [x["id"] for x in listed] == [t["id"]] and "token" not in listed[0]
    assert call(server, "GET", "/admin/tokens", headers=bearer(t["token"])).status == 403
    # Revoked: 401 at once in this process.
    gone = call(server, "DELETE", f"/admin/tokens/{t['id']}", headers=BEARER)
    assert gone.status == 200 and gone.json["revokedAt"] is not None
    refused = call(server, "GET", "/whoami", headers=bearer(t["token"]))
    assert refused.status == 401 and refused.fields["www-authenticate"].startswith("Bearer")
    assert call(server, "DELETE", f"/admin/tokens/{t['id']}", headers=BEARER).status == 404
    assert call(server, "GET", "/whoami", headers=bearer("sst_" + "x" * 43)).status == 401


def test_last_used_is_written(server):
    t = issue(server, {"principal": "svc", "scopes": "write"})
    assert call(server, "GET", "/whoami", headers=bearer(t["token"])).status == 200

    def used():
        return call(server, "GET", f"/admin/tokens/{t['id']}", headers=BEARER).json["lastUsedAt"]

    at = wait_for(used)
    assert at is not None and t["createdAt"] <= at <= int(time.time()) + 1


def test_only_digests_are_stored(server, tmp_path):
    t = issue(server, {"principal": "svc", "scopes": ["admin"]})
    db = tmp_path / "data" / "tokens.db"
    rows = sqlite3.connect(str(db)).execute("SELECT id, digest, principal FROM slipstream_api_tokens").fetchall()
    assert rows == [(t["id"], hashlib.sha256(t["token"].encode()).hexdigest(), "svc")]
    for path in (tmp_path / "data").glob("tokens.db*"):
        assert t["token"].encode() not in path.read_bytes()
        assert ADMIN.encode() not in path.read_bytes()


def test_expiry(server):
    t = issue(server, {"principal": "brief", "scopes": ["read"], "expiresIn": 1})
    assert call(server, "GET", "/whoami", headers=bearer(t["token"])).status == 200
    while time.time() < t["expiresAt"] + 0.2:  # the wall clock, not the server, is what we wait for
        time.sleep(0.1)
    assert call(server, "GET", "/whoami", headers=bearer(t["token"])).status == 401


def test_bad_bodies_name_the_field(server):
    cases = [
        ({"scopes": ["read"]}, "principal"),
        ({"principal": "a b", "scopes": ["read"]}, "principal"),
        ({"principal": "p"}, "scopes"),
        ({"principal": "p", "scopes": ["root"]}, "scopes"),
        ({"principal": "p", "scopes": []}, "scopes"),
        ({"principal": "p", "scopes": ["read"], "expiresIn": 0}, "expiresIn"),
        ({"principal": "p", "scopes": ["read"], "expiresIn": "soon"}, "expiresIn"),
    ]
    for body, field in cases:
        a = call(server, "POST", "/admin/tokens", body, BEARER)
        assert a.status == 422 and a.json["detail"].startswith(field + ":"), (body, a.raw)


def test_the_openapi_document_describes_the_routes(server, start_server, tmp_path):
    a = call(server, "GET", "/openapi/tokens.json", headers=BEARER)
    assert a.status == 200 and a.json["openapi"].startswith("3.1") and a.json["info"]["title"] == "API tokens"
    paths = a.json["paths"]
    assert {path: sorted(ops) for path, ops in paths.items()} == {
        "/admin/tokens": ["get", "post"],
        "/admin/tokens/{id}": ["delete", "get"],
    }
    issue_op = paths["/admin/tokens"]["post"]
    assert issue_op["tags"] == ["tokens"]
    assert sorted(issue_op["responses"]) == ["200", "201", "401", "403", "409", "422", "503"]
    body = issue_op["requestBody"]["content"]["application/json"]["schema"]
    assert body["required"] == ["principal", "scopes"] and set(body["properties"]) == {
        "principal",
        "scopes",
        "expiresIn",
    }
    # What it says is what is served: an issued row holds exactly the required fields.
    row = issue(server, {"principal": "doc.check", "scopes": ["read"]})
    assert sorted(row) == sorted(issue_op["responses"]["201"]["content"]["application/json"]["schema"]["required"])
    listed = paths["/admin/tokens"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert sorted(call(server, "GET", "/admin/tokens", headers=BEARER).json["tokens"][0]) == sorted(
        listed["properties"]["tokens"]["items"]["required"]
    )
    assert [p["name"] for p in paths["/admin/tokens/{id}"]["delete"]["parameters"]] == ["id"]
    # --token-openapi moves it, or turns it off.
    moved = token_server(start_server, "--token-openapi", "/v1/tokens-api.json", data_dir=tmp_path / "moved")
    assert call(moved, "GET", "/v1/tokens-api.json", headers=BEARER).status == 200
    assert call(moved, "GET", "/openapi/tokens.json", headers=BEARER).status == 404
    off = token_server(start_server, "--token-openapi", "off", data_dir=tmp_path / "off")
    assert call(off, "GET", "/openapi/tokens.json", headers=BEARER).status == 404


def test_tenant_admins_manage_their_tenant_only(server):
    boss = issue(server, {"principal": "acme-admin", "scopes": ["tenant_admin:acme"]})
    other = issue(server, {"principal": "beta-reader", "scopes": ["read:beta"]})
    mine = issue(server, {"principal": "acme-reader", "scopes": ["read:acme"]}, bearer(boss["token"]))
    refused = call(server, "POST", "/admin/tokens", {"principal": "x", "scopes": ["read:beta"]}, bearer(boss["token"]))
    assert refused.status == 403
    assert (
        call(server, "POST", "/admin/tokens", {"principal": "x", "scopes": ["admin"]}, bearer(boss["token"])).status
        == 403
    )
    seen = [x["id"] for x in call(server, "GET", "/admin/tokens", headers=bearer(boss["token"])).json["tokens"]]
    assert seen == [mine["id"]]
    assert call(server, "DELETE", f"/admin/tokens/{other['id']}", headers=bearer(boss["token"])).status == 404
    assert call(server, "DELETE", f"/admin/tokens/{mine['id']}", headers=bearer(boss["token"])).status == 200


def test_read_tokens_decide_but_never_learn(server):
    reader = issue(server, {"principal": "reader", "scopes": ["read:acme"]})["token"]
    writer = issue(server, {"principal": "writer", "scopes": ["write:acme"]})["token"]
    assert call(server, "PUT", BASE + "/spec", SPEC, bearer(reader)).status == 403
    assert call(server, "PUT", BASE + "/spec", SPEC, bearer(writer)).status == 201
    d = call(server, "POST", BASE + "/decide", {}, bearer(reader))
    assert d.status == 200, d.raw
    reward = {"decisionId": d.json["decisionId"], "reward": 1}
    refused = call(server, "POST", BASE + "/reward", reward, bearer(reader))
    assert refused.status == 403 and "not learn" in refused.json["detail"]
    assert call(server, "POST", BASE + "/promote", {"spec": SPEC}, bearer(reader)).status == 403
    assert call(server, "POST", BASE + "/reward", reward, bearer(writer)).status == 200
    other = "/v1/tenants/beta/jobs/chat/capsules/router/decide"
    assert call(server, "POST", other, {}, bearer(reader)).status == 403


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def hs256(claims: dict) -> str:
    head = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode()) + "." + b64url(json.dumps(claims).encode())
    return head + "." + b64url(hmac.new(SECRET.encode(), head.encode(), hashlib.sha256).digest())


def test_jwt_scope_claims_reach_routes(start_server, tmp_path):
    secret = tmp_path / "secret"
    secret.write_text(SECRET)
    server = token_server(start_server, "--jwt-secret-file", str(secret), data_dir=tmp_path / "data")
    exp = int(time.time()) + 600
    reader = hs256({"sub": "jwt-reader", "exp": exp, "scope": "read:acme"})
    writer = hs256({"sub": "jwt-writer", "exp": exp, "scopes": ["write:acme"]})
    plain = hs256({"sub": "jwt-plain", "exp": exp})
    assert call(server, "GET", "/whoami", headers=bearer(reader)).json == {
        "principal": "jwt-reader",
        "scopes": "read:acme",
    }
    assert call(server, "GET", "/whoami", headers=bearer(writer)).json == {
        "principal": "jwt-writer",
        "scopes": "write:acme",
    }
    assert call(server, "GET", "/whoami", headers=bearer(plain)).json == {"principal": "jwt-plain"}
    assert call(server, "PUT", BASE + "/spec", SPEC, bearer(writer)).status == 201
    d = call(server, "POST", BASE + "/decide", {}, bearer(reader)).json
    reward = {"decisionId": d["decisionId"], "reward": 1}
    assert call(server, "POST", BASE + "/reward", reward, bearer(reader)).status == 403
    assert call(server, "POST", BASE + "/reward", reward, bearer(writer)).status == 200
    # A JWT without scopes, or with none of these, is granted what --decide-access says (write by default).
    assert call(server, "POST", BASE + "/reward", reward, bearer(plain)).status == 200
    foreign = hs256({"sub": "mcp-client", "exp": exp, "scope": "mcp:tools openid"})
    assert call(server, "POST", BASE + "/reward", reward, bearer(foreign)).status == 200
    # Tokens still work next to JWTs.
    t = issue(server, {"principal": "svc", "scopes": ["read"]})
    assert call(server, "GET", "/whoami", headers=bearer(t["token"])).json["principal"] == "svc"


def test_two_processes_share_tokens_on_postgresql(start_server, cluster):  # noqa: F811
    cluster.psql("DROP TABLE IF EXISTS slipstream_api_tokens")
    a = token_server(start_server, store=cluster.url)
    b = token_server(start_server, store=cluster.url)
    t = issue(a, {"principal": "shared", "scopes": ["read"]})
    assert wait_for(lambda: call(b, "GET", "/whoami", headers=bearer(t["token"])).status == 200)
    assert call(b, "GET", f"/admin/tokens/{t['id']}", headers=BEARER).json["principal"] == "shared"
    assert call(a, "DELETE", f"/admin/tokens/{t['id']}", headers=BEARER).status == 200
    assert call(a, "GET", "/whoami", headers=bearer(t["token"])).status == 401
    assert wait_for(lambda: call(b, "GET", "/whoami", headers=bearer(t["token"])).status == 401)
    # Only the digest is in the table.
    rows = cluster.psql("SELECT digest FROM slipstream_api_tokens").split()
    assert rows == [hashlib.sha256(t["token"].encode()).hexdigest()]


def test_tokens_over_every_protocol(serve, tmp_path):
    # HTTP/1.1, HTTP/1.1 over TLS, h2c and h2: the token is checked by the engine before the handler, whatever the
    # protocol; issued and revoked over the same client.
    client = serve(
        "--no-access-log",
        "--auth",
        "required",
        "--tokens",
        "--data-dir",
        str(tmp_path / "data"),
        env={"SLIPSTREAM_ADMIN_TOKEN": ADMIN},
    )
    body = json.dumps({"principal": "proto", "scopes": ["read:acme"]}).encode()
    issued = client.request("POST", "/admin/tokens", [*BEARER.items(), ("content-type", "application/json")], body)
    assert issued.status == 201, issued.body
    t = json.loads(issued.body)
    who = client.request("GET", "/whoami", [("authorization", f"Bearer {t['token']}")])
    assert (who.status, json.loads(who.body)) == (200, {"principal": "proto", "scopes": "read:acme"})
    assert client.request("DELETE", f"/admin/tokens/{t['id']}", list(BEARER.items())).status == 200
    assert client.request("GET", "/whoami", [("authorization", f"Bearer {t['token']}")]).status == 401


def test_issue_and_revoke_hold_at_once_while_the_table_is_reread(start_server, tmp_path):
    # The table is read again every 10 ms: a read that began just before an issue (or a revocation) must not undo it.
    server = token_server(start_server, "--token-refresh", "10ms", data_dir=tmp_path / "data")
    for i in range(40):
        t = issue(server, {"principal": f"p{i}", "scopes": ["read"]})
        assert call(server, "GET", "/whoami", headers=bearer(t["token"])).status == 200, i
        assert call(server, "DELETE", f"/admin/tokens/{t['id']}", headers=BEARER).status == 200
        assert call(server, "GET", "/whoami", headers=bearer(t["token"])).status == 401, i
