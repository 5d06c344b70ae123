// encode_response with a HeadCache: every response of a sequence comes out byte for byte as without the cache,
// whichever input changed from the response before (a replayed head, a rewritten X-Request-ID, a new head).
#include "server/encode/response_encoder.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace slipstream::server {
namespace {

namespace h1 = http::h1;

base::Result<std::size_t> collect(void* context, std::span<const iovec> pieces) {
    auto& wire = *static_cast<std::string*>(context);
    std::size_t n = 0;
    for (const iovec& v : pieces) {
        wire.append(static_cast<const char*>(v.iov_base), v.iov_len);
        n += v.iov_len;
    }
    return n;
}

std::string drain(OutputQueue& out) {
    std::string wire;
    char file_buffer[16];
    EXPECT_TRUE(out.flush_to(&collect, &wire, file_buffer).is_ok());
    return wire;
}

struct Step {
    const char* name;
    Response response;
    EncodeContext ctx;
    bool replayed;  // the cache's kept head serves it (no new head is planned)
};

Response json(std::string body, int status = 200) {
    return Response::json(std::move(body), status);
}

constexpr std::string_view kDate = "Mon, 30 Nov 2026 19:00:00 GMT";
constexpr std::string_view kNextDate = "Mon, 30 Nov 2026 19:00:01 GMT";
constexpr std::string_view kId = "0123456789abcdef0123456789abcdef";

EncodeContext context(std::string_view date = kDate, std::string_view request_id = kId) {
    EncodeContext c;
    c.date = date;
    c.server = "slipstream";
    c.request_id = request_id;
    return c;
}

Response owned_type(std::string type) {
    Response r = Response::text("hello!!!!!!!!!!!!!!!", 201);
    r.content_type = std::move(type);
    return r;
}

// Each step changes one input from the step before (or none: then the kept head is replayed).
std::vector<Step> steps() {
    std::vector<Step> s;
    s.push_back({"first", json(R"({"message":"hello"})"), context(), false});
    s.push_back({"same again", json(R"({"message":"hello"})"), context(), true});
    s.push_back({"another id, another body", json(R"({"message":"world"})"),
                 context(kDate, "fedcba9876543210fedcba9876543210"), true});
    s.push_back({"id of another length", json(R"({"message":"hello"})"), context(kDate, "client-id-7"), false});
    s.push_back({"no id", json(R"({"message":"hello"})"), context(kDate, {}), false});
    s.push_back({"next second", json(R"({"message":"hello"})"), context(kNextDate), false});
    s.push_back({"longer body", json(R"({"message":"hello!"})"), context(kNextDate), false});
    s.push_back({"status", json(R"({"message":"hello!"})", 201), context(kNextDate), false});
    s.push_back({"constant type", Response::text("hello!!!!!!!!!!!!!!!", 201), context(kNextDate), false});
    s.push_back({"the same type, owned", owned_type("text/plain; charset=utf-8"), context(kNextDate), true});
    s.push_back({"another owned type", owned_type("text/plain; charset=latin1"), context(kNextDate), false});
    s.push_back({"no type", owned_type(""), context(kNextDate), false});
    s.push_back({"server", json("{}"), context(kNextDate), false});
    s.back().ctx.server = "other";
    s.push_back({"close", json("{}"), context(kNextDate), false});
    s.back().ctx.server = "other";
    s.back().ctx.keep_alive = false;
    s.push_back({"http/1.0 keep-alive", json("{}"), context(kNextDate), false});
    s.back().ctx.server = "other";
    s.back().ctx.version = h1::Version::kHttp10;
    s.push_back({"head: no content", json("{}"), context(kNextDate), true});
    s.back().ctx.server = "other";
    s.back().ctx.version = h1::Version::kHttp10;
    s.back().ctx.head_only = true;
    s.push_back({"handler field: not kept", json("{}").with_header("X-A", "1"), context(), false});
    s.push_back({"after a handler field", json("{}"), context(), false});
    s.push_back({"no content", json("", 204), context(), false});
    s.push_back({"no content again", json("", 204), context(), true});
    s.push_back({"not modified", json("{}", 304), context(), false});
    s.push_back({"large body, moved", json(std::string(OutputQueue::kMoveThreshold, 'x')), context(), false});
    s.push_back({"large body again", json(std::string(OutputQueue::kMoveThreshold, 'y')), context(), true});
    s.push_back({"static body", Response::static_json(R"({"message":"hello"})"), context(), false});
    s.push_back({"static body again", Response::static_json(R"({"message":"hello"})"), context(), true});
    s.push_back({"owned body of that length", json(R"({"message":"world"})"), context(), true});
    return s;
}

// The large static body of the table below (static storage, as static_body requires).
const std::string kLargeStatic(OutputQueue::kMoveThreshold + 5, 's');

// A static body goes on the wire exactly as the same bytes owned by `body` would.
TEST(StaticBody, SameBytesAsAnOwnedBody) {
    struct Case {
        const char* name;
        std::string_view bytes;
        bool head_only;
    };
    const Case cases[] = {
        {"small", R"({"message":"hello"})", false},
        {"empty", "", false},
        {"head", R"({"message":"hello"})", true},
        {"large (not copied behind the head)", kLargeStatic, false},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        EncodeContext ctx = context();
        ctx.head_only = c.head_only;
        OutputQueue owned;
        ASSERT_TRUE(encode_response(json(std::string(c.bytes)), ctx, owned));
        Response r = Response::static_json(c.bytes);
        r.body = "ignored while static_body is set";
        EXPECT_EQ(r.body_bytes(), c.bytes);
        OutputQueue out;
        ASSERT_TRUE(encode_response(std::move(r), ctx, out));
        EXPECT_EQ(drain(out), drain(owned));
    }
}

TEST(StaticBody, OwnBodyCopiesIt) {
    Response r = Response::static_text("plain");
    r.own_body();
    EXPECT_EQ(r.static_body.data(), nullptr);
    EXPECT_EQ(r.body, "plain");
    EXPECT_EQ(r.body_bytes(), "plain");
    r.own_body();  // nothing static left: unchanged
    EXPECT_EQ(r.body, "plain");
}

TEST(HeadCache, EveryResponseAsWithoutTheCache) {
    HeadCache cache;
    for (Step& step : steps()) {
        SCOPED_TRACE(step.name);
        Response copy = step.response;
        OutputQueue plain;
        const bool plain_ok = encode_response(std::move(copy), step.ctx, plain);
        const std::string want = drain(plain);

        const std::uint64_t replayed_before = cache.replayed();
        EncodeContext cached_ctx = step.ctx;
        cached_ctx.head_cache = &cache;
        OutputQueue out;
        const bool ok = encode_response(std::move(step.response), cached_ctx, out);
        EXPECT_EQ(ok, plain_ok);
        EXPECT_EQ(out.size(), want.size());
        EXPECT_EQ(drain(out), want);
        EXPECT_EQ(cache.replayed() - replayed_before, step.replayed ? 1u : 0u);
    }
}

}  // namespace
}  // namespace slipstream::server
