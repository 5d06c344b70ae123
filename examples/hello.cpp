// The demo app: GET /hello, POST /echo (JSON re-serialized), GET /delay/{ms}, GET /stream/{n} (a streamed body),
// GET /whoami (the authenticated principal).
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "app/serve_main.h"
#include "slipstream/json.h"
#include "slipstream/slipstream.h"
#include "slipstream/sse.h"

namespace {

// Plain request/response routes: /hello, /echo, /delay/{ms}, /whoami.
void add_routes(slipstream::App& app) {
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

    // Who the request came from when --auth is on: {"principal":"alice"}, or null when anonymous.
    app.get("/whoami", [](slipstream::Request& req) {
        std::string_view who = req.principal();
        return slipstream::Response::json(R"({"principal":)" + (who.empty() ? "null" : slipstream::json_quote(who)) +
                                          "}");
    });

    // An asynchronous handler: answers from another thread after `ms` milliseconds (at most 10 s).
    app.route_async("GET", "/delay/{ms:int}", [](slipstream::Request& req, slipstream::Responder responder) {
        long ms = std::strtol(std::string(*req.path_param("ms")).c_str(), nullptr, 10);
        if (ms < 0 || ms > 10'000) {
            responder.send(slipstream::Response::static_json(R"({"detail":"ms must be within 0..10000"})", 400));
            return;
        }
        std::thread([ms, r = std::move(responder)]() mutable {
            std::this_thread::sleep_for(std::chrono::milliseconds(ms));
            r.send(slipstream::Response::json(R"({"delayed_ms":)" + std::to_string(ms) + "}"));
        }).detach();
    });
}

// Streams and WebSocket: /sse/ticks, /ws/echo, /stream/{n}.
void add_streaming_routes(slipstream::App& app) {
    // Server-Sent Events: /sse/ticks?n=5&interval_ms=1000[&heartbeat_ms=..]: n "tick" events from a producer
    // thread, which stops as soon as the client leaves (the cancel callback wakes it).
    app.route_async("GET", "/sse/ticks", [](slipstream::Request& req, slipstream::Responder responder) {
        auto number = [&](const char* name, long fallback, long max) {
            auto v = req.query(name);
            long x = v ? std::strtol(v->c_str(), nullptr, 10) : fallback;
            return x < 0 ? 0 : x > max ? max : x;
        };
        long n = number("n", 5, 1'000'000), interval = number("interval_ms", 1000, 60'000);
        slipstream::EventStreamOptions options;
        if (req.query("heartbeat_ms"))
            options.heartbeat_ms = static_cast<std::uint32_t>(number("heartbeat_ms", 0, 60'000));
        slipstream::EventStream stream(std::move(responder), std::move(options));
        struct Stop {
            std::mutex m;
            std::condition_variable cv;
            bool stop = false;
        };
        auto stop = std::make_shared<Stop>();
        stream.on_cancel([stop] {
            std::lock_guard lock(stop->m);
            stop->stop = true;
            stop->cv.notify_all();
        });
        std::thread([n, interval, stop, s = std::move(stream)]() mutable {
            for (long i = 1; i <= n; ++i) {
                if (!s.send(R"({"tick":)" + std::to_string(i) + "}", "tick", std::to_string(i))) return;
                std::unique_lock lock(stop->m);
                if (i < n && stop->cv.wait_for(lock, std::chrono::milliseconds(interval), [&] { return stop->stop; }))
                    return;  // the client left: stop producing
            }
            s.close();
        }).detach();
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

    // A streamed answer: `n` lines written from another thread, then the end (at most 1000 lines).
    app.route_async("GET", "/stream/{n:int}", [](slipstream::Request& req, slipstream::Responder responder) {
        long n = std::strtol(std::string(*req.path_param("n")).c_str(), nullptr, 10);
        if (n < 0 || n > 1000) {
            responder.send(slipstream::Response::json(R"({"detail":"n must be within 0..1000"})", 400));
            return;
        }
        std::thread([n, r = std::move(responder)]() mutable {
            slipstream::Response head(200);
            head.content_type = "text/plain; charset=utf-8";
            if (!r.start_stream(std::move(head))) return;
            for (long i = 0; i < n; ++i)
                if (!r.write("line " + std::to_string(i) + "\n")) return;
            r.end();
        }).detach();
    });
}

}  // namespace

int main(int argc, char** argv, char** envp) {
    return slipstream::app::serve_main(argc, argv, envp, "hello",
                                       [](slipstream::App& app, const slipstream::app::Config&) {
                                           add_routes(app);
                                           add_streaming_routes(app);
                                       });
}
