"""The OpenAI-compatible routes of `slipstream-serve --model`, driven by the official `openai` client: model list,
chat and text completions (greedy checked against the NumPy reference), streaming chunks and usage, n, seeds,
stop sequences, logprobs, the prefix cache, concurrent requests, and errors in OpenAI's shape."""
import concurrent.futures

import pytest

from tests.conftest import BUILD, Server

np = pytest.importorskip("numpy", reason="numpy is not installed")
pytest.importorskip("gguf", reason="the gguf package is not installed (pip install gguf numpy)")
openai = pytest.importorskip("openai", reason="the openai client is not installed (pip install openai)")

from tests.infer.models import mtm, ref

SERVE = BUILD / "src/app/slipstream-serve"


@pytest.fixture(scope="module")
def model_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "tiny.gguf"
    mtm.write_model(str(path), mtm.Config(arch="llama", type="f32", dim=64, layers=2, heads=4, kv_heads=2, ffn=128,
                                          vocab=300, context=256, seed=11, tokenizer="spm", chat_template="chatml"))
    return path


@pytest.fixture(scope="module")
def server(model_path):
    if not SERVE.exists():
        pytest.skip(f"{SERVE} is not built (ninja -C build slipstream-serve)")
    s = Server([str(SERVE), "--port", "0", "--threads", "1", "--model", str(model_path), "--model-id", "tiny",
                "--model-threads", "2", "--model-kv-cache", "16m", "--model-block-size", "8"])
    yield s
    s.stop()


@pytest.fixture(scope="module")
def client(server):
    return openai.OpenAI(base_url=server.url + "/v1", api_key="unused", max_retries=0, timeout=60)


def test_models_lists_the_served_model(client):
    models = client.models.list().data
    assert [m.id for m in models] == ["tiny"]
    assert models[0].owned_by == "slipstream"
    assert client.models.retrieve("tiny").id == "tiny"
    with pytest.raises(openai.NotFoundError) as e:
        client.models.retrieve("gpt-9")
    assert e.value.code == "model_not_found"


def test_greedy_completion_follows_the_reference_model(client, model_path):
    prompt = [1, 17, 42, 99, 5, 250, 3, 77]
    r = client.completions.create(model="tiny", prompt=prompt, max_tokens=6, temperature=0, logprobs=1,
                                  extra_body={"ignore_eos": True})
    choice = r.choices[0]
    assert choice.finish_reason == "length"
    assert r.usage.prompt_tokens == len(prompt) and r.usage.completion_tokens == 6
    # Each chosen token is the reference's argmax, so its logprob is the reference's largest log-softmax value.
    config, tensors = ref.load(str(model_path))
    tokens = list(prompt)
    for step in range(6):
        logits = ref.forward(config, tensors, tokens)[-1]
        logprobs = logits - logits.max() - np.log(np.exp(logits - logits.max()).sum())
        best = int(logits.argmax())
        assert abs(choice.logprobs.token_logprobs[step] - logprobs[best]) < 1e-3
        tokens.append(best)
    assert len(choice.logprobs.tokens) == 6


def test_chat_completion_is_deterministic_when_greedy(client):
    messages = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hello world"}]
    a = client.chat.completions.create(model="tiny", messages=messages, max_tokens=10, temperature=0)
    b = client.chat.completions.create(model="tiny", messages=messages, max_tokens=10, temperature=0)
    assert a.object == "chat.completion" and a.id.startswith("chatcmpl-") and a.id != b.id
    assert a.choices[0].message.role == "assistant"
    assert a.choices[0].message.content == b.choices[0].message.content
    assert a.usage.prompt_tokens > 5
    assert a.usage.total_tokens == a.usage.prompt_tokens + a.usage.completion_tokens


def test_stream_sends_role_then_content_then_usage(client):
    messages = [{"role": "user", "content": "the quick brown fox"}]
    whole = client.chat.completions.create(model="tiny", messages=messages, max_tokens=12, temperature=0)
    chunks = list(client.chat.completions.create(model="tiny", messages=messages, max_tokens=12, temperature=0,
                                                 stream=True, stream_options={"include_usage": True}))
    assert chunks[0].choices[0].delta.role == "assistant"
    assert all(c.object == "chat.completion.chunk" and c.id == chunks[0].id for c in chunks)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == whole.choices[0].message.content
    finishes = [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason]
    assert finishes == [whole.choices[0].finish_reason]
    assert chunks[-1].choices == [] and chunks[-1].usage.completion_tokens == whole.usage.completion_tokens
    assert all(c.usage is None for c in chunks[:-1])


