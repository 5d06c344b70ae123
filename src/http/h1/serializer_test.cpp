// Response serializer: exact bytes for each framing/version/status rule, chunk framing, field validation.
#include "http/h1/serializer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "http/h1/reason_phrase.h"

namespace slipstream::http::h1 {
namespace {

constexpr std::string_view kDate = "Tue, 14 Nov 2023 22:13:20 GMT";

struct Case {
    const char* name;
    ResponseHead head;
    std::string bytes;
    ResponseFraming framing;
    bool keep_alive;
    bool content_written = false;
};

const Header kContentType[] = {{"Content-Type", "text/plain"}};
const Header kUpgrade[] = {{"Connection", "Upgrade"}, {"Upgrade", "websocket"}};

ResponseHead head(int status, ResponseFraming framing, std::uint64_t length = 0, bool keep_alive = true,
                  Version version = Version::kHttp11) {
    ResponseHead h;
    h.status = status;
    h.framing = framing;
    h.content_length = length;
    h.keep_alive = keep_alive;
    h.request_version = version;
    return h;
}

std::vector<Case> cases() {
    using F = ResponseFraming;
    std::vector<Case> v;
    ResponseHead full = head(200, F::kContentLength, 5);
    full.date = kDate;
    full.server = "slipstream";
    full.headers = kContentType;
    v.push_back({"full", full,
                 "HTTP/1.1 200 OK\r\nDate: Tue, 14 Nov 2023 22:13:20 GMT\r\nServer: slipstream\r\n"
                 "Content-Type: text/plain\r\nContent-Length: 5\r\n\r\n",
                 F::kContentLength, true});
    v.push_back({"close", head(404, F::kContentLength, 0, false),
                 "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", F::kContentLength, false});
    v.push_back({"chunked", head(200, F::kChunked), "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
                 F::kChunked, true});
    v.push_back({"chunked to 1.0 becomes until-close", head(200, F::kChunked, 0, true, Version::kHttp10),
                 "HTTP/1.1 200 OK\r\n\r\n", F::kUntilClose, false});
    v.push_back({"until close on 1.1", head(200, F::kUntilClose), "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n",
                 F::kUntilClose, false});
    v.push_back({"1.0 keep-alive", head(200, F::kContentLength, 2, true, Version::kHttp10),
                 "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\n", F::kContentLength, true});
    v.push_back({"1.0 close", head(200, F::kContentLength, 2, false, Version::kHttp10),
                 "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n", F::kContentLength, false});
    v.push_back(
        {"204 has no length", head(204, F::kContentLength, 9), "HTTP/1.1 204 No Content\r\n\r\n", F::kNone, true});
    v.push_back({"304 has no length", head(304, F::kChunked), "HTTP/1.1 304 Not Modified\r\n\r\n", F::kNone, true});
    ResponseHead switching = head(101, F::kNone);
    switching.headers = kUpgrade;
    v.push_back({"101 with caller's Connection", switching,
                 "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n", F::kNone,
                 true});
    v.push_back({"unregistered status", head(599, F::kContentLength), "HTTP/1.1 599 \r\nContent-Length: 0\r\n\r\n",
                 F::kContentLength, true});
    v.push_back({"invalid status", head(42, F::kContentLength),
                 "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n", F::kContentLength, true});
    ResponseHead custom = head(200, F::kContentLength, 18446744073709551615u);
    custom.reason = "Fine";
    v.push_back({"custom reason, max length", custom,
                 "HTTP/1.1 200 Fine\r\nContent-Length: 18446744073709551615\r\n\r\n", F::kContentLength, true});
    ResponseHead ok = head(200, F::kContentLength, 1);
    ok.reason = "OK";
    v.push_back({"explicit OK", ok, "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n", F::kContentLength, true});
    ResponseHead with_content = head(200, F::kContentLength, 5);
    with_content.content = "hello";
    v.push_back({"content behind the head", with_content, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
                 F::kContentLength, true, true});
    ResponseHead no_content = head(204, F::kContentLength, 5);
    no_content.content = "hello";
    v.push_back({"204 leaves the content out", no_content, "HTTP/1.1 204 No Content\r\n\r\n", F::kNone, true});
    ResponseHead chunked_content = head(200, F::kChunked);
    chunked_content.content = "hello";
    v.push_back({"chunked leaves the content out", chunked_content,
                 "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", F::kChunked, true});
    return v;
}

TEST(SerializerTest, ExactBytes) {
    for (const Case& c : cases()) {
        SCOPED_TRACE(c.name);
        base::Buffer buf;
        buf.append("prefix");
        const WrittenHead w = write_response_head(c.head, buf);
        EXPECT_EQ(buf.view(), "prefix" + c.bytes);
        EXPECT_EQ(w.bytes, c.bytes.size());
        EXPECT_EQ(w.framing, c.framing);
        EXPECT_EQ(w.keep_alive, c.keep_alive);
        EXPECT_EQ(w.content_written, c.content_written);
        EXPECT_EQ(response_head_size(c.head), c.bytes.size());
    }
}

// Field names and values of every length from 0 to 40 (each copy path: short, word pairs, memcpy) and
// Content-Length values of every digit count, against a head assembled here by plain concatenation.
TEST(SerializerTest, PieceLengths) {
    const std::string letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    std::uint64_t length = 0;
    for (std::size_t n = 0; n <= 40; ++n) {
        SCOPED_TRACE(n);
        const std::string name = "X" + letters.substr(0, n);
        const std::string value = letters.substr(letters.size() - n);
        const Header fields[] = {{name, value}};
        ResponseHead h = head(200, ResponseFraming::kContentLength, length);
        h.headers = fields;
        h.server = std::string_view(letters).substr(0, n);
        std::string expected = "HTTP/1.1 200 OK\r\n";
        if (n != 0) expected += "Server: " + letters.substr(0, n) + "\r\n";
        expected += name + ": " + value + "\r\nContent-Length: " + std::to_string(length) + "\r\n\r\n";
        base::Buffer buf;
        EXPECT_EQ(write_response_head(h, buf).bytes, expected.size());
        EXPECT_EQ(buf.view(), expected);
        length = length * 10 + 9;  // 0, 9, 99, ...: every digit count up to 20
        if (n == 19) length = 18446744073709551615u;
    }
}

TEST(SerializerTest, CharBuffer) {
    for (const Case& c : cases()) {
        SCOPED_TRACE(c.name);
        std::string exact(c.bytes.size(), '\0');
        EXPECT_EQ(write_response_head(c.head, std::span<char>(exact)).bytes, c.bytes.size());
        EXPECT_EQ(exact, c.bytes);
        std::string small(c.bytes.size() - 1, '#');
        EXPECT_EQ(write_response_head(c.head, std::span<char>(small)).bytes, 0u);
        EXPECT_EQ(small, std::string(c.bytes.size() - 1, '#'));
    }
}

TEST(SerializerTest, SpaceCallback) {
    struct Sink {
        std::string out;
        std::size_t asked = 0;
        bool refuse = false;
    };
    const HeadSpaceFn space = [](void* context, std::size_t size) -> char* {
        auto& sink = *static_cast<Sink*>(context);
        sink.asked = size;
        if (sink.refuse) return nullptr;
        sink.out.append("prefix");
        sink.out.resize(sink.out.size() + size);
        return sink.out.data() + 6;
    };
    for (const Case& c : cases()) {
        SCOPED_TRACE(c.name);
        Sink sink;
        const WrittenHead w = write_response_head(c.head, space, &sink);
        EXPECT_EQ(sink.out, "prefix" + c.bytes);
        EXPECT_EQ(sink.asked, c.bytes.size());
        EXPECT_EQ(w.bytes, c.bytes.size());
        EXPECT_EQ(w.framing, c.framing);
        EXPECT_EQ(w.keep_alive, c.keep_alive);
        EXPECT_EQ(w.content_written, c.content_written);
        Sink refused;
        refused.refuse = true;
        EXPECT_EQ(write_response_head(c.head, space, &refused).bytes, 0u);
        EXPECT_EQ(refused.asked, c.bytes.size());
        EXPECT_EQ(refused.out, "");
    }
}

TEST(SerializerTest, ChunkFraming) {
    char h[kMaxChunkHeaderSize];
    EXPECT_EQ(chunk_header(1, h), "1\r\n");
    EXPECT_EQ(chunk_header(255, h), "ff\r\n");
    EXPECT_EQ(chunk_header(4096, h), "1000\r\n");
    EXPECT_EQ(chunk_header(UINT64_MAX, h), "ffffffffffffffff\r\n");
    base::Buffer buf;
    append_chunk(buf, "hello");
    append_chunk(buf, "");
    append_chunk(buf, std::string(26, 'x'));
    append_last_chunk(buf);
    EXPECT_EQ(buf.view(), "5\r\nhello\r\n1a\r\n" + std::string(26, 'x') + "\r\n0\r\n\r\n");
    EXPECT_EQ(kContinueResponse, "HTTP/1.1 100 Continue\r\n\r\n");
}

TEST(SerializerTest, FieldValidation) {
    struct FieldCase {
        std::string name;
        std::string value;
        bool ok;
    };
    const std::vector<FieldCase> fields = {
        {"X-Ok", "value with spaces\tand tab", true},
        {"X-Empty", "", true},
        {"X-Obs", "caf\xc3\xa9", true},
        {"X-Split", "a\r\nSet-Cookie: x=1", false},
        {"X-Lf", "a\nb", false},
        {"X-Cr", "a\rb", false},
        {"X-Nul", std::string("a\0b", 3), false},
        {"X-Del", "a\x7f", false},
        {"X-Lead", " a", false},
        {"X-Trail", "a\t", false},
        {"", "v", false},
        {"Bad Name", "v", false},
        {"Bad:Name", "v", false},
        {"Bad\r\nName", "v", false},
    };
    for (const FieldCase& f : fields) {
        SCOPED_TRACE(f.name + "=" + f.value);
        const base::Status st = validate_field(f.name, f.value);
        EXPECT_EQ(st.is_ok(), f.ok);
        if (!f.ok) {
            EXPECT_TRUE(st.is_invalid_argument());
        }
    }
    EXPECT_TRUE(is_framing_field("content-length"));
    EXPECT_TRUE(is_framing_field("Transfer-Encoding"));
    EXPECT_TRUE(is_framing_field("CONNECTION"));
    EXPECT_FALSE(is_framing_field("Content-Type"));
}

TEST(SerializerTest, ReasonPhrases) {
    EXPECT_EQ(reason_phrase(200), "OK");
    EXPECT_EQ(reason_phrase(413), "Content Too Large");
    EXPECT_EQ(reason_phrase(422), "Unprocessable Content");
    EXPECT_EQ(reason_phrase(431), "Request Header Fields Too Large");
    EXPECT_EQ(reason_phrase(505), "HTTP Version Not Supported");
    EXPECT_EQ(reason_phrase(299), "");
    for (int s : {100, 101, 201, 202, 204, 301, 302, 303, 304, 307, 308, 400, 401, 403, 404, 405, 406, 408,
                  409, 410, 411, 412, 414, 415, 416, 417, 426, 428, 429, 451, 500, 501, 502, 503, 504}) {
        EXPECT_FALSE(reason_phrase(s).empty()) << s;
    }
}

}  // namespace
}  // namespace slipstream::http::h1
