// Tests of JSON-RPC parsing and classification, protocol negotiation, cursors, URI templates and HTTP header rules.
#include "agent/mcp/jsonrpc.h"

#include <gtest/gtest.h>

#include "agent/mcp/http_rules.h"
#include "agent/mcp/list_cursor.h"
#include "agent/mcp/protocol.h"
#include "agent/mcp/uri_template.h"

namespace slipstream::mcp::detail {
namespace {

struct ClassifyCase {
    const char* text;
    MessageKind kind;
    const char* id_json;
};

TEST(JsonRpc, ClassifiesEachKind) {
    const ClassifyCase cases[] = {
        {R"({"jsonrpc":"2.0","id":7,"method":"ping"})", MessageKind::kRequest, "7"},
        {R"({"jsonrpc":"2.0","id":"a\"b","method":"ping","params":{}})", MessageKind::kRequest, R"("a\"b")"},
        {R"({"jsonrpc":"2.0","method":"notifications/initialized"})", MessageKind::kNotification, "null"},
        {R"({"jsonrpc":"2.0","id":3,"result":{}})", MessageKind::kResponse, "3"},
        {R"({"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"x"}})", MessageKind::kResponse, "3"},
        {R"({"jsonrpc":"1.0","id":1,"method":"ping"})", MessageKind::kInvalid, "1"},
        {R"({"id":1,"method":"ping"})", MessageKind::kInvalid, "1"},
        {R"({"jsonrpc":"2.0","id":null,"method":"ping"})", MessageKind::kInvalid, "null"},
        {R"({"jsonrpc":"2.0","id":{},"method":"ping"})", MessageKind::kInvalid, "null"},
        {R"({"jsonrpc":"2.0","id":1,"method":"ping","params":[1]})", MessageKind::kInvalid, "1"},
        {R"({"jsonrpc":"2.0","id":1,"method":""})", MessageKind::kInvalid, "1"},
        {R"({"jsonrpc":"2.0","id":1,"method":5})", MessageKind::kInvalid, "1"},
        {R"({"jsonrpc":"2.0","id":1})", MessageKind::kInvalid, "1"},
        {R"({"jsonrpc":"2.0","id":1,"result":1,"error":{}})", MessageKind::kInvalid, "1"},
        {R"(42)", MessageKind::kInvalid, "null"},
    };
    for (const ClassifyCase& c : cases) {
        Incoming in = parse_messages(c.text, {});
        ASSERT_EQ(in.error_code, 0) << c.text;
        ASSERT_EQ(in.messages.size(), 1u);
        EXPECT_EQ(in.messages[0].kind, c.kind) << c.text;
        EXPECT_EQ(in.messages[0].id_json, c.id_json) << c.text;
    }
}

TEST(JsonRpc, DocumentErrors) {
    EXPECT_EQ(parse_messages("{", {}).error_code, kParseError);
    EXPECT_EQ(parse_messages("[]", {}).error_code, kInvalidRequest);
    json::ParseOptions limits;
    limits.max_depth = 4;
    Incoming deep = parse_messages(R"({"a":{"b":{"c":{"d":{"e":1}}}}})", limits);
    EXPECT_EQ(deep.error_code, kInvalidRequest);
    EXPECT_EQ(deep.error, "Invalid Request: Nesting deeper than 4");
    Incoming batch = parse_messages(R"([{"jsonrpc":"2.0","id":1,"method":"a"},1])", {});
    EXPECT_TRUE(batch.batch);
    ASSERT_EQ(batch.messages.size(), 2u);
    EXPECT_EQ(batch.messages[1].kind, MessageKind::kInvalid);
}

TEST(JsonRpc, Writers) {
    EXPECT_EQ(result_message("1", "{}"), R"({"jsonrpc":"2.0","id":1,"result":{}})");
    EXPECT_EQ(error_message("\"x\"", -32601, "Method not found", R"({"a":1})"),
              R"({"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"Method not found","data":{"a":1}}})");
    EXPECT_EQ(notification_message("notifications/tools/list_changed"),
              R"({"jsonrpc":"2.0","method":"notifications/tools/list_changed"})");
}

TEST(Protocol, Negotiation) {
    EXPECT_EQ(negotiate_version("2025-03-26"), "2025-03-26");
    EXPECT_EQ(negotiate_version("2024-11-05"), "2024-11-05");
    EXPECT_EQ(negotiate_version("2099-01-01"), "2025-11-25");
    EXPECT_TRUE(features_of("2025-03-26").batches);
    EXPECT_FALSE(features_of("2025-06-18").batches);
    EXPECT_FALSE(features_of("2024-11-05").batches);
    EXPECT_TRUE(features_of("2025-06-18").titles);
    EXPECT_FALSE(features_of("2025-03-26").titles);
    EXPECT_EQ(parse_level("warning"), LogLevel::kWarning);
    EXPECT_EQ(parse_level("verbose"), std::nullopt);
}

TEST(ListCursor, RoundTripsAndRefusesForgeries) {
    for (std::size_t offset : {0u, 1u, 99u, 100000u})
        EXPECT_EQ(decode_cursor(encode_cursor(offset)), offset);
    EXPECT_EQ(decode_cursor(""), std::nullopt);
    EXPECT_EQ(decode_cursor("!!"), std::nullopt);
    EXPECT_EQ(decode_cursor("bzE"), 1u);            // what encode_cursor(1) writes
    EXPECT_EQ(decode_cursor("bzF"), std::nullopt);  // the same bytes with other padding bits
    EXPECT_EQ(decode_cursor("10"), std::nullopt);
}

