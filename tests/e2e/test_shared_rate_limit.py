"""Rate limits shared by two server processes through one PostgreSQL (--rate-limit-store store): the limit holds
exactly across both, sequentially and under concurrent load, over every protocol; the local fast path; the failure
modes when the database is gone (closed: 503, open: allowed, local: each process's own buckets), with their metric;
the decision service's per-principal decision and reward limits shared the same way."""

import http.client
import threading

import pytest

from tests.e2e.test_sessions import cluster  # noqa: F401 (a fixture)


def get(server, path="/hello"):
    conn = http.client.HTTPConnection(server.host, server.port, timeout=10)
    conn.request("GET", path)
    resp = conn.getresponse()
    fields = {k.lower(): v for k, v in resp.getheaders()}
    body = resp.read()
    conn.close()
    return resp.status, fields, body


def metric(server, name):
    status, _, body = get(server, "/metrics")
    assert status == 200
    for line in body.decode().splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return 0.0


def shared_servers(start_server, pg, *flags):
    # Every test starts from empty buckets (the cluster may have served another test).
    pg.psql("DROP TABLE IF EXISTS slipstream_rate_buckets")
    # 10 an hour: no request is refilled while the test runs, so exactly 10 are allowed.
    args = (
        "--threads",
        "2",
        "--no-access-log",
        "--rate-limit",
        "10/h",
        "--rate-limit-store",
        "store",
        "--store",
        pg.url,
        *flags,
    )
    return start_server(*args), start_server(*args)


def test_two_processes_share_one_limit_exactly(start_server, cluster):  # noqa: F811
    a, b = shared_servers(start_server, cluster)
    statuses = [get(a if i % 2 == 0 else b)[0] for i in range(30)]
    assert statuses == [200] * 10 + [429] * 20
    status, fields, _ = get(b)
    assert status == 429
    assert fields["ratelimit-limit"] == "10" and fields["ratelimit-remaining"] == "0"
    assert 1 <= int(fields["retry-after"]) <= 360
    # Refusals past the first are answered from each process's fast path, without a round trip.
    assert metric(a, "slipstream_rate_limit_store_local_refusals_total") > 0
    assert metric(b, "slipstream_rate_limit_store_local_refusals_total") > 0
    assert metric(a, "slipstream_rate_limited_total") + metric(b, "slipstream_rate_limited_total") == 21


def test_the_bucket_row_is_keyed_by_client_and_exact(start_server, cluster):  # noqa: F811
    a, b = shared_servers(start_server, cluster)
    assert [get(s)[0] for s in (a, b, a)] == [200, 200, 200]
    # One row for 127.0.0.1 (hex), three intervals of 6 minutes past the first request's time, in whole ns.
    key, tat, den, interval, burst = cluster.psql("SELECT key, tat, den, t, burst FROM slipstream_rate_buckets").split(
        "|"
    )
    assert (key, den, interval, burst.strip()) == ("ax:7f000001", "1", "360000000000", "10")
    assert int(tat) % 1000 == 0


