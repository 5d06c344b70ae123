// The demo app: GET /hello, POST /echo (JSON re-serialized), GET /delay/{ms}, GET /stream/{n} (a streamed body),
// GET /whoami (the authenticated principal).
#include <cstdlib>
#include <memory>
#include <string>

#include "app/serve_main.h"
#include "demo_timers.h"
#include "slipstream/json.h"
#include "slipstream/slipstream.h"
#include "slipstream/sse.h"

namespace {

using demo::DemoTimers;

// The answer when the demo's timer queue is full.
slipstream::Response busy() {
    return slipstream::Response::static_json(R"({"detail":"the demo is busy, try again"})", 503)
        .with_header("Retry-After", "1");
}

// Plain request/response routes: /hello, /echo, /delay/{ms}, /whoami.
void add_routes(slipstream::App& app, DemoTimers& timers) {
    app.get("/hello", [](slipstream::Request&) { return slipstream::Response::static_json(R"({"message":"hello"})"); });
    app.post("/echo", [](slipstream::Request& req) {
        std::string error;
        auto body = slipstream::json_reformat(req.body(), &error);
        if (!body) {
            slipstream::Response r(400);
            r.content_type = "application/problem+json";
            r.body = R"({"type":"about:blank","title":"Bad Request","status":400,"detail":)" +
                     slipstream::json_quote("invalid JSON body: " + error) + "}";
            return r;
        }
        return slipstream::Response::json(std::move(*body));
    });

    // Who the request came from when --auth is on: {"principal":"alice"}, or null when anonymous; with the
    // credential's scopes when it carries any (an issued token, a JWT with scopes): {"principal":..,"scopes":"read"}.
    app.get("/whoami", [](slipstream::Request& req) {
        std::string_view who = req.principal();
        std::string scopes = req.scoped() ? R"(,"scopes":)" + slipstream::json_quote(req.scopes()) : "";
        return slipstream::Response::json(R"({"principal":)" + (who.empty() ? "null" : slipstream::json_quote(who)) +
                                          scopes + "}");
    });

    // An asynchronous handler: answers from the timer thread after `ms` milliseconds (at most 10 s).
    app.route_async("GET", "/delay/{ms:int}", [&timers](slipstream::Request& req, slipstream::Responder responder) {
        long ms = std::strtol(std::string(*req.path_param("ms")).c_str(), nullptr, 10);
        if (ms < 0 || ms > 10'000) {
            responder.send(slipstream::Response::static_json(R"({"detail":"ms must be within 0..10000"})", 400));
            return;
        }
        auto r = std::make_shared<slipstream::Responder>(std::move(responder));
        bool queued = timers.after(
            ms, [ms, r] { r->send(slipstream::Response::json(R"({"delayed_ms":)" + std::to_string(ms) + "}")); });
        if (!queued) r->send(busy());
    });
}

// One /sse/ticks stream: its ticks run on the timer thread, one task per tick; only that thread touches it.
struct Ticks {
    std::unique_ptr<slipstream::EventStream> stream;  // null once the client left or the stream ended
    long n = 0;
    long interval_ms = 0;
};

// Sends tick `i` and schedules the next; the stream ends after tick n, or as soon as the client left.
void tick(DemoTimers& timers, const std::shared_ptr<Ticks>& t, long i) {
    if (!t->stream) return;
    if (!t->stream->send(R"({"tick":)" + std::to_string(i) + "}", "tick", std::to_string(i))) {
        t->stream.reset();  // the client left
        return;
    }
    if (i < t->n && timers.after(t->interval_ms, [&timers, t, i] { tick(timers, t, i + 1); })) return;
    t->stream->close();
    t->stream.reset();
}

// Streams and WebSocket: /sse/ticks, /ws/echo, /stream/{n}.
void add_streaming_routes(slipstream::App& app, DemoTimers& timers) {
    // Server-Sent Events: /sse/ticks?n=5&interval_ms=1000[&heartbeat_ms=..]: n "tick" events from the timer
    // thread; a client that leaves stops them at once (the cancel callback drops the stream).
    app.route_async("GET", "/sse/ticks", [&timers](slipstream::Request& req, slipstream::Responder responder) {
        auto number = [&](const char* name, long fallback, long max) {
            auto v = req.query(name);
            long x = v ? std::strtol(v->c_str(), nullptr, 10) : fallback;
            return x < 0 ? 0 : x > max ? max : x;
        };
        long n = number("n", 5, 1'000'000), interval = number("interval_ms", 1000, 60'000);
        slipstream::EventStreamOptions options;
        if (req.query("heartbeat_ms"))
            options.heartbeat_ms = static_cast<std::uint32_t>(number("heartbeat_ms", 0, 60'000));
        auto t = std::make_shared<Ticks>();
        t->stream = std::make_unique<slipstream::EventStream>(std::move(responder), std::move(options));
        t->n = n;
        t->interval_ms = interval;
        // The client left: the stream (its Responder) goes on the timer thread now, not at the next tick. A weak
        // reference: the stream holds this callback, and the ticks own the stream.
        std::weak_ptr<Ticks> weak = t;
        t->stream->on_cancel([&timers, weak] {
            timers.after(0, [weak] {
                if (auto held = weak.lock()) held->stream.reset();
            });
        });
        if (n == 0 || !timers.after(0, [&timers, t] { tick(timers, t, 1); })) t->stream->close();
    });

    // WebSocket echo: every message comes back as it was sent (text as text, binary as binary).
    slipstream::WebSocketHandler echo;
    echo.on_message = [](slipstream::WebSocket& ws, std::string_view data, bool is_text) {
        if (is_text) {
            ws.send_text(data);
        } else {
            ws.send_binary(data);
        }
    };
    app.websocket("/ws/echo", std::move(echo));

    // A streamed answer: `n` lines written from the timer thread, then the end (at most 1000 lines).
    app.route_async("GET", "/stream/{n:int}", [&timers](slipstream::Request& req, slipstream::Responder responder) {
        long n = std::strtol(std::string(*req.path_param("n")).c_str(), nullptr, 10);
        if (n < 0 || n > 1000) {
            responder.send(slipstream::Response::json(R"({"detail":"n must be within 0..1000"})", 400));
            return;
        }
        auto r = std::make_shared<slipstream::Responder>(std::move(responder));
        bool queued = timers.after(0, [n, r] {
            slipstream::Response head(200);
            head.content_type = "text/plain; charset=utf-8";
            if (!r->start_stream(std::move(head))) return;
            for (long i = 0; i < n; ++i)
                if (!r->write("line " + std::to_string(i) + "\n")) return;
            r->end();
        });
        if (!queued) r->send(busy());
    });
}

}  // namespace

int main(int argc, char** argv, char** envp) {
    DemoTimers timers;  // outlives the server: its tasks' Responders find the loop gone and drop their answers
    return slipstream::app::serve_main(argc, argv, envp, "hello",
                                       [&timers](slipstream::App& app, const slipstream::app::Config&) {
                                           add_routes(app, timers);
                                           add_streaming_routes(app, timers);
                                       });
}
