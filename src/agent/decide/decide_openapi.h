// The decision service's OpenAPI document: agent/sessions' route_openapi.h with every operation tagged "decide".
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "agent/sessions/route_openapi.h"

namespace slipstream::agent::decide {

using sessions::OperationDoc;

/// The "paths" object of OpenAPI 3.1 for `ops` (JSON). Problem answers refer to #/components/schemas/Problem.
inline std::string openapi_paths(const std::vector<OperationDoc>& ops) {
    return sessions::openapi_paths(ops, "decide");
}
/// The "components" object the paths refer to (JSON).
inline std::string openapi_components() {
    return sessions::openapi_components();
}
/// A whole document: openapi 3.1.0, info {title, version}, the paths and components.
inline std::string openapi_document(const std::vector<OperationDoc>& ops, std::string_view title,
                                    std::string_view version) {
    return sessions::openapi_document(ops, title, version, "decide");
}

}  // namespace slipstream::agent::decide
