"""Tool calling through the OpenAI routes with the `openai` client: a required or named call is decoded under
the tool's parameter schema and comes back as tool_calls (whole and streamed); tools and earlier calls and
results reach the prompt; requests that misuse tools get 400s naming the field."""
import json

import pytest

from tests.conftest import BUILD, Server

pytest.importorskip("numpy", reason="numpy is not installed")
pytest.importorskip("gguf", reason="the gguf package is not installed (pip install gguf numpy)")
openai = pytest.importorskip("openai", reason="the openai client is not installed (pip install openai)")
jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is not installed")

from tests.infer.models import mtm

SERVE = BUILD / "src/app/slipstream-serve"

WEATHER = {
    "type": "object",
    "properties": {"city": {"type": "string", "maxLength": 10}, "unit": {"enum": ["c", "f"]}},
    "required": ["city", "unit"],
    "additionalProperties": False,
}
TIME = {"type": "object", "properties": {"zone": {"enum": ["utc", "cet"]}}, "required": ["zone"],
        "additionalProperties": False}
TOOLS = [
    {"type": "function", "function": {"name": "weather", "description": "Weather in a city", "parameters": WEATHER}},
    {"type": "function", "function": {"name": "time", "parameters": TIME}},
]
MESSAGES = [{"role": "user", "content": "What is the weather in Oslo?"}]


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    if not SERVE.exists():
        pytest.skip(f"{SERVE} is not built (ninja -C build slipstream-serve)")
    path = tmp_path_factory.mktemp("model") / "bpe.gguf"
    mtm.write_model(str(path), mtm.Config(arch="qwen2", type="f32", dim=64, layers=2, heads=4, kv_heads=2, ffn=128,
                                          vocab=400, context=2048, seed=9, tokenizer="bpe", chat_template="chatml"))
    s = Server([str(SERVE), "--port", "0", "--threads", "1", "--model", str(path), "--model-id", "tiny",
                "--model-threads", "2", "--model-kv-cache", "16m"])
    c = openai.OpenAI(base_url=s.url + "/v1", api_key="unused", max_retries=0, timeout=120)
    c.metrics_url = s.url + "/metrics"
    yield c
    s.stop()


def constrained_refused(client):
    import urllib.request

    text = urllib.request.urlopen(client.metrics_url, timeout=10).read().decode()
    (line,) = [x for x in text.splitlines() if x.startswith("slipstream_model_constrained_refused_total ")]
    return float(line.split()[1])


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_named_function_is_called_with_valid_arguments(client, seed):
    r = client.chat.completions.create(model="tiny", messages=MESSAGES, tools=TOOLS, max_tokens=300, seed=seed,
                                       tool_choice={"type": "function", "function": {"name": "weather"}})
    message = r.choices[0].message
    assert r.choices[0].finish_reason == "stop"
    assert message.content is None
    (call,) = message.tool_calls
    assert call.type == "function" and call.function.name == "weather" and call.id.startswith("call_")
    jsonschema.validate(json.loads(call.function.arguments), WEATHER)


def test_required_calls_one_of_the_tools(client):
    before = constrained_refused(client)
    r = client.chat.completions.create(model="tiny", messages=MESSAGES, tools=TOOLS, tool_choice="required",
                                       max_tokens=300, seed=4)
    assert r.choices[0].finish_reason == "tool_calls"
    (call,) = r.choices[0].message.tool_calls
    jsonschema.validate(json.loads(call.function.arguments), WEATHER if call.function.name == "weather" else TIME)
    assert constrained_refused(client) > before  # a random model's draws are mostly refused, then redrawn


def test_a_streamed_call_arrives_as_a_tool_calls_delta(client):
    chunks = list(client.chat.completions.create(
        model="tiny", messages=MESSAGES, tools=TOOLS, max_tokens=300, seed=5, stream=True,
        tool_choice={"type": "function", "function": {"name": "time"}}))
    deltas = [c.choices[0].delta for c in chunks if c.choices]
    assert deltas[0].role == "assistant"
    assert not "".join(d.content or "" for d in deltas)
    calls = [t for d in deltas for t in (d.tool_calls or [])]
    assert len(calls) == 1 and calls[0].index == 0 and calls[0].function.name == "time"
    jsonschema.validate(json.loads(calls[0].function.arguments), TIME)
    assert chunks[-1].choices[0].finish_reason == "stop"


def test_tools_calls_and_results_reach_the_prompt(client):
    plain = client.chat.completions.create(model="tiny", messages=MESSAGES, max_tokens=1)
    offered = client.chat.completions.create(model="tiny", messages=MESSAGES, tools=TOOLS, max_tokens=1)
    assert offered.usage.prompt_tokens > plain.usage.prompt_tokens + 50
    none = client.chat.completions.create(model="tiny", messages=MESSAGES, tools=TOOLS, tool_choice="none",
                                          max_tokens=1)
    assert none.usage.prompt_tokens == plain.usage.prompt_tokens
    history = [*MESSAGES,
               {"role": "assistant", "content": None, "tool_calls": [
                   {"id": "call_1", "type": "function",
                    "function": {"name": "weather", "arguments": "{\"city\":\"Oslo\",\"unit\":\"c\"}"}}]},
               {"role": "tool", "tool_call_id": "call_1", "content": "4 degrees, rain"}]
    answered = client.chat.completions.create(model="tiny", messages=history, tools=TOOLS, max_tokens=1)
    assert answered.usage.prompt_tokens > offered.usage.prompt_tokens + 10


def test_an_optional_call_is_text_or_calls(client):
    r = client.chat.completions.create(model="tiny", messages=MESSAGES, tools=TOOLS, max_tokens=20, seed=1)
    choice = r.choices[0]
    assert (choice.message.tool_calls is None) == (choice.finish_reason != "tool_calls")


@pytest.mark.parametrize("kwargs,param", [
    ({"tool_choice": {"type": "function", "function": {"name": "nope"}}, "tools": TOOLS}, "tool_choice"),
    ({"tool_choice": "required"}, "tool_choice"),
    ({"tools": [{"type": "function", "function": {"name": "bad name"}}]}, "tools[0].function.name"),
    ({"tools": TOOLS + TOOLS[:1]}, "tools"),
    ({"tools": TOOLS, "tool_choice": "required", "response_format": {"type": "json_object"}}, "response_format"),
])
def test_misused_tools_are_400s(client, kwargs, param):
    with pytest.raises(openai.BadRequestError) as e:
        client.chat.completions.create(model="tiny", messages=MESSAGES, max_tokens=4, **kwargs)
    assert e.value.body["param"] == param


def test_tools_need_the_chat_endpoint(client):
    with pytest.raises(openai.BadRequestError) as e:
        client.completions.create(model="tiny", prompt="hi", max_tokens=2, extra_body={"tools": TOOLS})
    assert e.value.body["param"] == "tools"
