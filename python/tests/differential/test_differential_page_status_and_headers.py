"""FastAPI vs Slipstream on the tutorial and advanced pages "Response Status Code", "Additional Status Codes",
"Response Cookies", "Response Headers" and "Response - Change Status Code": `status_code=` as a number and from
`status`, 204 with no body, a JSONResponse with another status returned beside the declared one, a `Response`
parameter that sets cookies, headers and the status of the answer (kept with a returned dict, ignored by a
returned Response), cookies and headers set on a returned response, and the OpenAPI document of all of it.

Rows join the session's match rate (diff_support.record) like test_differential.py's.
"""

# No `from __future__ import annotations`: the handlers' annotations name each framework's classes, locals.
from collections.abc import Callable, Iterator
from typing import Annotated, Any

import pytest

fastapi = pytest.importorskip("fastapi")

from .diff_support import client_pairs, new_app, page_row, same_answer_test


def status_app(fw: Any) -> Any:
    app = new_app(fw)
    status, responses = fw.status, fw.responses
    lamps = {"desk": {"name": "Desk", "watts": 40}, "floor": {"name": "Floor", "watts": 60}}

    @app.post("/lamps/", status_code=201)
    async def create_lamp(name: str) -> Any:
        return {"name": name}

    @app.post("/lamps/named/", status_code=status.HTTP_201_CREATED)
    async def create_named_lamp(name: str) -> Any:
        return {"name": name}

    @app.delete("/lamps/{name}", status_code=status.HTTP_204_NO_CONTENT)
    async def delete_lamp(name: str) -> None:
        return None

    @app.put("/lamps/{name}")
    async def upsert_lamp(
        name: str, watts: Annotated[int | None, fw.Body()] = None, label: Annotated[str | None, fw.Body()] = None
    ) -> Any:
        if name in lamps:
            lamps[name] = {**lamps[name], "watts": watts}
            return lamps[name]
        return responses.JSONResponse(status_code=status.HTTP_201_CREATED, content={"name": label, "watts": watts})

    @app.post("/cookie-and-object/")
    def cookie_and_object(response: fw.Response) -> Any:
        response.set_cookie(key="fakesession", value="fake-cookie-session-value")
        return {"message": "Come to the dark side, we have cookies"}

    @app.post("/cookie/")
    def returned_cookie() -> Any:
        response = responses.JSONResponse(content={"message": "Come to the dark side, we have cookies"})
        response.set_cookie(key="fakesession", value="fake-cookie-session-value", max_age=60, httponly=True)
        return response

    @app.get("/headers-and-object/")
    def headers_and_object(response: fw.Response) -> Any:
        response.headers["X-Cat-Dog"] = "alone in the world"
        return {"message": "Hello World"}

    @app.get("/headers/")
    def returned_headers() -> Any:
        headers = {"X-Cat-Dog": "alone in the world", "Content-Language": "en-US"}
        return responses.JSONResponse(content={"message": "Hello World"}, headers=headers)

    @app.put("/get-or-create-task/{task_id}", status_code=200)
    def get_or_create_task(task_id: str, response: fw.Response) -> Any:
        if task_id not in ("foo", "bar"):
            response.status_code = status.HTTP_201_CREATED
            return "This didn't exist before"
        return "Listen to the Bar Fighters"

    @app.get("/overridden/", status_code=202)
    def overridden(response: fw.Response) -> Any:
        response.status_code = 200
        response.headers["x-seen"] = "yes"
        response.set_cookie("a", "1")
        return responses.PlainTextResponse("own", status_code=203)

    @app.get("/dependency-status/")
    def dependency_status(marker: Annotated[None, fw.Depends(_teapot_dependency(fw))]) -> Any:
        return {"status": "set by a dependency"}

    return app


def _teapot_dependency(fw: Any) -> Any:
    def set_status(response: fw.Response) -> None:
        response.status_code = 418
        response.headers["x-dependency"] = "teapot"

    return set_status


@pytest.fixture(scope="module")
def pair() -> Iterator[Callable[[str], tuple[Any, Any]]]:
    yield from client_pairs({"status": status_app})


ROWS = [
    page_row("status", "POST", "/lamps/?name=x"),
    page_row("status", "POST", "/lamps/"),
    page_row("status", "POST", "/lamps/named/?name=x"),
    page_row("status", "DELETE", "/lamps/desk"),
    page_row("status", "PUT", "/lamps/floor", json={"watts": 75}),
    page_row("status", "PUT", "/lamps/ceiling", json={"watts": 100, "label": "Ceiling"}),
    page_row("status", "PUT", "/lamps/ceiling", json={"watts": "bright"}),
    page_row("status", "POST", "/cookie-and-object/"),
    page_row("status", "POST", "/cookie/"),
    page_row("status", "GET", "/headers-and-object/"),
    page_row("status", "GET", "/headers/"),
    page_row("status", "PUT", "/get-or-create-task/foo"),
    page_row("status", "PUT", "/get-or-create-task/baz"),
    page_row("status", "GET", "/overridden/"),
    page_row("status", "GET", "/dependency-status/"),
    page_row("status", "GET", "/openapi.json"),
]


test_same_answer = same_answer_test(ROWS)
