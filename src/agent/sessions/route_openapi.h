// An OpenAPI 3.1 document of a built-in service's routes (sessions, decisions), built from the RouteSpecs they are
// validated with.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "slipstream/route_spec.h"

namespace slipstream::agent::sessions {

/// One operation as mounted: the RouteSpec is the one requests are validated with, so the document states exactly
/// what the server accepts (a body schema of `{}` is replaced by `body_doc_schema` when that is set: a body the
/// handler checks itself, such as a spec patch).
struct OperationDoc {
    std::string method;  // "GET", "POST", ...
    std::string path;    // the route template, e.g. /v1/tenants/{tenant}/...
    std::string summary;
    RouteSpec route;
    std::string body_doc_schema;  // JSON Schema shown instead of an accept-all body schema; empty: none
    std::string response_schema;  // JSON Schema of the 200 (or 201) answer; empty: any JSON object
    std::vector<int> problems;    // statuses answered as problem+json besides 422
    bool created = false;         // PUT answering 201 for a new resource
    bool no_content = false;      // answered 204 without a body
    bool not_modified = false;    // If-None-Match -> 304
    std::vector<std::string> request_media = {"application/json"};   // the body's media types, one schema
    std::vector<std::string> response_media = {"application/json"};  // the 200's media types
};

/// The reason phrase of an HTTP status the built-in services answer ("Internal Server Error" for others).
std::string_view status_reason(int status);
/// The "paths" object of OpenAPI 3.1 for `ops` (JSON), each operation tagged `tag`. Problem answers refer to
/// #/components/schemas/Problem.
std::string openapi_paths(const std::vector<OperationDoc>& ops, std::string_view tag);
/// The "components" object the paths refer to (JSON).
std::string openapi_components();
/// A whole document: openapi 3.1.0, info {title, version}, the paths and components.
std::string openapi_document(const std::vector<OperationDoc>& ops, std::string_view title, std::string_view version,
                             std::string_view tag);

}  // namespace slipstream::agent::sessions
