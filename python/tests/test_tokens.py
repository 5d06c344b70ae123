"""Scoped API tokens and shared rate limits on a Python app (slipstream.tokens, App(tokens=..., rate_limit_store=...)),
on real sockets: tokens issued, used and revoked through the C++ /admin/tokens routes (listed in /openapi.json),
their scopes and a JWT's reaching handlers as request.scopes, RequireScopes answering 401/403 as the engine does
(alone and through Security(scopes=...)), API keys carrying no scopes, two apps on one PostgreSQL sharing tokens and
one rate limit, and bad options refused."""

from __future__ import annotations

import base64
import hashlib
import hmac
import http.client
import json
import time
from pathlib import Path
from typing import Any

import pytest
from slipstream import App, Depends, Request, Security, TestClient
from slipstream.security import RequireScopes, scope_granted
from slipstream.tokens import Tokens, open_rate_limit_store

ADMIN = "sst_python-admin-token-for-the-suite"
ADMIN_HEADERS = {"Authorization": f"Bearer {ADMIN}"}
SECRET = "s" * 40
ACME_READER = Security(RequireScopes(), scopes=["read:acme"])  # what `= Security(...)` spells inline


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def scoped_app(**options: Any) -> App:
    app = App(**options)

    @app.get("/whoami")
    def whoami(request: Request) -> dict[str, Any]:
        return {"principal": request.principal, "scopes": request.scopes}

    @app.post("/items", dependencies=[Depends(RequireScopes("write"))])
    async def create_item() -> dict[str, Any]:
        return {"created": True}

    @app.get("/tenants/acme")
    def acme(scopes: list[str] = ACME_READER) -> dict[str, Any]:
        return {"scopes": scopes}

    return app


def issue(client: Any, principal: str, scopes: list[str]) -> dict[str, Any]:
    answer = client.post("/admin/tokens", json={"principal": principal, "scopes": scopes}, headers=ADMIN_HEADERS)
    assert answer.status_code == 201, answer.text
    return answer.json()


def test_tokens_reach_handlers_and_scopes_gate_routes(database_url: str) -> None:
    app = scoped_app(tokens=database_url, admin_token=ADMIN)  # auth defaults to "required" with tokens
    with TestClient(app) as c:
        # The engine refuses what carries no credential, and a token it does not know, before any Python.
        assert c.get("/whoami").status_code == 401
        assert c.get("/whoami", headers=bearer("sst_" + "x" * 43)).status_code == 401
        assert c.post("/admin/tokens", json={"principal": "x", "scopes": ["read"]}).status_code == 401

        reader = issue(c, "svc.reader", ["read:acme"])
        writer = issue(c, "svc.writer", ["write"])
        assert c.get("/whoami", headers=bearer(reader["token"])).json() == {
            "principal": "svc.reader",
            "scopes": ["read:acme"],
        }
        assert c.get("/whoami", headers=ADMIN_HEADERS).json() == {"principal": "admin", "scopes": ["admin"]}

        # RequireScopes("write"): 403 with RFC 6750's challenge for the reader; the writer and the admin pass.
        refused = c.post("/items", headers=bearer(reader["token"]))
        assert refused.status_code == 403
        assert refused.json() == {"detail": "this needs the scope(s): write"}
        assert refused.headers["www-authenticate"] == 'Bearer error="insufficient_scope", scope="write"'
        assert c.post("/items", headers=bearer(writer["token"])).json() == {"created": True}
        assert c.post("/items", headers=ADMIN_HEADERS).status_code == 200

        # Security(RequireScopes(), scopes=["read:acme"]): read:acme and an unqualified write both grant it.
        assert c.get("/tenants/acme", headers=bearer(reader["token"])).json() == {"scopes": ["read:acme"]}
        assert c.get("/tenants/acme", headers=bearer(writer["token"])).json() == {"scopes": ["write"]}
        beta = issue(c, "svc.beta", ["write:beta"])
        assert c.get("/tenants/acme", headers=bearer(beta["token"])).status_code == 403

        # A raw socket sees the same, and a revoked token is refused at once by this process.
        conn = http.client.HTTPConnection("127.0.0.1", c.port, timeout=10)
        conn.request("GET", "/whoami", headers=bearer(writer["token"]))
        raw = conn.getresponse()
        assert (raw.status, json.loads(raw.read())) == (200, {"principal": "svc.writer", "scopes": ["write"]})
        assert c.delete(f"/admin/tokens/{writer['id']}", headers=ADMIN_HEADERS).json()["revokedAt"] is not None
        conn.request("POST", "/items", headers=bearer(writer["token"]))
        raw = conn.getresponse()
        raw.read()
        assert raw.status == 401
        conn.close()

        listed = c.get("/admin/tokens", headers=ADMIN_HEADERS).json()["tokens"]
        assert sorted(t["principal"] for t in listed) == ["svc.beta", "svc.reader", "svc.writer"]
        assert all("token" not in t for t in listed)
    app.issued_tokens.close()  # the refresher stops (and writes the last-used times) before the database goes


