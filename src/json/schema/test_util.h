// Test helpers: parse JSON text, compile, and render errors as one comparable line each.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "base/arena.h"
#include "json/parse.h"
#include "json/schema/schema.h"
#include "json/writer.h"

namespace slipstream::json::schema::testing {

/// Parses `text` into `arena`; fails the test (and returns null) on malformed JSON.
inline json::Value parse_json(std::string_view text, base::Arena& arena) {
    json::ParseOptions options;
    options.max_depth = 2000;
    options.max_members = 1000000;
    json::ParseError error;
    auto result = json::parse(text, arena, options, &error);
    EXPECT_TRUE(result.is_ok()) << "bad test JSON: " << error.message << " in " << text;
    return result.is_ok() ? *result.value() : json::Value();
}

inline Schema compile_text(std::string_view schema_text, const CompileOptions& options = {}) {
    base::Arena arena;
    return compile(parse_json(schema_text, arena), options);
}

inline std::string to_json(const json::Value& v) {
    std::string out;
    json::Writer writer(out);
    (void)writer.write_value(v);
    return out;
}

/// "type|loc|msg|ctx|input", loc as a JSON array: `missing|["a"]|Field required|null|{}`.
inline std::string render(const ValidationError& e) {
    std::string loc = "[";
    for (std::size_t i = 0; i < e.loc.size(); ++i) {
        if (i) loc += ",";
        loc += e.loc[i].is_index() ? std::to_string(e.loc[i].index) : "\"" + std::string(e.loc[i].key).append("\"");
    }
    loc += "]";
    return std::string(e.type) + "|" + loc + "|" + e.msg + "|" + to_json(e.ctx) + "|" + to_json(e.input);
}

inline std::vector<std::string> render_all(const ErrorSink& sink) {
    std::vector<std::string> out;
    for (const ValidationError& e : sink.errors())
        out.push_back(render(e));
    return out;
}

}  // namespace slipstream::json::schema::testing
