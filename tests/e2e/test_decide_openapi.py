"""The decision routes described in a real server's /openapi.json (hello --decide): every operation with its
parameters, body and answers; the documented JSON Schemas accept exactly the bodies and parameters the server
accepts; the document's path is a knob (--decide-openapi, 'off')."""

import http.client

import jsonschema
import pytest

from tests.e2e.test_decide import decide_server, put_spec
from tests.e2e.test_sessions import call

PREFIX = "/v1/tenants/{tenant}/jobs/{job}/capsules/{capsule}"
BASE = "/v1/tenants/acme/jobs/chat/capsules/router"
SPEC = {"actions": [{"id": "a"}, {"id": "b"}], "exploration": {"type": "epsilonGreedy", "epsilon": 0.2}}


def get_document(server, path="/openapi.json"):
    a = call(server, "GET", path)
    assert a.status == 200 and a.fields["content-type"].startswith("application/json")
    return a.json


def body_schema(doc, method, suffix):
    op = doc["paths"][PREFIX + suffix][method]
    return op["requestBody"]["content"]["application/json"]["schema"]


def test_every_route_is_described(start_server, tmp_path):
    doc = get_document(decide_server(start_server, tmp_path / "data"))
    assert doc["openapi"] == "3.1.0" and doc["info"]["title"]
    ops = {(m, p[len(PREFIX) :]) for p, item in doc["paths"].items() for m in item}
    assert ops == {
        ("get", "/spec"),
        ("put", "/spec"),
        ("post", "/decide"),
        ("post", "/decide/batch"),
        ("post", "/reward"),
        ("post", "/reward/batch"),
        ("get", "/decisions"),
        ("get", "/decisions/{id}"),
        ("get", "/model"),
        ("post", "/evaluate"),
        ("post", "/promote"),
    }
    ids = [op["operationId"] for item in doc["paths"].values() for op in item.values()]
    assert len(ids) == len(set(ids))
    for item in doc["paths"].values():
        for op in item.values():
            names = {(p["name"], p["in"]) for p in op["parameters"]}
            assert {("tenant", "path"), ("job", "path"), ("capsule", "path")} <= names
            assert "422" in op["responses"] and ("200" in op["responses"] or "201" in op["responses"])
            problem = op["responses"]["422"]["content"]["application/problem+json"]["schema"]
            assert problem == {"$ref": "#/components/schemas/Problem"}
            for p in op["parameters"]:
                jsonschema.Draft202012Validator.check_schema(p["schema"])
            if "requestBody" in op:
                for media in op["requestBody"]["content"].values():
                    jsonschema.Draft202012Validator.check_schema(media["schema"])
    assert "Problem" in doc["components"]["schemas"]
    model = doc["paths"][PREFIX + "/model"]["get"]
    assert "304" in model["responses"] and ("If-None-Match", "header") in {
        (p["name"], p["in"]) for p in model["parameters"]
    }
    put = doc["paths"][PREFIX + "/spec"]["put"]
    assert "201" in put["responses"] and "400" in put["responses"]
    limit = next(p for p in doc["paths"][PREFIX + "/decisions"]["get"]["parameters"] if p["name"] == "limit")
    assert limit["in"] == "query" and limit["schema"]["default"] == 50


DECIDE_BODIES = [
    {},
    {"context": {"x": 1}},
    {"actions": ["a"]},
    {"excluded": ["b"], "eventId": "e-1"},
    {"context": 5},
    {"actions": "a"},
    {"actions": [""]},
    {"bogus": 1},
    {"eventId": ""},
    {"baselineAction": 3},
    {"excluded": ["x"] * 65},
]


def test_documented_schemas_accept_what_the_server_accepts(start_server, tmp_path):
    server = decide_server(start_server, tmp_path / "data")
    doc = get_document(server)
    assert put_spec(server, SPEC, BASE).status == 201
    decide = jsonschema.Draft202012Validator(body_schema(doc, "post", "/decide"))
    outcomes = set()
    for body in DECIDE_BODIES:
        a = call(server, "POST", BASE + "/decide", body)
        outcomes.add(a.status)
        assert (a.status == 200) == decide.is_valid(body), (body, a.status, a.raw)
    assert outcomes == {200, 422}
    made = call(server, "POST", BASE + "/decide", {}).json
    reward = jsonschema.Draft202012Validator(body_schema(doc, "post", "/reward"))
    for body in (
        {"reward": 1},
        {"decisionId": made["decisionId"], "reward": "x"},
        {"decisionId": made["decisionId"], "components": {"q": "x"}},
        {"decisionId": made["decisionId"], "reward": 1, "extra": True},
        {"decisionId": made["decisionId"], "reward": 1, "idempotencyKey": "k"},
    ):
        a = call(server, "POST", BASE + "/reward", body)
        assert (a.status == 200) == reward.is_valid(body), (body, a.status, a.raw)
    evaluate = jsonschema.Draft202012Validator(body_schema(doc, "post", "/evaluate"))
    for body in ({"resamples": 10}, {"resamples": -1}, {"resamples": 10**6}, {"seed": 3, "other": 1}):
        a = call(server, "POST", BASE + "/evaluate", body)
        assert (a.status == 200) == evaluate.is_valid(body), (body, a.status, a.raw)
    limit = next(p for p in doc["paths"][PREFIX + "/decisions"]["get"]["parameters"] if p["name"] == "limit")
    top = limit["schema"]["maximum"]
    assert call(server, "GET", f"{BASE}/decisions?limit={top}").status == 200
    assert call(server, "GET", f"{BASE}/decisions?limit={top + 1}").status == 422


@pytest.mark.parametrize("where", ["off", "/v1/decide/openapi.json"])
def test_the_document_path_is_a_knob(start_server, tmp_path, where):
    server = decide_server(start_server, tmp_path / "data", "--decide-openapi", where)
    conn = http.client.HTTPConnection(server.host, server.port, timeout=10)
    conn.request("GET", "/openapi.json")
    assert conn.getresponse().status == 404
    conn.close()
    if where != "off":
        assert PREFIX + "/decide" in get_document(server, where)["paths"]
    assert put_spec(server, SPEC, BASE).status == 201
