"""FastAPI vs Slipstream on the tutorial page "Background Tasks": a `BackgroundTasks` parameter in the handler and
in a dependency (the same object: tasks added by both run, in order), sync and async task functions with
positional and keyword arguments, tasks run after the answer (a later request sees what they wrote), a task added
before an HTTPException (not run), a returned Response with its own `background`, and the OpenAPI document (the
parameter is not in it).

Rows join the session's match rate (diff_support.record) like test_differential.py's.
"""

# No `from __future__ import annotations`: the handlers' annotations name each framework's classes, locals.
from collections.abc import Callable, Iterator
from typing import Annotated, Any

import pytest

fastapi = pytest.importorskip("fastapi")

from .diff_support import client_pairs, new_app, page_row, same_answer_test


def tasks_app(fw: Any) -> Any:
    app = new_app(fw)
    log: list[str] = []

    def write_log(message: str, suffix: str = "") -> None:
        log.append(message + suffix)

    async def write_log_async(message: str) -> None:
        log.append("async " + message)

    def get_query(background_tasks: fw.BackgroundTasks, q: str | None = None) -> str | None:
        if q:
            background_tasks.add_task(write_log, f"found query: {q}")
        return q

    @app.post("/send-notification/{email}")
    async def send_notification(email: str, background_tasks: fw.BackgroundTasks) -> Any:
        background_tasks.add_task(write_log, f"notification for {email}", suffix=": some notification")
        return {"message": "Notification sent in the background"}

    @app.post("/send-dependent/{email}")
    async def send_dependent(
        email: str, background_tasks: fw.BackgroundTasks, q: Annotated[str | None, fw.Depends(get_query)]
    ) -> Any:
        background_tasks.add_task(write_log, f"message to {email}")
        background_tasks.add_task(write_log_async, email)
        return {"message": "Message sent"}

    @app.post("/refused/{email}")
    async def refused(email: str, background_tasks: fw.BackgroundTasks) -> Any:
        background_tasks.add_task(write_log, f"never for {email}")
        raise fw.HTTPException(status_code=409, detail="Refused")

    @app.post("/own-response/{email}")
    def own_response(email: str, background_tasks: fw.BackgroundTasks) -> Any:
        background_tasks.add_task(write_log, f"dropped for {email}")
        own = fw.BackgroundTasks()
        own.add_task(write_log, f"own for {email}")
        return fw.responses.JSONResponse({"own": True}, background=own)

    @app.get("/log")
    def read_log() -> Any:
        entries = list(log)
        log.clear()
        return entries

    return app


@pytest.fixture(scope="module")
def pair() -> Iterator[Callable[[str], tuple[Any, Any]]]:
    yield from client_pairs({"tasks": tasks_app})


ROWS = [
    page_row("tasks", "POST", "/send-notification/a@example.com"),
    page_row("tasks", "GET", "/log"),
    page_row("tasks", "POST", "/send-dependent/b@example.com?q=tea"),
    page_row("tasks", "GET", "/log"),
    page_row("tasks", "POST", "/send-dependent/c@example.com"),
    page_row("tasks", "GET", "/log"),
    page_row("tasks", "POST", "/refused/d@example.com"),
    page_row("tasks", "GET", "/log"),
    page_row("tasks", "POST", "/own-response/e@example.com"),
    page_row("tasks", "GET", "/log"),
    page_row("tasks", "GET", "/openapi.json"),
]


test_same_answer = same_answer_test(ROWS)
