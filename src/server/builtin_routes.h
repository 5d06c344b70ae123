// The engine's own routes: /health, /livez, /readyz, /metrics.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "metrics/registry.h"
#include "server/conn/route_table.h"
#include "slipstream/server_options.h"

namespace slipstream::server {

struct ReadinessCheck {
    std::string name;
    std::function<bool()> check;
};

/// What the builtin handlers read. Owned by the Server; outlives the routes.
struct BuiltinContext {
    const metrics::Registry* registry = nullptr;
    const std::atomic<bool>* draining = nullptr;
    std::vector<ReadinessCheck> checks;
};

/// Adds each builtin route whose path is set in `options`, unless the application registered a GET
/// route on that path itself (the application's route wins).
void register_builtin_routes(RouteTable& routes, const ServerOptions& options, const BuiltinContext& ctx);

}  // namespace slipstream::server
