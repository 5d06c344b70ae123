// The two shapes of a validation failure: FastAPI's {"detail":[...]} and RFC 9457 problem+json.
#include "server/conn/validation_failure.h"

#include <string_view>

#include "server/core/problem.h"
#include "server/validation/route_validator.h"

namespace slipstream::server {

namespace {

constexpr std::string_view kDetailPrefix = R"({"detail":)";

}  // namespace

Response validation_failure_response(std::string fastapi_body, bool problem_json) {
    // A body Python could not read at all (not UTF-8, nested too deep): FastAPI's 400, in either shape.
    if (fastapi_body == kBodyParseErrorBody) {
        if (!problem_json) return Response::json(std::move(fastapi_body), 400);
        Response r(400);
        r.body = problem_body({400, "There was an error parsing the body"});
        r.content_type = std::string(kProblemContentType);
        return r;
    }
    if (!problem_json || !fastapi_body.starts_with(kDetailPrefix) || !fastapi_body.ends_with('}')) {
        return Response::json(std::move(fastapi_body), 422);
    }
    std::string_view errors(fastapi_body);
    errors = errors.substr(kDetailPrefix.size(), errors.size() - kDetailPrefix.size() - 1);
    std::string body = problem_body({422, "the request did not validate; see errors"});
    body.pop_back();  // the closing brace: the errors member follows
    body.append(R"(,"errors":)").append(errors).push_back('}');
    Response r(422);
    r.body = std::move(body);
    r.content_type = std::string(kProblemContentType);
    return r;
}

}  // namespace slipstream::server
