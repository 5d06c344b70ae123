"""slipstream.structured.StreamValidator: a pydantic model's JSON validated while it streams in, split anywhere;
rejected at the proving byte with the pointer and keyword; partial values; the result as the model."""

from __future__ import annotations

import json
import random
from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field
from slipstream.structured import StreamFailure, StreamState, StreamValidator


class Item(BaseModel):
    name: str = Field(max_length=8)
    qty: int


class Answer(BaseModel):
    title: str
    kind: Literal["list", "note"]
    items: list[Item]


GOOD = '{"title": "Groceries ✓", "kind": "list", "items": [{"name": "milk", "qty": 2}, {"name": "eggs", "qty": 12}]}'


def test_a_valid_document_in_any_split_becomes_the_model() -> None:
    rng = random.Random(3)
    for _ in range(20):
        v = StreamValidator(Answer)
        data = GOOD.encode()
        at = 0
        while at < len(data):
            n = rng.randint(1, 6)
            state = v.feed(data[at:at + n])  # split inside "✓" too
            at += n
            assert state is (StreamState.COMPLETE if at >= len(data) else StreamState.PARTIAL)
        assert v.finish() is StreamState.COMPLETE
        assert v.result() == Answer.model_validate_json(GOOD)
        assert v.failure is None


@pytest.mark.parametrize(("prefix", "keyword", "pointer"), [
    ('{"title": 3', "type", "/title"),
    ('{"title": "t", "kind": "lis', None, None),                      # still a prefix of "list"
    ('{"title": "t", "kind": "lit', "enum", "/kind"),
    ('{"title": "t", "kind": "list", "items": [{"name": "a", "qty": 1.5}', "type", "/items/0/qty"),
    ('{"title": "t", "kind": "list", "items": [{"name": "abcdefghi', "maxLength", "/items/0/name"),
    ('{"title": "t", "kind": "list", "items": [{"qty": 1}', "required", "/items/0"),
    ('{"title": "t",,', "json", ""),
])
def test_a_prefix_is_rejected_as_soon_as_it_cannot_be_valid(prefix: str, keyword: str | None,
                                                            pointer: str | None) -> None:
    v = StreamValidator(Answer)
    state = StreamState.PARTIAL
    for ch in prefix:
        state = v.feed(ch)
        if state is StreamState.INVALID:
            break
    if keyword is None:
        assert state is StreamState.PARTIAL and v.failure is None
        return
    assert state is StreamState.INVALID
    failure = v.failure
    assert isinstance(failure, StreamFailure)
    assert (failure.keyword, failure.pointer) == (keyword, pointer)
    assert failure.offset == len(prefix.encode()) - 1  # the byte that proved it
    assert v.feed('"more"') is StreamState.INVALID
    with pytest.raises(ValueError, match="invalid, not complete"):
        v.result()


def test_partial_values_show_open_strings_and_containers() -> None:
    v = StreamValidator(Answer)
    assert v.partial() == (None, [])
    v.feed('{"title": "Gro')
    assert v.partial() == ({"title": "Gro"}, ["", "/title"])
    v.feed('ceries", "items": [{"name": "mi')
    assert v.partial() == ({"title": "Groceries", "items": [{"name": "mi"}]},
                           ["", "/items", "/items/0", "/items/0/name"])


def test_a_schema_dict_and_a_truncated_document() -> None:
    v = StreamValidator({"type": "array", "items": {"type": "integer"}, "maxItems": 2})
    assert v.feed(b"[1, 2") is StreamState.PARTIAL
    assert v.finish() is StreamState.INVALID
    assert v.failure is not None and v.failure.keyword == "json"
    ok = StreamValidator({"type": "array", "items": {"type": "integer"}})
    ok.feed("[1, 2]")
    assert ok.finish() is StreamState.COMPLETE and ok.result() == [1, 2]
    with pytest.raises(ValueError, match="does not compile"):
        StreamValidator({"type": 5})
    assert json.loads(json.dumps(Answer.model_json_schema())) == StreamValidator(Answer).schema


def _app_streaming(pieces: list[str], closed: list[bool], fmt: str = "sse", partial: bool = True) -> Any:
    from slipstream import App
    from slipstream.structured import ValidatedStreamResponse

    app = App()

    async def llm() -> Any:
        try:
            for p in pieces:
                yield p
        finally:
            closed.append(True)

    @app.get("/answer")
    async def answer() -> ValidatedStreamResponse:
        return ValidatedStreamResponse(llm(), Answer, format=fmt, partial=partial)

    return app


def _events(text: str) -> list[tuple[str, Any]]:
    out = []
    for block in text.strip().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines())
        out.append((fields["event"], json.loads(fields["data"])))
    return out


def test_a_validated_stream_sends_partial_values_then_the_document() -> None:
    from slipstream import TestClient

    closed: list[bool] = []
    pieces = ['{"title": "T", "kind"', ': "note", "items": [{"name": "a", ', '"qty": 1}]}']
    with TestClient(_app_streaming(pieces, closed)) as client:
        r = client.get("/answer")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    assert _events(r.text) == [("partial", {"title": "T"}), ("partial", {"title": "T", "kind": "note", "items": [
        {"name": "a"}]}), ("partial", {"title": "T", "kind": "note", "items": [{"name": "a", "qty": 1}]}),
        ("complete", {"title": "T", "kind": "note", "items": [{"name": "a", "qty": 1}]})]
    assert closed == [True]


def test_a_validated_stream_stops_the_source_at_the_first_invalid_piece() -> None:
    from slipstream import TestClient

    closed: list[bool] = []
    pieces = ['{"title": "T", ', '"kind": "memo"', ', "items": []}', "never read"]
    with TestClient(_app_streaming(pieces, closed, fmt="ndjson", partial=False)) as client:
        r = client.get("/answer")
    assert r.headers["content-type"].startswith("application/x-ndjson")
    lines = [json.loads(line) for line in r.text.splitlines()]
    assert lines[0] == {"type": "delta", "value": '{"title": "T", '}
    assert lines[1]["type"] == "error"
    assert (lines[1]["value"]["keyword"], lines[1]["value"]["pointer"]) == ("enum", "/kind")
    assert len(lines) == 2 and closed == [True]


def test_response_stream_routes_validate_what_the_handler_yields() -> None:
    from slipstream import App, TestClient

    app = App()

    @app.post("/answer", response_stream=Answer)
    async def answer(title: str) -> Any:
        for piece in ['{"title": "', title, '", "kind": "note", "items": []}']:
            yield piece

    @app.post("/bad", response_stream=Answer)
    def bad() -> Any:
        return iter(['{"title": 5}'])

    with TestClient(app) as client:
        events = _events(client.post("/answer", params={"title": "Hi"}).text)
        assert events[-1] == ("complete", {"title": "Hi", "kind": "note", "items": []})
        assert events[0] == ("partial", {"title": ""})
        assert _events(client.post("/bad").text)[-1][0] == "error"
        assert client.post("/answer").status_code == 422  # the handler's parameters are still validated
        doc = client.get("/openapi.json").json()
        operation = doc["paths"]["/answer"]["post"]
        assert "title" in {p["name"] for p in operation["parameters"]}
        assert list(operation["responses"]["200"]["content"]) == ["text/event-stream"]
