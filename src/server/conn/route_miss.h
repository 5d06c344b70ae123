// route_miss_response(): the answer to a request no route takes (404, 405 with Allow, OPTIONS), for h1 and h2.
#pragma once

#include <string_view>

#include "router/route_match.h"
#include "slipstream/response.h"

namespace slipstream::server {

/// `outcome` and `match` are the router's answer (not kFound): no route matches the path (404), or the path
/// matches under other methods (405 with Allow, or 204 for OPTIONS in the default style). `fastapi_style`
/// (ServerOptions::fastapi_route_errors): FastAPI's bodies, and Allow lists only the declared methods.
Response route_miss_response(MatchOutcome outcome, const RouteMatch& match, bool options_request, bool fastapi_style);

}  // namespace slipstream::server
