"""slipstream.security beside FastAPI's: the same public names, the OpenAPI models, HTTPConnection (the Request on
HTTP routes, the WebSocket on WebSocket routes), dependency overrides. The responses themselves are compared with
FastAPI's in differential/test_differential_security.py."""

import importlib
from typing import Annotated, Any

import pytest
from slipstream import App, Depends, Security, TestClient, WebSocket
from slipstream.requests import HTTPConnection, Request
from slipstream.security import (
    APIKeyCookie,
    APIKeyHeader,
    APIKeyQuery,
    HTTPBasic,
    OAuth2,
    OAuth2PasswordBearer,
    OAuth2PasswordRequestForm,
    SecurityScopes,
)
from slipstream.security.utils import get_authorization_scheme_param

MODULES = ["security", "security.api_key", "security.http", "security.oauth2", "security.open_id_connect_url",
           "security.base", "security.utils"]


@pytest.mark.parametrize("module", MODULES)
def test_every_fastapi_name_is_importable(module: str) -> None:
    fastapi = pytest.importorskip(f"fastapi.{module}")
    ours = importlib.import_module(f"slipstream.{module}")
    public = [n for n in vars(fastapi) if not n.startswith("_") and (isinstance(getattr(fastapi, n), type)
                                                                     or callable(getattr(fastapi, n)))]
    imported_helpers = {"Annotated", "Doc", "BaseModel", "HTTPConnection", "HTTPException", "Any", "cast", "Form",
                        "b64decode", "Optional", "Union"}
    missing = [n for n in public if n not in imported_helpers and not hasattr(ours, n)]
    assert missing == []


def test_openapi_models_have_fastapis_names() -> None:
    fastapi = pytest.importorskip("fastapi.openapi.models")
    ours = importlib.import_module("slipstream.openapi.models")
    for name in ours.__all__:
        assert hasattr(fastapi, name), name
    flows = ours.OAuthFlows(password={"tokenUrl": "t"})
    assert ours.OAuth2(flows=flows).model_dump(by_alias=True, exclude_none=True) == {
        "type": ours.SecuritySchemeType.oauth2, "flows": {"password": {"scopes": {}, "tokenUrl": "t"}}}


@pytest.mark.parametrize(("value", "expected"), [
    (None, ("", "")), ("", ("", "")), ("Bearer", ("Bearer", "")), ("Bearer  a b ", ("Bearer", "a b")),
    ("basic xyz", ("basic", "xyz"))])
def test_authorization_scheme_param(value: str | None, expected: tuple[str, str]) -> None:
    assert get_authorization_scheme_param(value) == expected


def test_scheme_names_and_auto_error() -> None:
    assert OAuth2PasswordBearer("token").scheme_name == "OAuth2PasswordBearer"
    assert APIKeyHeader(name="k", scheme_name="Mine").scheme_name == "Mine"
    assert HTTPBasic(auto_error=False).auto_error is False
    assert OAuth2(flows={"implicit": {"authorizationUrl": "a"}}).model.flows.implicit.authorizationUrl == "a"


def test_password_form_splits_scopes() -> None:
    form = OAuth2PasswordRequestForm(username="u", password="p", scope=" a  b ")
    assert (form.scopes, form.grant_type, form.client_id) == (["a", "b"], None, None)


def test_http_connection_is_the_request_or_the_websocket() -> None:
    app = App()
    header, query, cookie = APIKeyHeader(name="x-key"), APIKeyQuery(name="key"), APIKeyCookie(name="key")

    def kind(conn: HTTPConnection) -> str:
        return type(conn).__name__

    @app.get("/http")
    def http(k: Annotated[str, Depends(query)], conn_kind: Annotated[str, Depends(kind)]) -> dict[str, str]:
        return {"key": k, "conn": conn_kind}

    @app.websocket("/ws")
    async def ws(websocket: WebSocket, a: Annotated[str, Depends(header)], b: Annotated[str, Depends(query)],
                 c: Annotated[str, Depends(cookie)], conn_kind: Annotated[str, Depends(kind)]) -> None:
        await websocket.accept()
        await websocket.send_json([a, b, c, conn_kind])
        await websocket.close()

    with TestClient(app) as client:
        assert client.get("/http?key=q").json() == {"key": "q", "conn": "Request"}
        with client.websocket_connect("/ws?key=q", headers={"x-key": "h", "cookie": "key=c"}) as socket:
            assert socket.receive_json() == ["h", "q", "c", "WebSocket"]
    assert issubclass(Request, HTTPConnection) and issubclass(WebSocket, HTTPConnection)


def test_overriding_a_scheme_keeps_the_scopes_and_the_document() -> None:
    app = App()
    oauth2 = OAuth2PasswordBearer("token", scopes={"read": "Read"})

    def user(scopes: SecurityScopes, token: Annotated[str, Depends(oauth2)]) -> dict[str, Any]:
        return {"token": token, "scopes": scopes.scopes}

    @app.get("/me")
    def me(u: Annotated[dict[str, Any], Security(user, scopes=["read"])]) -> dict[str, Any]:
        return u

    app.dependency_overrides[oauth2] = lambda: "test-token"
    with TestClient(app) as client:
        assert client.get("/me").json() == {"token": "test-token", "scopes": ["read"]}
        document = client.get("/openapi.json").json()
    assert document["paths"]["/me"]["get"]["security"] == [{"OAuth2PasswordBearer": ["read"]}]
    assert document["components"]["securitySchemes"]["OAuth2PasswordBearer"]["flows"]["password"]["scopes"] == {
        "read": "Read"}
