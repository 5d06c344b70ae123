// LlmProxy against a scripted OpenAI-compatible upstream on a real socket: valid streams, output invalid at various
// points (the upstream is cut), truncated and stalled streams, error statuses, timeouts, cancel; and the route on an
// App, read back over HTTP.
#include "slipstream/llm_proxy.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <optional>
#include <thread>

#include "http/sse/event_parser.h"
#include "store/http/shared_client.h"
#include "store/http/test_server.h"

namespace slipstream {
namespace {

using store::http::testing::ServerConn;
using store::http::testing::TestServer;
using namespace std::chrono_literals;

constexpr const char* kSchema =
    R"({"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer","minimum":0}},)"
    R"("required":["name","age"],"additionalProperties":false})";
constexpr const char* kRequest = R"({"model":"m","messages":[{"role":"user","content":"who?"}]})";

std::string json_quote(std::string_view s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out.push_back('\\');
        out.push_back(c);
    }
    return out + "\"";
}

std::string chunk_event(std::string_view content, std::string_view finish = "null") {
    return "data: "
           "{\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":" +
           json_quote(content) + "},\"finish_reason\":" + std::string(finish) + "}]}\n\n";
}

std::string http_chunk(std::string_view data) {
    char size[32];
    std::snprintf(size, sizeof size, "%zx\r\n", data.size());
    return size + std::string(data) + "\r\n";
}

const char* kStreamHead = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";

// An upstream that streams `pieces` as content deltas (one HTTP chunk each, `gap_ms` apart), then [DONE] (unless
// `done` is false), and records the request it got. `cut_after` >= 0: closes the connection after that many pieces.
struct Upstream {
    std::vector<std::string> pieces;
    int gap_ms = 0;
    bool done = true;
    int cut_after = -1;
    std::mutex mutex;
    std::string request;
    std::atomic<bool> client_closed{false};
    std::atomic<int> written{0};

    // A document whose "name" string goes on for `n` pieces, 10 ms apart: still streaming when the test acts.
    void long_name(int n) {
        pieces = {"{\"name\": \""};
        for (int i = 0; i < n; ++i)
            pieces.push_back("a");
        gap_ms = 10;
    }

    TestServer::Handler handler() {
        return [this](ServerConn& c) {
            while (serve(c)) {
            }
        };
    }
    // One request; false when the connection is done.
    bool serve(ServerConn& c) {
        {
            std::string req = c.read_request();
            if (req.empty()) return false;
            {
                std::lock_guard<std::mutex> lock(mutex);
                request = req;
            }
            if (!c.write(kStreamHead)) return false;
            for (std::size_t i = 0; i < pieces.size(); ++i) {
                if (cut_after >= 0 && static_cast<int>(i) == cut_after) {
                    c.close();
                    return false;
                }
                if (!c.write(http_chunk(chunk_event(pieces[i])))) {
                    client_closed = true;
                    return false;
                }
                ++written;
                if (gap_ms > 0) {
                    if (c.wait_closed(gap_ms)) {
                        client_closed = true;
                        return false;
                    }
                }
            }
            c.write(http_chunk(chunk_event("", "\"stop\"")));
            if (done) c.write(http_chunk("data: [DONE]\n\n"));
            c.write("0\r\n\r\n");
            return true;
        }
    }
    std::string got() {
        std::lock_guard<std::mutex> lock(mutex);
        return request;
    }
};

// What a call's handlers heard, from the proxy's thread.
struct Heard {
    std::mutex mutex;
    std::condition_variable changed;
    bool started = false;
    std::optional<LlmRefusal> refusal;
    std::vector<std::pair<std::string, std::string>> events;
    int after_end = 0;