def test_n_choices_with_a_seed_are_reproducible(client):
    kwargs = {"model": "tiny", "prompt": "hello", "max_tokens": 8, "temperature": 1.0, "n": 3, "seed": 5}
    a = client.completions.create(**kwargs)
    b = client.completions.create(**kwargs)
    assert [c.index for c in a.choices] == [0, 1, 2]
    assert [c.text for c in a.choices] == [c.text for c in b.choices]
    assert len({c.text for c in a.choices}) > 1  # each choice draws its own tokens


def test_stop_sequence_cuts_the_text_before_it(client):
    full = client.completions.create(model="tiny", prompt="the model", max_tokens=24, temperature=0).choices[0].text
    assert len(full) > 6
    stop = full[3:6]
    cut = client.completions.create(model="tiny", prompt="the model", max_tokens=24, temperature=0, stop=[stop])
    assert cut.choices[0].text == full[: full.index(stop)]
    assert cut.choices[0].finish_reason == "stop"
    streamed = client.completions.create(model="tiny", prompt="the model", max_tokens=24, temperature=0,
                                         stop=[stop], stream=True)
    assert "".join(c.choices[0].text for c in streamed) == full[: full.index(stop)]


def test_repeated_prompt_hits_the_prefix_cache(client):
    prompt = "where there is a will there is a way. " * 6
    first = client.completions.create(model="tiny", prompt=prompt, max_tokens=2, temperature=0)
    second = client.completions.create(model="tiny", prompt=prompt, max_tokens=2, temperature=0)
    assert second.usage.prompt_tokens_details.cached_tokens >= 8
    assert first.choices[0].text == second.choices[0].text


def test_concurrent_requests_equal_sequential_ones(client):
    prompts = [f"tokens {i} and words" for i in range(8)]
    alone = [client.completions.create(model="tiny", prompt=p, max_tokens=10, temperature=0).choices[0].text
             for p in prompts]
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        together = list(pool.map(
            lambda p: client.completions.create(model="tiny", prompt=p, max_tokens=10, temperature=0).choices[0].text,
            prompts))
    assert together == alone


@pytest.mark.parametrize("kwargs,param", [
    ({"temperature": 3}, "temperature"),
    ({"top_p": 1.5}, "top_p"),
    ({"n": 0}, "n"),
    ({"stop": ["a", "b", "c", "d", "e"]}, "stop"),
    ({"response_format": {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "nothing"}}}},
     "response_format"),
])
def test_bad_requests_get_openai_errors(client, kwargs, param):
    with pytest.raises(openai.BadRequestError) as e:
        client.chat.completions.create(model="tiny", messages=[{"role": "user", "content": "hi"}], **kwargs)
    assert e.value.status_code == 400
    assert e.value.body["type"] == "invalid_request_error"
    assert e.value.body["param"] == param


def test_context_overflow_and_unknown_model(client):
    with pytest.raises(openai.BadRequestError) as e:
        client.completions.create(model="tiny", prompt="word " * 400, max_tokens=4)
    assert e.value.code == "context_length_exceeded"
    with pytest.raises(openai.NotFoundError) as e:
        client.chat.completions.create(model="other", messages=[{"role": "user", "content": "hi"}])
    assert e.value.code == "model_not_found"


def _metric(server, name):
    import urllib.request

    text = urllib.request.urlopen(server.url + "/metrics", timeout=10).read().decode()
    for line in text.splitlines():
        if line.startswith((name + " ", name + "{")):
            return float(line.rsplit(" ", 1)[1])
    raise AssertionError(f"{name} not on /metrics")


def _settled(server, name, want):
    """The metric once it reads `want` (the scheduler publishes its counters at the end of each step, just after
    the answer went out), or its last value after 5 s."""
    import time

    deadline = time.monotonic() + 5
    while (value := _metric(server, name)) != want and time.monotonic() < deadline:
        time.sleep(0.01)
    return value


def test_n_choices_prefill_the_prompt_once_and_equal_separate_requests(client, server):
    prompt = [(13 * i + 5) % 290 + 3 for i in range(21)]  # seen by no other test: no prefix-cache hits
    kwargs = {"model": "tiny", "max_tokens": 6, "temperature": 1.0, "extra_body": {"ignore_eos": True}}
    _settled(server, "slipstream_model_requests_running", 0)
    before = _metric(server, "slipstream_model_forwarded_tokens_total")
    copied = _metric(server, "slipstream_model_kv_blocks_copied_total")
    forked = client.completions.create(prompt=prompt, n=3, seed=9, **kwargs)
    assert forked.usage.prompt_tokens == 21 and forked.usage.completion_tokens == 18
    # The prompt once, then 5 decodes per choice (the 6th token is never forwarded): not 3 * (21 + 5).
    want = before + 21 + 3 * 5
    assert _settled(server, "slipstream_model_forwarded_tokens_total", want) == want
    # 21 positions in blocks of 8: the third block is shared half full, and two of the forks copy it to write.
    assert _metric(server, "slipstream_model_kv_blocks_copied_total") == copied + 2
    alone = [client.completions.create(prompt=prompt, seed=9 + i, **kwargs).choices[0].text for i in range(3)]
    assert [c.text for c in forked.choices] == alone


