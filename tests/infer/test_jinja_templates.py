"""The Jinja interpreter (src/agent/infer/jinja/) against Python's jinja2 configured as HF transformers renders chat
templates: chat templates in the common formats (written for this test), several conversations, with and without the
generation prompt; slipstream-gguf-dump renders each from a GGUF model that carries the template."""
import datetime
import importlib.util
import json
import subprocess
import sys

import pytest

from tests.conftest import BUILD, ROOT

jinja2 = pytest.importorskip("jinja2", reason="jinja2 is not installed")
pytest.importorskip("gguf", reason="the gguf package is not installed (pip install gguf numpy)")
from jinja2.sandbox import ImmutableSandboxedEnvironment

DUMP = BUILD / "src/agent/infer/slipstream-gguf-dump"

_spec = importlib.util.spec_from_file_location("make_test_model", ROOT / "scripts/infer/make_test_model.py")
mtm = importlib.util.module_from_spec(_spec)
sys.modules["make_test_model"] = mtm
_spec.loader.exec_module(mtm)

BOS, EOS = "<s>", "</s>"  # the SentencePiece test vocabulary's, whose tokenizer adds BOS

TEMPLATES = {
    "chatml": """{%- for message in messages %}
    {%- if loop.first and message['role'] != 'system' %}
        {{- '<|im_start|>system\\nYou are a helpful assistant.<|im_end|>\\n' }}
    {%- endif %}
    {{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\\n' }}
{%- endif %}
""",
    # Multi-line on purpose: the indentation before {{ }} and the newline after }} are output (trim_blocks and
    # lstrip_blocks touch only block tags).
    "llama2": """{% if messages[0]['role'] == 'system' %}
    {% set loop_messages = messages[1:] %}
    {% set system_message = messages[0]['content'] %}
{% else %}
    {% set loop_messages = messages %}
    {% set system_message = false %}
{% endif %}
{% for message in loop_messages %}
    {% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}
        {{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}
    {% endif %}
    {% if loop.index0 == 0 and system_message != false %}
        {% set content = '<<SYS>>\\n' + system_message + '\\n<</SYS>>\\n\\n' + message['content'] %}
    {% else %}
        {% set content = message['content'] %}
    {% endif %}
    {% if message['role'] == 'user' %}
        {{ bos_token + '[INST] ' + content.strip() + ' [/INST]' }}
    {% elif message['role'] == 'assistant' %}
        {{ ' ' + content.strip() + ' ' + eos_token }}
    {% endif %}
{% endfor %}""",
    "llama3": (
        "{% set loop_messages = messages %}{% for message in loop_messages %}{% set content = '<|start_header_id|>' + "
        "message['role'] + '<|end_header_id|>\\n\\n'+ message['content'] | trim + '<|eot_id|>' %}"
        "{% if loop.index0 == 0 %}{% set content = bos_token + content %}{% endif %}{{ content }}{% endfor %}"
        "{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{% endif %}"
    ),
    "mistral": """{%- if messages[0]['role'] == 'system' %}
    {%- set system_message = messages[0]['content'] %}
    {%- set loop_messages = messages[1:] %}
{%- else %}
    {%- set loop_messages = messages %}
{%- endif %}
{{- bos_token }}
{%- for message in loop_messages %}
    {%- if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}
        {{- raise_exception('After the optional system message, roles must alternate user/assistant/...') }}
    {%- endif %}
    {%- if message['role'] == 'user' %}
        {%- if loop.last and system_message is defined %}
            {{- '[INST] ' + system_message + '\\n\\n' + message['content'] + '[/INST]' }}
        {%- else %}
            {{- '[INST] ' + message['content'] + '[/INST]' }}
        {%- endif %}
    {%- elif message['role'] == 'assistant' %}
        {{- ' ' + message['content'] + eos_token}}
    {%- else %}
        {{- raise_exception('Only user and assistant roles are supported, after an optional system message') }}
    {%- endif %}
{%- endfor %}
""",
    "gemma": """{{ bos_token }}
{%- if messages[0]['role'] == 'system' -%}
    {%- set first_user_prefix = messages[0]['content'] + '\\n\\n' -%}
    {%- set loop_messages = messages[1:] -%}
{%- else -%}
    {%- set first_user_prefix = "" -%}
    {%- set loop_messages = messages -%}
{%- endif -%}
{%- for message in loop_messages -%}
    {%- if (message['role'] == 'user') != (loop.index0 % 2 == 0) -%}
        {{ raise_exception("Conversation roles must alternate user/assistant/user/assistant/...") }}
    {%- endif -%}
    {%- set role = 'model' if message['role'] == 'assistant' else message['role'] -%}
    {{ '<start_of_turn>' + role + '\\n' + (first_user_prefix if loop.first else "") }}
    {{- message['content'] | trim }}
    {{- '<end_of_turn>\\n' }}
{%- endfor -%}
{%- if add_generation_prompt -%}
    {{ '<start_of_turn>model\\n' }}
{%- endif -%}
""",
    "phi3": (
        "{% for message in messages %}{% if message['role'] == 'system' %}{{'<|system|>\\n' + message['content'] + "
        "'<|end|>\\n'}}{% elif message['role'] == 'user' %}{{'<|user|>\\n' + message['content'] + '<|end|>\\n'}}"
        "{% elif message['role'] == 'assistant' %}{{'<|assistant|>\\n' + message['content'] + '<|end|>\\n'}}"
        "{% endif %}{% endfor %}{% if add_generation_prompt %}{{ '<|assistant|>\\n' }}{% else %}{{ eos_token }}"
        "{% endif %}"
    ),
    "zephyr": """{% for message in messages %}
{% if message['role'] == 'user' %}
{{ '<|user|>\\n' + message['content'] + eos_token }}
{% elif message['role'] == 'system' %}
{{ '<|system|>\\n' + message['content'] + eos_token }}
{% elif message['role'] == 'assistant' %}
{{ '<|assistant|>\\n'  + message['content'] + eos_token }}
{% endif %}
{% if loop.last and add_generation_prompt %}
{{ '<|assistant|>' }}
{% endif %}
{% endfor %}""",
    # Qwen2.5's layout: a tools branch (not taken: no tools are passed), tool results grouped into one user turn.
    "qwen2.5": """{%- if tools %}
    {{- '<|im_start|>system\\n' }}
    {%- if messages[0]['role'] == 'system' %}
        {{- messages[0]['content'] }}
    {%- else %}
        {{- 'You are a helpful assistant.' }}
    {%- endif %}
    {{- "\\n\\n# Tools\\n\\n<tools>" }}
    {%- for tool in tools %}
        {{- "\\n" }}
        {{- tool | tojson }}
    {%- endfor %}
    {{- "\\n</tools><|im_end|>\\n" }}
{%- else %}
    {%- if messages[0]['role'] == 'system' %}
        {{- '<|im_start|>system\\n' + messages[0]['content'] + '<|im_end|>\\n' }}
    {%- else %}
        {{- '<|im_start|>system\\nYou are a helpful assistant.<|im_end|>\\n' }}
    {%- endif %}
{%- endif %}
{%- for message in messages %}
    {%- if (message.role == "user") or (message.role == "system" and not loop.first) or
           (message.role == "assistant" and not message.tool_calls) %}
        {{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}
    {%- elif message.role == "assistant" %}
        {{- '<|im_start|>' + message.role }}
        {%- for tool_call in message.tool_calls %}
            {{- '\\n<tool_call>\\n{"name": "' }}{{- tool_call.name }}{{- '"}\\n</tool_call>' }}
        {%- endfor %}
        {{- '<|im_end|>\\n' }}
    {%- elif message.role == "tool" %}
        {%- if (loop.index0 == 0) or (messages[loop.index0 - 1].role != "tool") %}
            {{- '<|im_start|>user' }}
        {%- endif %}
        {{- '\\n<tool_response>\\n' }}
        {{- message.content }}
        {{- '\\n</tool_response>' }}
        {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}
            {{- '<|im_end|>\\n' }}
        {%- endif %}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\\n' }}
{%- endif %}
""",
    # More of the subset at once: macros, namespace, filters, tests, methods, slices, loop variables, tojson.
    "features": """{%- macro turn(role, text, last=false) -%}
<{{ role | upper }}{{ '*' if last }}>{{ text | trim | replace('\\n', ' / ') }}</{{ role | capitalize }}>
{%- endmacro -%}
{%- set ns = namespace(users=0, last_user='', sys=none) -%}
{%- for m in messages if m.role != 'system' %}
    {%- if m.role == 'user' %}{% set ns.users = ns.users + 1 %}{% set ns.last_user = m.content %}{% endif %}
{%- endfor -%}
{%- for m in messages | selectattr('role', 'equalto', 'system') %}{% set ns.sys = m.content %}{% endfor -%}
[{{ ns.users }} users; roles {{ messages | map(attribute='role') | unique | join('/') }};
 sys={{ ns.sys if ns.sys is not none else 'none' }}; last={{ ns.last_user[:12] }}|{{ ns.last_user[::-1][:3] }}]
{% for m in messages %}
  {% if m.content is string and m.content.startswith(' ') %}(lead){% endif %}
  {{ turn(m.role, m.content, last=loop.last) }} #{{ loop.index }}/{{ loop.length }} rev{{ loop.revindex0 }}
{% endfor %}
{{ messages[-1] | tojson }}
{{ {'n': messages | length, 'roles': messages | map(attribute='role') | list, 'x': [1.5, none, true]} | tojson(indent=2) }}
{{ (messages | last).content.split() | length }} words; {{ 'yes' if 'user' in messages | map(attribute='role') else 'no' }}
{% for k, v in {'a': 1, 'b': [2]} | items %}{{ k }}={{ v }}{{ ', ' if not loop.last }}{% endfor %}
{{ '%d'|length }} {{ 7 // 2 }} {{ 7 / 2 }} {{ -7 % 3 }} {{ 2 ** 8 }} {{ 'ab' ~ 1 ~ none }} {{ 'x' * 3 }}
{%- if add_generation_prompt %}
<ASSISTANT>
{%- endif %}
""",
}

