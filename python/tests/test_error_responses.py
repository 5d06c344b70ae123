"""The 422 body of errors pydantic found: written as FastAPI's jsonable_encoder writes it (sqlalchemy_safe), through
a route pydantic validates (a TypedDict that forbids extra keys)."""
from pydantic import ConfigDict
from slipstream import App, TestClient
from typing_extensions import TypedDict


class Strict(TypedDict, total=False):
    __pydantic_config__ = ConfigDict(extra="forbid")  # type: ignore[misc]
    name: str


def test_input_keys_starting_with_sa_are_left_out():
    app = App()

    @app.post("/strict")
    def strict(m: Strict) -> dict:
        return dict(m)

    with TestClient(app) as client:
        r = client.post("/strict", json={"extra": {"_sa": None, "k": [{"_sa_x": 1, "v": 2}]}})
    assert r.status_code == 422
    assert r.json() == {"detail": [{"type": "extra_forbidden", "loc": ["body", "extra"],
                                    "msg": "Extra inputs are not permitted", "input": {"k": [{"v": 2}]}}]}