def test_metrics_count_requests_tokens_and_latencies(client, server):
    before = _metric(server, "slipstream_model_generated_tokens_total")
    ttft_before = _metric(server, "slipstream_model_time_to_first_token_seconds_count")
    client.completions.create(model="tiny", prompt="hello", max_tokens=5, temperature=0,
                              extra_body={"ignore_eos": True})
    assert _settled(server, "slipstream_model_generated_tokens_total", before + 5) == before + 5
    assert _metric(server, "slipstream_model_time_to_first_token_seconds_count") == ttft_before + 1
    assert _metric(server, "slipstream_model_kv_blocks_total") == 16 * 1024 * 1024 // (2 * 2 * 8 * 32 * 4)
    assert _settled(server, "slipstream_model_requests_running", 0) == 0


# Servers that compute the same outputs another way: speculation by prompt lookup; a KV cache so small that
# sequences are preempted (swapped or recomputed) and prefills are chunked; no prefix cache.
VARIANTS = {
    "speculative": ["--model-speculative-ngram", "3"],
    "swap": ["--model-preemption", "swap", "--model-kv-cache", "64k", "--model-max-batch-tokens", "24"],
    "recompute": ["--model-kv-cache", "64k", "--no-model-prefix-cache", "--model-prefill-chunk", "5"],
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_variants_generate_what_the_plain_server_generates(client, model_path, variant):
    prompts = [f"the client reads {i} tokens one by one; the server streams them" for i in range(6)]

    def complete(c, p):
        return c.completions.create(model="tiny", prompt=p, max_tokens=16, temperature=0,
                                    extra_body={"ignore_eos": True}).choices[0].text

    # Four sequences sharing the prompt's KV blocks, preempted with the rest. Sampled, except with speculation
    # (drafts are verified losslessly, but not with the random draws of plain sampling).
    temperature = 0 if variant == "speculative" else 0.8

    def forked(c):
        r = c.completions.create(model="tiny", prompt=prompts[0], max_tokens=16, temperature=temperature, n=4,
                                 seed=3, extra_body={"ignore_eos": True})
        return [choice.text for choice in r.choices]

    plain = [complete(client, p) for p in prompts]
    plain_forks = forked(client)
    other = Server([str(SERVE), "--port", "0", "--threads", "1", "--model", str(model_path), "--model-id", "tiny",
                    "--model-threads", "2", "--model-block-size", "8", *VARIANTS[variant]])
    try:
        c = openai.OpenAI(base_url=other.url + "/v1", api_key="unused", max_retries=0, timeout=60)
        with concurrent.futures.ThreadPoolExecutor(7) as pool:
            forks = pool.submit(forked, c)
            assert list(pool.map(lambda p: complete(c, p), prompts)) == plain
            assert forks.result() == plain_forks
        if variant == "speculative":
            assert _metric(other, "slipstream_model_spec_accepted_tokens_total") > 0
        elif variant in ("swap", "recompute"):
            assert _metric(other, "slipstream_model_preemptions_total") > 0
    finally:
        other.stop()


@pytest.fixture(scope="module")
def draft_path(tmp_path_factory):
    """A draft for model_path: the same vocabulary and tokenizer, another shape and seed."""
    path = tmp_path_factory.mktemp("draft") / "draft.gguf"
    mtm.write_model(str(path), mtm.Config(arch="llama", type="f32", dim=32, layers=1, heads=2, kv_heads=1, ffn=64,
                                          vocab=300, context=256, seed=23, tokenizer="spm", chat_template="chatml"))
    return path


@pytest.mark.parametrize("draft", ["self", "random"])
def test_draft_model_servers_generate_what_the_plain_server_generates(client, model_path, draft_path, draft):
    prompts = [f"a draft model guesses {i} tokens; the model keeps the ones it would have chosen" for i in range(6)]

    def complete(c, p):
        return c.completions.create(model="tiny", prompt=p, max_tokens=24, temperature=0,
                                    extra_body={"ignore_eos": True}).choices[0].text

    def forked(c):
        r = c.completions.create(model="tiny", prompt=prompts[0], max_tokens=16, temperature=0, n=3,
                                 extra_body={"ignore_eos": True})
        return [choice.text for choice in r.choices]

    plain = [complete(client, p) for p in prompts]
    plain_forks = forked(client)
    path = model_path if draft == "self" else draft_path
    other = Server([str(SERVE), "--port", "0", "--threads", "1", "--model", str(model_path), "--model-id", "tiny",
                    "--model-threads", "2", "--model-block-size", "8", "--model-draft", str(path),
                    "--model-speculative-draft", "4", "--model-draft-kv-cache", "4m"])
    try:
        c = openai.OpenAI(base_url=other.url + "/v1", api_key="unused", max_retries=0, timeout=60)
        with concurrent.futures.ThreadPoolExecutor(7) as pool:
            forks = pool.submit(forked, c)
            assert list(pool.map(lambda p: complete(c, p), prompts)) == plain
            assert forks.result() == plain_forks
        _settled(other, "slipstream_model_requests_running", 0)
        proposed = _metric(other, "slipstream_model_spec_draft_tokens_total")
        accepted = _metric(other, "slipstream_model_spec_accepted_tokens_total")
        print(f"draft {draft}: {accepted:.0f} of {proposed:.0f} drafts accepted")
        assert proposed > 0
        if draft == "self":
            # The model drafting for itself; only batching's float rounding could flip a near-tie.
            assert accepted >= 0.95 * proposed
        else:
            assert accepted < proposed
    finally:
        other.stop()


def test_a_draft_with_another_vocabulary_is_refused(tmp_path, model_path):
    import subprocess

    other = tmp_path / "other.gguf"
    mtm.write_model(str(other), mtm.Config(arch="llama", type="f32", dim=32, layers=1, heads=2, kv_heads=1, ffn=64,
                                          vocab=299, context=256, seed=23))
    if not SERVE.exists():
        pytest.skip(f"{SERVE} is not built")
    r = subprocess.run([str(SERVE), "--port", "0", "--model", str(model_path), "--model-draft", str(other)],
                       check=False, capture_output=True, text=True, timeout=30)
    assert r.returncode != 0
    assert "draft model does not fit the model: its vocabulary has 299 tokens, the model's 300" in r.stdout + r.stderr


def test_a_client_that_leaves_cancels_its_sequence(tmp_path):
    import http.client
    import json
    import time

    # A long context, so the stream would run for seconds if nothing cancelled it.
    path = tmp_path / "long.gguf"
    mtm.write_model(str(path), mtm.Config(arch="llama", type="f32", dim=64, layers=2, heads=4, kv_heads=2, ffn=128,
                                          vocab=300, context=8192, seed=5))
    server = Server([str(SERVE), "--port", "0", "--threads", "1", "--model", str(path), "--model-id", "tiny",
                     "--model-threads", "1", "--model-kv-cache", "16m"])
    try:
        conn = http.client.HTTPConnection(server.host, server.port, timeout=30)
        body = {"model": "tiny", "prompt": "hello", "max_tokens": 8000, "stream": True, "ignore_eos": True}
        conn.request("POST", "/v1/completions", body=json.dumps(body), headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        assert response.status == 200
        assert response.readline().startswith(b"data: ")  # the stream is running
        conn.sock.close()
        conn.close()
        deadline = time.monotonic() + 10
        while _metric(server, "slipstream_model_requests_running") != 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert _metric(server, "slipstream_model_requests_running") == 0
        assert _metric(server, "slipstream_model_generated_tokens_total") < 8000
    finally:
        server.stop()


def test_a_deadline_ends_a_long_request(tmp_path):
    path = tmp_path / "long.gguf"
    mtm.write_model(str(path), mtm.Config(arch="llama", type="f32", dim=64, layers=2, heads=4, kv_heads=2, ffn=128,
                                          vocab=300, context=8192, seed=5))
    server = Server([str(SERVE), "--port", "0", "--threads", "1", "--model", str(path), "--model-id", "tiny",
                     "--model-threads", "1", "--model-kv-cache", "16m"])
    try:
        c = openai.OpenAI(base_url=server.url + "/v1", api_key="unused", max_retries=0, timeout=60)
        r = c.completions.create(model="tiny", prompt="hello", max_tokens=8000,
                                 extra_body={"ignore_eos": True, "deadline_ms": 100})
        assert r.choices[0].finish_reason == "length"
        assert 0 < r.usage.completion_tokens < 8000
        with pytest.raises(openai.BadRequestError) as e:
            c.completions.create(model="tiny", prompt="hello", max_tokens=2, extra_body={"deadline_ms": 0})
        assert e.value.body["param"] == "deadline_ms"
    finally:
        server.stop()