# The family each template's markers name (what ChatTemplate renders when interpreting fails).
FALLBACK = {"chatml": "chatml", "llama2": "llama2", "llama3": "llama3", "mistral": "llama2", "gemma": "gemma",
            "phi3": "phi3", "zephyr": "zephyr", "qwen2.5": "chatml", "features": "chatml"}

CONVERSATIONS = {
    "system_first": [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": " Hi there "},
        {"role": "assistant", "content": "Hello."},
        {"role": "user", "content": "Bye"},
    ],
    "one_user": [{"role": "user", "content": "What is 2+2?"}],
    "turns": [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": " b "},
        {"role": "user", "content": "c\nd"},
    ],
    "unicode_and_markup": [
        {"role": "user", "content": ' H\u00e9llo  \n w\u00f6rld \U0001f600 "q" \'s\' {{ not a tag }} {% if %} \\n '},
    ],
    "tool_results": [
        {"role": "system", "content": "Use tools."},
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": "Checking."},
        {"role": "tool", "content": '{"temp": 21}'},
        {"role": "tool", "content": '{"wind": 3}'},
        {"role": "user", "content": "Thanks"},
    ],
    "not_alternating": [{"role": "user", "content": "one"}, {"role": "user", "content": "two"}],
}


def transformers_environment():
    """jinja2 set up as transformers' chat templating does it."""

    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    def strftime_now(fmt):
        return datetime.datetime.now().strftime(fmt)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=["jinja2.ext.loopcontrols"])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env


