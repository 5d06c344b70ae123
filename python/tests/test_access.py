"""Authentication and rate limits from App options: checked in C++ before any Python runs; the principal reaches
handlers as request.principal."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from slipstream import App, Depends, Request, TestClient

KEY_A = "alice-key-0123456789abcdef"
KEY_B = "bob-key-0123456789abcdef00"


@pytest.fixture
def key_file(tmp_path: Path) -> str:
    path = tmp_path / "keys.txt"
    path.write_text(f"alice {KEY_A}\nbob {KEY_B} 1/m\n")
    return str(path)


def principal_of(request: Request) -> str | None:
    return request.principal


def make_app(calls: list[str], **options: Any) -> App:
    app = App(**options)

    @app.get("/me")
    def me(who: str | None = Depends(principal_of)) -> dict[str, Any]:
        calls.append("me")
        return {"principal": who}

    @app.get("/open")
    async def open_route(request: Request) -> dict[str, Any]:
        calls.append("open")
        return {"principal": request.principal}

    return app


def test_required_auth_refuses_before_the_handler(key_file: str) -> None:
    calls: list[str] = []
    with TestClient(make_app(calls, auth="required", api_keys_file=key_file)) as client:
        r = client.get("/me")
        assert r.status_code == 401
        assert r.headers["www-authenticate"] == "Bearer"
        assert r.json() == {"detail": "Not authenticated"}  # FastAPI's body shape for Python apps
        r = client.get("/me", headers={"X-API-Key": "wrong-key-0123456789"})
        assert (r.status_code, r.json()) == (401, {"detail": "Invalid API key"})
        assert calls == []
        r = client.get("/me", headers={"Authorization": f"Bearer {KEY_A}"})
        assert (r.status_code, r.json()) == (200, {"principal": "alice"})
        assert calls == ["me"]


def test_public_paths_and_optional_auth(key_file: str) -> None:
    calls: list[str] = []
    app = make_app(calls, auth="optional", api_keys_file=key_file, auth_public_paths="/open")
    with TestClient(app) as client:
        assert client.get("/me").json() == {"principal": None}
        assert client.get("/me", headers={"X-API-Key": KEY_B}).json() == {"principal": "bob"}
        # A public route is not authenticated at all: even a key's principal is not looked up there.
        assert client.get("/open", headers={"X-API-Key": KEY_A}).json() == {"principal": None}
        assert client.get("/openapi.json").status_code == 200


def test_rate_limit_per_principal(key_file: str) -> None:
    calls: list[str] = []
    with TestClient(make_app(calls, auth="required", api_keys_file=key_file, rate_limit="3/m")) as client:
        bob = {"X-API-Key": KEY_B}  # his key file line says 1/m
        assert [client.get("/me", headers=bob).status_code for _ in range(2)] == [200, 429]
        refused = client.get("/me", headers=bob)
        assert refused.json() == {"detail": "Too Many Requests"}
        assert int(refused.headers["retry-after"]) >= 1 and refused.headers["ratelimit-limit"] == "1"
        alice = {"X-API-Key": KEY_A}
        assert [client.get("/me", headers=alice).status_code for _ in range(4)] == [200, 200, 200, 429]
        assert calls == ["me"] * 4


@pytest.mark.parametrize("options,message", [
    ({"auth": "required"}, "needs api-keys-file, jwt-secret-file or jwt-public-key-file"),
    ({"rate_limit": "5 per second"}, "invalid rate"),
    ({"auth": "maybe", "api_keys_file": "x"}, "must be off, optional or required"),
])
def test_bad_options_fail_when_the_app_is_built(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_app([], **options).build()
