"""slipstream.infer.Model mounted on an App: the OpenAI routes served by the engine next to Python routes, through
the TestClient (real sockets); options and load errors raise ValueError."""
import importlib.util
import json
import pathlib
import sys
import time

import pytest
from slipstream import App, TestClient

pytest.importorskip("gguf", reason="the gguf package is not installed (pip install gguf numpy)")
pytest.importorskip("numpy", reason="numpy is not installed")

from slipstream.infer import Model

ROOT = pathlib.Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("make_test_model", ROOT / "scripts/infer/make_test_model.py")
mtm = importlib.util.module_from_spec(_spec)
sys.modules["make_test_model"] = mtm
_spec.loader.exec_module(mtm)


@pytest.fixture(scope="module")
def model_file(tmp_path_factory) -> pathlib.Path:
    path = tmp_path_factory.mktemp("infer") / "tiny.gguf"
    mtm.write_model(str(path), mtm.Config(arch="qwen2", type="f16", dim=64, layers=2, heads=4, kv_heads=2, ffn=96,
                                          vocab=300, context=128, seed=2, tokenizer="bpe", chat_template="chatml"))
    return path


@pytest.fixture(scope="module")
def client(model_file):
    app = App()

    @app.get("/hello")
    def hello() -> dict:
        return {"hello": "world"}

    model = Model(str(model_file), model_id="tiny", threads=2, kv_cache_bytes=8 << 20, block_size=8)
    app.mount("/v1", model)
    with TestClient(app) as c:
        c.model = model
        yield c


def test_routes_answer_next_to_python_routes(client):
    assert client.get("/hello").json() == {"hello": "world"}
    assert [m["id"] for m in client.get("/v1/models").json()["data"]] == ["tiny"]
    r = client.post("/v1/chat/completions", json={"model": "tiny", "max_tokens": 4, "temperature": 0,
                                                  "messages": [{"role": "user", "content": "hi"}],
                                                  "ignore_eos": True})
    assert r.status_code == 200
    body = r.json()
    assert body["object"] == "chat.completion"
    assert body["usage"]["completion_tokens"] == 4
    assert body["choices"][0]["finish_reason"] == "length"


def test_stream_is_server_sent_events_ending_with_done(client):
    r = client.post("/v1/completions", json={"prompt": "hello", "max_tokens": 3, "stream": True,
                                             "temperature": 0, "ignore_eos": True})
    assert r.headers["content-type"].startswith("text/event-stream")
    events = [line[len("data: "):] for line in r.text.split("\n\n") if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert all(c["object"] == "text_completion" for c in chunks)
    assert chunks[-1]["choices"][0]["finish_reason"] == "length"


def test_errors_are_openai_shaped(client):
    r = client.post("/v1/chat/completions", json={"messages": []})
    assert r.status_code == 400
    assert r.json()["error"]["type"] == "invalid_request_error"
    assert r.json()["error"]["param"] == "messages"
    r = client.post("/v1/chat/completions", data=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 400 and "error" in r.json()


def test_stats_count_generated_tokens(client):
    before = client.model.stats()["tokens_generated"]
    client.post("/v1/completions", json={"prompt": "hello", "max_tokens": 2, "temperature": 0, "ignore_eos": True})
    # The scheduler publishes its counters at the end of the step whose tokens were just answered.
    deadline = time.monotonic() + 5
    while client.model.stats()["tokens_generated"] != before + 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert client.model.stats()["tokens_generated"] == before + 2


def test_bad_files_and_options_raise_value_error(tmp_path, model_file):
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"GGUF\x03\x00\x00\x00" + b"\xff" * 16)
    with pytest.raises(ValueError, match="bad.gguf"):
        Model(str(bad))
    with pytest.raises(ValueError, match="block_size"):
        Model(str(model_file), block_size=0)
    with pytest.raises(ValueError, match="preemption"):
        Model(str(model_file), preemption="drop")


def test_a_draft_model_serves_the_same_greedy_text(tmp_path, model_file):
    draft = tmp_path / "draft.gguf"  # the same vocabulary and tokenizer, another shape and seed
    mtm.write_model(str(draft), mtm.Config(arch="llama", type="f32", dim=32, layers=1, heads=2, kv_heads=1, ffn=48,
                                           vocab=300, context=128, seed=9, tokenizer="bpe", chat_template="chatml"))
    body = {"prompt": "the draft proposes, the model decides", "max_tokens": 12, "temperature": 0,
            "ignore_eos": True}
    texts = []
    for kwargs in ({}, {"draft_model": str(model_file), "speculative_draft": 3}, {"draft_model": str(draft)}):
        model = Model(str(model_file), model_id="tiny", threads=1, kv_cache_bytes=8 << 20, block_size=8, **kwargs)
        app = App()
        app.mount("/v1", model)
        with TestClient(app) as c:
            texts.append(c.post("/v1/completions", json=body).json()["choices"][0]["text"])
        stats = model.stats()
        model.close()
        if kwargs.get("draft_model") == str(model_file):
            assert stats["spec_proposed"] > 0 and stats["spec_accepted"] == stats["spec_proposed"]
        elif kwargs:
            assert stats["spec_proposed"] > 0
    assert texts[1] == texts[0] and texts[2] == texts[0]


def test_a_draft_with_another_vocabulary_is_refused(tmp_path, model_file):
    other = tmp_path / "other.gguf"
    mtm.write_model(str(other), mtm.Config(arch="llama", type="f32", dim=32, layers=1, heads=2, kv_heads=1, ffn=48,
                                           vocab=280, context=128, seed=9, tokenizer="bpe"))
    with pytest.raises(ValueError, match="draft model does not fit the model: its vocabulary has 280 tokens"):
        Model(str(model_file), draft_model=str(other))
    spm = tmp_path / "spm.gguf"
    mtm.write_model(str(spm), mtm.Config(arch="llama", type="f32", dim=32, layers=1, heads=2, kv_heads=1, ffn=48,
                                         vocab=300, context=128, seed=9, tokenizer="spm"))
    with pytest.raises(ValueError, match="draft model does not fit the model: its tokenizer"):
        Model(str(model_file), draft_model=str(spm))
    with pytest.raises(ValueError, match="exclude each other"):
        Model(str(model_file), draft_model=str(model_file), speculative_ngram=2)
