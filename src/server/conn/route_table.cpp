// Route registration.
#include "server/conn/route_table.h"

#include <stdexcept>

namespace slipstream::server {

void RouteTable::add(std::string_view method, std::string_view pattern, Handler sync, AsyncHandler async,
                     std::unique_ptr<RouteValidator> validator) {
    Method m = parse_method(method);
    if (m == Method::kOther) throw std::invalid_argument("unknown HTTP method '" + std::string(method) + "'");
    if (!sync == !async) throw std::invalid_argument("a route needs exactly one handler");
    auto id = static_cast<RouteId>(entries_.size());
    router_.add(m, pattern, id);
    entries_.push_back(
        {std::string(method), std::string(pattern), std::move(sync), std::move(async), std::move(validator), nullptr});
}

void RouteTable::add_websocket(std::string_view pattern, WebSocketHandler handler) {
    auto id = static_cast<RouteId>(entries_.size());
    router_.add(Method::kGet, pattern, id);
    RouteEntry entry;
    entry.method = "GET";
    entry.pattern = std::string(pattern);
    entry.websocket = std::make_shared<const WebSocketHandler>(std::move(handler));
    entries_.push_back(std::move(entry));
}

}  // namespace slipstream::server
