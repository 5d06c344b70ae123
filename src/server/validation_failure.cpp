// The two shapes of a validation failure: FastAPI's {"detail":[...]} and RFC 9457 problem+json.
#include "server/validation_failure.h"

#include <string_view>

#include "server/problem.h"

namespace slipstream::server {

namespace {

constexpr std::string_view kDetailPrefix = R"({"detail":)";

}  // namespace

Response validation_failure_response(std::string fastapi_body, bool problem_json) {
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
