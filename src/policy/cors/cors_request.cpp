// CorsRequest::scan: Origin and the Access-Control-Request-* fields.
#include "policy/cors/cors_request.h"

namespace slipstream::policy::cors {
namespace {

void keep_first(std::optional<std::string_view>& slot, std::string_view value) {
    if (!slot) slot = value;
}

}  // namespace

CorsRequest CorsRequest::scan(std::span<const http::h1::Header> headers) {
    namespace h1 = http::h1;
    CorsRequest r;
    for (const h1::Header& h : headers) {
        switch (h.name.size()) {
            case 6:
                if (h1::iequals(h.name, "origin")) keep_first(r.origin, h.value);
                break;
            case 29:
                if (h1::iequals(h.name, "access-control-request-method")) keep_first(r.request_method, h.value);
                break;
            case 30:
                if (h1::iequals(h.name, "access-control-request-headers")) keep_first(r.request_headers, h.value);
                break;
            case 38:
                if (h1::iequals(h.name, "access-control-request-private-network")) r.request_private_network = true;
                break;
            default:
                break;
        }
    }
    return r;
}

}  // namespace slipstream::policy::cors