TEST(UriTemplate, CompileErrors) {
    EXPECT_FALSE(UriTemplate::compile("users://{id").is_ok());
    EXPECT_FALSE(UriTemplate::compile("users://id}").is_ok());
    EXPECT_FALSE(UriTemplate::compile("users://{+id}").is_ok());
    EXPECT_FALSE(UriTemplate::compile("users://{id*}").is_ok());
    EXPECT_FALSE(UriTemplate::compile("users://{a}{b}").is_ok());
    EXPECT_FALSE(UriTemplate::compile("users://{a}/{a}").is_ok());
    EXPECT_FALSE(UriTemplate::compile("users://plain").is_ok());
    EXPECT_TRUE(UriTemplate::compile("users://{id}/posts/{post}").is_ok());
}

TEST(UriTemplate, Matches) {
    auto t = UriTemplate::compile("users://{id}/posts/{post}").value();
    auto m = t.match("users://a%20b/posts/7");
    ASSERT_TRUE(m.has_value());
    ASSERT_EQ(m->size(), 2u);
    EXPECT_EQ((*m)[0], (std::pair<std::string, std::string>{"id", "a b"}));
    EXPECT_EQ((*m)[1], (std::pair<std::string, std::string>{"post", "7"}));
    EXPECT_FALSE(t.match("users://a/b/posts/7").has_value());   // a variable never spans '/'
    EXPECT_FALSE(t.match("users:///posts/7").has_value());      // nor matches nothing
    EXPECT_FALSE(t.match("users://a/posts/7/x").has_value());   // the tail must match
    EXPECT_FALSE(t.match("users://a%zz/posts/7").has_value());  // bad escape
    EXPECT_FALSE(t.match("other://a/posts/7").has_value());
}

TEST(HttpRules, Accept) {
    EXPECT_TRUE(accepts("application/json, text/event-stream", "text/event-stream"));
    EXPECT_TRUE(accepts("application/json;q=0.9,text/event-stream", "application/json"));
    EXPECT_TRUE(accepts("*/*", "application/json"));
    EXPECT_TRUE(accepts("text/*", "text/event-stream"));
    EXPECT_FALSE(accepts("application/json", "text/event-stream"));
    EXPECT_FALSE(accepts("text/event-stream;q=0", "text/event-stream"));
    EXPECT_FALSE(accepts("", "application/json"));
    EXPECT_TRUE(accepts("Application/JSON; charset=utf-8", "application/json"));
}

TEST(HttpRules, Origin) {
    const std::vector<std::string> allowed = {"https://app.example.com", "http://localhost:*"};
    EXPECT_TRUE(origin_allowed(std::nullopt, "127.0.0.1:8000", allowed));
    EXPECT_TRUE(origin_allowed("http://127.0.0.1:8000", "127.0.0.1:8000", allowed));
    EXPECT_TRUE(origin_allowed("https://app.example.com", "127.0.0.1:8000", allowed));
    EXPECT_TRUE(origin_allowed("http://localhost:5173", "127.0.0.1:8000", allowed));
    EXPECT_FALSE(origin_allowed("http://localhost.evil.com:5173", "127.0.0.1:8000", allowed));
    EXPECT_FALSE(origin_allowed("https://evil.example", "127.0.0.1:8000", allowed));
    EXPECT_FALSE(origin_allowed("null", "127.0.0.1:8000", allowed));
}

TEST(HttpRules, HostAgainstDnsRebinding) {
    const std::vector<std::string> allowed = {"mcp.example.com"};
    EXPECT_TRUE(host_allowed("localhost:8000", "127.0.0.1:5000", allowed));
    EXPECT_TRUE(host_allowed("127.0.0.1", "127.0.0.1:5000", allowed));
    EXPECT_TRUE(host_allowed("[::1]:8000", "[::1]:5000", allowed));
    EXPECT_TRUE(host_allowed("mcp.example.com:443", "127.0.0.1:5000", allowed));
    EXPECT_FALSE(host_allowed("evil.example.com", "127.0.0.1:5000", allowed));
    EXPECT_FALSE(host_allowed("localhost.evil.com:8000", "[::1]:5000", allowed));
    EXPECT_FALSE(host_allowed(std::nullopt, "127.0.0.1:5000", allowed));
    EXPECT_TRUE(host_allowed("evil.example.com", "10.0.0.7:5000", allowed));  // not a local client
    EXPECT_TRUE(host_allowed("anything.example", "127.0.0.1:1", {"*"}));
    EXPECT_TRUE(host_allowed("testserver", "127.0.0.1:5000", {}));  // a single label is nobody's public domain
    EXPECT_TRUE(host_allowed("192.168.0.2:8080", "127.0.0.1:5000", {}));
    EXPECT_FALSE(host_allowed("mymac.local", "127.0.0.1:5000", {}));
}

TEST(HttpRules, SessionIdsAreVisibleAsciiAndDistinct) {
    const std::string a = new_session_id(), b = new_session_id();
    EXPECT_EQ(a.size(), 32u);
    EXPECT_NE(a, b);
    for (char c : a)
        EXPECT_TRUE(c >= 0x21 && c <= 0x7e);
}

}  // namespace
}  // namespace slipstream::mcp::detail
