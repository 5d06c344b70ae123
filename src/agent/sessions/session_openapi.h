// session_operation_doc(): the OpenAPI description of each session route (summary, answer schema, statuses).
#pragma once

#include <string_view>

#include "agent/sessions/route_openapi.h"

namespace slipstream::agent::sessions {

/// The description of `method` on the route `suffix` under the prefix ("", "/{id}", "/{id}/events",
/// "/{id}/state"); the caller adds the path and the RouteSpec it registers. An unknown pair gets only a summary.
OperationDoc session_operation_doc(std::string_view method, std::string_view suffix);

}  // namespace slipstream::agent::sessions