def reference(source, messages, add_generation_prompt):
    """(prompt, None) or (None, error message)."""
    template = transformers_environment().from_string(source)
    try:
        text = template.render(messages=messages, add_generation_prompt=add_generation_prompt, bos_token=BOS,
                               eos_token=EOS)
    except jinja2.exceptions.TemplateError as e:
        return None, str(e)
    return text, None


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    if not DUMP.exists():
        pytest.skip(f"{DUMP} is not built (ninja -C build slipstream-gguf-dump)")
    out = {}
    for name, source in TEMPLATES.items():
        path = tmp_path_factory.mktemp("jinja") / f"{name}.gguf"
        mtm.write_model(str(path), mtm.Config(layers=1, vocab=300, dim=16, heads=2, kv_heads=1, ffn=32,
                                              chat_template=source))
        out[name] = path
    return out


def render(path, messages, add_generation_prompt):
    args = [str(DUMP), str(path), "--chat-json", json.dumps(messages)]
    if not add_generation_prompt:
        args.append("--no-generation-prompt")
    proc = subprocess.run(args, check=False, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize("add_generation_prompt", [True, False])
@pytest.mark.parametrize("conversation", list(CONVERSATIONS))
@pytest.mark.parametrize("template", list(TEMPLATES))
def test_prompt_equals_jinja2(models, template, conversation, add_generation_prompt):
    messages = CONVERSATIONS[conversation]
    expected, error = reference(TEMPLATES[template], messages, add_generation_prompt)
    got = render(models[template], messages, add_generation_prompt)
    assert got["chat_family"] == "jinja"
    assert got["chat_fallback_family"] == FALLBACK[template]
    if error is not None:
        # The template refused the conversation: so does the interpreter, with the template's message, and the
        # prompt comes from the fallback family.
        assert got["chat_jinja_error"] == f"template line {_raise_line(TEMPLATES[template])}: raise_exception: {error}"
        return
    assert "chat_jinja_error" not in got
    # The tokenizer adds BOS, so ChatTemplate drops the one the template writes first.
    assert got["chat"] == expected.removeprefix(BOS)


def _raise_line(source):
    """The line of the alternation check's raise_exception (the first one the test conversations reach)."""
    for i, line in enumerate(source.split("\n"), 1):
        if "raise_exception" in line and "alternate" in line:
            return i
    raise AssertionError("no alternation check")


def test_the_references_cover_both_outcomes():
    """The conversations make some templates raise and all of them render; a test that cannot fail is a defect."""
    outcomes = {reference(TEMPLATES[t], CONVERSATIONS[c], True)[1] is None for t in TEMPLATES for c in CONVERSATIONS}
    assert outcomes == {True, False}