    LlmCallHandlers handlers() {
        LlmCallHandlers h;
        h.on_start = [this] {
            std::lock_guard<std::mutex> lock(mutex);
            started = true;
        };
        h.on_refused = [this](const LlmRefusal& f) {
            std::lock_guard<std::mutex> lock(mutex);
            refusal = f;
            changed.notify_all();
        };
        h.on_event = [this](const LlmStreamEvent& e) {
            std::lock_guard<std::mutex> lock(mutex);
            if (!events.empty() && (events.back().first == "complete" || events.back().first == "error")) ++after_end;
            events.emplace_back(std::string(e.kind), std::string(e.json));
            changed.notify_all();
        };
        return h;
    }
    bool ended() const {
        return refusal.has_value() ||
               (!events.empty() && (events.back().first == "complete" || events.back().first == "error"));
    }
    bool wait_end(std::chrono::milliseconds limit = 5s) {
        std::unique_lock<std::mutex> lock(mutex);
        return changed.wait_for(lock, limit, [&] { return ended(); });
    }
    std::pair<std::string, std::string> last() {
        std::lock_guard<std::mutex> lock(mutex);
        return events.empty() ? std::pair<std::string, std::string>() : events.back();
    }
};

LlmUpstreamOptions upstream_for(const TestServer& s) {
    LlmUpstreamOptions o;
    o.base_url = "http://127.0.0.1:" + std::to_string(s.port());
    o.api_key = "sk-test";
    return o;
}

template <typename Pred>
bool eventually(Pred p, std::chrono::milliseconds limit = 3s) {
    auto until = std::chrono::steady_clock::now() + limit;
    while (!p()) {
        if (std::chrono::steady_clock::now() > until) return false;
        std::this_thread::sleep_for(5ms);
    }
    return true;
}

TEST(LlmProxy, ValidStreamCompletes) {
    Upstream up;
    up.pieces = {"{\"na", "me\": \"Ada", " Lovelace\", ", "\"age\": 36", "}"};
    TestServer server(up.handler());
    LlmProxy proxy(upstream_for(server));
    auto schema = StructuredSchema::compile(kSchema);
    Heard h;
    auto call = proxy.start(kRequest, schema, {}, h.handlers());
    ASSERT_TRUE(h.wait_end());
    EXPECT_TRUE(h.started);
    ASSERT_FALSE(h.refusal.has_value());
    ASSERT_GE(h.events.size(), 2u);
    EXPECT_EQ(h.events.front(), (std::pair<std::string, std::string>{"partial", "{}"}));
    EXPECT_EQ(h.events[1], (std::pair<std::string, std::string>{"partial", R"({"name":"Ada"})"}));
    EXPECT_EQ(h.last(), (std::pair<std::string, std::string>{"complete", R"({"name":"Ada Lovelace","age":36})"}));
    EXPECT_EQ(h.after_end, 0);
    EXPECT_TRUE(call->done());
    std::string req = up.got();
    EXPECT_NE(req.find("POST /v1/chat/completions HTTP/1.1\r\n"), std::string::npos);
    EXPECT_NE(req.find("Authorization: Bearer sk-test\r\n"), std::string::npos);
    EXPECT_NE(req.find("Accept: text/event-stream\r\n"), std::string::npos);
    EXPECT_NE(req.find(R"("stream":true)"), std::string::npos);
    EXPECT_NE(req.find(R"("response_format":{"type":"json_schema","json_schema":{"name":"output","schema":{"type")"),
              std::string::npos);
    LlmProxyStats s = proxy.stats();
    EXPECT_EQ(s.started, 1u);
    EXPECT_EQ(s.completed, 1u);
    EXPECT_TRUE(eventually([&] { return proxy.stats().active == 0; }));
}

TEST(LlmProxy, DeltaEvents) {
    Upstream up;
    up.pieces = {"{\"name\":\"A\\\"b\",", "\"age\":1}"};
    TestServer server(up.handler());
    LlmProxy proxy(upstream_for(server));
    Heard h;
    LlmCallOptions o;
    o.events = StructuredEvents::kDelta;
    proxy.start(kRequest, StructuredSchema::compile(kSchema), o, h.handlers());
    ASSERT_TRUE(h.wait_end());
    ASSERT_EQ(h.events.size(), 3u);
    EXPECT_EQ(h.events[0], (std::pair<std::string, std::string>{"delta", R"("{\"name\":\"A\\\"b\",")"}));
    EXPECT_EQ(h.events[1], (std::pair<std::string, std::string>{"delta", R"("\"age\":1}")"}));
    EXPECT_EQ(h.events[2].first, "complete");
}

TEST(LlmProxy, InvalidOutputStopsTheUpstream) {
    struct Case {
        std::vector<std::string> pieces;
        std::string pointer;
        std::string keyword;
        std::size_t offset;
    };
    const std::vector<Case> cases = {
        {{"{\"name\": \"x\", \"e", "mail\": 1", "}"}, "/e", "additionalProperties", 15},  // a key no property starts
        {{"{\"name\": 12", "3}"}, "/name", "type", 9},                                    // a number for a string
        {{"[1, 2]"}, "", "type", 0},                                                      // not an object at all
        {{"{\"name\":\"a\",\"age\":-1}"}, "/age", "minimum", 20},                         // when the number ends
        {{"{\"age\": 3}"}, "", "required", 9},                                            // closed without name
        {{"Sure! Here is the JSON: {"}, "", "json", 0},                                   // chatter
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.pieces.front());
        Upstream up;
        up.pieces = c.pieces;
        for (int i = 0; i < 50; ++i)
            up.pieces.push_back(" ");  // more to come: it must not be read
        up.gap_ms = 20;
        TestServer server(up.handler());
        LlmProxy proxy(upstream_for(server));
        Heard h;
        proxy.start(kRequest, StructuredSchema::compile(kSchema), {}, h.handlers());
        ASSERT_TRUE(h.wait_end());
        auto [kind, json] = h.last();
        EXPECT_EQ(kind, "error");
        EXPECT_NE(json.find("\"pointer\":\"" + c.pointer + "\""), std::string::npos) << json;
        EXPECT_NE(json.find("\"keyword\":\"" + c.keyword + "\""), std::string::npos) << json;
        EXPECT_NE(json.find("\"offset\":" + std::to_string(c.offset) + ","), std::string::npos) << json;
        EXPECT_TRUE(eventually([&] { return up.client_closed.load(); }));  // the upstream call was cut
        EXPECT_LT(up.written.load(), 20);
        EXPECT_EQ(proxy.stats().invalid, 1u);
    }
}

TEST(LlmProxy, TruncatedAndBrokenStreams) {
    {
        Upstream up;  // the connection closes mid-document
        up.pieces = {"{\"name\": \"Ad", "a\", \"age\": 3", "6}"};
        up.cut_after = 1;
        TestServer server(up.handler());
        LlmProxy proxy(upstream_for(server));
        Heard h;
        proxy.start(kRequest, StructuredSchema::compile(kSchema), {}, h.handlers());
        ASSERT_TRUE(h.wait_end());
        auto [kind, json] = h.last();
        EXPECT_EQ(kind, "error");
        EXPECT_NE(json.find("\"keyword\":\"upstream\""), std::string::npos) << json;
        EXPECT_NE(json.find("closed the connection"), std::string::npos) << json;
        EXPECT_EQ(proxy.stats().failed, 1u);
    }
    {
        Upstream up;  // a clean end without [DONE], the document unfinished
        up.pieces = {"{\"name\": \"Ad"};
        up.done = false;
        TestServer server(up.handler());
        LlmProxy proxy(upstream_for(server));
        Heard h;
        proxy.start(kRequest, StructuredSchema::compile(kSchema), {}, h.handlers());
        ASSERT_TRUE(h.wait_end());
        auto [kind, json] = h.last();
        EXPECT_EQ(kind, "error");
        EXPECT_NE(json.find("\"keyword\":\"json\""), std::string::npos) << json;
        EXPECT_NE(json.find("\"offset\":9,"), std::string::npos) << json;  // where the open string started
        EXPECT_NE(json.find("Unterminated string"), std::string::npos) << json;
    }
    {
        Upstream up;  // a clean end without [DONE], the document complete: accepted
        up.pieces = {"{\"name\":\"x\",\"age\":1}"};
        up.done = false;
        TestServer server(up.handler());
        LlmProxy proxy(upstream_for(server));
        Heard h;
        proxy.start(kRequest, StructuredSchema::compile(kSchema), {}, h.handlers());
        ASSERT_TRUE(h.wait_end());
        EXPECT_EQ(h.last().first, "complete");
    }
    // The upstream's error object mid-stream; a refusal; an event that is not JSON.
    for (const std::string& bad :
         {std::string("data: {\"error\":{\"message\":\"overloaded\",\"type\":\"server_error\"}}\n\n"),
          std::string("data: {\"choices\":[{\"index\":0,\"delta\":{\"refusal\":\"I can't\"}}]}\n\n"),
          std::string("data: not json\n\n")}) {
        TestServer server([&bad](ServerConn& c) {
            c.read_request();
            c.write(kStreamHead);
            c.write(http_chunk(chunk_event("{\"na")));
            c.write(http_chunk(bad));
            c.wait_closed(2000);
        });
        LlmProxy proxy(upstream_for(server));
        Heard h;
        proxy.start(kRequest, StructuredSchema::compile(kSchema), {}, h.handlers());
        ASSERT_TRUE(h.wait_end());
        auto [kind, json] = h.last();
        EXPECT_EQ(kind, "error");
        if (bad.find("overloaded") != std::string::npos) {
            EXPECT_NE(json.find("overloaded"), std::string::npos) << json;
        } else if (bad.find("refusal") != std::string::npos) {
            EXPECT_NE(json.find("\"keyword\":\"refusal\""), std::string::npos) << json;
            EXPECT_NE(json.find("I can't"), std::string::npos) << json;
        } else {
            EXPECT_NE(json.find("not a JSON object"), std::string::npos) << json;
        }
    }
}

std::string with_body(std::string head, std::string_view body) {
    return head + "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + std::string(body);
}

TEST(LlmProxy, ErrorStatusesBeforeTheStream) {
    struct Case {
        std::string response;
        int status;
        std::string text;
    };
    const std::vector<Case> cases = {
        {with_body("HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\n",
                   "{\"error\":{\"message\":\"model crashed\"}}"),
         502, "model crashed"},
        {"HTTP/1.1 429 Too Many Requests\r\nRetry-After: 7\r\nContent-Length: 9\r\n\r\nslow down", 429, "slow down"},
        {with_body("HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\n",
                   "{\"detail\":\"messages required\"}"),
         400, "messages required"},
        {"HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n", 502, "answered 401"},
        {"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 5\r\n\r\n<html", 502, "not an event stream"},
        {"garbage\r\n\r\n", 502, "malformed status line"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.response);
        TestServer server([&c](ServerConn& conn) {
            conn.read_request();
            conn.write(c.response);
            conn.wait_closed(2000);
        });
        LlmProxy proxy(upstream_for(server));
        Heard h;
        proxy.start(kRequest, StructuredSchema::compile(kSchema), {}, h.handlers());
        ASSERT_TRUE(h.wait_end());
        ASSERT_TRUE(h.refusal.has_value());
        EXPECT_FALSE(h.started);
        EXPECT_TRUE(h.events.empty());
        EXPECT_EQ(h.refusal->status, c.status);
        EXPECT_NE(h.refusal->body.find(c.text), std::string::npos) << h.refusal->body;
        EXPECT_EQ(h.refusal->body.rfind("{\"error\":{\"message\":", 0), 0u) << h.refusal->body;
        if (c.status == 429) {
            EXPECT_EQ(h.refusal->retry_after, "7");
        }
    }
}

TEST(LlmProxy, UnreachableSlowAndStalledUpstreams) {
    std::uint16_t port;
    {
        TestServer gone([](ServerConn&) {});
        port = gone.port();
    }
    LlmUpstreamOptions o;
    o.base_url = "http://127.0.0.1:" + std::to_string(port);
    {
        LlmProxy proxy(o);
        Heard h;
        proxy.start(kRequest, StructuredSchema::compile(kSchema), {}, h.handlers());
        ASSERT_TRUE(h.wait_end());
        ASSERT_TRUE(h.refusal.has_value());
        EXPECT_EQ(h.refusal->status, 502);
        EXPECT_NE(h.refusal->body.find("upstream_unavailable"), std::string::npos) << h.refusal->body;
        EXPECT_NE(h.refusal->body.find("refused"), std::string::npos) << h.refusal->body;
    }
    Upstream slow;
    slow.pieces = {"{\"name\":\"x\",", "\"age\":1}"};
    TestServer server([&slow](ServerConn& c) {
        std::string req = c.read_request();
        if (req.find("\"silent\"") != std::string::npos) {
            c.wait_closed(3000);
            return;
        }
        c.write(kStreamHead);
        c.write(http_chunk(chunk_event("{\"name\":")));
        slow.client_closed = c.wait_closed(3000);
    });
    LlmUpstreamOptions t = upstream_for(server);
    t.first_byte_timeout_ms = 100;
    t.idle_timeout_ms = 100;
    LlmProxy proxy(t);
    Heard a;
    proxy.start(R"({"model":"silent","messages":[]})", StructuredSchema::compile(kSchema), {}, a.handlers());
    ASSERT_TRUE(a.wait_end());
    ASSERT_TRUE(a.refusal.has_value());
    EXPECT_EQ(a.refusal->status, 504);
    EXPECT_NE(a.refusal->body.find("first-byte timeout"), std::string::npos) << a.refusal->body;
    Heard b;
    proxy.start(kRequest, StructuredSchema::compile(kSchema), {}, b.handlers());
    ASSERT_TRUE(b.wait_end());
    auto [kind, json] = b.last();
    EXPECT_EQ(kind, "error");
    EXPECT_NE(json.find("idle timeout"), std::string::npos) << json;
    EXPECT_NE(json.find("\"keyword\":\"upstream\""), std::string::npos) << json;
    EXPECT_TRUE(eventually([&] { return slow.client_closed.load(); }));
}

TEST(LlmProxy, CancelClosesTheUpstreamAndSilencesTheHandlers) {
    Upstream up;
    up.long_name(200);
    TestServer server(up.handler());
    LlmProxy proxy(upstream_for(server));
    Heard h;
    auto call = proxy.start(kRequest, StructuredSchema::compile(kSchema), {}, h.handlers());
    ASSERT_TRUE(eventually([&] {
        std::lock_guard<std::mutex> lock(h.mutex);
        return h.events.size() >= 3;
    }));
    call->cancel();
    EXPECT_TRUE(eventually([&] { return up.client_closed.load(); }));
    std::size_t n;
    {
        std::lock_guard<std::mutex> lock(h.mutex);
        n = h.events.size();
    }
    std::this_thread::sleep_for(100ms);
    {
        std::lock_guard<std::mutex> lock(h.mutex);
        EXPECT_LE(h.events.size(), n + 1);  // at most one already on its way
        EXPECT_FALSE(h.ended());
    }
    EXPECT_TRUE(call->done());
    EXPECT_TRUE(eventually([&] { return proxy.stats().cancelled == 1 && proxy.stats().active == 0; }));
    call->cancel();
    call->resume();
}

TEST(LlmProxy, BadRequestsAreRefusedAtOnce) {
    LlmUpstreamOptions o;
    o.base_url = "http://127.0.0.1:1";
    LlmProxy proxy(o);
    Heard h;
    proxy.start("{not json", StructuredSchema::compile(kSchema), {}, h.handlers());
    ASSERT_TRUE(h.refusal.has_value());  // on this thread, inside start()
    EXPECT_EQ(h.refusal->status, 400);
    EXPECT_NE(h.refusal->body.find("not valid JSON"), std::string::npos);
    Heard n;
    proxy.start(R"({"messages":[],"n":3})", StructuredSchema::compile(kSchema), {}, n.handlers());
    ASSERT_TRUE(n.refusal.has_value());
    EXPECT_NE(n.refusal->body.find("'n' must be 1"), std::string::npos);
    EXPECT_THROW(StructuredSchema::compile("{\"type\": 3}"), std::invalid_argument);
    LlmUpstreamOptions ftp;
    ftp.base_url = "ftp://x";
    EXPECT_THROW(LlmProxy{ftp}, std::invalid_argument);
    LlmUpstreamOptions ca;
    ca.base_url = "https://example.com";
    ca.ca_file = "/nonexistent/ca.pem";
    EXPECT_THROW(LlmProxy{ca}, std::invalid_argument);
}

TEST(LlmProxy, NonStreamingAnswer) {
    TestServer server([](ServerConn& c) {
        c.read_request();
        std::string body =
            R"({"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant",)"
            R"("content":"{\"name\":\"Bo\",\"age\":2}"},"finish_reason":"stop"}]})";
        c.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
                "\r\n\r\n" + body);
        c.wait_closed(2000);
    });
    LlmProxy proxy(upstream_for(server));
    Heard h;
    proxy.start(kRequest, StructuredSchema::compile(kSchema), {}, h.handlers());
    ASSERT_TRUE(h.wait_end());
    EXPECT_EQ(h.last(), (std::pair<std::string, std::string>{"complete", R"({"name":"Bo","age":2})"}));
}

