"""FastAPI's security classes vs Slipstream's (`slipstream.security`): missing, invalid and valid credentials,
auto_error=False, OAuth2 scopes down the dependency tree, the password request forms, and /openapi.json
(securitySchemes and each operation's security), compared byte for byte like test_differential.py's rows."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from .diff_support import Outcome, build_request, compare, record


def row(app: str, method: str, url: str, gap: str | None = None, **kwargs: Any) -> Any:
    """One request. kwargs: headers=, cookies=, form=, files= (multipart), json=, as in test_differential.row."""
    detail = "".join(f" {key}={kwargs[key]!r:.70}" for key in ("json", "form", "files", "headers", "cookies")
                     if key in kwargs)
    marks = [pytest.mark.xfail(strict=True, reason=gap)] if gap else []
    return pytest.param(app, method.upper(), url, gap, kwargs, id=f"{app} {method.upper()} {url}{detail}", marks=marks)


def auth(value: str) -> dict[str, str]:
    return {"authorization": value}


def basic(text: str | bytes) -> dict[str, str]:
    raw = text.encode() if isinstance(text, str) else text
    return auth("Basic " + base64.b64encode(raw).decode())


ALICE, BOB = auth("Bearer alice-token"), auth("Bearer bob-token")
S = "security"

OAUTH2 = [
    # OAuth2PasswordBearer + SecurityScopes
    row(S, "get", "/users/me"),
    row(S, "get", "/users/me", headers=ALICE),
    row(S, "get", "/users/me", headers=BOB),
    row(S, "get", "/users/me", headers=auth("bearer alice-token")),
    row(S, "get", "/users/me", headers=auth("Bearer nobody")),
    row(S, "get", "/users/me", headers=auth("Basic alice-token")),
    row(S, "get", "/users/me", headers=auth("Bearer")),
    row(S, "get", "/users/me", headers=auth("")),
    row(S, "get", "/users/me/items", headers=ALICE),
    row(S, "get", "/users/me/items", headers=BOB),
    row(S, "get", "/users/me/items"),
    row(S, "get", "/status", headers=ALICE),
    row(S, "get", "/status"),
    row(S, "get", "/token-only", headers=auth("Bearer   spaced  ")),
    row(S, "get", "/token-only", headers=auth("Token abc")),
    # a security dependency's 401 comes before the handler's own 422, as in FastAPI
    row(S, "get", "/items/abc"),
    row(S, "get", "/items/abc?q=x", headers=ALICE),
    row(S, "get", "/items/7?q=2", headers=ALICE),
    # the password request forms
    row(S, "post", "/token", form={"username": "alice", "password": "pw"}),
    row(S, "post", "/token", form={"username": "alice", "password": "pw", "scope": "me  items", "grant_type": "password",
                                   "client_id": "cli", "client_secret": "sec"}),
    row(S, "post", "/token", form={"username": "alice", "password": "pw", "grant_type": "refresh_token"}),
    row(S, "post", "/token", form={"username": "alice"}),
    row(S, "post", "/token", form={}),
    row(S, "post", "/token", form={"username": "alice", "password": "pw", "scope": "me"}, files={}),
    row(S, "post", "/token", json={"username": "alice", "password": "pw"}),
    row(S, "post", "/token"),
    row(S, "post", "/token-strict", form={"username": "alice", "password": "pw"}),
    row(S, "post", "/token-strict", form={"username": "alice", "password": "pw", "grant_type": "password",
                                          "scope": "me"}),
    # OAuth2AuthorizationCodeBearer, the OAuth2 base class, a subclass reading a cookie
    row(S, "get", "/code"),
    row(S, "get", "/code", headers=auth("Bearer xyz")),
    row(S, "get", "/code", headers=auth("Digest xyz")),
    row(S, "get", "/oauth2"),
    row(S, "get", "/oauth2", headers=auth("Anything at all")),
    row(S, "get", "/cookie-bearer", cookies={"access_token": '"Bearer abc"'}),
    row(S, "get", "/cookie-bearer"),
]

HTTP = [
    row(S, "get", "/basic"),
    row(S, "get", "/basic", headers=basic("alice:s3cret")),
    row(S, "get", "/basic", headers=basic("alice:")),
    row(S, "get", "/basic", headers=basic(":pw:with:colons")),
    row(S, "get", "/basic", headers=basic("no-colon")),
    row(S, "get", "/basic", headers=basic(b"caf\xc3\xa9:pw")),
    row(S, "get", "/basic", headers=auth("Basic !!!not-base64")),
    row(S, "get", "/basic", headers=auth("basic " + base64.b64encode(b"a:b").decode())),
    row(S, "get", "/basic", headers=auth("Bearer abc")),
    row(S, "get", "/basic", headers=auth("Basic")),
    row(S, "get", "/basic-checked", headers=basic("alice:s3cret")),
    row(S, "get", "/basic-checked", headers=basic("alice:wrong")),
    row(S, "get", "/basic-checked"),
    row(S, "get", "/bearer"),
    row(S, "get", "/bearer", headers=auth("Bearer tok.en")),
    row(S, "get", "/bearer", headers=auth("BEARER  tok  ")),
    row(S, "get", "/bearer", headers=auth("Bearer")),
    row(S, "get", "/bearer", headers=auth("Basic abc")),
    row(S, "get", "/digest"),
    row(S, "get", "/digest", headers=auth('Digest username="a", realm="r"')),
    row(S, "get", "/digest", headers=auth("Bearer abc")),
    row(S, "get", "/http-base"),
    row(S, "get", "/http-base", headers=auth("Whatever creds")),
    row(S, "get", "/http-base", headers=auth("Whatever")),
]

API_KEYS = [
    row(S, "get", "/key/header"),
    row(S, "get", "/key/header", headers={"x-api-key": "k1"}),
    row(S, "get", "/key/header", headers={"X-API-KEY": ""}),
    row(S, "get", "/key/query?api_key=k2"),
    row(S, "get", "/key/query?api_key="),
    row(S, "get", "/key/query?other=k2"),
    row(S, "get", "/key/cookie", cookies={"session": "k3"}),
    row(S, "get", "/key/cookie", cookies={"other": "k3"}),
    row(S, "get", "/key/cookie"),
    row(S, "get", "/key/all?api_key=q", headers={"x-api-key": "h"}, cookies={"session": "c"}),
    row(S, "get", "/key/all?api_key=q", headers={"x-api-key": "h"}),
    row(S, "get", "/oidc"),
    row(S, "get", "/oidc", headers=auth("Bearer id-token")),
    # router-level HTTPBearer and include_router-level OAuth2 on the same Authorization header
    row(S, "get", "/admin/stats", headers=ALICE),
    row(S, "get", "/admin/stats", headers=BOB),
    row(S, "get", "/admin/stats", headers=auth("Basic x")),
    row(S, "get", "/admin/stats"),
]

OPTIONAL = [row("security_optional", "get", f"/{name}") for name in (
    "password", "code", "oauth2", "basic", "bearer", "digest", "header", "query", "cookie", "oidc")] + [
    row("security_optional", "get", "/password", headers=auth("Basic abc")),
    row("security_optional", "get", "/password", headers=auth("Bearer t")),
    row("security_optional", "get", "/basic", headers=auth("Basic !!!")),
    row("security_optional", "get", "/basic", headers=basic("nocolon")),
    row("security_optional", "get", "/basic", headers=basic("a:b")),
    row("security_optional", "get", "/basic", headers=auth("Digest x")),
    row("security_optional", "get", "/bearer", headers=auth("Basic x")),
    row("security_optional", "get", "/bearer", headers=auth("Bearer")),
    row("security_optional", "get", "/digest", headers=auth("Digest x")),
    row("security_optional", "get", "/query?key=v"),
    row("security_optional", "get", "/either"),
    row("security_optional", "get", "/either", headers={"key": "k"}),
    row("security_optional", "get", "/either", headers=auth("Bearer b")),
]

M = "security_middleware"
MIDDLEWARE = [
    row(M, "get", "/users/me"),
    row(M, "get", "/users/me/items", headers=BOB),
    row(M, "get", "/users/me/items", headers=ALICE),
    row(M, "get", "/items/abc"),
    row(M, "get", "/items/abc", headers=ALICE),
    row(M, "post", "/token", form={"username": "alice"}),
    row(M, "post", "/token", form={"username": "alice", "password": "pw"}),
    row(M, "get", "/basic", headers=auth("Basic !!!")),
    row(M, "get", "/key/cookie", cookies={"session": "k"}),
]

OPENAPI = [
    row(S, "get", "/openapi.json"),
    row("security_optional", "get", "/openapi.json"),
    row(M, "get", "/openapi.json"),
]

ROWS = OAUTH2 + HTTP + API_KEYS + OPTIONAL + MIDDLEWARE + OPENAPI


@pytest.mark.parametrize(("app", "method", "url", "gap", "kwargs"), ROWS)
def test_same_security_answer(clients: Any, request: pytest.FixtureRequest, app: str, method: str, url: str,
                              gap: str | None, kwargs: dict[str, Any]) -> None:
    ours, theirs = clients(app)
    body, headers = build_request(kwargs)
    expected = theirs.request(method, url, content=body, headers=headers)
    got = ours.request(method, url, content=body, headers=headers)
    diffs = compare(got, expected)
    record(Outcome(request.node.callspec.id, gap, diffs))
    assert not diffs, "\n".join(diffs)
