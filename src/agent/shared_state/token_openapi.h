// token_operation_docs(): the OpenAPI description of the token administration routes (token_routes.h).
#pragma once

#include <string_view>
#include <vector>

#include "agent/sessions/route_openapi.h"

namespace slipstream::agent::shared_state {

/// One OperationDoc per route under `prefix` ("/admin/tokens"): POST and GET prefix, GET and DELETE prefix/{id},
/// each with its body and answer schemas and the statuses it answers as problem+json.
std::vector<sessions::OperationDoc> token_operation_docs(std::string_view prefix);

/// The routes' whole OpenAPI 3.1 document (title "API tokens", every operation tagged "tokens").
std::string token_openapi_document(std::string_view prefix);

}  // namespace slipstream::agent::shared_state