def test_concurrent_requests_on_both_processes_allow_exactly_the_limit(start_server, cluster):  # noqa: F811
    a, b = shared_servers(start_server, cluster)
    statuses = []
    lock = threading.Lock()

    def hammer(server):
        for _ in range(25):
            s = get(server)[0]
            with lock:
                statuses.append(s)

    threads = [threading.Thread(target=hammer, args=(s,)) for s in (a, b, a, b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(statuses) == [200] * 10 + [429] * 90


def test_the_in_process_limiter_is_the_default(start_server, cluster):  # noqa: F811
    # Without --rate-limit-store each process counts on its own: twice the limit in all.
    cluster.psql("DROP TABLE IF EXISTS slipstream_rate_buckets")
    args = ("--threads", "1", "--no-access-log", "--rate-limit", "10/h", "--store", cluster.url)
    a, b = start_server(*args), start_server(*args)
    statuses = [get(a if i % 2 == 0 else b)[0] for i in range(30)]
    assert statuses.count(200) == 20


@pytest.mark.parametrize("mode, status", [("closed", 503), ("open", 200), ("local", 200)])
def test_store_failure_modes(start_server, cluster, mode, status):  # noqa: F811
    a, _ = shared_servers(
        start_server,
        cluster,
        "--rate-limit-store-failure",
        mode,
        "--rate-limit-store-timeout",
        "2s",
        "--database-acquire-timeout",
        "1s",
    )
    assert get(a)[0] == 200
    cluster.stop()
    try:
        got, fields, _ = get(a)
        assert got == status
        if status == 503:
            assert fields["retry-after"] == "1"
        assert metric(a, "slipstream_rate_limit_store_errors_total") >= 1
        if mode == "local":
            # This process's own buckets decide: they saw nothing while the store answered, so the request above
            # was their first; 9 more are allowed, then 429.
            statuses = [get(a)[0] for _ in range(10)]
            assert statuses == [200] * 9 + [429]
    finally:
        cluster.start()


def test_every_protocol_waits_for_the_shared_store(serve, cluster):  # noqa: F811
    # HTTP/1.1, HTTP/1.1 over TLS, h2c and h2: a request the store decides is answered after its answer, synchronous
    # and asynchronous routes alike, in order on one connection.
    cluster.psql("DROP TABLE IF EXISTS slipstream_rate_buckets")
    flags = ("--no-access-log", "--rate-limit", "10/h", "--rate-limit-store", "store", "--store", cluster.url)
    a, b = serve(*flags, fresh=True), serve(*flags, fresh=True)
    statuses = [
        (a if i % 2 == 0 else b).request("GET", "/hello" if i % 3 else "/delay/1", []).status for i in range(15)
    ]
    assert statuses == [200] * 10 + [429] * 5
    refused = b.request("GET", "/hello", [])
    assert refused.status == 429 and refused.headers["ratelimit-limit"] == "10"


def test_decision_limits_are_shared_too(start_server, cluster):  # noqa: F811
    # --decide-rate-limit and --decide-reward-rate-limit count in the same shared table: 3 decisions an hour for the
    # client across both processes, a batch counted item by item in one statement.
    from tests.e2e.test_decide import BASE, SPEC
    from tests.e2e.test_sessions import call

    decide_tables = ("capsules", "decisions", "rewards", "schema_version", "snapshots", "specs", "updates")
    for table in ("slipstream_rate_buckets", *(f"decide_{t}" for t in decide_tables)):
        cluster.psql(f"DROP TABLE IF EXISTS {table} CASCADE")
    flags = (
        "--threads",
        "1",
        "--no-access-log",
        "--decide",
        "--store",
        cluster.url,
        "--rate-limit-store",
        "store",
        "--decide-rate-limit",
        "3/h",
        "--decide-reward-rate-limit",
        "2/h",
    )
    a = start_server(*flags)
    assert call(a, "PUT", BASE + "/spec", SPEC).status == 201
    b = start_server(*flags)
    made = [call(s, "POST", BASE + "/decide", {}) for s in (a, b)]
    assert [m.status for m in made] == [200, 200]
    batch = call(b, "POST", BASE + "/decide/batch", {"requests": [{}] * 3})
    assert [r["status"] for r in batch.json["results"]] == [200, 429, 429]
    refused = call(a, "POST", BASE + "/decide", {})
    assert refused.status == 429 and refused.fields["ratelimit-limit"] == "3"
    rewards = [{"decisionId": m.json["decisionId"], "reward": 1} for m in made]
    assert call(a, "POST", BASE + "/reward", rewards[0]).status == 200
    answers = call(b, "POST", BASE + "/reward/batch", {"rewards": rewards[1:] * 2})
    assert [r["status"] for r in answers.json["results"]] == [200, 429]
