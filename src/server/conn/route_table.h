// RouteTable: the router plus the handler of each route id.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "router/router.h"
#include "server/validation/route_validator.h"
#include "slipstream/app.h"

namespace slipstream::server {

/// One route's handler: exactly one of `sync` and `async` is set.
struct RouteEntry {
    std::string method;
    std::string pattern;
    Handler sync;
    AsyncHandler async;
    std::unique_ptr<RouteValidator> validator;          // set for routes registered with a RouteSpec
    std::shared_ptr<const WebSocketHandler> websocket;  // a WebSocket route (then sync and async are empty)
};

/// Built on one thread before the server starts, then read-only and shared by every I/O thread.
class RouteTable {
  public:
    /// Throws std::invalid_argument for an unknown method, a bad pattern or a conflicting route.
    void add(std::string_view method, std::string_view pattern, Handler sync, AsyncHandler async,
             std::unique_ptr<RouteValidator> validator = nullptr);

    /// A GET route that upgrades to WebSocket. Throws like add().
    void add_websocket(std::string_view pattern, WebSocketHandler handler);

    const Router& router() const { return router_; }
    const RouteEntry& entry(RouteId id) const { return entries_[id]; }
    std::size_t size() const { return entries_.size(); }

  private:
    Router router_;
    std::vector<RouteEntry> entries_;
};

}  // namespace slipstream::server
