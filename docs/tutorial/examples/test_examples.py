"""The tutorial's tests: each example app through the TestClient (python -m pytest docs/tutorial/examples)."""

import dependencies
import first_app
import validation
from slipstream import TestClient


def test_first_app() -> None:
    with TestClient(first_app.app) as client:
        assert client.get("/").json() == {"message": "Hello"}
        assert client.get("/hello/Ada", params={"excited": "true"}).json() == {"message": "Hello, Ada!"}
        assert client.get("/hello/Ada", params={"excited": "maybe"}).status_code == 422


def test_validation() -> None:
    with TestClient(validation.app) as client:
        created = client.post("/items", json={"name": "tea", "price": 2.5, "tags": ["hot"]})
        assert created.status_code == 201
        assert created.json() == {"name": "tea", "price": 2.5, "tags": ["hot"], "id": 1}
        assert client.get("/items/1").json()["name"] == "tea"
        assert client.get("/items/9").status_code == 404
        assert client.get("/items", params={"tag": "cold"}).json() == []

        bad = client.post("/items", json={"name": "", "price": -1})
        assert bad.status_code == 422
        assert [(e["loc"], e["type"]) for e in bad.json()["detail"]] == [
            (["body", "name"], "string_too_short"),
            (["body", "price"], "greater_than"),
        ]
        assert client.get("/items/0").status_code == 422
        assert client.get("/items", params={"limit": 1000}).status_code == 422


def test_dependencies() -> None:
    with TestClient(dependencies.app) as client:
        assert client.get("/notes").status_code == 422  # the X-Token header is required
        assert client.get("/notes", headers={"X-Token": "wrong"}).status_code == 401
        page = client.get("/notes", params={"offset": 10, "limit": 2}, headers={"X-Token": "secret"})
        assert page.json() == ["note 10", "note 11"]
    # As in FastAPI: the 422 still opens (and closes) the store, as dependencies without errors run before a
    # validation error is answered; the 401 stops at require_token, which runs first.
    assert dependencies.Store.opened == dependencies.Store.closed == 2
