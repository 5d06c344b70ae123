// problem(), problem_for(): the one place where a SessionError becomes a status and a body.
#include "agent/sessions/session_problem.h"

#include <string>

#include "agent/sessions/route_openapi.h"
#include "base/log.h"
#include "json/writer.h"

namespace slipstream::agent::sessions {

namespace {

// The common members; the caller adds its own and closes the object.
void open_problem(json::Writer& w, int status, std::string_view detail) {
    w.begin_object();
    w.key("type");
    w.string("about:blank");
    w.key("title");
    w.string(status_reason(status));
    w.key("status");
    w.int64(status);
    w.key("detail");
    w.string(detail);
}

Response finish(std::string body, int status) {
    Response r(status);
    r.body = std::move(body);
    r.content_type = ContentType::constant("application/problem+json");
    return r;
}

bool is_size_limit(std::string_view limit) {
    return limit == "event_bytes" || limit == "state_bytes" || limit == "metadata_bytes" || limit == "batch_events";
}

}  // namespace

std::string state_etag(std::int64_t version) {
    return "\"" + std::to_string(version) + "\"";
}

Response problem(int status, std::string_view detail) {
    std::string body;
    json::Writer w(body);
    open_problem(w, status, detail);
    w.end_object();
    return finish(std::move(body), status);
}

Response validation_problem(std::string_view forwarded_body) {
    constexpr std::string_view kDetailPrefix = R"({"detail":[)";
    if (!forwarded_body.starts_with(kDetailPrefix) || !forwarded_body.ends_with("]}"))
        return problem(400, "the body could not be parsed");
    std::string body;
    json::Writer w(body);
    open_problem(w, 422, "the request did not validate; see errors");
    w.key("errors");
    w.raw(forwarded_body.substr(kDetailPrefix.size() - 1, forwarded_body.size() - kDetailPrefix.size()));
    w.end_object();
    return finish(std::move(body), 422);
}

Response problem_for(const SessionError& error) {
    switch (error.code) {
        case SessionErrorCode::kNotFound:
            return problem(404, error.detail);
        case SessionErrorCode::kForbidden:
            return problem(403, error.detail);
        case SessionErrorCode::kInvalid:
            return problem(422, error.detail);
        case SessionErrorCode::kConflict: {
            std::string body;
            json::Writer w(body);
            open_problem(w, 409, error.detail);
            w.key("current_version");
            w.int64(error.current_version);
            w.end_object();
            return finish(std::move(body), 409).with_header("ETag", state_etag(error.current_version));
        }
        case SessionErrorCode::kLimit: {
            const int status = is_size_limit(error.limit) ? 413 : 409;
            std::string body;
            json::Writer w(body);
            open_problem(w, status, error.detail);
            w.key("limit");
            w.string(error.limit);
            w.key("max");
            w.uint64(error.limit_value);
            w.end_object();
            return finish(std::move(body), status);
        }
        case SessionErrorCode::kUnavailable:
            base::log_message(base::LogLevel::kWarn, "session store unavailable: " + error.detail);
            return problem(503, "the session store is unavailable; try again").with_header("Retry-After", "1");
        case SessionErrorCode::kBusy:
            return problem(503, error.detail).with_header("Retry-After", std::to_string(error.retry_after_s));
        case SessionErrorCode::kInternal:
            break;
    }
    base::log_message(base::LogLevel::kError, "session store error: " + error.detail);
    return problem(500, "internal error");
}

}  // namespace slipstream::agent::sessions
