// The vocabulary and schemas json_mask_test and json_mask_precompute_test share: a vocabulary rich in the pieces
// that matter inside and around strings (quotes with suffixes, escapes, whole and split UTF-8, control bytes, long
// runs; every single byte is a token, its id the byte), and the schemas OpenAI's strict mode accepts plus lengths and
// integer bounds, each with valid documents.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "agent/infer/json_constraint.h"

namespace slipstream::agent::infer::mask_test {

inline std::vector<std::string> rich_vocab() {
    std::set<std::string> v;
    std::vector<std::string> out = {""};  // token 0: end of sequence
    for (int b = 1; b < 256; ++b)
        out.emplace_back(1, static_cast<char>(b));
    const std::vector<std::string> pieces = {"\"",
                                             "\",",
                                             "\"}",
                                             "\":",
                                             "\"]",
                                             "\"},",
                                             "\"}}",
                                             "\"],",
                                             "\":\"",
                                             "\",\"",
                                             "\"\n",
                                             "\" ",
                                             " \"",
                                             ":\"",
                                             ",\"",
                                             "{\"",
                                             "[\"",
                                             "\"}]",
                                             "\"\"",
                                             "\"a\"",
                                             "\"x\",",
                                             "\"}\n",
                                             "\"]}",
                                             "\")",
                                             "\".",
                                             "\",\n",
                                             "\": ",
                                             "\\n",
                                             "\\\"",
                                             "\\\\",
                                             "\\t",
                                             "\\u00e9",
                                             "\\u",
                                             "\\u00",
                                             "\\ud83d",
                                             "\\ude00",
                                             "\\ud83d\\ude00",
                                             "\\x",
                                             "\\",
                                             "a\\",
                                             "\xC3\xA9",
                                             "\xC3",
                                             "\xA9",
                                             "\xE4\xB8\xAD",
                                             "\xE4",
                                             "\xB8\xAD",
                                             "\xF0\x9F\x98\x80",
                                             "\xF0\x9F",
                                             "\x98\x80",
                                             "caf\xC3\xA9",
                                             "\xED\xA0\x80",
                                             "\xC0\xAF",
                                             "a\nb",
                                             "\n",
                                             "\n\n",
                                             "  ",
                                             "    ",
                                             "\t",
                                             " \n",
                                             "{",
                                             "}",
                                             "[",
                                             "]",
                                             "{}",
                                             "[]",
                                             "},",
                                             "],",
                                             "}}",
                                             "]}",
                                             "}]",
                                             ":",
                                             ",",
                                             ", ",
                                             "true",
                                             "false",
                                             "null",
                                             "tr",
                                             "ue",
                                             "nu",
                                             "ll",
                                             "fal",
                                             "se",
                                             " true",
                                             " null",
                                             "0",
                                             "1",
                                             "12",
                                             "123",
                                             "-",
                                             "-1",
                                             "0.",
                                             ".5",
                                             "e",
                                             "e+",
                                             "E-",
                                             "1e",
                                             "99",
                                             "100",
                                             "42",
                                             "007",
                                             "3.14",
                                             "a",
                                             "b",
                                             "ab",
                                             "abc",
                                             "hello",
                                             " world",
                                             "x\"",
                                             "y\",",
                                             "id",
                                             "name",
                                             "\"name",
                                             "name\"",
                                             "\"name\":",
                                             "\"tags",
                                             "\"kind",
                                             "\"items",
                                             "\"value",
                                             "\"next",
                                             "red",
                                             "green",
                                             "blue",
                                             "\"red",
                                             "\"red\"",
                                             "re",
                                             "gr",
                                             "een",
                                             "bl",
                                             "ue\"",
                                             "ok",
                                             "\"ok\"",
                                             "cat",
                                             "dog",
                                             "\"cat\"}",
                                             "\"dog\",",
                                             "tags",
                                             "kind",
                                             "items",
                                             "value",
                                             "next",
                                             "count",
                                             "\"count",
                                             "\":1",
                                             "\":[",
                                             "\":{",
                                             "\":\"a",
                                             "\":null",
                                             "\": null",
                                             "note",
                                             "\"note",
                                             "zzz",
                                             "\xE2\x80\x9C",
                                             "\x7F",
                                             "~",
                                             "aaaaaaaa",
                                             "                    ",
                                             "\"age",
                                             "age",
                                             "\":5",
                                             "5}",
                                             "5,",
                                             "1}",
                                             "0,"};
    for (const std::string& p : pieces)
        if (v.insert(p).second && p.size() > 1) out.push_back(p);
    std::mt19937_64 rng(7);
    const std::string letters = "etaoinshrd";
    for (int i = 0; i < 400; ++i) {  // word pieces, some with a leading space or a trailing quote
        std::string t = rng() % 2 ? " " : "";
        const size_t len = 1 + rng() % 6;
        for (size_t k = 0; k < len; ++k)
            t += letters[rng() % letters.size()];
        if (rng() % 8 == 0) t += "\"";
        if (rng() % 16 == 0) t += ",";
        if (v.insert(t).second) out.push_back(t);
    }
    out.push_back(std::string(300, 'a'));  // a body token past a byte's count of characters
    return out;
}

struct Case {
    const char* name;
    const char* schema;
    std::vector<const char*> valid;  // documents the walk must be able to write
};

// What OpenAI's strict structured outputs accept (required properties, additionalProperties false, arrays, enums,
// const, anyOf, nullable types, $ref/$defs), string lengths and integer bounds.
inline std::vector<Case> cases() {
    return {
        {"object",
         R"({"type":"object","required":["name","age","tags"],"additionalProperties":false,
             "properties":{"name":{"type":"string"},"age":{"type":"integer"},
                           "tags":{"type":"array","items":{"type":"string"}}}})",
         {R"({"name":"caf\u00e9 \"x\"","age":-12,"tags":["a","\ud83d\ude00",""]})",
          "{\"name\" : \"\xE4\xB8\xAD\xC3\xA9\", \"age\":0,\n \"tags\":[]}"}},
        {"enum_const",
         R"({"type":"object","required":["color","kind"],"additionalProperties":false,
             "properties":{"color":{"enum":["red","green","blue"]},"kind":{"const":"cat"}}})",
         {R"({"color":"green","kind":"cat"})", R"({"kind":"cat","color":"red"})"}},
        {"nullable_anyof",
         R"({"type":"object","required":["note","value"],"additionalProperties":false,
             "properties":{"note":{"type":["string","null"]},
                           "value":{"anyOf":[{"type":"number"},{"type":"boolean"},{"type":"null"}]}}})",
         {R"({"note":null,"value":3.14})", R"({"note":"hello world","value":true})", R"({"note":"","value":null})"}},
        {"refs",
         R"({"$defs":{"node":{"type":"object","required":["value","next"],"additionalProperties":false,
                              "properties":{"value":{"type":"integer"},
                                            "next":{"anyOf":[{"$ref":"#/$defs/node"},{"type":"null"}]}}}},
             "$ref":"#/$defs/node"})",
         {R"({"value":1,"next":{"value":2,"next":null}})"}},
        {"lengths",
         R"({"type":"object","required":["id","items"],"additionalProperties":false,
             "properties":{"id":{"type":"string","minLength":2,"maxLength":5},
                           "items":{"type":"array","minItems":1,"maxItems":3,
                                    "items":{"type":"string","maxLength":3}}}})",
         {R"({"id":"ab","items":["x"]})", R"({"id":"caf\u00e9","items":["","abc","\n"]})"}},
        {"string_lengths_anyof",
         R"({"anyOf":[{"type":"string","maxLength":2},{"type":"string","minLength":6,"maxLength":8}]})",
         {R"("ab")", R"("abcdef")", R"("")"}},
        {"top_string", R"({"type":"string"})", {R"("hello \"world\"")", "\"\xF0\x9F\x98\x80\""}},
        {"array_of_objects",
         R"({"type":"array","items":{"type":"object","required":["ok"],"additionalProperties":false,
                                      "properties":{"ok":{"type":"boolean"},"count":{"type":"integer"}}}})",
         {R"([{"ok":true},{"count":12,"ok":false}])", "[]"}},
        {"free_object", R"({"type":"object"})", {R"({"a":{"b":[1,"x",null]},"c":"\u00e9"})"}},
        {"integer_bounds",
         R"({"type":"object","required":["n","m","k"],"additionalProperties":false,
             "properties":{"n":{"type":"integer","minimum":10,"maximum":20},
                           "m":{"type":"integer","exclusiveMinimum":-5,"exclusiveMaximum":3},
                           "k":{"type":"integer","minimum":100,"multipleOf":5},
                           "w":{"type":"integer","minimum":1,"maximum":50,"multipleOf":7}}})",
         {R"({"n":15,"m":-4,"k":100})", R"({"k":123455,"n":20,"m":2,"w":49})"}},
        {"negative_integer", R"({"type":"integer","minimum":-30,"maximum":-7})", {"-7", "-30", "-12"}},
        {"patterns",
         R"({"type":"object","required":["code","email"],"additionalProperties":false,
             "properties":{"code":{"type":"string","pattern":"^[A-Z]{3}-\\d{4}$"},
                           "email":{"type":"string","pattern":"^[^@\\s]+@[a-z0-9-]+\\.[a-z]{2,}$","maxLength":24},
                           "tag":{"type":"string","pattern":"x|yz","maxLength":6}}})",
         {R"({"code":"ABC-1234","email":"a.b@ex-1.com"})",
          R"({"email":"\u00e9\"@x.io","code":"ZZZ-0000","tag":"ayzb"})",
          "{\"code\":\"QRS-9876\",\"email\":\"\xE4\xB8\xAD@b.cd\",\"tag\":\"x\"}"}},
        {"pattern_min_length",
         R"({"type":"object","required":["id"],"additionalProperties":false,
             "properties":{"id":{"type":"string","pattern":"^(?:ab|cdefgh|x+)$","minLength":4},"n":{"type":"integer"}}})",
         {R"({"id":"cdefgh"})", R"({"n":1,"id":"xxxx"})"}},
        {"pattern_anyof",
         R"({"anyOf":[{"type":"string","pattern":"^a+$","maxLength":5},{"type":"string","pattern":"^(?:b|cd)+$"},
                      {"type":"integer"}]})",
         {R"("aaa")", R"("bcdb")", R"("\u0061")", "12"}},
    };
}

struct Vocab {
    std::vector<std::string> bytes = rich_vocab();
    std::shared_ptr<const TokenBytes> tokens = std::make_shared<TokenBytes>(bytes);
};

inline const Vocab& vocab() {
    static const Vocab v;
    return v;
}

inline std::shared_ptr<const structured::CompiledSchema> compile(const char* schema) {
    auto s = structured::CompiledSchema::create(schema);
    EXPECT_TRUE(s.is_ok()) << schema;
    return s.is_ok() ? *s : nullptr;
}

}  // namespace slipstream::agent::infer::mask_test
