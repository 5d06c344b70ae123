// validation_failure_response(): the 422 of a request that failed its route's RouteSpec, for h1 and h2.
#pragma once

#include <string>

#include "slipstream/response.h"

namespace slipstream::server {

/// `fastapi_body` is the validator's {"detail":[...]} document. With `problem_json`
/// (ServerOptions::validation_problem_json) the same errors are sent as application/problem+json:
/// {"type":"about:blank","title":"Unprocessable Content","status":422,"detail":...,"errors":[...]}.
Response validation_failure_response(std::string fastapi_body, bool problem_json);

}  // namespace slipstream::server
