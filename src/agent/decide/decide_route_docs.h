// route_docs: the OpenAPI description (summary, answer schema, problem statuses) of each decision route; the
// routes add their RouteSpec (parameters and body schemas) when they register (decide_routes.cpp).
#pragma once

#include "agent/decide/decide_openapi.h"

namespace slipstream::agent::decide::route_docs {

OperationDoc get_spec();
OperationDoc put_spec();  // JSON or YAML bodies; 201 for a new capsule
OperationDoc decide();
OperationDoc decide_batch();
OperationDoc reward();
OperationDoc reward_batch();
OperationDoc decisions();  // JSON pages or the JSON-lines export
OperationDoc decision();
OperationDoc model();  // ETag, 304
OperationDoc evaluate();
OperationDoc promote();

}  // namespace slipstream::agent::decide::route_docs
