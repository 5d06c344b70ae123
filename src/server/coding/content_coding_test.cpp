// ContentCoding: which responses are compressed and how; which request bodies are decoded or refused.
#include "server/coding/content_coding.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "http/compression/decoder.h"
#include "http/compression/encoder.h"
#include "metrics/registry.h"

namespace slipstream::server {
namespace {

namespace hc = http::compression;
namespace h1 = http::h1;

std::string text_body(std::size_t n) {
    std::string s;
    while (s.size() < n)
        s += "The quick brown fox jumps over the lazy dog. ";
    s.resize(n);
    return s;
}

const std::string* header(const Response& r, std::string_view name) {
    return find_response_header(r, name);
}

struct Fixture {
    explicit Fixture(ServerOptions o = {}) : metrics(registry), coding(o, metrics) {}
    metrics::Registry registry;
    CodingMetrics metrics;
    ContentCoding coding;
};

struct ResponseCase {
    const char* name;
    std::string accept;  // "" = no Accept-Encoding field
    std::string content_type;
    std::size_t size;
    std::vector<std::pair<std::string, std::string>> headers;
    int status;
    std::string encoding;  // expected Content-Encoding ("" = none)
    std::string vary;      // expected Vary ("" = none)
};

TEST(ContentCoding, CompressResponse) {
    const ResponseCase cases[] = {
        {"json gzip", "gzip", "application/json", 2000, {}, 200, "gzip", "Accept-Encoding"},
        {"server order", "gzip, br, zstd", "application/json", 2000, {}, 200, "zstd", "Accept-Encoding"},
        {"q-values", "gzip;q=1, br;q=0.5, zstd;q=0.1", "text/html", 2000, {}, 200, "gzip", "Accept-Encoding"},
        {"br", "br", "text/plain; charset=utf-8", 2000, {}, 200, "br", "Accept-Encoding"},
        {"no accept: identity, still Vary", "", "application/json", 2000, {}, 200, "", "Accept-Encoding"},
        {"identity refused only", "identity;q=0", "application/json", 2000, {}, 200, "", "Accept-Encoding"},
        {"below min size", "gzip", "application/json", 1023, {}, 200, "", ""},
        {"at min size", "gzip", "application/json", 1024, {}, 200, "gzip", "Accept-Encoding"},
        {"type not listed", "gzip", "application/octet-stream", 2000, {}, 200, "", ""},
        {"png", "gzip", "image/png", 2000, {}, 200, "", ""},
        {"svg", "gzip", "image/svg+xml", 2000, {}, 200, "gzip", "Accept-Encoding"},
        {"+json suffix", "gzip", "application/problem+json", 2000, {}, 200, "gzip", "Accept-Encoding"},
        {"type from header", "gzip", "", 2000, {{"Content-Type", "text/css"}}, 200, "gzip", "Accept-Encoding"},
        {"no type", "gzip", "", 2000, {}, 200, "", ""},
        {"event stream", "gzip", "text/event-stream", 2000, {}, 200, "", ""},
        {"already encoded", "gzip", "text/plain", 2000, {{"Content-Encoding", "br"}}, 200, "br", ""},
        {"no-transform", "gzip", "text/plain", 2000, {{"Cache-Control", "public, no-transform"}}, 200, "", ""},
        {"204", "gzip", "text/plain", 2000, {}, 204, "", ""},
        {"304", "gzip", "text/plain", 2000, {}, 304, "", ""},
        {"206", "gzip", "text/plain", 2000, {}, 206, "", ""},
        {"404 body compressed", "gzip", "text/plain", 2000, {}, 404, "gzip", "Accept-Encoding"},
        {"vary merged", "gzip", "text/plain", 2000, {{"Vary", "Origin"}}, 200, "gzip", "Origin, Accept-Encoding"},
        {"vary kept", "gzip", "text/plain", 2000, {{"Vary", "accept-encoding"}}, 200, "gzip", "accept-encoding"},
        {"vary star", "gzip", "text/plain", 2000, {{"Vary", "*"}}, 200, "gzip", "*"},
    };
    Fixture f;
    for (const ResponseCase& c : cases) {
        SCOPED_TRACE(c.name);
        Response r(c.status);
        r.content_type = c.content_type;
        r.headers = c.headers;
        r.body = text_body(c.size);
        std::vector<h1::Header> request;
        if (!c.accept.empty()) request.push_back({"Accept-Encoding", c.accept});
        f.coding.compress_response(request, r);
        const std::string* ce = header(r, "content-encoding");
        EXPECT_EQ(ce ? *ce : "", c.encoding);
        const std::string* vary = header(r, "vary");
        EXPECT_EQ(vary ? *vary : "", c.vary);
        if (!c.encoding.empty() && c.headers.empty()) {
            auto decoded = hc::decode(*hc::parse_encoding(c.encoding), r.body, {.max_output = 1 << 20});
            ASSERT_TRUE(decoded.is_ok());
            EXPECT_EQ(*decoded, text_body(c.size));
        } else if (c.encoding.empty()) {
            EXPECT_TRUE(r.body == text_body(c.size));
        }
    }
    EXPECT_EQ(f.metrics.compressed_responses.with({"gzip"}).value(), 10u);
    EXPECT_GT(f.metrics.saved_bytes.with({"gzip"}).value(), 9000u);
}

TEST(ContentCoding, IncompressibleBodyIsSentAsItIs) {
    Fixture f;
    Response r = Response::text("");
    std::mt19937 rng(7);
    for (int i = 0; i < 3000; ++i)
        r.body.push_back(static_cast<char>(rng() & 0xff));
    std::string original = r.body;
    const h1::Header accept[] = {{"Accept-Encoding", "gzip"}};
    f.coding.compress_response(accept, r);
    EXPECT_EQ(header(r, "content-encoding"), nullptr);
    EXPECT_TRUE(r.body == original);
    EXPECT_EQ(*header(r, "vary"), "Accept-Encoding");
}

// A static body is compressed like an owned one (and then replaced by the packed bytes); one compression leaves
// alone stays a view of its static bytes.
TEST(ContentCoding, StaticBodyIsCompressedOrLeftAsItsView) {
    Fixture f;
    static const std::string kLong = text_body(3000);
    static constexpr std::string_view kShort = R"({"message":"hello"})";
    const h1::Header accept[] = {{"Accept-Encoding", "gzip"}};
    Response big = Response::static_json(kLong);
    f.coding.compress_response(accept, big);
    ASSERT_NE(header(big, "content-encoding"), nullptr);
    EXPECT_EQ(*header(big, "content-encoding"), "gzip");
    EXPECT_EQ(big.static_body.data(), nullptr);
    auto decoded = hc::decode(hc::Encoding::kGzip, big.body, {.max_output = 1 << 20});
    ASSERT_TRUE(decoded.is_ok());
    EXPECT_EQ(*decoded, kLong);
    Response small = Response::static_json(kShort);
    f.coding.compress_response(accept, small);
    EXPECT_EQ(header(small, "content-encoding"), nullptr);
    EXPECT_EQ(small.static_body.data(), kShort.data());
    EXPECT_TRUE(small.body.empty());
}

TEST(ContentCoding, StrongEtagIsWeakened) {
    Fixture f;
    Response r = Response::json(text_body(3000));
    r.headers = {{"ETag", "\"abc\""}, {"ETag", "W/\"weak\""}};
    const h1::Header accept[] = {{"Accept-Encoding", "br"}};
    f.coding.compress_response(accept, r);
    EXPECT_EQ(r.headers[0].second, "W/\"abc\"");
    EXPECT_EQ(r.headers[1].second, "W/\"weak\"");
}

TEST(ContentCoding, OptionsSwitchAndOrder) {
    ServerOptions off;
    off.compression = false;
    Fixture a(off);
    Response r = Response::json(text_body(3000));
    const h1::Header accept[] = {{"Accept-Encoding", "gzip, br, zstd"}};
    a.coding.compress_response(accept, r);
    EXPECT_EQ(header(r, "content-encoding"), nullptr);
    EXPECT_EQ(header(r, "vary"), nullptr);

    ServerOptions order;
    order.compression_encodings = "gzip, br";
    order.compression_min_size = 0;
    Fixture b(order);
    Response small = Response::json(text_body(100));
    b.coding.compress_response(accept, small);
    EXPECT_EQ(*header(small, "content-encoding"), "gzip");
}

TEST(ContentCoding, BadOptionsThrowNamingTheOption) {
    const std::pair<std::string, std::string> cases[] = {
        {"gzip,lzma", "compression_encodings: unknown coding 'lzma' (expected gzip, br, zstd or deflate)"},
        {"gzip,gzip", "compression_encodings: 'gzip' twice"},
        {"identity", "compression_encodings: unknown coding 'identity' (expected gzip, br, zstd or deflate)"},
    };
    for (const auto& [value, message] : cases) {
        ServerOptions o;
        o.compression_encodings = value;
        try {
            CompressionPolicy p(o);
            ADD_FAILURE() << value;
        } catch (const std::invalid_argument& e) {
            EXPECT_EQ(std::string(e.what()), message);
        }
    }
    ServerOptions t;
    t.compression_types = "text";
    EXPECT_THROW(CompressionPolicy{t}, std::invalid_argument);
    ServerOptions l;
    l.brotli_level = 12;
    EXPECT_THROW(CompressionPolicy{l}, std::invalid_argument);
}

TEST(ContentCoding, StreamHeadGetsHeadersAndAnEncoder) {
    Fixture f;
    const h1::Header accept[] = {{"Accept-Encoding", "gzip"}};
    Response head(200);
    head.content_type = "application/x-ndjson";
    auto encoder = f.coding.start_stream(accept, head);
    ASSERT_NE(encoder, nullptr);
    EXPECT_EQ(*header(head, "content-encoding"), "gzip");
    Response sse(200);
    sse.content_type = "text/event-stream";
    EXPECT_EQ(f.coding.start_stream(accept, sse), nullptr);  // SSE only with compress_sse
    EXPECT_EQ(header(sse, "vary"), nullptr);

    ServerOptions o;
    o.compress_sse = true;
    Fixture g(o);
    EXPECT_NE(g.coding.start_stream(accept, sse), nullptr);
}

struct DecodeCase {
    const char* name;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    int status;          // 0: accepted
    std::string detail;  // the problem detail, or the decoded body when accepted
};

std::string packed(hc::Encoding e, std::string_view s) {
    return hc::compress(e, s, hc::level_range(e).fallback).value();
}

TEST(ContentCoding, DecodeRequestBody) {
    const std::string json = R"({"name":"value","list":[1,2,3]})";
    const std::string zeros(2 << 20, '0');
    const DecodeCase cases[] = {
        {"no coding", {}, json, 0, json},
        {"gzip", {{"Content-Encoding", "gzip"}}, packed(hc::Encoding::kGzip, json), 0, json},
        {"x-gzip", {{"content-encoding", "x-gzip"}}, packed(hc::Encoding::kGzip, json), 0, json},
        {"br", {{"Content-Encoding", "br"}}, packed(hc::Encoding::kBrotli, json), 0, json},
        {"zstd", {{"Content-Encoding", "zstd"}}, packed(hc::Encoding::kZstd, json), 0, json},
        {"deflate", {{"Content-Encoding", "deflate"}}, packed(hc::Encoding::kDeflate, json), 0, json},
        {"identity", {{"Content-Encoding", "identity"}}, json, 0, json},
        {"layers in order",
         {{"Content-Encoding", "gzip, br"}},
         packed(hc::Encoding::kBrotli, packed(hc::Encoding::kGzip, json)),
         0,
         json},
        {"empty body", {{"Content-Encoding", "gzip"}}, "", 0, ""},
        {"unknown",
         {{"Content-Encoding", "compress"}},
         json,
         415,
         "unsupported Content-Encoding 'compress' (supported: gzip, br, zstd, deflate)"},
        {"malformed", {{"Content-Encoding", "gzip"}}, json, 400, "invalid gzip data: incorrect header check"},
        {"bomb by ratio",
         {{"Content-Encoding", "gzip"}},
         packed(hc::Encoding::kGzip, zeros),
         413,
         "the body expands more than 100 times when decompressed"},
    };
    Fixture f;
    for (const DecodeCase& c : cases) {
        SCOPED_TRACE(c.name);
        std::vector<h1::Header> request;
        for (const auto& [n, v] : c.headers)
            request.push_back({n, v});
        std::string_view body = c.body;
        std::string storage;
        std::optional<Response> refused = f.coding.decode_request_body(request, body, storage);
        if (c.status == 0) {
            ASSERT_FALSE(refused.has_value()) << refused->body;
            EXPECT_EQ(body, c.detail);
        } else {
            ASSERT_TRUE(refused.has_value());
            EXPECT_EQ(refused->status, c.status);
            EXPECT_NE(refused->body.find("\"detail\":\"" + c.detail + "\""), std::string::npos) << refused->body;
        }
    }
    EXPECT_EQ(f.metrics.rejected_requests.with({"ratio"}).value(), 1u);
    EXPECT_EQ(f.metrics.decoded_requests.with({"gzip"}).value(), 3u);
}

TEST(ContentCoding, DecodeSizeCapAndSwitch) {
    ServerOptions o;
    o.max_decompressed_body_bytes = 1000;
    o.max_decompression_ratio = 0;
    Fixture f(o);
    const h1::Header gzip[] = {{"Content-Encoding", "gzip"}};
    std::string wire = packed(hc::Encoding::kGzip, std::string(5000, 'a'));
    std::string_view body = wire;
    std::string storage;
    auto refused = f.coding.decode_request_body(gzip, body, storage);
    ASSERT_TRUE(refused.has_value());
    EXPECT_EQ(refused->status, 413);
    EXPECT_NE(refused->body.find("the decompressed body exceeds the limit of 1000 bytes"), std::string::npos);

    ServerOptions off;
    off.request_decompression = false;
    Fixture g(off);
    body = wire;
    refused = g.coding.decode_request_body(gzip, body, storage);
    ASSERT_TRUE(refused.has_value());
    EXPECT_EQ(refused->status, 415);
    EXPECT_EQ(*header(*refused, "accept-encoding"), "identity");
}

}  // namespace
}  // namespace slipstream::server
