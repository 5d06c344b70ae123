// Tests of the Jinja subset: expressions, statements, whitespace control, filters, methods, limits and errors.
#include <gtest/gtest.h>

#include "agent/infer/jinja/limits.h"
#include "agent/infer/jinja/template.h"

namespace slipstream::agent::infer::jinja {
namespace {

Object message(std::string role, std::string content) {
    Object m;
    m.set("role", Value::string(std::move(role)));
    m.set("content", Value::string(std::move(content)));
    return m;
}

Object variables() {
    Object v;
    v.set("messages",
          Value::array({Value::object(message("system", "Be brief.")), Value::object(message("user", " Hi ")),
                        Value::object(message("assistant", "Hello."))}));
    v.set("bos_token", Value::string("<s>"));
    v.set("eos_token", Value::string("</s>"));
    v.set("add_generation_prompt", Value::boolean(true));
    v.set("n", Value::integer(7));
    v.set("s", Value::string("héllo"));
    v.set("d", Value::object(message("user", "x")));
    v.set("nothing", Value::none());
    return v;
}

base::Result<std::string> render(std::string_view src, const Object& vars = variables()) {
    SLIPSTREAM_ASSIGN_OR_RETURN(Template t, Template::parse(src));
    return t.render(vars);
}

struct Case {
    const char* source;
    const char* expected;
};

void run_cases(const std::vector<Case>& cases) {
    for (const Case& c : cases) {
        auto r = render(c.source);
        ASSERT_TRUE(r.is_ok()) << c.source << " -> " << r.status().message();
        EXPECT_EQ(*r, c.expected) << c.source;
    }
}

TEST(Jinja, Literals) {
    run_cases({
        {"{{ 'a\\n\\'b' }}", "a\n'b"},
        {"{{ \"x\\u00e9\\x41\" }}",
         "x\xc3\xa9"
         "A"},
        {"{{ 'a' 'b' }}", "ab"},
        {"{{ 1_000 }} {{ 1.5 }} {{ 2e3 }} {{ 1.0 }} {{ 0.1 }}", "1000 1.5 2000.0 1.0 0.1"},
        {"{{ true }} {{ False }} {{ none }} {{ None }}", "True False None None"},
        {"{{ [1, 'a', none, [true]] }}", "[1, 'a', None, [True]]"},
        {"{{ {'k': 'v', 'n': 1} }}", "{'k': 'v', 'n': 1}"},
        {"{{ (1, 2) }} {{ () }} {{ (3) }}", "[1, 2] [] 3"},
        {"{{ \"it's\" }}{{ [\"it's\"] }}", "it's[\"it's\"]"},
        {"{{ undefined_thing }}|", "|"},
    });
}

TEST(Jinja, Operators) {
    run_cases({
        {"{{ 1 + 2 * 3 }} {{ (1 + 2) * 3 }} {{ 7 / 2 }} {{ 7 // 2 }} {{ -7 // 2 }} {{ -7 % 3 }} {{ 2 ** 10 }}",
         "7 9 3.5 3 -4 2 1024"},
        {"{{ 1 + 1.5 }} {{ 'a' + 'b' }} {{ [1] + [2] }} {{ 'ab' * 2 }} {{ [0] * 3 }}", "2.5 ab [1, 2] abab [0, 0, 0]"},
        {"{{ 'n=' ~ n ~ none }}", "n=7None"},
        {"{{ 1 == 1.0 }} {{ 1 == true }} {{ 'a' != 'b' }} {{ [1, 2] == [1, 2] }} {{ d == {'role': 'user', "
         "'content': 'x'} }}",
         "True True True True True"},
        {"{{ 1 < 2 < 3 }} {{ 3 > 2 > 2 }} {{ 'a' < 'b' }} {{ 2 >= 2 }} {{ 1 <= 0 }}", "True False True True False"},
        {"{{ 'llo' in s }} {{ 'x' not in s }} {{ 2 in [1, 2] }} {{ 'role' in d }} {{ 'zz' in d }}",
         "True True True True False"},
        {"{{ 0 or 'x' }} {{ 1 and 'y' }} {{ '' and 1 }}| {{ not 0 }} {{ not 'a' }}", "x y | True False"},
        {"{{ 'y' if n > 3 else 'n' }} {{ 'y' if n > 9 }}|", "y |"},
        {"{{ -n }} {{ +n }} {{ - 2 ** 2 }}", "-7 7 4"},
        {"{{ not n is defined }} {{ n is not none and nothing is none }}", "False True"},
    });
}

TEST(Jinja, AttributesItemsAndSlices) {
    run_cases({
        {"{{ messages[0].role }} {{ messages[1]['content'] }} {{ messages[-1].role }}", "system  Hi  assistant"},
        {"{{ messages[5] is defined }} {{ d.missing is defined }} {{ nothing.x is defined }}", "False False False"},
        {"{{ s[0] }}{{ s[1] }} {{ s[1:3] }} {{ s[::-1] }} {{ s[-2:] }}", "h\xc3\xa9 \xc3\xa9l oll\xc3\xa9h lo"},
        {"{{ [1, 2, 3, 4][1:] }} {{ [1, 2, 3, 4][::2] }} {{ [1, 2, 3][::-1] }} {{ [1, 2, 3][:-1] }}",
         "[2, 3, 4] [1, 3] [3, 2, 1] [1, 2]"},
        {"{{ messages.0.role }}", "system"},
    });
}

TEST(Jinja, Statements) {
    run_cases({
        {"{% if n > 10 %}a{% elif n > 5 %}b{% else %}c{% endif %}", "b"},
        {"{% for m in messages %}{{ loop.index0 }}{{ loop.index }}{{ loop.first }}{{ loop.last }}{{ loop.length }};"
         "{% endfor %}",
         "01TrueFalse3;12FalseFalse3;23FalseTrue3;"},
        {"{% for m in messages if m.role != 'system' %}{{ loop.index }}{{ m.role }}{% endfor %}", "1user2assistant"},
        {"{% for k, v in d.items() %}{{ k }}={{ v }},{% endfor %}", "role=user,content=x,"},
        {"{% for k in d %}{{ k }},{% endfor %}", "role,content,"},
        {"{% for x in [] %}x{% else %}empty{% endfor %}", "empty"},
        {"{% for x in [1, 2, 3, 4] %}{% if x == 2 %}{% continue %}{% endif %}{% if x == 4 %}{% break %}{% endif %}"
         "{{ x }}{% endfor %}",
         "13"},
        {"{% for x in [1, 2] %}{{ loop.previtem }}-{{ loop.nextitem }}|{{ loop.cycle('a', 'b') }} {% endfor %}",
         "-2|a 1-|b "},
        {"{% set x = 1 %}{% for i in [1] %}{% set x = 2 %}{% endfor %}{{ x }}", "1"},
        {"{% set ns = namespace(x=1, found=false) %}{% for i in [1, 2] %}{% set ns.x = ns.x + i %}{% endfor %}"
         "{{ ns.x }}{{ ns.found }}",
         "4False"},
        {"{% set a, b = 1, 2 %}{{ a }}{{ b }}", "12"},
        {"{% set block %}in {{ n }}{% endset %}[{{ block }}]", "[in 7]"},
        {"{% macro m(x, y='d') %}<{{ x }}{{ y }}>{% endmacro %}{{ m(1) }}{{ m(2, y='z') }}{{ m('q', 'r') }}",
         "<1d><2z><qr>"},
        {"{% set y = 1 %}{% macro m() %}{{ y }}{% endmacro %}{% for i in [1] %}{% set y = 2 %}{{ m() }}{% endfor %}"
         "{% set y = 3 %}{{ m() }}",
         "13"},
        {"{# a comment #}x{% raw %}{{ not parsed }}{% endraw %}", "x{{ not parsed }}"},
        {"{% generation %}kept{% endgeneration %}", "kept"},
        {"{% for i in range(3) %}{{ i }}{% endfor %}{{ range(1, 7, 2) }}", "012[1, 3, 5]"},
    });
}

TEST(Jinja, WhitespaceControl) {
    run_cases({
        {"a  {{- ' b ' -}}  c", "a b c"},
        {"a\n  {%- if true -%}\n  b\n{%- endif %}", "ab"},
        // trim_blocks drops the newline after a block tag; lstrip_blocks the indentation before one.
        {"{% if true %}\n    x\n{% endif %}\n", "    x\n"},
        {"<\n    {% if true %}\n    y\n    {% endif %}\n>", "<\n    y\n>"},
        {"{{ 'v' }}\nnext", "v\nnext"},
        {"a {% if true %}b{% endif %}", "a b"},
        {"  {%+ if true %}x{% endif %}", "  x"},
        {"{# c #}\nz", "z"},
        {"line\r\nend\n", "line\nend"},
    });
}

TEST(Jinja, Filters) {
    run_cases({
        {"{{ '  a b  ' | trim }}|{{ 'xxaxx' | trim('x') }}|{{ s | length }}|{{ messages | length }}|{{ d | count }}",
         "a b|a|5|3|2"},
        {"{{ 'aBc' | lower }} {{ 'aBc' | upper }} {{ 'hello wORLD' | capitalize }} {{ 'hello wORLD-x' | title }}",
         "abc ABC Hello world Hello World-X"},
        {"{{ (messages | first).role }} {{ (messages | last)['role'] }}", "system assistant"},
        {"{{ [1, 2, 3] | first }} {{ [1, 2, 3] | last }} {{ [1, 2] | join(', ') }} {{ ['a', 'b'] | join }}",
         "1 3 1, 2 ab"},
        {"{{ missing | default('dflt') }} {{ '' | default('e', true) }} {{ 'v' | d('z') }}", "dflt e v"},
        {"{{ 'a-b-c' | replace('-', '+') }} {{ 'a-b-c' | replace('-', '', 1) }} {{ 5 | string }}", "a+b+c ab-c 5"},
        {"{% for k, v in d | items %}{{ k }}:{{ v }} {% endfor %}{{ d | items | list | length }}",
         "role:user content:x 2"},
        {"{{ messages | selectattr('role', 'equalto', 'user') | map(attribute='content') | list }}", "[' Hi ']"},
        {"{{ messages | rejectattr('role', 'eq', 'user') | map(attribute='role') | join(',') }}", "system,assistant"},
        {"{{ ['a', 'B'] | map('upper') | join }} {{ [0, 1, 2] | select | list }} {{ [1, 2, 3] | reject('odd') | list "
         "}}",
         "AB [1, 2] [2]"},
        {"{{ 'a\\nb\\n\\nc' | indent(2) }}|{{ 'a\\nb' | indent(2, true) }}|{{ 'a\\n\\nb' | indent('-', blank=true) }}",
         "a\n  b\n\n  c|  a\n  b|a\n-\n-b"},
        {"{{ [3, 1, 3] | unique | list }} {{ [1, 2] | reverse | list }} {{ 'abc' | reverse }} {{ -3 | abs }}",
         "[3, 1] [2, 1] cba 3"},
        {"{{ '<a&b>' | e }} {{ '12' | int + 1 }} {{ 'x' | int }} {{ '1.5' | float }}", "&lt;a&amp;b&gt; 13 0 1.5"},
    });
}

TEST(Jinja, ToJsonAsTransformersWritesIt) {
    run_cases({
        {"{{ d | tojson }}", "{\"role\": \"user\", \"content\": \"x\"}"},
        {"{{ [1, 2.5, none, true, 'é\"\\n'] | tojson }}", "[1, 2.5, null, true, \"\xc3\xa9\\\"\\n\"]"},
        {"{{ {'b': [1, {}], 'a': []} | tojson(indent=2) }}", "{\n  \"b\": [\n    1,\n    {}\n  ],\n  \"a\": []\n}"},
        {"{{ {'b': 1, 'a': 2} | tojson(sort_keys=true, separators=(',', ':')) }}", "{\"a\":2,\"b\":1}"},
        {"{{ 'é😀' | tojson(ensure_ascii=true) }}", "\"\\u00e9\\ud83d\\ude00\""},
    });
}

TEST(Jinja, Methods) {
    run_cases({
        {"{{ '  x  '.strip() }}|{{ '  x  '.lstrip() }}|{{ '  x  '.rstrip() }}|{{ 'xyx'.strip('x') }}", "x|x  |  x|y"},
        {"{{ 'abc'.startswith('ab') }} {{ 'abc'.endswith('bc') }} {{ 'abc'.startswith(('x', 'a')) }}",
         "True True True"},
        {"{{ ' a  b '.split() }} {{ 'a,b,,c'.split(',') }} {{ 'a b c'.split(' ', 1) }}",
         "['a', 'b'] ['a', 'b', '', 'c'] ['a', 'b c']"},
        {"{{ 'Ab'.upper() }}{{ 'Ab'.lower() }} {{ 'a-a'.replace('a', 'b') }} {{ ', '.join(['x', 'y']) }}",
         "ABab b-b x, y"},
        {"{{ d.items() | list | length }} {{ d.keys() | list }} {{ d.values() | list }}",
         "2 ['role', 'content'] ['user', 'x']"},
        {"{{ d.get('role') }} {{ d.get('nope') }} {{ d.get('nope', 'z') }}", "user None z"},
    });
}

TEST(Jinja, Tests) {
    run_cases({
        {"{{ n is defined }}{{ zz is undefined }}{{ nothing is none }}{{ s is string }}{{ d is mapping }}",
         "TrueTrueTrueTrueTrue"},
        {"{{ messages is iterable }}{{ s is sequence }}{{ n is number }}{{ n is integer }}{{ 1.5 is float }}",
         "TrueTrueTrueTrueTrue"},
        {"{{ n is odd }}{{ n is even }}{{ 9 is divisibleby 3 }}{{ n is divisibleby(2) }}", "TrueFalseTrueFalse"},
        {"{{ 'a' is in 'cat' }}{{ n is eq 7 }}{{ true is boolean }}{{ s is lower }}{{ 'AB' is upper }}",
         "TrueTrueTrueTrueTrue"},
        {"{{ d is string }}{{ 5 is not string }}", "FalseTrue"},
    });
}

TEST(Jinja, ChatTemplateShapes) {
    run_cases({
        {"{{ bos_token }}{% for m in messages %}{% if m['role'] == 'system' %}<<SYS>>{{ m['content'] }}<</SYS>>"
         "{% elif m['role'] == 'user' %}[INST] {{ m['content'] | trim }} [/INST]{% else %} {{ m['content'] }}"
         "{{ eos_token }}{% endif %}{% endfor %}",
         "<s><<SYS>>Be brief.<</SYS>>[INST] Hi [/INST] Hello.</s>"},
        {"{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + "
         "'<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}",
         "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\n Hi <|im_end|>\n"
         "<|im_start|>assistant\nHello.<|im_end|>\n<|im_start|>assistant\n"},
    });
}

struct ErrorCase {
    const char* source;
    const char* message;  // a substring of the error
    bool limit;           // out_of_range rather than invalid_argument
};

TEST(Jinja, ErrorsAreStatusesNamingTheProblem) {
    const std::vector<ErrorCase> cases = {
        {"{{ raise_exception('Roles must alternate') }}", "template line 1: raise_exception: Roles must alternate",
         false},
        {"x\n{% if %}", "template line 2: unexpected '%}'", false},
        {"{% if true %}", "expected 'endif'", false},
        {"{{ 'a' ", "not closed", false},
        {"{{ 'abc }}", "string literal not closed", false},
        {"{% for x in y %}{% endif %}", "unknown or unsupported tag 'endif'", false},
        {"{% include 'x' %}", "unknown or unsupported tag 'include'", false},
        {"{{ x | nosuch }}", "no filter named 'nosuch'", false},
        {"{{ x is nosuch }}", "no test named 'nosuch'", false},
        {"{{ undefined_var.attr }}", "'undefined_var' is undefined", false},
        {"{{ undefined_var + 'a' }}", "'undefined_var' is undefined", false},
        {"{{ 1 + 'a' }}", "unsupported operand type(s) for +: 'int' and 'str'", false},
        {"{{ 1 / 0 }}", "division by zero", false},
        {"{{ 9223372036854775807 + 1 }}", "integer overflow", true},
        {"{{ messages.append(1) }}", "'list' object has no method 'append'", false},
        {"{% set x = 1 %}{% set x.y = 2 %}", "cannot assign attribute on non-namespace object", false},
        {"{{ 1 < 'a' }}", "'<' not supported between instances of 'int' and 'str'", false},
        {"{% for a, b in [1] %}{% endfor %}", "cannot unpack int into 2 names", false},
        {"{{ 'a' @ 1 }}", "unexpected character '@'", false},
    };
    for (const ErrorCase& c : cases) {
        auto r = render(c.source);
        ASSERT_FALSE(r.is_ok()) << c.source << " rendered " << *r;
        EXPECT_NE(r.status().message().find(c.message), std::string::npos) << c.source << ": " << r.status().message();
        EXPECT_EQ(r.status().is_out_of_range(), c.limit) << c.source << ": " << r.status().message();
    }
}

std::string repeat(std::string_view s, int n) {
    std::string out;
    for (int i = 0; i < n; ++i)
        out += s;
    return out;
}

void expect_limit(const std::string& source, std::string_view limit_name) {
    auto r = render(source);
    ASSERT_FALSE(r.is_ok()) << source.substr(0, 80);
    EXPECT_TRUE(r.status().is_out_of_range()) << r.status().message();
    EXPECT_NE(r.status().message().find(limit_name), std::string::npos) << r.status().message();
}

TEST(Jinja, LimitsAgainstHostileTemplates) {
    expect_limit(std::string(kMaxTemplateBytes + 1, 'x'), "kMaxTemplateBytes");
    // Deep nesting of every kind is refused before it can exhaust the stack (parse or destruction).
    expect_limit("{{ " + repeat("(", 1000) + "1" + repeat(")", 1000) + " }}", "kMaxDepth");
    expect_limit("{{ " + repeat("[", 1000) + repeat("]", 1000) + " }}", "kMaxDepth");
    expect_limit("{{ " + repeat("not ", 1000) + "1 }}", "kMaxDepth");
    expect_limit("{{ " + repeat("-", 1000) + "1 }}", "kMaxDepth");
    expect_limit("{{ 1" + repeat(" + 1", 50000) + " }}", "kMaxDepth");
    expect_limit("{{ x" + repeat(".a", 50000) + " }}", "kMaxDepth");
    expect_limit("{{ x" + repeat("|trim", 50000) + " }}", "kMaxDepth");
    expect_limit(repeat("{% if true %}", 1000) + repeat("{% endif %}", 1000), "kMaxDepth");
    expect_limit("{% if a %}" + repeat("{% elif a %}", 1000) + "{% endif %}", "kMaxDepth");
    // Unbounded recursion through macros.
    expect_limit("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", "kMaxDepth");
    // Work: loops, list growth, string growth and output.
    expect_limit("{% for i in range(2000000) %}{% endfor %}", "kMaxLoopIterations");
    expect_limit(
        "{% for i in range(1000) %}{% for j in range(1000) %}{% for k in range(10) %}{% endfor %}"
        "{% endfor %}{% endfor %}",
        "kMaxLoopIterations");
    expect_limit("{{ [1] * 100000000000 }}", "kMaxLoopIterations");
    expect_limit("{% for i in range(400000) %}" + repeat("{% if i %}{% endif %}", 30) + "{% endfor %}",
                 "kMaxRenderSteps");
    expect_limit("{% set ns = namespace(l=[]) %}{% for i in range(100000) %}{% set ns.l = ns.l + [i] %}{% endfor %}",
                 "kMaxLoopIterations");
    expect_limit("{{ 'x' * 100000000000 }}", "kMaxOutputBytes");
    auto empty = render("{{ ('' * 4000000000000000000) ~ ([] * 4000000000000000000) }}");
    ASSERT_TRUE(empty.is_ok()) << empty.status().message();
    EXPECT_EQ(*empty, "[]");
    expect_limit("{% set ns = namespace(s='x') %}{% for i in range(40) %}{% set ns.s = ns.s + ns.s %}{% endfor %}",
                 "kMaxOutputBytes");
    expect_limit("{% set s = 'x' * 1000000 %}{% for i in range(100) %}{{ s }}{% endfor %}", "kMaxOutputBytes");
    expect_limit("{% set s = 'x' * 1000000 %}{% for i in range(300) %}{% set t = s ~ i %}{% endfor %}",
                 "kMaxBuiltBytes");
    // Values nested without end (freeing them would recurse as deep), and namespaces holding themselves.
    expect_limit("{% set ns = namespace(x=1) %}{% for i in range(100000) %}{% set ns.x = [ns.x] %}{% endfor %}",
                 "a list or dict nested deeper than kMaxDepth");
    expect_limit(
        "{% set ns = namespace(x=1) %}{% for i in range(100000) %}{% set ns.x = {'a': ns.x} | items %}"
        "{% endfor %}",
        "a list or dict nested deeper than kMaxDepth");
    auto r = render("{% set ns = namespace() %}{% set ns.self = [ns] %}");
    ASSERT_FALSE(r.is_ok());
    EXPECT_NE(r.status().message().find("a namespace cannot be stored in a namespace"), std::string::npos);
}

TEST(Jinja, TemplateKnowsTheNamesItReads) {
    auto t = Template::parse("{% for m in messages %}{{ m.content }}{% endfor %}{{ bos_token }}");
    ASSERT_TRUE(t.is_ok());
    EXPECT_TRUE(t->uses("messages"));
    EXPECT_TRUE(t->uses("bos_token"));
    EXPECT_FALSE(t->uses("content"));
    EXPECT_FALSE(t->uses("tools"));
}

}  // namespace
}  // namespace slipstream::agent::infer::jinja