def test_the_token_routes_and_scopes_are_in_the_openapi_document(tmp_path: Path) -> None:
    tokens = Tokens(f"sqlite://{tmp_path}/tokens.db", admin_token=ADMIN, openapi_path="/openapi/tokens.json")
    app = scoped_app(tokens=tokens, auth="optional", auth_public_paths="/openapi.json,/openapi/tokens.json")
    with TestClient(app) as c:
        doc = c.get("/openapi.json").json()
        assert {"/admin/tokens", "/admin/tokens/{id}", "/items"} <= set(doc["paths"])
        post = doc["paths"]["/admin/tokens"]["post"]
        assert post["tags"] == ["tokens"]
        assert post["requestBody"]["content"]["application/json"]["schema"]["required"] == ["principal", "scopes"]
        assert "token" in post["responses"]["201"]["content"]["application/json"]["schema"]["required"]
        assert set(doc["paths"]["/admin/tokens/{id}"]) == {"get", "delete"}
        assert doc["paths"]["/admin/tokens/{id}"]["delete"]["parameters"][0]["name"] == "id"
        assert doc["paths"]["/items"]["post"]["security"] == [{"RequireScopes": ["write"]}]
        assert doc["paths"]["/tenants/acme"]["get"]["security"] == [{"RequireScopes": ["read:acme"]}]
        assert doc["components"]["securitySchemes"]["RequireScopes"] == {"type": "http", "scheme": "bearer"}
        assert "Problem" in doc["components"]["schemas"]
        own = c.get("/openapi/tokens.json").json()
        assert own["info"]["title"] == "API tokens" and set(own["paths"]) == {"/admin/tokens", "/admin/tokens/{id}"}
        # auth="optional": anonymous requests run, with no principal and no scopes; RequireScopes answers 401.
        assert c.get("/whoami").json() == {"principal": None, "scopes": []}
        anonymous = c.post("/items")
        assert (anonymous.status_code, anonymous.headers["www-authenticate"]) == (401, "Bearer")
    tokens.close()


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def hs256(claims: dict[str, Any]) -> str:
    head = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode()) + "." + b64url(json.dumps(claims).encode())
    return head + "." + b64url(hmac.new(SECRET.encode(), head.encode(), hashlib.sha256).digest())


def test_jwt_scope_claims_and_api_keys(tmp_path: Path) -> None:
    secret = tmp_path / "jwt.secret"
    secret.write_text(SECRET)
    keys = tmp_path / "keys.txt"
    keys.write_text("keyed-user alice-key-0123456789abcdef\n")
    app = scoped_app(auth="required", jwt_secret_file=str(secret), api_keys_file=str(keys))
    exp = int(time.time()) + 600
    writer = hs256({"sub": "jwt-writer", "exp": exp, "scopes": ["write", "mcp:tools"]})
    reader = hs256({"sub": "jwt-reader", "exp": exp, "scope": "read:acme"})
    plain = hs256({"sub": "jwt-plain", "exp": exp})
    with TestClient(app) as c:
        assert c.get("/whoami", headers=bearer(writer)).json() == {
            "principal": "jwt-writer",
            "scopes": ["write", "mcp:tools"],
        }
        assert c.post("/items", headers=bearer(writer)).status_code == 200
        assert c.post("/items", headers=bearer(reader)).status_code == 403
        assert c.get("/tenants/acme", headers=bearer(reader)).status_code == 200
        # A JWT without a scope claim and an API key carry no scopes: authenticated, but granted nothing.
        assert c.get("/whoami", headers=bearer(plain)).json() == {"principal": "jwt-plain", "scopes": []}
        assert c.post("/items", headers=bearer(plain)).status_code == 403
        keyed = {"X-API-Key": "alice-key-0123456789abcdef"}
        assert c.get("/whoami", headers=keyed).json() == {"principal": "keyed-user", "scopes": []}
        assert c.post("/items", headers=keyed).status_code == 403


