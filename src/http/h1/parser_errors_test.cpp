// parse_request: every strict rejection with its status, at every split point, and the size limits.
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "http/h1/parser.h"

namespace slipstream::http::h1 {
namespace {

struct ErrorCase {
    const char* name;
    std::string input;
    ParseError error;
};

ParseStatus parse(std::string_view bytes, const Limits& limits = {}, std::size_t max_headers = 128) {
    RequestHead head;
    std::array<Header, 128> headers;
    return parse_request(bytes, limits, &head, headers.data(), max_headers);
}

std::string get(std::string_view fields) {
    return "GET / HTTP/1.1\r\nHost: h\r\n" + std::string(fields) + "\r\n";
}
std::string post(std::string_view fields) {
    return "POST / HTTP/1.1\r\nHost: h\r\n" + std::string(fields) + "\r\n";
}

std::vector<ErrorCase> error_cases() {
    using namespace errors;
    return {
        // Request line.
        {"double space before target", "GET  / HTTP/1.1\r\nHost: h\r\n\r\n", kBadTarget},
        {"double space before version", "GET /  HTTP/1.1\r\nHost: h\r\n\r\n", kBadVersion},
        {"space before CRLF", "GET / HTTP/1.1 \r\nHost: h\r\n\r\n", kBadVersion},
        {"lowercase protocol", "GET / http/1.1\r\nHost: h\r\n\r\n", kBadVersion},
        {"two-digit minor", "GET / HTTP/1.10\r\nHost: h\r\n\r\n", kBadVersion},
        {"no version", "GET /\r\n\r\n", kBadRequestLine},
        {"other protocol", "GET / ICE/1.0\r\nHost: h\r\n\r\n", kBadVersion},
        {"http/2.0", "GET / HTTP/2.0\r\nHost: h\r\n\r\n", kUnsupportedVersion},
        {"http/0.9", "GET / HTTP/0.9\r\n\r\n", kUnsupportedVersion},
        {"leading space", " GET / HTTP/1.1\r\nHost: h\r\n\r\n", kBadMethod},
        {"bad method char", "G@T / HTTP/1.1\r\nHost: h\r\n\r\n", kBadMethod},
        {"tab separator", "GET\t/ HTTP/1.1\r\nHost: h\r\n\r\n", kBadMethod},
        {"space in target", "GET /a b HTTP/1.1\r\nHost: h\r\n\r\n", kBadVersion},
        {"quote in target", "GET /a\"b HTTP/1.1\r\nHost: h\r\n\r\n", kBadTarget},
        {"fragment in target", "GET /a#b HTTP/1.1\r\nHost: h\r\n\r\n", kBadTarget},
        {"pipe in target", "GET /a?b=| HTTP/1.1\r\nHost: h\r\n\r\n", kBadTarget},
        {"brace in target", "GET /{x} HTTP/1.1\r\nHost: h\r\n\r\n", kBadTarget},
        {"backslash in target", "GET /a\\b HTTP/1.1\r\nHost: h\r\n\r\n", kBadTarget},
        {"utf-8 in target", "GET /\xce\xb4 HTTP/1.1\r\nHost: h\r\n\r\n", kBadTarget},
        {"control byte in target", "GET /a\x01 HTTP/1.1\r\nHost: h\r\n\r\n", kBadTarget},
        {"bracket in origin form", "GET /a[0] HTTP/1.1\r\nHost: h\r\n\r\n", kBadTarget},
        {"relative target", "GET a/b HTTP/1.1\r\nHost: h\r\n\r\n", kBadTarget},
        {"asterisk for GET", "GET * HTTP/1.1\r\nHost: h\r\n\r\n", kBadTarget},
        {"asterisk prefix", "OPTIONS *x HTTP/1.1\r\nHost: h\r\n\r\n", kBadTarget},
        {"connect with path", "CONNECT /x HTTP/1.1\r\nHost: h\r\n\r\n", kBadTarget},
        {"connect without port", "CONNECT h HTTP/1.1\r\nHost: h\r\n\r\n", kBadTarget},
        {"authority form for GET", "GET h:80 HTTP/1.1\r\nHost: h\r\n\r\n", kBadTarget},
        {"ftp scheme", "GET ftp://h/ HTTP/1.1\r\nHost: h\r\n\r\n", kBadTarget},
        {"one slash after scheme", "GET http:/h/ HTTP/1.1\r\nHost: h\r\n\r\n", kBadTarget},
        {"empty authority", "GET http:///x HTTP/1.1\r\nHost: h\r\n\r\n", kBadTarget},
        {"userinfo", "GET http://u:p@h/ HTTP/1.1\r\nHost: h\r\n\r\n", kBadTarget},
        {"non-digit port", "GET http://h:8x/ HTTP/1.1\r\nHost: h\r\n\r\n", kBadTarget},
        {"unclosed ipv6", "GET http://[::1/x HTTP/1.1\r\nHost: h\r\n\r\n", kBadTarget},
        {"bracket in absolute path", "GET http://h/[x] HTTP/1.1\r\nHost: h\r\n\r\n", kBadTarget},
        // Line endings.
        {"bare LF after request line", "GET / HTTP/1.1\nHost: h\r\n\r\n", kBadLineEnding},
        {"bare CR after request line", "GET / HTTP/1.1\rHost: h\r\n\r\n", kBadLineEnding},
        {"bare LF after field", "GET / HTTP/1.1\r\nHost: h\nX: y\r\n\r\n", kBadLineEnding},
        {"bare CR inside field", "GET / HTTP/1.1\r\nHost: h\rX: y\r\n\r\n", kBadLineEnding},
        {"bare LF ends the head", "GET / HTTP/1.1\r\nHost: h\r\n\n", kBadLineEnding},
        {"CR without LF ends the head", "GET / HTTP/1.1\r\nHost: h\r\n\rX", kBadLineEnding},
        {"bare LF as leading line", "\nGET / HTTP/1.1\r\nHost: h\r\n\r\n", kBadLineEnding},
        {"CR without LF as leading line", "\rGET / HTTP/1.1\r\nHost: h\r\n\r\n", kBadLineEnding},
        {"bare LF after method", "GET\n", kBadLineEnding},
        // Field lines.
        {"obs-fold", get("X: a\r\n b\r\n"), kObsFold},
        {"tab fold", get("X: a\r\n\tb\r\n"), kObsFold},
        {"space before first field", "GET / HTTP/1.1\r\n Host: h\r\n\r\n", kObsFold},
        {"space before colon", get("X : a\r\n"), kSpaceBeforeColon},
        {"tab before colon", get("X\t: a\r\n"), kSpaceBeforeColon},
        {"empty name", get(": a\r\n"), kBadHeaderName},
        {"bad name char", get("F@o: a\r\n"), kBadHeaderName},
        {"no colon", get("Foo\r\n"), kBadHeaderName},
        {"NUL in value", get(std::string("X: a\0b\r\n", 8)), kBadHeaderValue},
        {"SOH in value", get("X: a\x01\r\n"), kBadHeaderValue},
        {"form feed in value", get("X: a\x0c\r\n"), kBadHeaderValue},
        {"DEL in value", get("X: a\x7f\r\n"), kBadHeaderValue},
        {"control byte in long value", get("X: aaaaaaaaaaaaaaaaaaaaaaaaaaa\x1b aaaaaaaaaaaaaaaaaaa\r\n"),
         kBadHeaderValue},
        // Host.
        {"missing host", "GET / HTTP/1.1\r\nX: y\r\n\r\n", kMissingHost},
        {"missing host with absolute form", "GET http://h/ HTTP/1.1\r\n\r\n", kMissingHost},
        {"two hosts", get("Host: h\r\n"), kDuplicateHost},
        {"two hosts in 1.0", "GET / HTTP/1.0\r\nHost: a\r\nHost: a\r\n\r\n", kDuplicateHost},
        {"space in host", "GET / HTTP/1.1\r\nHost: a b\r\n\r\n", kBadHost},
        {"slash in host", "GET / HTTP/1.1\r\nHost: a/b\r\n\r\n", kBadHost},
        {"userinfo in host", "GET / HTTP/1.1\r\nHost: u@h\r\n\r\n", kBadHost},
        {"slash in host, fields behind",
         "GET / HTTP/1.1\r\nHost: a/b\r\nAccept: */*\r\nX-Long: 0123456789abcdef\r\n\r\n", kBadHost},
        {"space in host, fields behind",
         "GET / HTTP/1.1\r\nHost: a b\r\nAccept: */*\r\nX-Long: 0123456789abcdef\r\n\r\n", kBadHost},
        {"slash past 16 bytes of host", "GET / HTTP/1.1\r\nHost: abcdefghijklmnopqrstuvwxyz/\r\nAccept: */*\r\n\r\n",
         kBadHost},
        // Content-Length.
        {"empty length", post("Content-Length:\r\n"), kBadContentLength},
        {"signed length", post("Content-Length: +1\r\n"), kBadContentLength},
        {"negative length", post("Content-Length: -1\r\n"), kBadContentLength},
        {"space inside length", post("Content-Length: 1 2\r\n"), kBadContentLength},
        {"list length", post("Content-Length: 1,1\r\n"), kBadContentLength},
        {"hex length", post("Content-Length: 0x10\r\n"), kBadContentLength},
        {"overflowing length", post("Content-Length: 18446744073709551616\r\n"), kBadContentLength},
        {"repeated equal length", post("Content-Length: 1\r\nContent-Length: 1\r\n"), kDuplicateContentLength},
        {"repeated length", post("Content-Length: 1\r\ncontent-length: 2\r\n"), kDuplicateContentLength},
        {"length over max body", post("Content-Length: 1048577\r\n"), kBodyTooLarge},
        // Transfer-Encoding.
        {"length then chunked", post("Content-Length: 3\r\nTransfer-Encoding: chunked\r\n"), kLengthAndChunked},
        {"chunked then length", post("Transfer-Encoding: chunked\r\nContent-Length: 3\r\n"), kLengthAndChunked},
        {"gzip only", post("Transfer-Encoding: gzip\r\n"), kChunkedNotFinal},
        {"identity", post("Transfer-Encoding: identity\r\n"), kChunkedNotFinal},
        {"chunked not last", post("Transfer-Encoding: chunked, gzip\r\n"), kChunkedNotFinal},
        {"chunked not last over two fields", post("Transfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n"),
         kChunkedNotFinal},
        {"gzip before chunked", post("Transfer-Encoding: gzip, chunked\r\n"), kUnsupportedTransferCoding},
        {"unknown before chunked", post("Transfer-Encoding: pigeons\r\nTransfer-Encoding: chunked\r\n"),
         kUnsupportedTransferCoding},
        {"chunked twice", post("Transfer-Encoding: chunked, chunked\r\n"), kBadTransferEncoding},
        {"chunked with parameter", post("Transfer-Encoding: chunked;q=1\r\n"), kBadTransferEncoding},
        {"empty coding list", post("Transfer-Encoding:\r\n"), kBadTransferEncoding},
        {"space separated codings", post("Transfer-Encoding: gzip chunked\r\n"), kBadTransferEncoding},
        {"chunkedchunked", post("Transfer-Encoding: chunkedchunked\r\n"), kChunkedNotFinal},
        {"transfer-encoding in 1.0", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", kTransferEncodingHttp10},
        // Connection.
        {"connection option with parameter", get("Connection: close;x=1\r\n"), kBadHeaderValue},
        {"connection options without comma", get("Connection: close keep-alive\r\n"), kBadHeaderValue},
    };
}

TEST(ParserErrorsTest, Rejections) {
    for (const ErrorCase& c : error_cases()) {
        SCOPED_TRACE(c.name);
        const ParseStatus st = parse(c.input);
        ASSERT_TRUE(st.is_error()) << "result " << int(st.result);
        EXPECT_EQ(st.error.http_status, c.error.http_status);
        EXPECT_EQ(st.error.reason, c.error.reason);
    }
}

// A prefix of a bad request is either "need more" or the same error: never accepted, never another error.
TEST(ParserErrorsTest, RejectionsAtEverySplit) {
    for (const ErrorCase& c : error_cases()) {
        SCOPED_TRACE(c.name);
        for (std::size_t i = 0; i < c.input.size(); ++i) {
            const ParseStatus st = parse(std::string_view(c.input).substr(0, i));
            ASSERT_FALSE(st.is_complete()) << "prefix " << i;
            if (st.is_error()) {
                EXPECT_EQ(st.error, c.error) << "prefix " << i;
            }
        }
    }
}

TEST(ParserErrorsTest, RequestLineLimit) {
    Limits limits;
    limits.max_request_line = 20;
    const std::string fits = "GET /" + std::string(6, 'a') + " HTTP/1.1\r\nHost: h\r\n\r\n";  // 20 bytes + CRLF
    EXPECT_TRUE(parse(fits, limits).is_complete());
    const std::string over = "GET /" + std::string(7, 'a') + " HTTP/1.1\r\nHost: h\r\n\r\n";
    EXPECT_EQ(parse(over, limits).error, errors::kRequestLineTooLong);
    // Known to be too long before the line ends, and leading empty lines count.
    EXPECT_EQ(parse("GET /" + std::string(30, 'a'), limits).error, errors::kRequestLineTooLong);
    EXPECT_TRUE(parse("GET /" + std::string(15, 'a'), limits).is_incomplete());
    EXPECT_EQ(parse("\r\n\r\nGET /aaa HTTP/1.1\r\nHost: h\r\n\r\n", limits).error, errors::kRequestLineTooLong);
    EXPECT_EQ(parse(std::string(40, '\r') + "\n", limits).error, errors::kBadLineEnding);
    // The default: 8 KiB.
    const std::string long_target = "GET /" + std::string(8 * 1024, 'a') + " HTTP/1.1\r\nHost: h\r\n\r\n";
    EXPECT_EQ(parse(long_target).error.http_status, 414);
}

TEST(ParserErrorsTest, HeaderBytesLimit) {
    Limits limits;
    limits.max_header_bytes = 30;
    const std::string line = "GET / HTTP/1.1\r\n";
    const std::string fits = line + "Host: h\r\nX: " + std::string(14, 'v') + "\r\n\r\n";  // 9 + 19 + 2 = 30 bytes
    EXPECT_TRUE(parse(fits, limits).is_complete());
    const std::string over = line + "Host: h\r\nX: " + std::string(15, 'v') + "\r\n\r\n";
    EXPECT_EQ(parse(over, limits).error, errors::kHeadersTooLarge);
    EXPECT_EQ(parse(line + "Host: h\r\nX: " + std::string(40, 'v'), limits).error, errors::kHeadersTooLarge);
    EXPECT_TRUE(parse(line + "Host: h\r\nX: " + std::string(10, 'v'), limits).is_incomplete());
    std::string big = line + "Host: h\r\n";
    for (int i = 0; i < 2000; ++i)
        big += "X-Some-Field: some value\r\n";
    EXPECT_EQ(parse(big + "\r\n").error.http_status, 431);
}

TEST(ParserErrorsTest, HeaderCountLimit) {
    std::string in = "GET / HTTP/1.1\r\nHost: h\r\n";
    for (int i = 1; i < 100; ++i)
        in += "X: y\r\n";
    EXPECT_TRUE(parse(in + "\r\n").is_complete());  // exactly 100
    EXPECT_EQ(parse(in + "X: y\r\n\r\n").error, errors::kTooManyHeaders);
    // The caller's array bounds it too.
    EXPECT_EQ(parse("GET / HTTP/1.1\r\nHost: h\r\nA: b\r\nC: d\r\n\r\n", Limits{}, 2).error, errors::kTooManyHeaders);
    EXPECT_TRUE(parse("GET / HTTP/1.1\r\nHost: h\r\nA: b\r\n\r\n", Limits{}, 2).is_complete());
    Limits limits;
    limits.max_header_count = 1;
    EXPECT_EQ(parse("GET / HTTP/1.1\r\nHost: h\r\nA: b\r\n\r\n", limits).error, errors::kTooManyHeaders);
}

TEST(ParserErrorsTest, BodyLimit) {
    Limits limits;
    limits.max_body = 10;
    EXPECT_TRUE(parse("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\n", limits).is_complete());
    EXPECT_EQ(parse("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\n", limits).error, errors::kBodyTooLarge);
    EXPECT_EQ(parse("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\n", limits).error.http_status, 413);
}

TEST(ParserErrorsTest, ReasonsAreShortAndStatusesAreErrors) {
    for (const ErrorCase& c : error_cases()) {
        EXPECT_GE(c.error.http_status, 400);
        EXPECT_LT(c.error.reason.size(), 60u);
        EXPECT_FALSE(c.error.reason.empty());
    }
}

}  // namespace
}  // namespace slipstream::http::h1
