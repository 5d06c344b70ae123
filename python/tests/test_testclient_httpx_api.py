"""TestClient's httpx-style arguments: `files=` (multipart with `data=` fields), `auth=` (Basic), client-level
`headers=` and `cookies=`; checked against the real server through the engine's form parsing."""

from __future__ import annotations

import base64
import io
from typing import Annotated

from slipstream import App, File, Form, Header, Request, TestClient, UploadFile


def _app() -> App:
    app = App()

    @app.post("/upload")
    async def upload(title: Annotated[str, Form()], doc: Annotated[UploadFile, File()],
                     extra: Annotated[list[UploadFile], File()]) -> dict:
        return {"title": title, "name": doc.filename, "type": doc.content_type, "size": len(await doc.read()),
                "extra": [(f.filename, await f.read()) for f in extra]}

    @app.get("/who")
    def who(request: Request, authorization: Annotated[str | None, Header()] = None) -> dict:
        return {"auth": authorization, "team": request.headers.get("x-team"), "cookies": dict(request.cookies)}

    return app


def test_files_with_data_fields_make_a_multipart_body() -> None:
    with TestClient(_app()) as client:
        r = client.post("/upload", data={"title": "report"}, files=[
            ("doc", ("report.csv", b"a,b\n1,2\n", "text/csv")),
            ("extra", ("one.txt", io.BytesIO(b"first"))),
            ("extra", ("two.bin", "second")),
        ])
    assert r.status_code == 200, r.text
    assert r.json() == {"title": "report", "name": "report.csv", "type": "text/csv", "size": 8,
                        "extra": [["one.txt", "first"], ["two.bin", "second"]]}


def test_auth_and_client_level_headers_and_cookies() -> None:
    with TestClient(_app(), headers={"X-Team": "core"}, cookies={"session": "abc"}) as client:
        r = client.get("/who", auth=("alice", "s3cret"), cookies={"extra": "1"})
        assert r.json() == {"auth": "Basic " + base64.b64encode(b"alice:s3cret").decode(), "team": "core",
                            "cookies": {"session": "abc", "extra": "1"}}
        assert client.get("/who", headers={"x-team": "other"}).json()["team"] == "other"
