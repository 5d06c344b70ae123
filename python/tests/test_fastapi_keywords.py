"""Every keyword argument of the installed FastAPI's FastAPI(), APIRouter(), include_router(), add_api_route(), the
route decorators and APIRoute() is accepted by Slipstream's counterpart with FastAPI's default value (an app built
with it serves a request); behaviour is compared with FastAPI's in python/tests/differential (the page modules)."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

fastapi = pytest.importorskip("fastapi")

import slipstream
from fastapi.datastructures import DefaultPlaceholder
from slipstream.responses import JSONResponse
from slipstream.routing import APIRoute

# FastAPI defaults that name FastAPI's own classes: Slipstream's counterparts.
_OURS = {fastapi.responses.JSONResponse: JSONResponse}


def _default(parameter: inspect.Parameter) -> Any:
    value = parameter.default
    value = value.value if isinstance(value, DefaultPlaceholder) else value
    return _OURS.get(value, value) if isinstance(value, type) else value


def _keywords(func: Any, skip: int = 0) -> list[tuple[str, Any]]:
    parameters = list(inspect.signature(func).parameters.values())[skip:]
    return [
        (p.name, _default(p))
        for p in parameters
        if p.kind is inspect.Parameter.KEYWORD_ONLY or p.default is not inspect.Parameter.empty
    ]


def _serves(app: Any) -> int:
    @app.get("/x")
    async def x() -> Any:
        return {"x": 1}

    with slipstream.TestClient(app) as client:
        return client.get("/x").status_code


@pytest.mark.parametrize(("name", "value"), _keywords(fastapi.FastAPI))
def test_app_takes_fastapi_keyword(name: str, value: Any) -> None:
    assert _serves(slipstream.App(**{name: value})) == 200


@pytest.mark.parametrize(("name", "value"), _keywords(fastapi.APIRouter))
def test_router_takes_fastapi_keyword(name: str, value: Any) -> None:
    router = slipstream.APIRouter(**{name: value})
    app = slipstream.App()
    app.include_router(router)
    assert _serves(app) == 200


@pytest.mark.parametrize(("name", "value"), _keywords(fastapi.APIRouter.include_router, skip=2))
def test_include_router_takes_fastapi_keyword(name: str, value: Any) -> None:
    app = slipstream.App()
    app.include_router(slipstream.APIRouter(), **{name: value})
    assert _serves(app) == 200


@pytest.mark.parametrize(("name", "value"), _keywords(fastapi.APIRouter.add_api_route, skip=3))
def test_add_api_route_takes_fastapi_keyword(name: str, value: Any) -> None:
    app = slipstream.App()
    app.router.add_api_route("/y", lambda: {"y": 1}, **{name: value})
    assert _serves(app) == 200


@pytest.mark.parametrize("method", ["get", "put", "post", "delete", "options", "head", "patch", "api_route"])
def test_route_decorators_take_fastapi_keywords(method: str) -> None:
    app = slipstream.App()
    options = dict(_keywords(getattr(fastapi.FastAPI, method), skip=2))
    options.pop("methods", None)
    getattr(app, method)("/y", **options)(lambda: {"y": 1})
    assert _serves(app) == 200


@pytest.mark.parametrize(("name", "value"), _keywords(fastapi.routing.APIRoute, skip=2))
def test_api_route_takes_fastapi_keyword(name: str, value: Any) -> None:
    route = APIRoute("/y", lambda: {"y": 1}, **{name: value})
    app = slipstream.App(routes=[route])
    assert _serves(app) == 200


def test_unknown_keyword_is_refused() -> None:
    with pytest.raises(TypeError, match="bogus"):
        slipstream.APIRouter(bogus=1)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="bogus"):
        slipstream.App().get("/z", bogus=1)(lambda: 1)


def test_telemetry_options_are_checked() -> None:
    assert _serves(slipstream.App(telemetry={"tracing": False, "metrics": False, "logs": False})) == 200
    with pytest.raises(TypeError, match="tracng"):
        slipstream.App(telemetry={"tracng": True})
    with pytest.raises(TypeError, match="True or False"):
        slipstream.App(telemetry={"tracing": "yes"})


def test_app_router_is_the_app_and_takes_a_route_class() -> None:
    class Marked(APIRoute):
        def get_route_handler(self) -> Any:
            original = super().get_route_handler()

            async def handler(request: Any) -> Any:
                response = await original(request)
                response.headers["x-marked"] = self.path
                return response

            return handler

    app = slipstream.App()
    assert app.router is app
    app.router.route_class = Marked

    @app.get("/m/{n}")
    async def marked(n: int) -> Any:
        return {"n": n}

    with slipstream.TestClient(app) as client:
        response = client.get("/m/4")
    assert (response.status_code, response.json(), response.headers["x-marked"]) == (200, {"n": 4}, "/m/{n}")