// ---- the route ----

LlmRouteOptions route(StructuredFormat format = StructuredFormat::kSse,
                      StructuredEvents events = StructuredEvents::kPartial) {
    LlmRouteOptions r;
    r.schema = kSchema;
    r.format = format;
    r.call.events = events;
    return r;
}

struct SseCollect final : http::sse::EventSink {
    std::vector<std::pair<std::string, std::string>> events;
    base::Status on_event(const http::sse::ParsedEvent& e) override {
        events.emplace_back(std::string(e.type), std::string(e.data));
        return base::Status::ok();
    }
};

struct Answer {
    int status = 0;
    std::string type;
    std::string body;
    std::string retry_after;
};

Answer post(std::uint16_t port, const std::string& path, const std::string& body) {
    auto client = store::http::SharedClient::create();
    EXPECT_TRUE(client.is_ok());
    store::http::Request r;
    r.method = "POST";
    r.url = "http://127.0.0.1:" + std::to_string(port) + path;
    r.headers = {{"Content-Type", "application/json"}, {"Authorization", "Bearer client-secret"}};
    r.body = body;
    std::promise<base::Result<store::http::Response>> done;
    (*client)->fetch(std::move(r), [&](base::Result<store::http::Response> resp) { done.set_value(std::move(resp)); });
    auto resp = done.get_future().get();
    EXPECT_TRUE(resp.is_ok()) << resp.status().to_string();
    if (!resp.is_ok()) return {};
    return Answer{resp->head.status, std::string(resp->head.header("content-type")), resp->body,
                  std::string(resp->head.header("retry-after"))};
}

