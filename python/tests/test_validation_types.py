"""UUID, datetime, date, time and Decimal parameters and body fields are validated in C++ with pydantic's exact
errors (type, loc, msg, input, ctx), all of them at once; handlers still receive the Python objects.

Every expected error comes from pydantic itself (TypeAdapter on the same input), so the table is only inputs."""

import datetime as dt
import json
import uuid
from decimal import Decimal
from typing import Any
from urllib.parse import quote

import pytest
import slipstream
from pydantic import BaseModel, TypeAdapter, ValidationError

TYPES: dict[str, Any] = {"uuid": uuid.UUID, "datetime": dt.datetime, "date": dt.date, "time": dt.time,
                         "decimal": Decimal}

TEXTS: dict[str, list[str]] = {
    "uuid": ["12345678-1234-5678-1234-567812345678", "12345678123456781234567812345678", "nope", "",
             "{12345678-1234-5678-1234-567812345678}", "urn:uuid:12345678-1234-5678-1234-567812345678",
             "12345678-1234-5678-1234-56781234567", "{12345678-1234-5678-1234-56781234567}", "1234-5678", "-----",
             "1234567-81234-5678-1234-567812345678", "a-\u00e9", "URN:UUID:12345678-1234-5678-1234-567812345678",
             "12345678-1234-5678-1234-567812345678}", "{x}", "urn:uuid:1234", "----", "a" * 33],
    "datetime": ["2024-01-02T03:04:05", "2024-01-02", "2024-01-02 03:04:05", "2024-01-02t03:04:05z",
                 "2024-01-02T03:04", "2024-01-02T03", "2024-01-02T03:04:05.123456789", "2024-01-02T03:04:05+0100",
                 "2024-01-02T03:04:05+01", "2024-01-02T03:04:05+24:00", "soon", "", "2024", "2024-1-02",
                 "2024-13-01", "2024-02-30", "2024-02-29", "2023-02-29", "2024-01-02X03:04:05", "20x4-01-02",
                 "2024x01-02", "2024-x1-02", "2024-01-x2", "1700000000", "-12", "1.5", "+5", ".5", "1.", "1e3",
                 " 5", "9999999999999999999", "253402300800000", "-9223372036854775808", "0000-01-01T00:00:00",
                 "2024-01-02T03:04:05Zjunk", "2024-01-02junk", "20000000001"],
    "date": ["2024-01-02", "2024-01-02T00:00:00", "2024-01-02T03:04:05", "2024-01-02T00:00:00Z",
             "2024-01-02 00:00", "2024-13-01", "soon", "2024-01-02x", "2024-01-02T25:00", "0", "86400", "1.0",
             "2024-01-02T0x:00", "2024-01-02T00x00", "2024-01-02T00:", "2024-01-02T00:x0", "2024-01-02T00:60",
             "2024-01-02T00:00:", "2024-01-02T00:00:61", "2024-01-02T00:00:00.", "2024-01-02T00:00:00x",
             "2024-01-02T00:00:00+", "2024-01-02T00:00:00+01", "2024-01-02T00:00:00+23:60",
             "2024-01-02T00:00:00+24:00", "2024-01-02T00:00:00.000", "2024-01-02_00:00", "20240102", "x"],
    "time": ["03:04:05", "03:04", "03", "3:04", "03:04:05.5", "03:04:05Z", "03:04:05+01:00", "24:00", "soon", "",
             "03:04:05x", "3600", "03x04", "0x:04", "03:60", "03:04:60", "03:04:05.", "03:04:05+01",
             "2024-01-02T03:04:05"],
    "decimal": ["1.50", "abc", "", " 1.5 ", "1e3", "1_000", "+1", "-.5", "5.", ".", "nan", "NaN", "inf",
                "-Infinity", "0x10", "1,5", "1 000", "1e", "e3", "sNaN", "1.5e-3", "00012", "1__0", "_1", "1._5", "__", "n_an"],
}

JSON_VALUES: dict[str, list[Any]] = {
    "uuid": [5, None, True, 1.5, [1], {}],
    "datetime": [1700000000, 1700000000.5, -1, 1e20, -1e16, 253402300799999, 253402300800000, True, None, [1]],
    "date": [1700000000, 1699920000, 86400, 0, 1.5, 86400.0, True, None, 253402300800000],
    "time": [3600, 3600.5, 86400, 86399.999, -1, True, None, {}],
    "decimal": [1, 1.5, True, None, [1], {}],
}


