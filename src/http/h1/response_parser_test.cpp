// parse_response: framing per status and request, strictness, limits, and every prefix of a head incomplete.
#include "http/h1/response_parser.h"

#include <gtest/gtest.h>

#include <string>

namespace slipstream::http::h1 {
namespace {

namespace E = response_errors;

struct Parsed {
    ParseStatus status;
    ResponseHead head;
    Header fields[16];
};

Parsed parse(std::string_view bytes, ResponseContext ctx = {}, ResponseLimits limits = {}) {
    Parsed p;
    p.status = parse_response(bytes, limits, ctx, &p.head, p.fields, 16);
    return p;
}

ParseError error_of(std::string_view bytes, ResponseLimits limits = {}) {
    Parsed p = parse(bytes, {}, limits);
    EXPECT_TRUE(p.status.is_error()) << bytes;
    return p.status.error;
}

TEST(ResponseParser, ContentLength) {
    std::string_view r = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello";
    Parsed p = parse(r);
    ASSERT_TRUE(p.status.is_complete());
    EXPECT_EQ(p.status.consumed, r.size() - 5);
    EXPECT_EQ(p.head.status, 200);
    EXPECT_EQ(p.head.reason, "OK");
    EXPECT_EQ(p.head.version_minor, 1);
    EXPECT_EQ(p.head.body, ResponseBody::kContentLength);
    EXPECT_EQ(p.head.content_length, 5u);
    EXPECT_TRUE(p.head.keep_alive);
    ASSERT_EQ(p.head.headers.size(), 2u);
    EXPECT_EQ(find_header(p.head.headers, "content-type"), "text/plain");
}

TEST(ResponseParser, Framing) {
    Parsed p = parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
    ASSERT_TRUE(p.status.is_complete());
    EXPECT_EQ(p.head.body, ResponseBody::kChunked);
    p = parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n");
    EXPECT_EQ(p.head.body, ResponseBody::kChunked);
    p = parse("HTTP/1.1 200 OK\r\n\r\n");
    EXPECT_EQ(p.head.body, ResponseBody::kUntilClose);
    EXPECT_FALSE(p.head.keep_alive);
    p = parse("HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n");
    EXPECT_EQ(p.head.body, ResponseBody::kNone);
    EXPECT_TRUE(p.head.keep_alive);
    p = parse("HTTP/1.1 304 Not Modified\r\n\r\n");
    EXPECT_EQ(p.head.body, ResponseBody::kNone);
    p = parse("HTTP/1.1 100 Continue\r\n\r\n");
    EXPECT_EQ(p.head.body, ResponseBody::kNone);
    EXPECT_TRUE(p.head.interim());
    p = parse("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n", ResponseContext{.head_request = true});
    EXPECT_EQ(p.head.body, ResponseBody::kNone);
    p = parse("HTTP/1.1 200 OK\r\nContent-Length: 7, 7\r\nContent-Length: 7\r\n\r\n");
    ASSERT_TRUE(p.status.is_complete());
    EXPECT_EQ(p.head.content_length, 7u);
}

TEST(ResponseParser, KeepAlive) {
    EXPECT_FALSE(parse("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n").head.keep_alive);
    EXPECT_FALSE(parse("HTTP/1.1 200 OK\r\nConnection: foo, Close\r\nContent-Length: 0\r\n\r\n").head.keep_alive);
    EXPECT_FALSE(parse("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n").head.keep_alive);
    Parsed p = parse("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n");
    EXPECT_TRUE(p.head.keep_alive);
    EXPECT_EQ(p.head.version_minor, 0);
    EXPECT_EQ(parse("HTTP/1.2 200 OK\r\nContent-Length: 0\r\n\r\n").head.version_minor, 1);
}

TEST(ResponseParser, StatusLine) {
    Parsed p = parse("HTTP/1.1 404\r\nContent-Length: 0\r\n\r\n");
    ASSERT_TRUE(p.status.is_complete());
    EXPECT_EQ(p.head.status, 404);
    EXPECT_EQ(p.head.reason, "");
    p = parse("HTTP/1.1 500 \r\n\r\n");
    ASSERT_TRUE(p.status.is_complete());
    EXPECT_EQ(p.head.reason, "");
    p = parse("HTTP/1.1 418 I'm a teapot\xff\r\n\r\n");
    ASSERT_TRUE(p.status.is_complete());
    EXPECT_EQ(error_of("HTTP/2 200 OK\r\n\r\n"), E::kBadVersion);
    EXPECT_EQ(error_of("HTTP/2.0 200 OK\r\n\r\n"), E::kBadVersion);
    EXPECT_EQ(error_of("HTTP/1.x 200 OK\r\n\r\n"), E::kBadVersion);
    EXPECT_EQ(error_of("HTTP/1.1 20 OK\r\n\r\n"), E::kBadStatus);
    EXPECT_EQ(error_of("HTTP/1.1 2000 OK\r\n\r\n"), E::kBadStatus);
    EXPECT_EQ(error_of("HTTP/1.1 600 Odd\r\n\r\n"), E::kBadStatus);
    EXPECT_EQ(error_of("HTTP/1.1 099 Odd\r\n\r\n"), E::kBadStatus);
    EXPECT_EQ(error_of("HTTP/1.1 abc OK\r\n\r\n"), E::kBadStatus);
    EXPECT_EQ(error_of("HTTP/1.1  200 OK\r\n\r\n"), E::kBadStatus);
    EXPECT_EQ(error_of("HTTP/1.1 200 O\x01K\r\n\r\n"), E::kBadStatusLine);
    EXPECT_EQ(error_of("ICY 200 OK\r\n\r\n"), E::kBadStatusLine);
    EXPECT_EQ(error_of("SSH-2.0-OpenSSH"), E::kBadStatusLine);  // refused before the line ends
    EXPECT_EQ(error_of("<html>"), E::kBadStatusLine);
    EXPECT_EQ(error_of("HTTP/1.1 200 OK\n\n"), E::kBadLineEnding);
    EXPECT_EQ(error_of("HTTP/1.1 200 OK\rX"), E::kBadLineEnding);
}

TEST(ResponseParser, Fields) {
    EXPECT_EQ(error_of("HTTP/1.1 200 OK\r\nA: b\nC: d\r\n\r\n"), E::kBadLineEnding);
    EXPECT_EQ(error_of("HTTP/1.1 200 OK\r\nA: b\r\n c\r\n\r\n"), E::kObsFold);
    EXPECT_EQ(error_of("HTTP/1.1 200 OK\r\nA : b\r\n\r\n"), E::kSpaceBeforeColon);
    EXPECT_EQ(error_of("HTTP/1.1 200 OK\r\nA(b: c\r\n\r\n"), E::kBadHeaderName);
    EXPECT_EQ(error_of("HTTP/1.1 200 OK\r\nnocolon\r\n\r\n"), E::kBadHeaderName);
    EXPECT_EQ(error_of("HTTP/1.1 200 OK\r\n: v\r\n\r\n"), E::kBadHeaderName);
    EXPECT_EQ(error_of(std::string_view("HTTP/1.1 200 OK\r\nA: b\0c\r\n\r\n", 27)), E::kBadHeaderValue);
    EXPECT_EQ(error_of("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"), E::kBadContentLength);
    EXPECT_EQ(error_of("HTTP/1.1 200 OK\r\nContent-Length: 1, 2\r\n\r\n"), E::kBadContentLength);
    EXPECT_EQ(error_of("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n"), E::kBadContentLength);
    EXPECT_EQ(error_of("HTTP/1.1 200 OK\r\nContent-Length: \r\n\r\n"), E::kBadContentLength);
    EXPECT_EQ(error_of("HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n"), E::kBadContentLength);
    EXPECT_EQ(error_of("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n"),
              E::kLengthAndChunked);
    EXPECT_EQ(error_of("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n"), E::kBadTransferEncoding);
    EXPECT_EQ(error_of("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n"), E::kBadTransferEncoding);
    EXPECT_EQ(error_of("HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"), E::kBadTransferEncoding);
}

TEST(ResponseParser, Limits) {
    std::string head = "HTTP/1.1 200 OK\r\n";
    for (int i = 0; i < 5; ++i)
        head += "X-" + std::to_string(i) + ": v\r\n";
    head += "\r\n";
    EXPECT_EQ(error_of(head, ResponseLimits{.max_head_bytes = 1024, .max_header_count = 4}), E::kTooManyHeaders);
    EXPECT_TRUE(parse(head, {}, ResponseLimits{.max_head_bytes = 1024, .max_header_count = 5}).status.is_complete());
    EXPECT_EQ(error_of(head, ResponseLimits{.max_head_bytes = head.size() - 1}), E::kHeadTooLarge);
    EXPECT_TRUE(parse(head, {}, ResponseLimits{.max_head_bytes = head.size()}).status.is_complete());
    // An unfinished head is refused once it reaches the limit, not before.
    std::string open = "HTTP/1.1 200 OK\r\nX: " + std::string(100, 'a');
    EXPECT_TRUE(parse(open, {}, ResponseLimits{.max_head_bytes = open.size() + 1}).status.is_incomplete());
    EXPECT_EQ(error_of(open, ResponseLimits{.max_head_bytes = open.size()}), E::kHeadTooLarge);
    // The caller's array bounds the count too.
    Header two[2];
    ResponseHead out;
    ParseStatus st = parse_response(head, {}, {}, &out, two, 2);
    ASSERT_TRUE(st.is_error());
    EXPECT_EQ(st.error, E::kTooManyHeaders);
}

TEST(ResponseParser, EveryPrefixIsIncomplete) {
    std::string_view r = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";
    for (std::size_t n = 0; n < r.size(); ++n) {
        Parsed p = parse(r.substr(0, n));
        EXPECT_TRUE(p.status.is_incomplete()) << n;
    }
    EXPECT_TRUE(parse(r).status.is_complete());
}

}  // namespace
}  // namespace slipstream::http::h1