TEST(LlmProxyRoute, SseAndNdjson) {
    Upstream up;
    up.pieces = {"{\"name\":\"Ada\",", "\"age\":36}"};
    TestServer server(up.handler());
    LlmProxy proxy(upstream_for(server));
    App app;
    proxy.mount(app, "/extract", route());
    proxy.mount(app, "/extract.ndjson", route(StructuredFormat::kNdjson, StructuredEvents::kDelta));
    app.listen("127.0.0.1", 0);
    app.start();
    Answer a = post(app.port(), "/extract", kRequest);
    EXPECT_EQ(a.status, 200);
    EXPECT_EQ(a.type.rfind("text/event-stream", 0), 0u) << a.type;
    SseCollect sse;
    http::sse::EventParser parser;
    ASSERT_TRUE(parser.feed(a.body, sse).is_ok());
    ASSERT_EQ(sse.events.size(), 3u) << a.body;
    EXPECT_EQ(sse.events[0], (std::pair<std::string, std::string>{"partial", R"({"name":"Ada"})"}));
    EXPECT_EQ(sse.events[2], (std::pair<std::string, std::string>{"complete", R"({"name":"Ada","age":36})"}));
    // The client's Authorization never reaches the upstream; the proxy's key does.
    EXPECT_EQ(up.got().find("client-secret"), std::string::npos);
    EXPECT_NE(up.got().find("Bearer sk-test"), std::string::npos);

    Answer n = post(app.port(), "/extract.ndjson", kRequest);
    EXPECT_EQ(n.status, 200);
    EXPECT_EQ(n.type, "application/x-ndjson");
    EXPECT_EQ(n.body,
              "{\"type\":\"delta\",\"value\":\"{\\\"name\\\":\\\"Ada\\\",\"}\n"
              "{\"type\":\"delta\",\"value\":\"\\\"age\\\":36}\"}\n"
              "{\"type\":\"complete\",\"value\":{\"name\":\"Ada\",\"age\":36}}\n");
    Answer bad = post(app.port(), "/extract", "[]");
    EXPECT_EQ(bad.status, 400);
    EXPECT_NE(bad.body.find("invalid_request_error"), std::string::npos) << bad.body;
    app.stop();
    app.wait();
}

