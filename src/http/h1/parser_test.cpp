// parse_request: table-driven valid and invalid heads, every split point, pipelining, limits.
#include "http/h1/parser.h"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

namespace slipstream::http::h1 {
namespace {

using namespace std::string_literals;

struct Parsed {
    ParseStatus status;
    RequestHead head;
    std::array<Header, 128> headers;
};

Parsed parse(std::string_view bytes, const Limits& limits = {}, std::size_t max_headers = 128) {
    Parsed p;
    p.status = parse_request(bytes, limits, &p.head, p.headers.data(), max_headers);
    return p;
}

struct ValidCase {
    const char* name;
    std::string input;
    std::string method;
    std::string target;
    std::string path;
    std::string query;
    std::string host;
    Version version;
    BodyKind body;
    std::uint64_t length;
    bool keep_alive;
    std::size_t header_count;
    std::size_t consumed;  // 0: the whole input
    bool expect_continue = false;
    bool upgrade = false;
    TargetForm form = TargetForm::kOrigin;
};

constexpr auto V11 = Version::kHttp11;
constexpr auto V10 = Version::kHttp10;
constexpr auto kNone = BodyKind::kNone;
constexpr auto kLen = BodyKind::kContentLength;
constexpr auto kChunk = BodyKind::kChunked;

std::vector<ValidCase> valid_cases() {
    return {
        {"minimal", "GET / HTTP/1.1\r\nHost: a\r\n\r\n", "GET", "/", "/", "", "a", V11, kNone, 0, true, 1, 0},
        {"query", "GET /p/q?x=1&y=2 HTTP/1.1\r\nHost: example.com\r\n\r\n", "GET", "/p/q?x=1&y=2", "/p/q", "x=1&y=2",
         "example.com", V11, kNone, 0, true, 1, 0},
        {"second question mark", "GET /a?b?c HTTP/1.1\r\nHost: h\r\n\r\n", "GET", "/a?b?c", "/a", "b?c", "h", V11,
         kNone, 0, true, 1, 0},
        {"empty query", "GET /a? HTTP/1.1\r\nHost: h\r\n\r\n", "GET", "/a?", "/a", "", "h", V11, kNone, 0, true, 1, 0},
        {"percent and sub-delims", "GET /a%20b/!$&'()*+,;=:@-._~ HTTP/1.1\r\nHost: h\r\n\r\n", "GET",
         "/a%20b/!$&'()*+,;=:@-._~", "/a%20b/!$&'()*+,;=:@-._~", "", "h", V11, kNone, 0, true, 1, 0},
        {"http/1.0 no host", "GET / HTTP/1.0\r\n\r\n", "GET", "/", "/", "", "", V10, kNone, 0, false, 0, 0},
        {"http/1.0 keep-alive", "GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", "GET", "/", "/", "", "", V10, kNone,
         0, true, 1, 0},
        {"http/1.0 keep-alive and close", "GET / HTTP/1.0\r\nConnection: keep-alive, close\r\n\r\n", "GET", "/", "/",
         "", "", V10, kNone, 0, false, 1, 0},
        {"http/1.1 close", "GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", "GET", "/", "/", "", "h", V11,
         kNone, 0, false, 2, 0},
        {"close in a list over two fields",
         "GET / HTTP/1.1\r\nHost: h\r\nConnection: foo\r\nConnection: bar, CLOSE\r\n\r\n", "GET", "/", "/", "", "h",
         V11, kNone, 0, false, 3, 0},
        {"http/1.2 read as 1.1", "GET / HTTP/1.2\r\nHost: h\r\n\r\n", "GET", "/", "/", "", "h", V11, kNone, 0, true, 1,
         0},
        {"content-length", "POST /f HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello", "POST", "/f", "/f", "", "h",
         V11, kLen, 5, true, 2, 48},
        {"content-length zero", "POST /f HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n", "POST", "/f", "/f", "", "h",
         V11, kLen, 0, true, 2, 0},
        {"content-length leading zeros and ows", "PUT /f HTTP/1.1\r\nHost: h\r\nContent-Length: \t 007 \t\r\n\r\n",
         "PUT", "/f", "/f", "", "h", V11, kLen, 7, true, 2, 0},
        {"chunked", "POST /u HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n", "POST", "/u", "/u", "", "h",
         V11, kChunk, 0, true, 2, 0},
        {"chunked case and empty list elements",
         "POST /u HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: , ChUnKeD ,\r\n\r\n", "POST", "/u", "/u", "", "h", V11,
         kChunk, 0, true, 2, 0},
        {"expect 100-continue", "PUT /u HTTP/1.1\r\nHost: h\r\nExpect: 100-Continue\r\nContent-Length: 3\r\n\r\n",
         "PUT", "/u", "/u", "", "h", V11, kLen, 3, true, 3, 0, true},
        {"expect ignored in 1.0", "PUT /u HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n", "PUT", "/u",
         "/u", "", "", V10, kLen, 3, false, 2, 0, false},
        {"websocket upgrade",
         "GET /ws HTTP/1.1\r\nHost: h\r\nConnection: keep-alive, Upgrade\r\nUpgrade: websocket\r\n\r\n", "GET", "/ws",
         "/ws", "", "h", V11, kNone, 0, true, 3, 0, false, true},
        {"upgrade field without the connection option", "GET /ws HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\n\r\n",
         "GET", "/ws", "/ws", "", "h", V11, kNone, 0, true, 2, 0, false, false},
        {"leading empty lines", "\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n", "GET", "/", "/", "", "a", V11, kNone, 0,
         true, 1, 0},
        {"absolute form", "GET http://example.com:8080/a/b?c=d HTTP/1.1\r\nHost: other\r\n\r\n", "GET",
         "http://example.com:8080/a/b?c=d", "/a/b", "c=d", "example.com:8080", V11, kNone, 0, true, 1, 0, false, false,
         TargetForm::kAbsolute},
        {"absolute form without path", "GET HTTPS://Example.com HTTP/1.1\r\nHost: x\r\n\r\n", "GET",
         "HTTPS://Example.com", "/", "", "Example.com", V11, kNone, 0, true, 1, 0, false, false, TargetForm::kAbsolute},
        {"absolute form query without path", "GET http://h?x HTTP/1.1\r\nHost: h\r\n\r\n", "GET", "http://h?x", "/",
         "x", "h", V11, kNone, 0, true, 1, 0, false, false, TargetForm::kAbsolute},
        {"absolute form ipv6", "GET http://[::1]:8080/x HTTP/1.1\r\nHost: h\r\n\r\n", "GET", "http://[::1]:8080/x",
         "/x", "", "[::1]:8080", V11, kNone, 0, true, 1, 0, false, false, TargetForm::kAbsolute},
        {"asterisk form", "OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n", "OPTIONS", "*", "*", "", "h", V11, kNone, 0, true, 1,
         0, false, false, TargetForm::kAsterisk},
        {"authority form", "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", "CONNECT",
         "example.com:443", "", "", "example.com:443", V11, kNone, 0, true, 1, 0, false, false, TargetForm::kAuthority},
        {"extension method", "M-SEARCH /x HTTP/1.1\r\nHost: h\r\n\r\n", "M-SEARCH", "/x", "/x", "", "h", V11, kNone, 0,
         true, 1, 0},
        {"field value bytes", "GET / HTTP/1.1\r\nHost: h\r\nX-A: a\tb \xff\x80 \"q\"\r\nX-E:\r\nX-S: \t \r\n\r\n",
         "GET", "/", "/", "", "h", V11, kNone, 0, true, 4, 0},
        {"long value with tabs",
         "GET / HTTP/1.1\r\nHost: h\r\nUser-Agent: Mozilla/5.0 (X11; Linux "
         "x86_64)\tGecko/20100101\tFirefox/120.0\r\n\r\n",
         "GET", "/", "/", "", "h", V11, kNone, 0, true, 2, 0},
        {"token punctuation in field name", "GET / HTTP/1.1\r\nHost: h\r\n!#$%&'*+-.^_`|~09azAZ: v\r\n\r\n", "GET", "/",
         "/", "", "h", V11, kNone, 0, true, 2, 0},
        {"empty host", "GET / HTTP/1.1\r\nHost:\r\n\r\n", "GET", "/", "/", "", "", V11, kNone, 0, true, 1, 0},
        // A Host value is scanned in 16-byte steps past its end: the byte behind it must end the scan.
        {"host with trailing space, fields behind",
         "GET / HTTP/1.1\r\nHost: api.example.com \r\nAccept: */*\r\nX-Long: 0123456789abcdef\r\n\r\n", "GET", "/", "/",
         "", "api.example.com", V11, kNone, 0, true, 3, 0},
        {"ipv6 host, fields behind",
         "GET / HTTP/1.1\r\nHost: [::1]:8080\r\nAccept: */*\r\nX-Long: 0123456789abcdef\r\n\r\n", "GET", "/", "/", "",
         "[::1]:8080", V11, kNone, 0, true, 3, 0},
        {"head with trailing bytes", "GET / HTTP/1.1\r\nHost: a\r\n\r\nGET", "GET", "/", "/", "", "a", V11, kNone, 0,
         true, 1, 27},
    };
}

void expect_head(const ValidCase& c, const Parsed& p) {
    ASSERT_TRUE(p.status.is_complete()) << p.status.error.reason;
    EXPECT_EQ(p.status.consumed, c.consumed == 0 ? c.input.size() : c.consumed);
    EXPECT_EQ(p.head.method, c.method);
    EXPECT_EQ(p.head.target, c.target);
    EXPECT_EQ(p.head.path, c.path);
    EXPECT_EQ(p.head.query, c.query);
    EXPECT_EQ(p.head.host, c.host);
    EXPECT_EQ(p.head.version, c.version);
    EXPECT_EQ(p.head.body_kind, c.body);
    EXPECT_EQ(p.head.content_length, c.length);
    EXPECT_EQ(p.head.keep_alive, c.keep_alive);
    EXPECT_EQ(p.head.expect_continue, c.expect_continue);
    EXPECT_EQ(p.head.upgrade, c.upgrade);
    EXPECT_EQ(p.head.target_form, c.form);
    EXPECT_EQ(p.head.headers.size(), c.header_count);
}

TEST(ParserTest, ValidRequests) {
    for (const ValidCase& c : valid_cases()) {
        SCOPED_TRACE(c.name);
        expect_head(c, parse(c.input));
    }
}

TEST(ParserTest, ValidRequestsSplitAtEveryByte) {
    for (const ValidCase& c : valid_cases()) {
        SCOPED_TRACE(c.name);
        const std::size_t head_size = c.consumed == 0 ? c.input.size() : c.consumed;
        for (std::size_t i = 0; i < head_size; ++i) {
            const Parsed p = parse(std::string_view(c.input).substr(0, i));
            EXPECT_TRUE(p.status.is_incomplete()) << "prefix of " << i << " bytes: " << p.status.error.reason;
        }
        expect_head(c, parse(c.input));
    }
}

TEST(ParserTest, HeaderViewsPointIntoTheInput) {
    const std::string in = "GET /x HTTP/1.1\r\nHost: h.example\r\nX-Pad:   spaced value \t \r\nAccept: */*\r\n\r\n";
    const Parsed p = parse(in);
    ASSERT_TRUE(p.status.is_complete());
    ASSERT_EQ(p.head.headers.size(), 3u);
    EXPECT_EQ(p.head.headers[0].name, "Host");
    EXPECT_EQ(p.head.headers[0].value, "h.example");
    EXPECT_EQ(p.head.headers[1].name, "X-Pad");
    EXPECT_EQ(p.head.headers[1].value, "spaced value");
    EXPECT_EQ(p.head.headers[2].value, "*/*");
    EXPECT_EQ(p.head.headers[1].value.data(), in.data() + in.find("spaced"));
    EXPECT_EQ(p.head.path.data(), in.data() + 4);
    EXPECT_EQ(p.head.headers.data(), p.headers.data());
    EXPECT_EQ(find_header(p.head.headers, "x-pad"), "spaced value");
    EXPECT_EQ(find_header(p.head.headers, "missing"), "");
}

// A leading Host with a plain value is taken by a shortcut; every other shape goes the general way. Same result.
TEST(ParserTest, LeadingHostShapes) {
    struct HostCase {
        std::string field;
        std::string name;
        std::string value;
        std::string host;
    };
    const std::vector<HostCase> cases = {
        {"Host: a.example:8080", "Host", "a.example:8080", "a.example:8080"},
        {"hOST: a", "hOST", "a", "a"},
        {"Host:a", "Host", "a", "a"},
        {"Host: ", "Host", "", ""},
        {"Host:", "Host", "", ""},
        {"Host:  a ", "Host", "a", "a"},
        {"Host:\ta", "Host", "a", "a"},
        {"Host: [::1]:80", "Host", "[::1]:80", "[::1]:80"},
        {"Host: a~b_c!d", "Host", "a~b_c!d", "a~b_c!d"},
        {"Hostname: a\r\nHost: b", "Hostname", "a", "b"},
    };
    for (const HostCase& c : cases) {
        SCOPED_TRACE(c.field);
        const std::string in = "GET / HTTP/1.1\r\n" + c.field + "\r\nAccept: */*\r\n\r\n";
        const Parsed p = parse(in);
        ASSERT_TRUE(p.status.is_complete());
        EXPECT_EQ(p.head.headers[0].name, c.name);
        EXPECT_EQ(p.head.headers[0].value, c.value);
        EXPECT_EQ(p.head.host, c.host);
    }
    // The shortcut keeps the caller's bound on the array.
    EXPECT_EQ(parse("GET / HTTP/1.1\r\nHost: h\r\n\r\n", {}, 0).status.error, errors::kTooManyHeaders);
    EXPECT_EQ(parse("GET / HTTP/1.1\r\nHost: h\r\nhost: h\r\n\r\n").status.error, errors::kDuplicateHost);
}

TEST(ParserTest, MethodIds) {
    const std::vector<std::pair<std::string, Method>> cases = {
        {"GET", Method::kGet},         {"HEAD", Method::kHead},     {"POST", Method::kPost},
        {"PUT", Method::kPut},         {"DELETE", Method::kDelete}, {"PATCH", Method::kPatch},
        {"OPTIONS", Method::kOptions}, {"TRACE", Method::kTrace},   {"get", Method::kOther},
        {"PROPFIND", Method::kOther},  {"GETS", Method::kOther},
    };
    for (const auto& [method, id] : cases) {
        const Parsed p = parse(method + " / HTTP/1.1\r\nHost: h\r\n\r\n");
        ASSERT_TRUE(p.status.is_complete()) << method;
        EXPECT_EQ(p.head.method_id, id) << method;
    }
}

TEST(ParserTest, PipelinedHeads) {
    const std::string in =
        "POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc"
        "GET /b?q HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n";
    const Parsed first = parse(in);
    ASSERT_TRUE(first.status.is_complete());
    EXPECT_EQ(first.head.path, "/a");
    EXPECT_EQ(first.head.content_length, 3u);
    const std::size_t next = first.status.consumed + first.head.content_length;
    const Parsed second = parse(std::string_view(in).substr(next));
    ASSERT_TRUE(second.status.is_complete());
    EXPECT_EQ(second.head.path, "/b");
    EXPECT_EQ(second.head.query, "q");
    EXPECT_FALSE(second.head.keep_alive);
    EXPECT_EQ(next + second.status.consumed, in.size());

    // Two heads back to back, the second after an empty line (skipped, RFC 9112 §2.2).
    const std::string two = "GET /1 HTTP/1.1\r\nHost: h\r\n\r\n\r\nGET /2 HTTP/1.1\r\nHost: h\r\n\r\n";
    const Parsed a = parse(two);
    ASSERT_TRUE(a.status.is_complete());
    EXPECT_EQ(a.status.consumed, 28u);
    EXPECT_EQ(a.head.path, "/1");
    const Parsed b = parse(std::string_view(two).substr(a.status.consumed));
    ASSERT_TRUE(b.status.is_complete());
    EXPECT_EQ(b.status.consumed, 30u);
    EXPECT_EQ(b.head.path, "/2");
}

}  // namespace
}  // namespace slipstream::http::h1