@pytest.mark.parametrize(
    ("held", "required", "granted"),
    [
        (["admin"], "anything:at-all", True),
        (["write"], "read:acme", True),
        (["write"], "read", True),
        (["write:acme"], "read:acme", True),
        (["write:acme"], "write", False),
        (["read"], "write:acme", False),
        (["read"], "read:beta", True),
        (["read:acme"], "read", False),
        (["tenant_admin:acme"], "write:acme", True),
        (["tenant_admin:acme"], "write:beta", False),
        (["mcp:tools"], "mcp:tools", True),
        (["mcp:tools"], "mcp:admin", False),
        ([], "read", False),
    ],
)
def test_scope_grants(held: list[str], required: str, granted: bool) -> None:
    assert scope_granted(held, required) is granted


def test_two_apps_share_tokens_and_one_rate_limit(pg_cluster: Any) -> None:
    url = pg_cluster.url
    first = scoped_app(tokens=url, admin_token=ADMIN, rate_limit="3/m", rate_limit_store=url)
    second = scoped_app(
        tokens=Tokens(url, refresh_ms=50),
        rate_limit="3/m",
        rate_limit_store=open_rate_limit_store(url, timeout_ms=1000),
    )
    with TestClient(first) as a, TestClient(second) as b:
        # The other app learns of a token at its next refresh of the table: polled until it answers 200 (a 401
        # counts against no bucket), which spends one of the principal's 3 requests.
        fresh = issue(a, "fresh.user", ["read"])
        deadline = time.monotonic() + 10
        while b.get("/whoami", headers=bearer(fresh["token"])).status_code == 401 and time.monotonic() < deadline:
            time.sleep(0.05)
        # Two more across both apps, then 429 on either.
        statuses = [
            a.get("/whoami", headers=bearer(fresh["token"])).status_code,
            b.get("/whoami", headers=bearer(fresh["token"])).status_code,
            a.get("/whoami", headers=bearer(fresh["token"])).status_code,
            b.get("/whoami", headers=bearer(fresh["token"])).status_code,
        ]
        assert statuses == [200, 200, 429, 429]
    first.issued_tokens.close()
    second.issued_tokens.close()


def test_bad_options_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="needs a postgresql:// URL"):
        App(rate_limit="1/s", rate_limit_store=f"sqlite://{tmp_path}/x.db")
    with pytest.raises(ValueError, match="unknown tokens option"):
        Tokens(f"sqlite://{tmp_path}/t.db", refresh=5)
    with pytest.raises(ValueError, match="refresh_ms"):
        Tokens(f"sqlite://{tmp_path}/t.db", refresh_ms=1)
    with pytest.raises(ValueError, match="admin_token"):
        Tokens(f"sqlite://{tmp_path}/t.db", admin_token="short")
    with pytest.raises(TypeError, match="admin_token goes with tokens"):
        App(admin_token=ADMIN)
    with pytest.raises(ValueError, match="spaces"):
        RequireScopes("read write")
    app = scoped_app(tokens=f"sqlite://{tmp_path}/t.db", auth="off")
    with pytest.raises(ValueError, match="issued tokens are configured while auth is off"):
        app.build()
    with pytest.raises(ValueError, match="rate_limit_store"):
        App(rate_limit_store_failure="local", rate_limit_store=object()).build()
