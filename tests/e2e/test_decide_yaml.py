"""YAML capsule specs on a real server (hello --decide): PUT .../spec with Content-Type application/yaml creates or
patches a spec like JSON does (the merge patch, versions, errors naming the field); a malformed document is a 400
with its line and column; aliases are refused."""

import http.client

from tests.e2e.test_decide import decide, decide_server
from tests.e2e.test_sessions import Answer, call

BASE = "/v1/tenants/acme/jobs/chat/capsules/router"
SPEC_YAML = """\
# a router between two models
actions:
  - id: small
  - id: large
    features: {cost: 5}
features:
  dimension: 32
  context:
    - {name: len, scale: 0.01}
    - name: user.tier
      type: categorical
reward:
  range: [0, 1]
  components: {quality: 1.0, latency: -0.001}
exploration: {type: squarecb, gamma: 50, floor: 0.02}
"""


def put_yaml(server, text, content_type="application/yaml", path=BASE):
    conn = http.client.HTTPConnection(server.host, server.port, timeout=10)
    conn.request("PUT", path + "/spec", body=text.encode(), headers={"Content-Type": content_type})
    resp = conn.getresponse()
    answer = Answer(resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read())
    conn.close()
    return answer


def test_yaml_specs_create_and_patch(start_server, tmp_path):
    server = decide_server(start_server, tmp_path / "data")
    made = put_yaml(server, SPEC_YAML)
    assert (made.status, made.json["version"]) == (201, 1), made.raw
    stored = call(server, "GET", BASE + "/spec").json["spec"]
    assert stored["actions"] == [{"id": "small"}, {"id": "large", "features": {"cost": 5}}]
    assert stored["reward"]["components"] == {"quality": 1.0, "latency": -0.001}
    assert stored["exploration"] == {"type": "squarecb", "gamma": 50, "floor": 0.02}
    assert decide(server, {"context": {"len": 10}})["action"] in ("small", "large")
    patched = put_yaml(server, "mode: frozen\nexploration: {floor: null}\n", "text/yaml; charset=utf-8")
    assert (patched.status, patched.json["version"]) == (200, 2)
    assert patched.json["spec"]["mode"] == "frozen" and "floor" not in patched.json["spec"]["exploration"]
    # The same checks as JSON: a bad member is a 400 naming it.
    bad = put_yaml(server, "exploration:\n  gamma: -1\n")
    assert (bad.status, bad.json["pointer"]) == (400, "/exploration/gamma")


def test_malformed_yaml_is_a_400_with_line_and_column(start_server, tmp_path):
    server = decide_server(start_server, tmp_path / "data")
    broken = put_yaml(server, "actions:\n  - id: a\n   oops: [\n")
    assert (broken.status, broken.fields["content-type"]) == (400, "application/problem+json")
    assert (broken.json["line"], broken.json["column"]) == (3, 4)
    assert broken.json["detail"].startswith("the YAML spec: line 3, column 4:")
    alias = put_yaml(server, "a: &x [1]\nactions: *x\n")
    assert alias.status == 400 and "aliases" in alias.json["detail"] and alias.json["line"] == 2
    assert call(server, "GET", BASE + "/spec").status == 404
    doc = call(server, "GET", "/openapi.json").json
    put = doc["paths"]["/v1/tenants/{tenant}/jobs/{job}/capsules/{capsule}/spec"]["put"]
    assert set(put["requestBody"]["content"]) == {"application/json", "application/yaml"}
    assert "415" in put["responses"]