TEST(LlmProxyRoute, UpstreamErrorsBecomeStatuses) {
    TestServer server([](ServerConn& c) {
        c.read_request();
        c.write("HTTP/1.1 429 Too Many Requests\r\nRetry-After: 3\r\nContent-Length: 4\r\n\r\nbusy");
        c.wait_closed(2000);
    });
    LlmProxy proxy(upstream_for(server));
    App app;
    LlmRouteOptions small = route();
    small.max_request_bytes = 200;
    proxy.mount(app, "/extract", small);
    app.listen("127.0.0.1", 0);
    app.start();
    Answer a = post(app.port(), "/extract", kRequest);
    EXPECT_EQ(a.status, 429);
    EXPECT_EQ(a.retry_after, "3");
    EXPECT_NE(a.body.find("busy"), std::string::npos) << a.body;
    Answer big = post(app.port(), "/extract", std::string(300, ' '));
    EXPECT_EQ(big.status, 413);
    app.stop();
    app.wait();
}

TEST(LlmProxyRoute, ClientDisconnectCancelsTheUpstream) {
    Upstream up;
    up.long_name(300);
    TestServer server(up.handler());
    LlmProxy proxy(upstream_for(server));
    App app;
    proxy.mount(app, "/extract", route());
    app.listen("127.0.0.1", 0);
    app.start();
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(app.port());
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    std::string body = kRequest;
    std::string req = "POST /extract HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: " +
                      std::to_string(body.size()) + "\r\n\r\n" + body;
    ASSERT_EQ(::send(fd, req.data(), req.size(), MSG_NOSIGNAL), static_cast<ssize_t>(req.size()));
    char buf[4096];
    std::string got;
    while (got.find("event: partial") == std::string::npos) {
        ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        ASSERT_GT(n, 0);
        got.append(buf, static_cast<std::size_t>(n));
    }
    ::close(fd);  // the client goes away
    EXPECT_TRUE(eventually([&] { return up.client_closed.load(); }));
    EXPECT_LT(up.written.load(), 250);
    EXPECT_TRUE(eventually([&] { return proxy.stats().cancelled == 1 && proxy.stats().active == 0; }));
    app.stop();
    app.wait();
}

}  // namespace
}  // namespace slipstream
