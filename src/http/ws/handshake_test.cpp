// Handshake tests: the accept key, every rejection, token lists and subprotocol choice.
#include "http/ws/handshake.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace slipstream::http::ws {
namespace {

using Headers = std::vector<std::pair<std::string, std::string>>;

Headers good_headers() {
    return {{"Host", "example.com"},
            {"Upgrade", "websocket"},
            {"Connection", "Upgrade"},
            {"Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="},
            {"Sec-WebSocket-Version", "13"}};
}

HandshakeResult check(const Headers& headers, std::string_view method = "GET", bool http11 = true) {
    UpgradeRequest r;
    for (const auto& [n, v] : headers)
        r.add_header(n, v);
    return check_handshake(method, http11, r);
}

Headers with(Headers h, std::string_view name, std::string value) {
    for (auto& [n, v] : h) {
        if (n == name) {
            v = std::move(value);
            return h;
        }
    }
    h.emplace_back(std::string(name), std::move(value));
    return h;
}

Headers without(Headers h, std::string_view name) {
    std::erase_if(h, [&](const auto& p) { return p.first == name; });
    return h;
}

TEST(Handshake, AcceptKeyFromRfc6455) {
    EXPECT_EQ(accept_key("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
}

TEST(Handshake, Verdicts) {
    struct Case {
        const char* name;
        Headers headers;
        std::string method;
        bool http11;
        int status;
        std::string error;
    };
    const Case cases[] = {
        {"valid", good_headers(), "GET", true, 101, ""},
        {"case-insensitive names and tokens",
         {{"upgrade", "WebSocket"},
          {"CONNECTION", "keep-alive, UPGRADE"},
          {"sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ=="},
          {"sec-websocket-version", "13"}},
         "GET",
         true,
         101,
         ""},
        {"POST", good_headers(), "POST", true, 405, "a WebSocket upgrade must use GET"},
        {"no Upgrade", without(good_headers(), "Upgrade"), "GET", true, 426, "this route needs a WebSocket upgrade"},
        {"Upgrade: h2c", with(good_headers(), "Upgrade", "h2c"), "GET", true, 426,
         "this route needs a WebSocket upgrade"},
        {"HTTP/1.0", good_headers(), "GET", false, 400, "a WebSocket upgrade needs HTTP/1.1"},
        {"Connection without upgrade", with(good_headers(), "Connection", "keep-alive"), "GET", true, 400,
         "Connection must include Upgrade"},
        {"version 8", with(good_headers(), "Sec-WebSocket-Version", "8"), "GET", true, 426,
         "Sec-WebSocket-Version must be 13"},
        {"no version", without(good_headers(), "Sec-WebSocket-Version"), "GET", true, 426,
         "Sec-WebSocket-Version must be 13"},
        {"no key", without(good_headers(), "Sec-WebSocket-Key"), "GET", true, 400, "invalid Sec-WebSocket-Key"},
        {"short key", with(good_headers(), "Sec-WebSocket-Key", "dGhlIHNhbXBsZQ=="), "GET", true, 400,
         "invalid Sec-WebSocket-Key"},
        {"key bad char", with(good_headers(), "Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZ*=="), "GET", true, 400,
         "invalid Sec-WebSocket-Key"},
        {"key non-zero pad bits", with(good_headers(), "Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZR=="), "GET", true,
         400, "invalid Sec-WebSocket-Key"},
    };
    for (const Case& c : cases) {
        HandshakeResult r = check(c.headers, c.method, c.http11);
        EXPECT_EQ(r.status, c.status) << c.name;
        EXPECT_EQ(r.error, c.error) << c.name;
        if (c.status == 101) {
            EXPECT_EQ(r.accept, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=") << c.name;
        }
    }
}

TEST(Handshake, ExtendedConnectVerdicts) {
    struct Case {
        Headers headers;
        int status;
    } cases[] = {
        {{{"sec-websocket-version", "13"}}, 200},
        {{{"sec-websocket-version", "13"}, {"sec-websocket-protocol", "chat"}}, 200},
        {{}, 400},
        {{{"sec-websocket-version", "8"}}, 400},
        {{{"sec-websocket-version", "13"}, {"sec-websocket-version", "13"}}, 400},
    };
    for (const Case& c : cases) {
        UpgradeRequest r;
        for (const auto& [n, v] : c.headers)
            r.add_header(n, v);
        HandshakeResult got = check_extended_connect(r);
        EXPECT_EQ(got.status, c.status) << c.headers.size();
        EXPECT_EQ(got.error.empty(), c.status == 200);
    }
}

TEST(Handshake, TwoKeysRejected) {
    Headers h = good_headers();
    h.emplace_back("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==");
    EXPECT_EQ(check(h).status, 400);
}

TEST(Handshake, ListHeadersJoined) {
    UpgradeRequest r;
    r.add_header("Sec-WebSocket-Extensions", "permessage-deflate");
    r.add_header("Sec-WebSocket-Extensions", "x-other");
    r.add_header("Sec-WebSocket-Protocol", "chat");
    r.add_header("Sec-WebSocket-Protocol", "superchat");
    EXPECT_EQ(r.extensions(), "permessage-deflate, x-other");
    EXPECT_EQ(r.protocols(), "chat, superchat");
}

TEST(Handshake, TokenLists) {
    EXPECT_TRUE(header_has_token("keep-alive, Upgrade", "upgrade"));
    EXPECT_TRUE(header_has_token("  upgrade  ", "upgrade"));
    EXPECT_FALSE(header_has_token("upgraded", "upgrade"));
    EXPECT_FALSE(header_has_token("", "upgrade"));
    EXPECT_FALSE(header_has_token("\"a, upgrade\"", "upgrade"));
}

TEST(Handshake, SubprotocolChoice) {
    struct Case {
        std::string offered, supported, expected;
    };
    const Case cases[] = {
        {"chat, superchat", "superchat, chat", "chat"},  // the client's order wins
        {"chat", "other", ""},
        {"", "chat", ""},
        {"Chat", "chat", ""},  // case-sensitive
        {"a,b , c", "c", "c"},
    };
    for (const Case& c : cases)
        EXPECT_EQ(select_subprotocol(c.offered, c.supported), c.expected) << c.offered;
}

TEST(Handshake, SplitSubprotocols) {
    struct Case {
        std::string offered;
        std::vector<std::string> expected;
    };
    const Case cases[] = {
        {"", {}},
        {"chat", {"chat"}},
        {"chat, superchat", {"chat", "superchat"}},
        {" a ,, b ,", {"a", "b"}},
    };
    for (const Case& c : cases)
        EXPECT_EQ(split_subprotocols(c.offered), c.expected) << c.offered;
}

TEST(Handshake, AnswerHeaderValidity) {
    struct Case {
        std::string name, value;
        bool valid;
    };
    const Case cases[] = {
        {"X-Custom", "yes", true},
        {"Set-Cookie", "a=b; Path=/", true},
        {"x-empty", "", true},
        {"", "v", false},
        {"Bad Name", "v", false},
        {"x:y", "v", false},
        {"X-Split", "a\r\nInjected: 1", false},
        {"X-Nul", std::string("a\0b", 3), false},
        {"Upgrade", "websocket", false},
        {"connection", "close", false},
        {"Content-Length", "0", false},
        {"Transfer-Encoding", "chunked", false},
        {"Sec-WebSocket-Protocol", "chat", false},
        {"sec-websocket-accept", "x", false},
        {"Sec-WebSocket", "x", true},  // not the reserved prefix
    };
    for (const Case& c : cases)
        EXPECT_EQ(is_valid_answer_header(c.name, c.value), c.valid) << c.name;
}

}  // namespace
}  // namespace slipstream::http::ws
