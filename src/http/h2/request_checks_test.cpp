// RequestChecks: each RFC 9113 §8 rule, as a table of requests that pass and requests that are malformed.
#include "http/h2/request_checks.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace slipstream::http::h2::detail {
namespace {

using Fields = std::vector<std::pair<std::string, std::string>>;

Fields get(std::string path = "/x") {
    return {{":method", "GET"}, {":scheme", "https"}, {":authority", "example.com"}, {":path", std::move(path)}};
}

Fields with(Fields f, std::string name, std::string value) {
    f.emplace_back(std::move(name), std::move(value));
    return f;
}

// Feeds a header section; true when every field and the section as a whole pass.
bool head_passes(const Fields& fields) {
    RequestChecks c;
    Pseudo which;
    for (const auto& [name, value] : fields)
        if (!c.field(name, value, &which)) return false;
    return c.head_complete();
}

struct HeadCase {
    const char* what;
    Fields fields;
    bool passes;
};

TEST(RequestChecks, HeaderSections) {
    const std::vector<HeadCase> cases = {
        {"a plain GET", get(), true},
        {"regular fields after the pseudo-fields", with(with(get(), "accept", "*/*"), "user-agent", "t/1"), true},
        {"host instead of :authority",
         {{":method", "GET"}, {":scheme", "http"}, {":path", "/"}, {"host", "example.com:80"}},
         true},
        {"neither :authority nor host", {{":method", "GET"}, {":scheme", "http"}, {":path", "/"}}, false},
        {"no :method", {{":scheme", "http"}, {":authority", "a"}, {":path", "/"}}, false},
        {"no :scheme", {{":method", "GET"}, {":authority", "a"}, {":path", "/"}}, false},
        {"no :path", {{":method", "GET"}, {":scheme", "http"}, {":authority", "a"}}, false},
        {"empty :path", get(""), false},
        {"http :path not origin-form", get("x/y"), false},
        {"* for GET", get("*"), false},
        {"* for OPTIONS", {{":method", "OPTIONS"}, {":scheme", "https"}, {":authority", "a"}, {":path", "*"}}, true},
        {"other scheme, other target",
         {{":method", "GET"}, {":scheme", "urn"}, {":authority", "a"}, {":path", "x"}},
         true},
        {"duplicate :path", with(get(), ":path", "/y"), false},
        {"pseudo-field after a regular one", with(with(get(), "accept", "*/*"), ":protocol", "websocket"), false},
        {"unknown pseudo-field", with(get(), ":status", "200"), false},
        {"lone colon", with(get(), ":", "x"), false},
        {"method not a token", {{":method", "G T"}, {":scheme", "http"}, {":authority", "a"}, {":path", "/"}}, false},
        {"empty method", {{":method", ""}, {":scheme", "http"}, {":authority", "a"}, {":path", "/"}}, false},
        {"scheme starting with a digit",
         {{":method", "GET"}, {":scheme", "1http"}, {":authority", "a"}, {":path", "/"}},
         false},
        {"authority with a space",
         {{":method", "GET"}, {":scheme", "http"}, {":authority", "a b"}, {":path", "/"}},
         false},
        {"authority with userinfo and IPv6",
         {{":method", "GET"}, {":scheme", "http"}, {":authority", "u@[::1]:8080"}, {":path", "/"}},
         true},
        {"path with a space", get("/a b"), false},
        {"path with DEL", get("/a\x7f"), false},
        {"long path with a control byte late", get("/" + std::string(40, 'a') + "\x01" + "b"), false},
        {"long path with obs-text", get("/" + std::string(40, 'a') + "\xc3\xa9"), true},
        {"uppercase field name", with(get(), "Accept", "*/*"), false},
        {"field name with a space", with(get(), "acc ept", "x"), false},
        {"field name with a colon", with(get(), "a:b", "x"), false},
        {"empty field name", with(get(), "", "x"), false},
        {"value with NUL", with(get(), "x-a", std::string("a\0b", 3)), false},
        {"value with CR", with(get(), "x-a", "a\rb"), false},
        {"value with LF after eight bytes", with(get(), "x-a", "abcdefghij\nk"), false},
        {"value with another control byte", with(get(), "x-a", "a\x01"), false},
        {"value with HTAB inside", with(get(), "x-a", "a\tb"), true},
        {"value with leading space", with(get(), "x-a", " a"), false},
        {"value with trailing HTAB", with(get(), "x-a", "a\t"), false},
        {"empty value", with(get(), "x-a", ""), true},
        {"value with obs-text", with(get(), "x-a", "caf\xc3\xa9"), true},
        {"connection", with(get(), "connection", "close"), false},
        {"keep-alive", with(get(), "keep-alive", "5"), false},
        {"proxy-connection", with(get(), "proxy-connection", "x"), false},
        {"transfer-encoding", with(get(), "transfer-encoding", "chunked"), false},
        {"upgrade", with(get(), "upgrade", "h2c"), false},
        {"te: trailers", with(get(), "te", "Trailers"), true},
        {"te: gzip", with(get(), "te", "gzip"), false},
        {"two host fields", with(with(get(), "host", "a"), "host", "b"), false},
        {"host with a space", with(get(), "host", "a b"), false},
        {"content-length", with(get(), "content-length", "12"), true},
        {"two content-lengths", with(with(get(), "content-length", "1"), "content-length", "1"), false},
        {"content-length not digits", with(get(), "content-length", "1x"), false},
        {"content-length empty", with(get(), "content-length", ""), false},
        {"content-length of 19 digits", with(get(), "content-length", std::string(19, '9')), false},
        {"CONNECT", {{":method", "CONNECT"}, {":authority", "example.com:443"}}, true},
        {"CONNECT without authority", {{":method", "CONNECT"}, {"host", "a"}}, false},
        {"CONNECT with a path", {{":method", "CONNECT"}, {":authority", "a:1"}, {":path", "/"}}, false},
        {"extended CONNECT",
         {{":method", "CONNECT"},
          {":protocol", "websocket"},
          {":scheme", "https"},
          {":authority", "a"},
          {":path", "/"}},
         true},
        {"extended CONNECT without a path",
         {{":method", "CONNECT"}, {":protocol", "websocket"}, {":scheme", "https"}, {":authority", "a"}},
         false},
        {":protocol on a GET", with(get(), ":protocol", "websocket"), false},
        {"empty :protocol",
         {{":method", "CONNECT"}, {":protocol", ""}, {":scheme", "https"}, {":authority", "a"}, {":path", "/"}},
         false},
    };
    for (const HeadCase& c : cases)
        EXPECT_EQ(head_passes(c.fields), c.passes) << c.what;
}

TEST(RequestChecks, SaysWhichPseudoFieldAFieldIs) {
    RequestChecks c;
    Pseudo which;
    ASSERT_TRUE(c.field(":authority", "a", &which));
    EXPECT_EQ(which, Pseudo::kAuthority);
    ASSERT_TRUE(c.field(":path", "/", &which));
    EXPECT_EQ(which, Pseudo::kPath);
    ASSERT_TRUE(c.field("accept", "*/*", &which));
    EXPECT_EQ(which, Pseudo::kRegular);
}

TEST(RequestChecks, BodyMatchesItsContentLength) {
    auto declared = [](const char* length) {
        RequestChecks c;
        Pseudo which;
        for (const auto& [name, value] : with(get(), "content-length", length))
            EXPECT_TRUE(c.field(name, value, &which));
        EXPECT_TRUE(c.head_complete());
        return c;
    };
    RequestChecks exact = declared("5");
    EXPECT_TRUE(exact.data(2));
    EXPECT_TRUE(exact.data(3));
    EXPECT_TRUE(exact.end());

    RequestChecks longer = declared("5");
    EXPECT_TRUE(longer.data(5));
    EXPECT_FALSE(longer.data(1));

    RequestChecks shorter = declared("5");
    EXPECT_TRUE(shorter.data(4));
    EXPECT_FALSE(shorter.end());

    RequestChecks none;  // no content-length: any body
    EXPECT_TRUE(none.data(1 << 20));
    EXPECT_TRUE(none.end());
}

TEST(RequestChecks, ConnectBodiesAreNotSized) {
    RequestChecks c;
    Pseudo which;
    ASSERT_TRUE(c.field(":method", "CONNECT", &which));
    ASSERT_TRUE(c.field(":authority", "a:1", &which));
    ASSERT_TRUE(c.field("content-length", "0", &which));
    ASSERT_TRUE(c.head_complete());
    EXPECT_TRUE(c.data(10));
    EXPECT_TRUE(c.end());
}

TEST(RequestChecks, TrailerSections) {
    RequestChecks c;
    Pseudo which;
    for (const auto& [name, value] : with(get(), "content-length", "3"))
        ASSERT_TRUE(c.field(name, value, &which));
    ASSERT_TRUE(c.head_complete());
    EXPECT_TRUE(c.trailer_field("x-checksum", "abc"));
    EXPECT_TRUE(c.trailer_field("content-length", "99"));  // means nothing here, and is not checked
    EXPECT_FALSE(c.trailer_field(":path", "/"));
    EXPECT_FALSE(c.trailer_field("X-Upper", "a"));
    EXPECT_FALSE(c.trailer_field("x-a", "a\nb"));
    EXPECT_FALSE(c.trailer_field("connection", "close"));
    EXPECT_TRUE(c.data(3));
    EXPECT_TRUE(c.end());  // the head's content-length still holds
}

}  // namespace
}  // namespace slipstream::http::h2::detail
