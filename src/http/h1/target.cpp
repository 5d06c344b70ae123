// Request-target forms: origin, absolute (http/https, no userinfo), authority (CONNECT), asterisk (OPTIONS).
#include "http/h1/target.h"

#include <cstring>

#include "http/h1/char_class.h"

namespace slipstream::http::h1::detail {
namespace {

constexpr std::string_view kRootPath = "/";

bool has_bracket(std::string_view s) {
    return s.find('[') != std::string_view::npos || s.find(']') != std::string_view::npos;
}

void split_path_query(std::string_view rest, RequestHead* out) {
    const std::size_t q = rest.find('?');
    if (q == std::string_view::npos) {
        out->path = rest;
        out->query = {};
    } else {
        out->path = rest.substr(0, q);
        out->query = rest.substr(q + 1);
    }
}

// host [":" port] with a non-empty host, no userinfo, an IP literal only as a whole "[...]" host.
bool valid_authority(std::string_view a, bool require_port) {
    if (a.empty() || a.find('@') != std::string_view::npos) return false;
    const char* end = a.data() + a.size();
    if (scan_class(a.data(), end, kHostChar) != end) return false;
    std::string_view host = a;
    std::string_view port;
    const std::size_t colon = a.rfind(':');
    const std::size_t bracket = a.rfind(']');
    if (colon != std::string_view::npos && (bracket == std::string_view::npos || colon > bracket)) {
        host = a.substr(0, colon);
        port = a.substr(colon + 1);
        for (char c : port) {
            if (!is_digit(static_cast<unsigned char>(c))) return false;
        }
    }
    if (host.empty() || (require_port && port.empty())) return false;
    if (host.front() == '[') return host.back() == ']' && !has_bracket(host.substr(1, host.size() - 2));
    return !has_bracket(host);
}

const ParseError* split_absolute(std::string_view t, RequestHead* out) {
    // scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ); only http and https identify origin resources.
    std::size_t i = 0;
    while (i < t.size() &&
           (is_alpha(static_cast<unsigned char>(t[i])) ||
            (i > 0 && (is_digit(static_cast<unsigned char>(t[i])) || t[i] == '+' || t[i] == '-' || t[i] == '.')))) {
        ++i;
    }
    const std::string_view scheme = t.substr(0, i);
    if (!(equals_lower(scheme, "http") || equals_lower(scheme, "https"))) return &errors::kBadTarget;
    if (t.substr(i, 3) != "://") return &errors::kBadTarget;
    const std::string_view rest = t.substr(i + 3);
    const std::size_t auth_end = rest.find_first_of("/?");
    const std::string_view authority = rest.substr(0, auth_end);
    // RFC 9110 §4.2.1/§4.2.4: an empty host is invalid and userinfo must be refused.
    if (!valid_authority(authority, false)) return &errors::kBadTarget;
    const std::string_view path_query = auth_end == std::string_view::npos ? std::string_view{} : rest.substr(auth_end);
    if (has_bracket(path_query)) return &errors::kBadTarget;
    split_path_query(path_query, out);
    if (out->path.empty()) out->path = kRootPath;
    out->host = authority;
    out->target_form = TargetForm::kAbsolute;
    return nullptr;
}

}  // namespace

Method classify_method(std::string_view m) {
    switch (m.size()) {
        case 3:
            if (m == "GET") return Method::kGet;
            if (m == "PUT") return Method::kPut;
            break;
        case 4:
            if (m == "POST") return Method::kPost;
            if (m == "HEAD") return Method::kHead;
            break;
        case 5:
            if (m == "PATCH") return Method::kPatch;
            if (m == "TRACE") return Method::kTrace;
            break;
        case 6:
            if (m == "DELETE") return Method::kDelete;
            break;
        case 7:
            if (m == "OPTIONS") return Method::kOptions;
            if (m == "CONNECT") return Method::kConnect;
            break;
        default:
            break;
    }
    return Method::kOther;
}

const ParseError* split_target(bool has_brackets, RequestHead* out) {
    const std::string_view t = out->target;
    if (out->method_id == Method::kConnect) {
        // RFC 9112 §3.2.3: CONNECT uses authority-form (host:port) and only it.
        if (!valid_authority(t, true) || t.find_first_of("/?") != std::string_view::npos) return &errors::kBadTarget;
        out->target_form = TargetForm::kAuthority;
        out->path = {};
        out->query = {};
        out->host = t;
        return nullptr;
    }
    if (t.front() == '/') {
        if (has_brackets) return &errors::kBadTarget;
        out->target_form = TargetForm::kOrigin;
        split_path_query(t, out);
        return nullptr;
    }
    if (t == "*") {
        // RFC 9112 §3.2.4: asterisk-form is only for a server-wide OPTIONS.
        if (out->method_id != Method::kOptions) return &errors::kBadTarget;
        out->target_form = TargetForm::kAsterisk;
        out->path = t;
        out->query = {};
        return nullptr;
    }
    return split_absolute(t, out);
}

}  // namespace slipstream::http::h1::detail
