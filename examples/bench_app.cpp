// The C++ benchmark contender: every workload of bench/ (hello, echo, validated, params, large, ws) on the public API.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "app/serve_main.h"
#include "slipstream/json.h"
#include "slipstream/slipstream.h"
#include "slipstream/websocket.h"

namespace {

// The validated workload's model: name: str, price: float (gt=0), tags: list[str].
constexpr const char* kItemSchema =
    R"({"type":"object","properties":{"name":{"type":"string"},"price":{"type":"number","exclusiveMinimum":0},)"
    R"("tags":{"type":"array","items":{"type":"string"}}},"required":["name","price","tags"]})";
constexpr const char* kIntSchema = R"({"type":"integer"})";

// The 64 KiB document, read once at start-up from the file named by BENCH_LARGE_FILE.
std::string read_large_document() {
    const char* path = std::getenv("BENCH_LARGE_FILE");
    if (path == nullptr || *path == '\0') return {};
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(std::string("cannot read BENCH_LARGE_FILE ") + path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

slipstream::BodySpec body(const char* name, const char* schema) {
    slipstream::BodySpec b;
    b.name = name;
    b.schema_json = schema;
    return b;
}

slipstream::ParamSpec param(const char* name, slipstream::ParamSource source, const char* default_json) {
    slipstream::ParamSpec p;
    p.name = name;
    p.source = source;
    p.schema_json = kIntSchema;
    p.required = default_json == nullptr;
    if (default_json != nullptr) p.default_json = default_json;
    return p;
}

slipstream::RouteSpec item_spec() {
    slipstream::RouteSpec spec;
    spec.body.push_back(body("item", kItemSchema));
    return spec;
}

slipstream::RouteSpec params_spec() {
    using slipstream::ParamSource;
    slipstream::RouteSpec spec;
    spec.params.push_back(param("user_id", ParamSource::kPath, nullptr));
    spec.params.push_back(param("limit", ParamSource::kQuery, "10"));
    spec.params.push_back(param("offset", ParamSource::kQuery, "0"));
    return spec;
}

void add_routes(slipstream::App& app) {
    using slipstream::Request;
    using slipstream::Response;
    app.get("/hello", [](Request&) { return Response::static_json(R"({"message":"hello"})"); });
    app.post("/echo", [](Request& req) {
        auto body = slipstream::json_reformat(req.body());
        if (!body) return Response::static_json(R"({"detail":"invalid JSON body"})", 400);
        return Response::json(std::move(*body));
    });
    app.route(
        "POST", "/items",
        [](Request& req) { return Response::json(slipstream::json_write(req.arguments().get("item"))); }, item_spec());
    app.route(
        "GET", "/users/{user_id}/items",
        [](Request& req) {
            auto args = req.arguments();
            std::string out = R"({"user_id":)" + std::to_string(args.get("user_id").as_int()) + R"(,"limit":)" +
                              std::to_string(args.get("limit").as_int()) + R"(,"offset":)" +
                              std::to_string(args.get("offset").as_int()) + "}";
            return Response::json(std::move(out));
        },
        params_spec());
    // ws: every message goes back as it came (text or binary). The bench keeps one small message in flight per
    // connection, so the send queue never fills (a dropped echo would stall that connection, seen as fewer msg/s).
    slipstream::WebSocketHandler echo_ws;
    echo_ws.on_message = [](slipstream::WebSocket& ws, std::string_view data, bool is_text) {
        (void)(is_text ? ws.send_text(data) : ws.send_binary(data));
    };
    app.websocket("/ws", std::move(echo_ws));
    auto large = std::make_shared<const std::string>(read_large_document());
    if (!large->empty()) {
        app.get("/large", [large](Request&) { return Response::json(std::string(*large)); });
    }
}

}  // namespace

int main(int argc, char** argv, char** envp) {
    return slipstream::app::serve_main(argc, argv, envp, "bench_app",
                                       [](slipstream::App& app, const slipstream::app::Config&) { add_routes(app); });
}
