// The two styles of answering a request no route takes: problem+json (the engine's) and FastAPI's.
#include "server/conn/route_miss.h"

#include <array>
#include <string>

#include "server/core/problem.h"

namespace slipstream::server {

namespace {

Response with_allow(Response r, std::string_view allow) {
    if (!allow.empty()) r.headers.emplace_back("Allow", std::string(allow));
    return r;
}

Response problem(int status, std::string_view detail, std::string_view allow) {
    Response r(status);
    r.body = problem_body({status, detail});
    r.content_type = std::string(kProblemContentType);
    return with_allow(std::move(r), allow);
}

}  // namespace

Response route_miss_response(MatchOutcome outcome, const RouteMatch& match, bool options_request, bool fastapi_style) {
    bool not_found = outcome == MatchOutcome::kNotFound;
    std::array<char, kAllowBufferSize> buf;
    std::string_view allow =
        not_found ? std::string_view() : format_allow(fastapi_style ? match.declared : match.allowed, buf);
    if (fastapi_style) {
        if (not_found) return Response::json(R"({"detail":"Not Found"})", 404);
        return with_allow(Response::json(R"({"detail":"Method Not Allowed"})", 405), allow);
    }
    if (not_found) return problem(404, "no route matches the path", {});
    if (options_request) return with_allow(Response(204), allow);
    return problem(405, "method not allowed for this path", allow);
}

}  // namespace slipstream::server
