"""`slipstream-decide replay` over a log exported from a real server (hello --decide; GET decisions?format=jsonl,
paged with Decide-Next): the same estimates as POST evaluate on the same decisions, the promotion gate as the exit
status (0 holds, 1 fails, 2 bad input), YAML specs, pages concatenated in any order."""

import http.client
import json
import subprocess

import pytest

from tests.conftest import BUILD
from tests.e2e.test_decide import BASE, decide_server, log_uniform_decisions, put_spec
from tests.e2e.test_sessions import call

TOOL = BUILD / "src/agent/decide/slipstream-decide"
SPEC = {
    "actions": [{"id": "left"}, {"id": "right"}],
    "features": {"dimension": 16, "context": [{"name": "side", "type": "categorical"}]},
    "exploration": {"type": "epsilonGreedy", "epsilon": 1.0},
}
GREEDY = {"exploration": {"type": "squarecb", "gamma": 200, "epsilon": None}}


def export(server, limit):
    """Every page of the export, as the list of page texts."""
    pages, after = [], ""
    while True:
        conn = http.client.HTTPConnection(server.host, server.port, timeout=10)
        query = f"?format=jsonl&limit={limit}" + (f"&after={after}" if after else "")
        conn.request("GET", BASE + "/decisions" + query)
        resp = conn.getresponse()
        body = resp.read().decode()
        assert resp.status == 200 and resp.getheader("content-type") == "application/jsonl"
        pages.append(body)
        after = resp.getheader("decide-next")
        conn.close()
        if not after:
            return pages


def replay(tmp_path, spec_text, log_text, *flags, candidate=None, spec_name="spec.json"):
    (tmp_path / spec_name).write_text(spec_text)
    (tmp_path / "log.jsonl").write_text(log_text)
    argv = [str(TOOL), "replay", "--spec", str(tmp_path / spec_name), "--log", str(tmp_path / "log.jsonl"), *flags]
    if candidate is not None:
        (tmp_path / "candidate.json").write_text(json.dumps(candidate))
        argv += ["--candidate", str(tmp_path / "candidate.json")]
    return subprocess.run(argv, check=False, capture_output=True, text=True, timeout=120)


@pytest.fixture
def logged(start_server, tmp_path):
    if not TOOL.exists():
        pytest.fail(f"{TOOL} is not built (ninja -C build slipstream-decide)")
    server = decide_server(start_server, tmp_path / "data")
    assert put_spec(server, SPEC).status == 201
    log_uniform_decisions(server, 200)
    open_one = call(server, "POST", BASE + "/decide", {"context": {"side": "left"}}).json
    assert open_one["decisionId"]
    return server


def test_replay_matches_evaluate_and_gates(logged, tmp_path):
    pages = export(logged, 64)
    assert len(pages) == 4  # 201 decisions: 64 + 64 + 64 + 9
    lines = [json.loads(x) for page in pages for x in page.splitlines()]
    assert len(lines) == 201 and len({x["decisionId"] for x in lines}) == 201
    assert {"decisionId", "createdAt", "closed", "reward", "context", "answer"} <= set(lines[0])
    spec = call(logged, "GET", BASE + "/spec").raw.decode()  # GET .../spec's answer is accepted as the spec

    evaluated = call(logged, "POST", BASE + "/evaluate", {"spec": GREEDY, "resamples": 300, "seed": 5}).json
    # Pages in reverse order: the tool sorts by createdAt and id.
    done = replay(tmp_path, spec, "".join(reversed(pages)), "--resamples", "300", "--seed", "5", candidate=GREEDY)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    for key in ("logged", "logging", "candidate", "current"):
        assert report[key] == evaluated[key], key
    assert report["open"] == 1 and report["gate"] == {"minSamples": 100, "passed": True, "reasons": []}

    same = replay(tmp_path, spec, "".join(pages))  # the current spec against itself: the gate cannot hold
    assert same.returncode == 1 and json.loads(same.stdout)["gate"]["passed"] is False
    assert "DR lower bound" in same.stderr
    few = replay(tmp_path, spec, "".join(pages), "--min-samples", "500", candidate=GREEDY)
    assert few.returncode == 1 and "only 200 logged decisions" in few.stderr
    assert replay(tmp_path, spec, "".join(pages), "--no-gate").returncode == 0


def test_yaml_specs_and_bad_input(logged, tmp_path):
    text = "".join(export(logged, 1000))
    yaml_spec = (
        "actions: [{id: left}, {id: right}]\n"
        "features: {dimension: 16, context: [{name: side, type: categorical}]}\n"
        "exploration: {type: epsilonGreedy, epsilon: 1.0}\n"
    )
    done = replay(tmp_path, yaml_spec, text, candidate=GREEDY, spec_name="spec.yaml")
    assert done.returncode == 0, done.stderr
    bad_line = replay(tmp_path, json.dumps(SPEC), text + "{not json}\n")
    assert bad_line.returncode == 2 and "line 202: not a JSON object" in bad_line.stderr
    not_decision = replay(tmp_path, json.dumps(SPEC), '{"decisionId": "x"}\n')
    assert not_decision.returncode == 2 and "not an exported decision" in not_decision.stderr
    bad_candidate = replay(tmp_path, json.dumps(SPEC), text, candidate={"exploration": {"gamma": -1}})
    assert bad_candidate.returncode == 2 and "the candidate: /exploration/gamma" in bad_candidate.stderr
    too_many = replay(tmp_path, json.dumps(SPEC), text, "--max-decisions", "10")
    assert too_many.returncode == 2 and "more than 10 closed decisions" in too_many.stderr
    assert replay(tmp_path, json.dumps(SPEC), text, "--resamples", "x").returncode == 2