def _expected(kind: str, value: Any, loc: list[Any]) -> list[dict[str, Any]]:
    try:
        TypeAdapter(TYPES[kind]).validate_python(value)
    except ValidationError as e:
        out = []
        for error in e.errors(include_url=False):
            error = dict(error)
            error["loc"] = [*loc, *error["loc"]]
            if "ctx" in error:
                error["ctx"] = {k: str(v) for k, v in error["ctx"].items()}
            out.append(error)
        return out
    return []


def _app() -> Any:
    app = slipstream.App()

    for kind, tp in TYPES.items():
        def query(v: tp) -> Any:  # type: ignore[valid-type]
            return {"type": type(v).__name__, "value": str(v)}

        body_model = type(f"Body_{kind}", (BaseModel,), {"__annotations__": {"v": tp}})

        def body(b: body_model) -> Any:  # type: ignore[valid-type]
            return {"type": type(b.v).__name__, "value": str(b.v)}

        app.get(f"/q/{kind}")(query)
        app.post(f"/b/{kind}")(body)
    return app


@pytest.fixture(scope="module")
def client() -> Any:
    with slipstream.TestClient(_app()) as c:
        yield c


CASES = [(kind, text) for kind, texts in TEXTS.items() for text in texts]


@pytest.mark.parametrize(("kind", "text"), CASES)
def test_query_text(client: Any, kind: str, text: str) -> None:
    response = client.get(f"/q/{kind}?v={quote(text)}")
    expected = _expected(kind, text, ["query", "v"])
    if expected:
        assert response.status_code == 422
        assert response.json() == {"detail": expected}
    else:
        assert response.status_code == 200, response.text
        value = TypeAdapter(TYPES[kind]).validate_python(text)
        assert response.json() == {"type": type(value).__name__, "value": str(value)}


BODY_CASES = CASES + [(kind, v) for kind, values in JSON_VALUES.items() for v in values]


@pytest.mark.parametrize(("kind", "value"), BODY_CASES)
def test_body_value(client: Any, kind: str, value: Any) -> None:
    response = client.post(f"/b/{kind}", content=json.dumps({"v": value}), headers={"content-type": "application/json"})
    expected = _expected(kind, value, ["body", "v"])
    if expected:
        assert response.status_code == 422
        assert response.json() == {"detail": expected}
    else:
        assert response.status_code == 200, response.text
        converted = TypeAdapter(TYPES[kind]).validate_python(value)
        assert response.json() == {"type": type(converted).__name__, "value": str(converted)}


def test_every_error_is_reported_with_its_loc(client: Any) -> None:
    app = slipstream.App()

    class Order(BaseModel):
        id: uuid.UUID
        at: dt.datetime
        on: dt.date
        price: Decimal

    @app.post("/orders/{ref}")
    def create(ref: uuid.UUID, order: Order, when: dt.time) -> Any:
        return {"ref": str(ref), "at": order.at.isoformat(), "price": str(order.price), "when": when.isoformat()}

    with slipstream.TestClient(app) as c:
        r = c.post("/orders/x?when=25:00", json={"id": "nope", "at": "soon", "on": "2024-02-30", "price": "abc"})
        assert r.status_code == 422
        assert [(e["type"], e["loc"]) for e in r.json()["detail"]] == [
            ("uuid_parsing", ["path", "ref"]),
            ("time_parsing", ["query", "when"]),
            ("uuid_parsing", ["body", "id"]),
            ("datetime_from_date_parsing", ["body", "at"]),
            ("date_from_datetime_parsing", ["body", "on"]),
            ("decimal_parsing", ["body", "price"]),
        ]
        ok = c.post("/orders/12345678123456781234567812345678?when=01:02",
                    json={"id": "12345678-1234-5678-1234-567812345678", "at": 0, "on": "2024-01-02", "price": 1.5})
        assert ok.status_code == 200
        assert ok.json() == {"ref": "12345678-1234-5678-1234-567812345678", "at": "1970-01-01T00:00:00+00:00",
                             "price": "1.5", "when": "01:02:00"}
