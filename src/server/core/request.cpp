// The public Request accessors, over RequestState.
#include "slipstream/request.h"

#include <array>
#include <vector>

#include "http/h1/decode.h"
#include "server/core/request_state.h"

namespace slipstream {

std::string_view Request::method() const {
    return state_->method;
}
std::string_view Request::path() const {
    return state_->path;
}
std::string_view Request::target() const {
    return state_->target;
}
std::string_view Request::query_string() const {
    return state_->query;
}
std::string_view Request::route() const {
    return state_->match.pattern;
}
std::string_view Request::version() const {
    if (state_->http2) return "HTTP/2";
    return state_->version == http::h1::Version::kHttp10 ? "HTTP/1.0" : "HTTP/1.1";
}
std::string_view Request::body() const {
    return state_->body;
}
std::string_view Request::request_id() const {
    return state_->request_id;
}
std::string_view Request::principal() const {
    return state_->principal;
}

std::string_view Request::scopes() const {
    return state_->scopes;
}

bool Request::scoped() const {
    return state_->scoped;
}
std::string Request::peer() const {
    return state_->peer != nullptr ? state_->peer->to_string() : std::string();
}

std::optional<std::string_view> Request::path_param(std::string_view name) const {
    const server::RouteParam* p = state_->match.find(name);
    if (p == nullptr) return std::nullopt;
    return p->value;
}

std::optional<std::string> Request::query(std::string_view name) const {
    std::string_view raw = state_->query;
    if (raw.empty()) return std::nullopt;
    std::vector<char> scratch(raw.size());
    std::vector<http::h1::QueryParam> params(raw.size() / 2 + 1);
    auto result = http::h1::parse_query(raw, scratch, params);
    if (result.status != http::h1::DecodeStatus::kOk) return std::nullopt;
    for (std::size_t i = 0; i < result.count; ++i) {
        if (params[i].key == name) return std::string(params[i].value);
    }
    return std::nullopt;
}

std::optional<std::string_view> Request::header(std::string_view name) const {
    for (const auto& h : state_->headers) {
        if (http::h1::iequals(h.name, name)) return h.value;
    }
    return std::nullopt;
}

void Request::for_each_header(const std::function<void(std::string_view, std::string_view)>& fn) const {
    for (const auto& h : state_->headers)
        fn(h.name, h.value);
}

}  // namespace slipstream
