// build_upstream_body: stream forced on, model and response_format added when absent, refusals.
#include "agent/llm_proxy/upstream_request.h"

#include <gtest/gtest.h>

#include "base/arena.h"
#include "json/parse.h"

namespace slipstream::agent::llm_proxy {
namespace {

const json::Value& schema(base::Arena& arena) {
    return **json::parse(R"({"type":"object","required":["a"]})", arena);
}

TEST(UpstreamBody, RewritesForOneValidatedStream) {
    base::Arena arena;
    UpstreamBodyOptions o{.default_model = "m1", .add_response_format = true, .strict = true, .schema_name = "out"};
    auto body = build_upstream_body(R"({"messages":[{"role":"user","content":"hi"}],"stream":false,"temperature":0})",
                                    schema(arena), o);
    ASSERT_TRUE(body.is_ok()) << body.status().to_string();
    EXPECT_EQ(*body, R"({"messages":[{"role":"user","content":"hi"}],"temperature":0,"stream":true,"model":"m1",)"
                     R"("response_format":{"type":"json_schema","json_schema":{"name":"out","schema":{"type":"object",)"
                     R"("required":["a"]},"strict":true}}})");
    // The request's own model and response_format stay; no default model: none added.
    body = build_upstream_body(R"({"model":"x","messages":[],"response_format":{"type":"json_object"},"n":1})",
                               schema(arena), UpstreamBodyOptions{});
    ASSERT_TRUE(body.is_ok());
    EXPECT_EQ(*body, R"({"model":"x","messages":[],"response_format":{"type":"json_object"},"n":1,"stream":true})");
    o.add_response_format = false;
    body = build_upstream_body(R"({"messages":[]})", schema(arena), o);
    EXPECT_EQ(*body, R"({"messages":[],"stream":true,"model":"m1"})");
}

TEST(UpstreamBody, Refusals) {
    base::Arena arena;
    for (const char* bad : {"", "[]", "{", R"({"messages":{}})", R"({"model":"x"})", R"({"messages":[],"n":2})",
                            R"({"messages":[],"stream":"yes"})", R"({"messages":[],"messages":[]})"}) {
        auto body = build_upstream_body(bad, schema(arena), UpstreamBodyOptions{});
        EXPECT_TRUE(body.status().is_invalid_argument()) << bad;
    }
}

}  // namespace
}  // namespace slipstream::agent::llm_proxy
