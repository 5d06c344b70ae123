// Rendering engine errors as RFC 9457 problem documents.
#include "server/core/problem.h"

#include "http/h1/reason_phrase.h"
#include "json/writer.h"

namespace slipstream::server {

std::string problem_body(const HttpError& error) {
    std::string out;
    out.reserve(96 + error.detail.size());
    json::Writer w(out);
    w.begin_object();
    w.key("type");
    w.string("about:blank");
    w.key("title");
    std::string_view title = http::h1::reason_phrase(error.status);
    w.string(title.empty() ? "Error" : title);
    w.key("status");
    w.int64(error.status);
    if (!error.detail.empty()) {
        w.key("detail");
        w.string(error.detail);
    }
    w.end_object();
    return out;
}

}  // namespace slipstream::server
