"""The engine's own probes (/health, /livez, /readyz, /metrics) under TestClient, beside an app's routes: a route
for exactly the same path replaces the probe; a pattern that only matches it ("/{name}") does not."""
import slipstream
from slipstream import TestClient


def test_probes_answer_under_the_test_client():
    app = slipstream.App()

    @app.get("/hello")
    def hello():
        return {"hello": "world"}

    with TestClient(app) as client:
        for path in ("/health", "/livez", "/readyz"):
            response = client.get(path)
            assert (response.status_code, response.json()) == (200, {"status": "ok"}), path
        assert "slipstream_http_requests_total" in client.get("/metrics").text


def test_an_apps_own_route_for_the_path_replaces_the_probe_and_a_pattern_does_not():
    app = slipstream.App()

    @app.get("/health")
    def mine():
        return {"mine": True}

    @app.get("/{name}")
    def anything(name: str):
        return {"name": name}

    with TestClient(app) as client:
        assert client.get("/health").json() == {"mine": True}
        assert client.get("/livez").json() == {"status": "ok"}
        assert client.get("/other").json() == {"name": "other"}
