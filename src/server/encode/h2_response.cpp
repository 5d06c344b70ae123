// H2Response: validation and field list of an HTTP/2 response head.
#include "server/encode/h2_response.h"

#include <charconv>

#include "http/h1/header.h"
#include "server/encode/response_encoder.h"

namespace slipstream::server {
namespace {

// Connection-specific fields HTTP/2 forbids (RFC 9113 §8.2.2) besides the framing ones the encoder refuses.
bool connection_specific(std::string_view name) {
    using http::h1::iequals;
    return iequals(name, "keep-alive") || iequals(name, "proxy-connection") || iequals(name, "upgrade");
}

}  // namespace

bool H2Response::build(const Response& r, const H2Context& ctx, bool with_length, std::optional<std::uint64_t> length) {
    fields_.clear();
    // 1xx is never a final response in HTTP/2.
    if (!response_valid(r) || r.status < 200) return false;
    fields_.reserve(r.headers.size() + 5);
    if (!r.content_type.empty()) fields_.push_back({"content-type", r.content_type});
    if (with_length && !h2_bodiless_status(r.status)) {
        auto [end, ec] = std::to_chars(length_, length_ + sizeof length_, length.value_or(r.body.size()));
        fields_.push_back({"content-length", std::string_view(length_, static_cast<std::size_t>(end - length_))});
    }
    if (!ctx.date.empty()) fields_.push_back({"date", ctx.date});
    if (!ctx.server.empty()) fields_.push_back({"server", ctx.server});
    if (!ctx.request_id.empty()) fields_.push_back({"x-request-id", ctx.request_id});
    for (const auto& [name, value] : r.headers) {
        if (connection_specific(name)) continue;
        fields_.push_back({name, value});
    }
    head_bytes_ = 9 + 3;  // frame header and :status
    for (const auto& f : fields_)
        head_bytes_ += f.name.size() + f.value.size() + 2;
    return true;
}

}  // namespace slipstream::server
