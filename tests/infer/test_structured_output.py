"""Grammar-constrained decoding through the OpenAI routes: a random-weight model asked for response_format
json_schema writes documents that parse and validate (several seeds, streaming and not); json_object gives an
object; max_tokens cuts with finish_reason "length"; a bad schema is a 400 naming response_format; integer bounds
hold; a schema no output can satisfy ends with a 400 naming response_format, not a server error."""
import json

import pytest

from tests.conftest import BUILD, Server

pytest.importorskip("numpy", reason="numpy is not installed")
pytest.importorskip("gguf", reason="the gguf package is not installed (pip install gguf numpy)")
openai = pytest.importorskip("openai", reason="the openai client is not installed (pip install openai)")
jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is not installed")

from tests.infer.models import mtm

SERVE = BUILD / "src/app/slipstream-serve"

PERSON = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "maxLength": 12},
        "age": {"type": "integer"},
        "color": {"enum": ["red", "green", "blue"]},
    },
    "required": ["name", "age", "color"],
    "additionalProperties": False,
}
FORMAT = {"type": "json_schema", "json_schema": {"name": "person", "schema": PERSON, "strict": True}}
MESSAGES = [{"role": "user", "content": "Describe a person as JSON."}]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    if not SERVE.exists():
        pytest.skip(f"{SERVE} is not built (ninja -C build slipstream-serve)")
    path = tmp_path_factory.mktemp("model") / "bpe.gguf"
    mtm.write_model(str(path), mtm.Config(arch="llama", type="f32", dim=64, layers=2, heads=4, kv_heads=2, ffn=128,
                                          vocab=400, context=1024, seed=5, tokenizer="bpe", chat_template="chatml"))
    s = Server([str(SERVE), "--port", "0", "--threads", "1", "--model", str(path), "--model-id", "tiny",
                "--model-threads", "2", "--model-kv-cache", "16m", "--model-block-size", "8"])
    yield s
    s.stop()


@pytest.fixture(scope="module")
def client(server):
    return openai.OpenAI(base_url=server.url + "/v1", api_key="unused", max_retries=0, timeout=120)


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_json_schema_output_validates(client, seed):
    r = client.chat.completions.create(model="tiny", messages=MESSAGES, response_format=FORMAT, seed=seed,
                                       max_tokens=800)
    choice = r.choices[0]
    assert choice.finish_reason == "stop", choice.message.content
    doc = json.loads(choice.message.content)
    jsonschema.validate(doc, PERSON)
    assert isinstance(doc["age"], int) and doc["color"] in ("red", "green", "blue")


@pytest.mark.parametrize("seed", [6, 7, 8])
def test_json_schema_output_validates_when_streamed(client, seed):
    stream = client.chat.completions.create(model="tiny", messages=MESSAGES, response_format=FORMAT, seed=seed,
                                            max_tokens=800, stream=True)
    text, reasons = "", []
    for chunk in stream:
        text += chunk.choices[0].delta.content or ""
        reasons.append(chunk.choices[0].finish_reason)
    assert reasons[-1] == "stop", text
    jsonschema.validate(json.loads(text), PERSON)


def test_several_choices_and_text_completions_are_constrained(client):
    r = client.chat.completions.create(model="tiny", messages=MESSAGES, response_format=FORMAT, seed=9, n=3,
                                       max_tokens=800)
    assert len(r.choices) == 3
    for choice in r.choices:
        assert choice.finish_reason == "stop", choice.message.content
        jsonschema.validate(json.loads(choice.message.content), PERSON)
    t = client.completions.create(model="tiny", prompt="person:", seed=10, max_tokens=800,
                                  extra_body={"response_format": FORMAT})
    assert t.choices[0].finish_reason == "stop", t.choices[0].text
    jsonschema.validate(json.loads(t.choices[0].text), PERSON)


def test_json_object_gives_an_object(client):
    # Keys and strings are free here, and a random model rarely closes them: some seeds run out of tokens.
    stopped = 0
    for seed in range(1, 13):
        r = client.chat.completions.create(model="tiny", messages=MESSAGES, response_format={"type": "json_object"},
                                           seed=seed, max_tokens=800)
        choice = r.choices[0]
        assert choice.message.content.lstrip(" \t\r\n").startswith("{"), choice.message.content
        if choice.finish_reason == "stop":
            assert isinstance(json.loads(choice.message.content), dict)
            stopped += 1
        else:
            assert choice.finish_reason == "length"
    assert stopped >= 3


def test_max_tokens_cuts_with_length(client):
    r = client.chat.completions.create(model="tiny", messages=MESSAGES, response_format=FORMAT, seed=1, max_tokens=3)
    assert r.choices[0].finish_reason == "length"
    assert r.usage.completion_tokens == 3
    with pytest.raises(json.JSONDecodeError):
        json.loads(r.choices[0].message.content)


@pytest.mark.parametrize("response_format", [
    {"type": "json_schema", "json_schema": {"name": "bad", "schema": {"type": "nothing"}}},
    {"type": "json_schema", "json_schema": {"name": "bad", "schema": {"$ref": "#/$defs/missing"}}},
    {"type": "json_schema", "json_schema": {"name": "big", "schema": {"description": "x" * 70000}}},
    {"type": "json_schema", "json_schema": {"schema": PERSON}},
    {"type": "xml"},
])
def test_bad_response_formats_are_400(client, response_format):
    with pytest.raises(openai.BadRequestError) as e:
        client.chat.completions.create(model="tiny", messages=MESSAGES, response_format=response_format)
    assert e.value.status_code == 400
    assert e.value.body["param"].startswith("response_format")


BOUNDED = {
    "type": "object",
    "properties": {"n": {"type": "integer", "minimum": 40, "maximum": 45}, "m": {"type": "integer", "maximum": -7}},
    "required": ["n", "m"],
    "additionalProperties": False,
}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_integer_bounds_hold(client, seed):
    r = client.chat.completions.create(model="tiny", messages=MESSAGES, seed=seed, max_tokens=800, response_format={
        "type": "json_schema", "json_schema": {"name": "bounded", "schema": BOUNDED, "strict": True}})
    assert r.choices[0].finish_reason == "stop", r.choices[0].message.content
    doc = json.loads(r.choices[0].message.content)
    jsonschema.validate(doc, BOUNDED)


@pytest.mark.parametrize("stream", [False, True])
def test_a_schema_no_output_can_satisfy_is_a_400(client, stream):
    # The empty string is the only one maxLength allows, and `not` (settled by the whole value) refuses it.
    fmt = {"type": "json_schema", "json_schema": {"name": "never", "schema": {
        "type": "string", "maxLength": 0, "not": {"const": ""}}}}
    if not stream:
        with pytest.raises(openai.BadRequestError) as e:
            client.chat.completions.create(model="tiny", messages=MESSAGES, response_format=fmt, max_tokens=50)
        assert e.value.body["code"] == "response_schema_dead_end"
        assert e.value.body["param"] == "response_format"
        return
    with pytest.raises(openai.APIError) as e:
        for _ in client.chat.completions.create(model="tiny", messages=MESSAGES, response_format=fmt, max_tokens=50,
                                                stream=True):
            pass
    assert "response_schema_dead_end" in str(e.value.body) or "no token can continue" in str(e.value)


def test_text_format_is_unconstrained(client):
    a = client.chat.completions.create(model="tiny", messages=MESSAGES, response_format={"type": "text"}, seed=3,
                                       max_tokens=20)
    b = client.chat.completions.create(model="tiny", messages=MESSAGES, seed=3, max_tokens=20)
    assert a.choices[0].message.content == b.choices[0].message.content
