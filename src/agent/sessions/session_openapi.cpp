// The session routes' OpenAPI descriptions: what each answers (session_json.h's shapes) and its problem statuses.
#include "agent/sessions/session_openapi.h"

#include <string>

namespace slipstream::agent::sessions {

namespace {

constexpr const char* kSession =
    R"({"type":"object","properties":{"id":{"type":"string"},"owner":{"type":"string"},"metadata":{"type":"object"},)"
    R"("state_version":{"type":"integer"},"last_seq":{"type":"integer"},"ttl_ms":{"type":"integer"},)"
    R"("created_at":{"type":"integer","description":"epoch milliseconds"},"updated_at":{"type":"integer"},)"
    R"("expires_at":{"type":"integer"}},"required":["id","owner","metadata","state_version","last_seq","ttl_ms",)"
    R"("created_at","updated_at","expires_at"]})";

std::string session_page() {
    return std::string(R"({"type":"object","properties":{"sessions":{"type":"array","items":)") + kSession +
           R"(},"next_after":{"type":["string","null"],"description":"the cursor of the next page; null on the last"}},)"
           R"("required":["sessions","next_after"]})";
}

constexpr const char* kAppended =
    R"({"type":"object","properties":{"first_seq":{"type":"integer"},"last_seq":{"type":"integer"},)"
    R"("replayed":{"type":"boolean","description":"true: the Idempotency-Key was seen; nothing was added"}},)"
    R"("required":["first_seq","last_seq","replayed"]})";

constexpr const char* kEventPage =
    R"({"type":"object","properties":{"events":{"type":"array","items":{"type":"object","properties":)"
    R"({"seq":{"type":"integer"},"role":{"type":"string"},"content":{},"created_at":{"type":"integer"}},)"
    R"("required":["seq","role","content","created_at"]}},"last_seq":{"type":"integer"},)"
    R"("next_after":{"type":"integer","description":"the after= of the next page"}},)"
    R"("required":["events","last_seq","next_after"]})";

OperationDoc doc(std::string summary, std::string response_schema, std::vector<int> problems, bool created = false) {
    OperationDoc d;
    d.summary = std::move(summary);
    d.response_schema = std::move(response_schema);
    d.problems = std::move(problems);
    d.created = created;
    return d;
}

}  // namespace

OperationDoc session_operation_doc(std::string_view method, std::string_view suffix) {
    const std::string m(method);
    if (suffix.empty()) {
        if (m == "POST") return doc("Create a session owned by the caller", kSession, {401, 409, 413}, true);
        if (m == "GET") return doc("The caller's sessions, in id order, a page at a time", session_page(), {401});
        return doc("Delete every session of the caller",
                   R"({"type":"object","properties":{"deleted":{"type":"integer"}},"required":["deleted"]})", {401});
    }
    if (suffix == "/{id}") {
        if (m == "GET") return doc("A session", kSession, {401, 403, 404});
        OperationDoc d = doc("Delete a session with its events and state", "", {401, 403, 404});
        d.no_content = true;
        return d;
    }
    if (suffix == "/{id}/events") {
        if (m == "POST")
            return doc(
                "Append one event ({role, content}) or a batch ({events: [...]}); 200 when the "
                "Idempotency-Key was seen (nothing added), 503 with Retry-After when the buffered queue is full",
                kAppended, {401, 403, 404, 409, 413}, true);
        OperationDoc d =
            doc("Events after a seq, oldest first; with follow=1 a text/event-stream of the backlog then "
                "live events (id: seq; Last-Event-ID resumes)",
                kEventPage, {400, 401, 403, 404});
        d.response_media = {"application/json", "text/event-stream"};
        return d;
    }
    if (suffix == "/{id}/state") {
        if (m == "GET") return doc("The state document (ETag: its version)", "{}", {401, 403, 404});
        if (m == "PUT")
            return doc("Replace the state document; If-Match \"<version>\" guards it (409 with the current version)",
                       "{}", {400, 401, 403, 404, 409, 413});
        return doc("Apply a JSON merge patch (RFC 7396) to the state document; If-Match as PUT", "{}",
                   {400, 401, 403, 404, 409, 413});
    }
    return doc(m + " " + std::string(suffix), "", {});
}

}  // namespace slipstream::agent::sessions
