// ChunkedDecoder: valid bodies whole, split at every byte and fed byte by byte; every rejection; limits.
#include "http/h1/chunked_decoder.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace slipstream::http::h1 {
namespace {

using Event = ChunkedDecoder::Event;

struct Decoded {
    std::string data;
    Event last = Event::kNeedMore;
    std::size_t consumed = 0;  // total input bytes consumed
    ParseError error;
};

// Feeds `pieces` in order, keeping unconsumed bytes (as a connection buffer would) until the body ends.
Decoded decode_pieces(const std::vector<std::string>& pieces, const Limits& limits = {}) {
    ChunkedDecoder dec(limits);
    Decoded out;
    std::string pending;
    for (const std::string& piece : pieces) {
        pending += piece;
        std::string_view in = pending;
        for (;;) {
            const ChunkedDecoder::Step step = dec.decode(in);
            in.remove_prefix(step.consumed);
            out.consumed += step.consumed;
            out.last = step.event;
            if (step.event == Event::kData) {
                EXPECT_FALSE(step.data.empty());
                out.data.append(step.data);
                continue;
            }
            if (step.event == Event::kError) out.error = step.error;
            break;
        }
        if (out.last == Event::kDone || out.last == Event::kError) return out;
        pending.assign(in);
        EXPECT_TRUE(pending.empty()) << "kNeedMore must consume everything";
    }
    return out;
}

Decoded decode_all(const std::string& body, const Limits& limits = {}) {
    return decode_pieces({body}, limits);
}

struct ValidCase {
    const char* name;
    std::string body;
    std::string data;
    std::size_t consumed;  // 0: the whole body
};

std::vector<ValidCase> valid_cases() {
    return {
        {"one chunk", "5\r\nhello\r\n0\r\n\r\n", "hello", 0},
        {"two chunks", "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", "hello world", 0},
        {"hex sizes", "a\r\n0123456789\r\nA\r\nabcdefghij\r\n0\r\n\r\n", "0123456789abcdefghij", 0},
        {"leading zeros", "0005\r\nhello\r\n000\r\n\r\n", "hello", 0},
        {"empty body", "0\r\n\r\n", "", 0},
        {"data with CRLF", "4\r\n\r\n\r\n\r\n0\r\n\r\n", "\r\n\r\n", 0},
        {"extension name", "5;foo\r\nhello\r\n0;bar\r\n\r\n", "hello", 0},
        {"extension token value", "5;foo=bar;baz=1\r\nhello\r\n0\r\n\r\n", "hello", 0},
        {"extension BWS", "5 \t; foo = bar ; baz\r\nhello\r\n0\r\n\r\n", "hello", 0},
        {"extension quoted value", "5;a=\"x \\\"y\\\" ;,=\\\\\";b=\"\"\r\nhello\r\n0\r\n\r\n", "hello", 0},
        {"extension after quoted value with BWS", "5;a=\"x\" ;b\r\nhello\r\n0\r\n\r\n", "hello", 0},
        {"trailers", "5\r\nhello\r\n0\r\nVary: *\r\nX-Checksum: \tabc def\r\n\r\n", "hello", 0},
        {"empty trailer value", "0\r\nX:\r\n\r\n", "", 0},
        {"next request follows", "3\r\nabc\r\n0\r\n\r\nGET / HTTP/1.1\r\n", "abc", 13},
    };
}

TEST(ChunkedDecoderTest, ValidBodies) {
    for (const ValidCase& c : valid_cases()) {
        SCOPED_TRACE(c.name);
        const Decoded d = decode_all(c.body);
        EXPECT_EQ(d.last, Event::kDone) << d.error.reason;
        EXPECT_EQ(d.data, c.data);
        EXPECT_EQ(d.consumed, c.consumed == 0 ? c.body.size() : c.consumed);
    }
}

TEST(ChunkedDecoderTest, ValidBodiesSplitAtEveryByte) {
    for (const ValidCase& c : valid_cases()) {
        SCOPED_TRACE(c.name);
        for (std::size_t i = 0; i <= c.body.size(); ++i) {
            const Decoded d = decode_pieces({c.body.substr(0, i), c.body.substr(i)});
            EXPECT_EQ(d.last, Event::kDone) << "split at " << i;
            EXPECT_EQ(d.data, c.data) << "split at " << i;
            EXPECT_EQ(d.consumed, c.consumed == 0 ? c.body.size() : c.consumed) << "split at " << i;
        }
    }
}

TEST(ChunkedDecoderTest, ValidBodiesByteByByte) {
    for (const ValidCase& c : valid_cases()) {
        SCOPED_TRACE(c.name);
        std::vector<std::string> bytes;
        for (char ch : c.body)
            bytes.emplace_back(1, ch);
        const Decoded d = decode_pieces(bytes);
        EXPECT_EQ(d.last, Event::kDone);
        EXPECT_EQ(d.data, c.data);
    }
}

TEST(ChunkedDecoderTest, DataIsAViewIntoTheInput) {
    ChunkedDecoder dec;
    const std::string in = "5\r\nhello\r\n0\r\n\r\n";
    const ChunkedDecoder::Step step = dec.decode(in);
    ASSERT_EQ(step.event, Event::kData);
    EXPECT_EQ(step.data.data(), in.data() + 3);
    EXPECT_EQ(step.consumed, 8u);
    EXPECT_EQ(dec.body_bytes(), 5u);
}

struct ErrorCase {
    const char* name;
    std::string body;
    ParseError error;
};

std::vector<ErrorCase> error_cases() {
    using namespace errors;
    return {
        {"no size", "\r\nhello\r\n0\r\n\r\n", kBadChunkSize},
        {"non-hex size", "x\r\n", kBadChunkSize},
        {"signed size", "+5\r\nhello\r\n0\r\n\r\n", kBadChunkSize},
        {"space after size", "5 \r\nhello\r\n0\r\n\r\n", kBadChunkSize},
        {"text after size", "2 erfrferferf\r\naa\r\n0 rrrr\r\n\r\n", kBadChunkSize},
        {"bare LF after size", "5\nhello\r\n0\r\n\r\n", kBadChunkSize},
        {"CR without LF after size", "5\rhello\r\n0\r\n\r\n", kBadLineEnding},
        {"size over max body before overflow", "10000000000000000\r\n", kBodyTooLarge},
        {"missing last chunk", "3\r\nfoo\r\n\r\n", kBadChunkSize},
        {"empty extension", "5;\r\nhello\r\n0\r\n\r\n", kBadChunkExtension},
        {"extension without name", "5;=a\r\nhello\r\n0\r\n\r\n", kBadChunkExtension},
        {"extension without value", "5;a=\r\nhello\r\n0\r\n\r\n", kBadChunkExtension},
        {"BWS before CRLF after name", "5;a \r\nhello\r\n0\r\n\r\n", kBadChunkExtension},
        {"BWS before CRLF after value", "5;a=b \r\nhello\r\n0\r\n\r\n", kBadChunkExtension},
        {"bad char in extension name", "5;a@b\r\nhello\r\n0\r\n\r\n", kBadChunkExtension},
        {"bad char in token value", "5;a=b\"c\r\nhello\r\n0\r\n\r\n", kBadChunkExtension},
        {"unterminated quoted value", "5;a=\"abc\r\nhello\r\n0\r\n\r\n", kBadChunkExtension},
        {"text after quoted value", "5;a=\"x\"y\r\nhello\r\n0\r\n\r\n", kBadChunkExtension},
        {"control byte in quoted value", "5;a=\"\x01\"\r\nhello\r\n0\r\n\r\n", kBadChunkExtension},
        {"data too long", "5\r\nhelloX\r\n0\r\n\r\n", kBadChunkEnd},
        {"CR without LF after data", "5\r\nhello\rX0\r\n\r\n", kBadChunkEnd},
        {"data without CRLF", "5\r\nABCDE0\r\n\r\n", kBadChunkEnd},
        {"trailer obs-fold", "0\r\nA: b\r\n c\r\n\r\n", kBadTrailer},
        {"trailer space before colon", "0\r\nA : b\r\n\r\n", kBadTrailer},
        {"trailer without colon", "0\r\nAb\r\n\r\n", kBadTrailer},
        {"trailer control byte", "0\r\nA: \x01\r\n\r\n", kBadTrailer},
        {"trailer bare LF", "0\r\nA: b\n\r\n", kBadTrailer},
        {"trailer CR without LF", "0\r\nA: b\rX\r\n", kBadLineEnding},
        {"last chunk CR without LF", "0\r\n\rX", kBadLineEnding},
        {"chunk over max body", "100001\r\n", kBodyTooLarge},
        {"chunks over max body", "80000\r\n" + std::string(0x80000, 'a') + "\r\n80001\r\n", kBodyTooLarge},
    };
}

TEST(ChunkedDecoderTest, Rejections) {
    for (const ErrorCase& c : error_cases()) {
        SCOPED_TRACE(c.name);
        const Decoded d = decode_all(c.body);
        EXPECT_EQ(d.last, Event::kError);
        EXPECT_EQ(d.error, c.error) << d.error.reason;
    }
}

TEST(ChunkedDecoderTest, RejectionsSplitAtEveryByte) {
    for (const ErrorCase& c : error_cases()) {
        if (c.body.size() > 64) continue;
        SCOPED_TRACE(c.name);
        for (std::size_t i = 0; i <= c.body.size(); ++i) {
            const Decoded d = decode_pieces({c.body.substr(0, i), c.body.substr(i)});
            EXPECT_EQ(d.error, c.error) << "split at " << i;
        }
    }
}

TEST(ChunkedDecoderTest, ErrorAndDoneAreSticky) {
    ChunkedDecoder dec;
    EXPECT_EQ(dec.decode("x").event, Event::kError);
    const ChunkedDecoder::Step again = dec.decode("5\r\nhello\r\n");
    EXPECT_EQ(again.event, Event::kError);
    EXPECT_EQ(again.consumed, 0u);
    EXPECT_EQ(again.error, errors::kBadChunkSize);

    dec.reset();
    const ChunkedDecoder::Step done = dec.decode("0\r\n\r\nrest");
    EXPECT_EQ(done.event, Event::kDone);
    EXPECT_EQ(done.consumed, 5u);
    EXPECT_TRUE(dec.done());
    const ChunkedDecoder::Step after = dec.decode("rest");
    EXPECT_EQ(after.event, Event::kDone);
    EXPECT_EQ(after.consumed, 0u);
}

TEST(ChunkedDecoderTest, Limits) {
    Limits limits;
    limits.max_body = 10;
    EXPECT_EQ(decode_all("a\r\n0123456789\r\n0\r\n\r\n", limits).last, Event::kDone);
    EXPECT_EQ(decode_all("b\r\n", limits).error, errors::kBodyTooLarge);
    EXPECT_EQ(decode_all("5\r\nhello\r\n6\r\n", limits).error, errors::kBodyTooLarge);
    EXPECT_EQ(decode_all("0000000000000000000000000b\r\n", limits).error, errors::kBodyTooLarge);

    limits = Limits{};
    limits.max_body = UINT64_MAX;
    EXPECT_EQ(decode_all("ffffffffffffffff\r\n", limits).last, Event::kNeedMore);
    EXPECT_EQ(decode_all("fffffffffffffffff\r\n", limits).error, errors::kBadChunkSize);

    limits = Limits{};
    limits.max_chunk_line = 8;
    EXPECT_EQ(decode_all("5;abcd=e\r\nhello\r\n0\r\n\r\n", limits).last, Event::kDone);
    EXPECT_EQ(decode_all("5;abcd=ef\r\nhello\r\n0\r\n\r\n", limits).error, errors::kChunkLineTooLong);
    EXPECT_EQ(decode_all(std::string(9, '0'), limits).error, errors::kChunkLineTooLong);

    limits = Limits{};
    limits.max_trailer_bytes = 10;
    EXPECT_EQ(decode_all("0\r\nA: 123\r\n\r\n", limits).last, Event::kDone);  // 8 + 2 bytes
    EXPECT_EQ(decode_all("0\r\nA: 1234\r\n\r\n", limits).error, errors::kTrailerTooLarge);
    EXPECT_EQ(decode_all("0\r\nA: 1234\r\n\r\n", limits).error.http_status, 431);
}

}  // namespace
}  // namespace slipstream::http::h1
