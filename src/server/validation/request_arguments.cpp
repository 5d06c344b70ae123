// Request::arguments() and Request::cookie(): the validated arguments and cookie lookup.
#include "base/ows.h"
#include "http/h1/header.h"
#include "server/core/request_state.h"
#include "server/validation/json_node.h"
#include "slipstream/request.h"

namespace slipstream {
namespace {

using base::trim_ows;

}  // namespace

JsonView Request::arguments() const {
    return detail::view_of(state_->arguments);
}

std::optional<std::string_view> Request::cookie(std::string_view name) const {
    for (const http::h1::Header& h : state_->headers) {
        if (!http::h1::iequals(h.name, "cookie")) continue;
        std::string_view rest = h.value;
        while (!rest.empty()) {
            std::size_t semi = rest.find(';');
            std::string_view pair = rest.substr(0, semi);
            rest = semi == std::string_view::npos ? std::string_view() : rest.substr(semi + 1);
            std::size_t eq = pair.find('=');
            if (eq == std::string_view::npos) continue;
            if (trim_ows(pair.substr(0, eq)) == name) return trim_ows(pair.substr(eq + 1));
        }
    }
    return std::nullopt;
}

}  // namespace slipstream
