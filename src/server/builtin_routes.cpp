// Builtin health, readiness and metrics handlers.
#include "server/builtin_routes.h"

#include "json/writer.h"

namespace slipstream::server {
namespace {

// An application's own GET route for exactly this path replaces the builtin one; a pattern that merely matches it
// ("/{name}", a catch-all) does not: the router prefers the static builtin route over it.
bool has_get_route(const RouteTable& routes, const std::string& path) {
    RouteMatch m;
    return routes.router().match(Method::kGet, path, &m) == MatchOutcome::kFound && m.pattern == path;
}

Response status_ok() {
    return Response::json(R"({"status":"ok"})");
}

Response readiness(const BuiltinContext& ctx) {
    if (ctx.draining->load(std::memory_order_relaxed)) {
        return Response::json(R"({"status":"draining"})", 503);
    }
    std::string failing;
    json::Writer w(failing);
    w.begin_array();
    bool ok = true;
    for (const ReadinessCheck& c : ctx.checks) {
        bool passed = false;
        try {
            passed = c.check();
        } catch (...) {
            passed = false;
        }
        if (!passed) {
            ok = false;
            w.string(c.name);
        }
    }
    w.end_array();
    if (ok) return status_ok();
    return Response::json(R"({"status":"unavailable","failing":)" + failing + "}", 503);
}

}  // namespace

void register_builtin_routes(RouteTable& routes, const ServerOptions& options, const BuiltinContext& ctx) {
    auto add = [&](const std::string& path, Handler handler) {
        if (path.empty() || has_get_route(routes, path)) return;
        routes.add("GET", path, std::move(handler), nullptr);
    };
    add(options.health_path, [](Request&) { return status_ok(); });
    add(options.livez_path, [](Request&) { return status_ok(); });
    add(options.readyz_path, [&ctx](Request&) { return readiness(ctx); });
    add(options.metrics_path, [&ctx](Request&) {
        Response r(200);
        r.content_type = "text/plain; version=0.0.4; charset=utf-8";
        ctx.registry->render(r.body);
        return r;
    });
}

}  // namespace slipstream::server
